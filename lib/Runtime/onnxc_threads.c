/*===- onnxc_threads.c - The intra-op thread pool of a compiled model -----===*
 *
 * The generated code runs the iterations of its parallel loops (tiles of
 * matmuls and convolutions, rows of elementwise ops) through
 * onnxc_rt_parallel_for. The calling thread works too; onnxc_num_threads - 1
 * workers, started on first use, take chunks of iterations: each first
 * from its own share of the loop (participant p of P: iterations
 * [p n / P, (p + 1) n / P)), then from the others' shares (so the share of
 * a late or slow thread is finished by the rest). The shares keep a thread
 * on the same part of consecutive ops (a conv's filter blocks, then the
 * same channels of the elementwise op after it); a single shared counter
 * handed chunks out in arrival order.
 * Loop bodies that run here never allocate and never fail a check (the
 * compiler runs such loops serially), so they need no run context.
 *
 * A worker joins a loop only while it is open: the caller closes it when
 * every iteration has been handed out, and then waits only for the workers
 * that joined (they finish the chunks they took). A worker that is late
 * (asleep, or its CPU taken by the host or another process) costs the
 * caller nothing: the caller runs the late worker's share itself.
 *
 * One parallel loop runs at a time: a caller that finds the pool busy (a
 * second thread calling onnxc_run at the same time) runs its loop on its
 * own. While a run is in progress the idle workers spin (as ONNX Runtime's
 * do), so that its many short loops do not each pay a wake-up; after the
 * run they spin a little longer, then sleep.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "onnxc/Runtime/onnxc_runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_THREADS 256
/* Iterations of polling before a worker sleeps, and before the caller
 * waits for the last workers to finish. */
#define SPIN_ROUNDS 20000

typedef void (*onnxc_task)(void *ctx, int64_t begin, int64_t end);

/* One round of a spin-wait. Every 256 rounds the thread yields: when the
 * CPUs are oversubscribed (other processes, more callers than cores), the
 * thread being waited for may need this one's CPU to make progress. */
static void spin_pause(int round) {
  if ((round & 255) == 255)
    sched_yield();
  else
    __builtin_ia32_pause();
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_done_cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t g_dispatch = PTHREAD_MUTEX_INITIALIZER;

static int g_num_threads; /* 0: not decided yet */
static pthread_t g_workers[MAX_THREADS];
static int g_num_workers;
static int g_shutdown;

/* The current loop. g_generation changes (under g_lock) when one starts. */
static onnxc_task g_fn;
static void *g_ctx;
static int64_t g_chunk;
/* Each participant's share: the next iteration to hand out (atomic) and
 * the end, a cache line each. */
typedef struct {
  int64_t next, end;
  char pad[64 - 2 * sizeof(int64_t)];
} share;
static share g_shares[MAX_THREADS] __attribute__((aligned(64)));
static int g_parts;
static unsigned g_generation;
static int g_runs_active; /* atomic: runs in progress (workers keep spinning) */
static int g_helpers; /* workers 0 .. g_helpers-1 may join the loop */
/* The current loop's generation (high 32 bits), whether it is open to
 * joining (bit 31) and how many joined workers still run it (low bits). */
static uint64_t g_state;
#define STATE_OPEN ((uint64_t)1 << 31)
#define STATE_ACTIVE (STATE_OPEN - 1)

static int available_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static int default_threads(void) {
  const char *env = getenv("ONNXC_NUM_THREADS");
  if (env && *env) {
    char *end;
    long n = strtol(env, &end, 10);
    if (*end == '\0' && n >= 1)
      return n > MAX_THREADS ? MAX_THREADS : (int)n;
  }
  int n = available_cpus();
  return n > MAX_THREADS ? MAX_THREADS : n;
}

static int current_threads(void) {
  int n = __atomic_load_n(&g_num_threads, __ATOMIC_ACQUIRE);
  if (n)
    return n;
  pthread_mutex_lock(&g_lock);
  if (!g_num_threads)
    __atomic_store_n(&g_num_threads, default_threads(), __ATOMIC_RELEASE);
  n = g_num_threads;
  pthread_mutex_unlock(&g_lock);
  return n;
}

EXPORT int onnxc_set_num_threads(int n) {
  int previous = current_threads();
  if (n >= 1)
    __atomic_store_n(&g_num_threads, n > MAX_THREADS ? MAX_THREADS : n,
                     __ATOMIC_RELEASE);
  return previous;
}

EXPORT int onnxc_get_num_threads(void) { return current_threads(); }

/* Participant `self` of `parts` runs chunks of its own share, then of
 * the others', until none is left. */
static void work(onnxc_task fn, void *ctx, int self, int parts,
                 int64_t chunk) {
  for (int i = 0; i < parts; ++i) {
    share *s = &g_shares[(self + i) % parts];
    for (;;) {
      int64_t begin = __atomic_fetch_add(&s->next, chunk, __ATOMIC_RELAXED);
      if (begin >= s->end)
        break;
      int64_t end = begin + chunk < s->end ? begin + chunk : s->end;
      fn(ctx, begin, end);
    }
  }
}

/* Joins loop `generation` if it is still open. */
static int join(unsigned generation) {
  uint64_t state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  for (;;) {
    if ((unsigned)(state >> 32) != generation || !(state & STATE_OPEN))
      return 0;
    if (__atomic_compare_exchange_n(&g_state, &state, state + 1, 1,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return 1;
  }
}

static void *worker_main(void *arg) {
  int id = (int)(intptr_t)arg;
  unsigned seen = 0;
  for (;;) {
    /* Wait for a new loop: spin while a run is in progress (its next loop
     * comes soon: a sleeping worker would cost a wake-up per loop) and a
     * little after, then sleep. */
    int spins = 0;
    while (__atomic_load_n(&g_generation, __ATOMIC_ACQUIRE) == seen &&
           !__atomic_load_n(&g_shutdown, __ATOMIC_ACQUIRE) &&
           (spins < SPIN_ROUNDS ||
            __atomic_load_n(&g_runs_active, __ATOMIC_ACQUIRE) > 0)) {
      spin_pause(spins);
      ++spins;
    }
    pthread_mutex_lock(&g_lock);
    while (g_generation == seen && !g_shutdown &&
           __atomic_load_n(&g_runs_active, __ATOMIC_ACQUIRE) == 0)
      pthread_cond_wait(&g_wake, &g_lock);
    if (g_generation == seen && !g_shutdown) { /* a run began: spin again */
      pthread_mutex_unlock(&g_lock);
      continue;
    }
    if (g_shutdown) {
      pthread_mutex_unlock(&g_lock);
      return NULL;
    }
    seen = g_generation;
    int wanted = id < g_helpers; /* fewer threads wanted than started? */
    pthread_mutex_unlock(&g_lock);
    if (!wanted || !join(seen))
      continue;

    /* Joined: the loop's fields stay as they are until this worker leaves. */
    work(g_fn, g_ctx, id + 1, g_parts, g_chunk);

    uint64_t left = __atomic_sub_fetch(&g_state, 1, __ATOMIC_ACQ_REL);
    if ((left & (STATE_ACTIVE | STATE_OPEN)) == 0) {
      /* The last one out of a closed loop: the caller may be waiting. */
      pthread_mutex_lock(&g_lock);
      pthread_cond_signal(&g_done_cond);
      pthread_mutex_unlock(&g_lock);
    }
  }
}

/* Starts workers up to `wanted` (under g_lock). */
static void start_workers(int wanted) {
  while (g_num_workers < wanted) {
    if (pthread_create(&g_workers[g_num_workers], NULL, worker_main,
                       (void *)(intptr_t)g_num_workers))
      break; /* fewer workers: the loops still run */
    ++g_num_workers;
  }
}

void onnxc_rt_parallel_for(onnxc_task fn, void *ctx, int64_t n) {
  if (n <= 0)
    return;
  int threads = current_threads();
  if (threads <= 1 || n == 1 || pthread_mutex_trylock(&g_dispatch) != 0) {
    fn(ctx, 0, n);
    return;
  }
  pthread_mutex_lock(&g_lock);
  start_workers(threads - 1);
  int helpers = g_num_workers < threads - 1 ? g_num_workers : threads - 1;
  if (helpers == 0) {
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_dispatch);
    fn(ctx, 0, n);
    return;
  }
  /* Chunks of about n / (4 x threads) iterations balance the load. */
  int64_t chunk = n / (4 * (int64_t)threads);
  g_fn = fn;
  g_ctx = ctx;
  g_chunk = chunk > 0 ? chunk : 1;
  g_parts = helpers + 1;
  for (int p = 0; p < g_parts; ++p) {
    __atomic_store_n(&g_shares[p].next, n * p / g_parts, __ATOMIC_RELAXED);
    g_shares[p].end = n * (p + 1) / g_parts;
  }
  g_helpers = helpers;
  unsigned generation = g_generation + 1;
  __atomic_store_n(&g_state, ((uint64_t)generation << 32) | STATE_OPEN,
                   __ATOMIC_RELEASE);
  __atomic_store_n(&g_generation, generation, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&g_wake);
  pthread_mutex_unlock(&g_lock);

  work(fn, ctx, 0, helpers + 1, g_chunk);

  /* Every iteration has been handed out: no worker may join any more. The
   * loop is done when the workers that joined have left (they run the
   * chunks they took; the next loop overwrites this one's fields). */
  uint64_t state =
      __atomic_and_fetch(&g_state, ~STATE_OPEN, __ATOMIC_ACQ_REL);
  int spins = 0;
  while ((state & STATE_ACTIVE) != 0 && spins < 50 * SPIN_ROUNDS) {
    spin_pause(spins);
    ++spins;
    state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  }
  if ((state & STATE_ACTIVE) != 0) {
    pthread_mutex_lock(&g_lock);
    while ((__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) & STATE_ACTIVE) != 0)
      pthread_cond_wait(&g_done_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
  }
  pthread_mutex_unlock(&g_dispatch);
}

/* Called around each run: while one is in progress, idle workers spin
 * instead of sleeping. */
void onnxc_rt_run_begin(void) {
  if (__atomic_fetch_add(&g_runs_active, 1, __ATOMIC_ACQ_REL) == 0 &&
      g_num_workers > 0) {
    pthread_mutex_lock(&g_lock);
    pthread_cond_broadcast(&g_wake);
    pthread_mutex_unlock(&g_lock);
  }
}

void onnxc_rt_run_end(void) {
  __atomic_fetch_sub(&g_runs_active, 1, __ATOMIC_ACQ_REL);
}

/* The library's code must not run once it is unloaded: stop the workers. */
__attribute__((destructor)) static void stop_workers(void) {
  pthread_mutex_lock(&g_lock);
  __atomic_store_n(&g_shutdown, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&g_wake);
  pthread_mutex_unlock(&g_lock);
  for (int i = 0; i < g_num_workers; ++i)
    pthread_join(g_workers[i], NULL);
  g_num_workers = 0;
}
