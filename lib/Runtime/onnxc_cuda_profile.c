/*===- onnxc_cuda_profile.c - ONNXC_CUDA_PROFILE's kernel table -----------===*
 *
 * Linked (with onnxc_cuda.c) into models compiled with --target=cuda.
 *
 *===----------------------------------------------------------------------===*/
#include "onnxc_cuda.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===----------------------------------------------------------------------===*
 * Kernel profile: ONNXC_CUDA_PROFILE=FILE (or "-", stderr)
 *
 * Each launch is bracketed by two events on the stream; when the host next
 * waits for the stream, their elapsed times are added to the kernel's
 * entry. When the shared object is unloaded (or the process ends), the
 * kernels' table is appended to FILE: per kernel (in the order of their
 * first launch) the launches per run, the time per run and per launch, the
 * grid and block; and the runs' total kernel time. Events serialise
 * nothing but add a little host time per launch: profile, then time
 * without it.
 *===----------------------------------------------------------------------===*/

typedef struct {
  CUfunction function;
  const char *name;
  unsigned dims[6];
  long launches;
  double ms;
} kernel_stat;

typedef struct {
  CUevent start, stop;
  size_t stat;
} timed_launch;

static pthread_mutex_t g_profile_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *g_profile_file; /* NULL: not profiling */
static long g_profile_runs;
static kernel_stat *g_stats;
static size_t g_stats_count, g_stats_capacity;
static timed_launch *g_timed; /* launches whose events are not yet read */
static size_t g_timed_count, g_timed_capacity;
static __thread timed_launch g_launch; /* the launch under way */
static __thread int g_launch_timed;

static int profiling(void) {
  return g_profile_file && onnxc_cu.EventCreate && onnxc_cu.EventRecord &&
         onnxc_cu.EventElapsedTime && onnxc_cu.EventDestroy;
}

void onnxc_cuda_profile_run(void) {
  const char *file = getenv("ONNXC_CUDA_PROFILE");
  pthread_mutex_lock(&g_profile_lock);
  if (file && *file && !g_profile_file)
    g_profile_file = strdup(file);
  if (g_profile_file)
    ++g_profile_runs;
  pthread_mutex_unlock(&g_profile_lock);
}

static void *grow(void *array, size_t *capacity, size_t size) {
  size_t wanted = *capacity ? 2 * *capacity : 64;
  void *bigger = realloc(array, wanted * size);
  if (bigger)
    *capacity = wanted;
  return bigger;
}

void onnxc_cuda_profile_launch_begin(CUfunction f, const char *name,
                                     const unsigned dims[6]) {
  g_launch_timed = 0;
  if (!profiling())
    return;
  pthread_mutex_lock(&g_profile_lock);
  size_t i = 0;
  while (i < g_stats_count && g_stats[i].function != f)
    ++i;
  if (i == g_stats_count) {
    if (g_stats_count == g_stats_capacity) {
      kernel_stat *bigger = grow(g_stats, &g_stats_capacity, sizeof *g_stats);
      if (!bigger) {
        pthread_mutex_unlock(&g_profile_lock);
        return;
      }
      g_stats = bigger;
    }
    kernel_stat *s = &g_stats[g_stats_count++];
    memset(s, 0, sizeof *s);
    s->function = f;
    s->name = name ? name : "?";
    memcpy(s->dims, dims, sizeof s->dims);
  }
  pthread_mutex_unlock(&g_profile_lock);
  g_launch.stat = i;
  if (onnxc_cu.EventCreate(&g_launch.start, 0))
    return;
  if (onnxc_cu.EventCreate(&g_launch.stop, 0)) {
    onnxc_cu.EventDestroy(g_launch.start);
    return;
  }
  onnxc_cu.EventRecord(g_launch.start, CU_STREAM_PER_THREAD);
  g_launch_timed = 1;
}

void onnxc_cuda_profile_launch_end(void) {
  if (!g_launch_timed)
    return;
  g_launch_timed = 0;
  onnxc_cu.EventRecord(g_launch.stop, CU_STREAM_PER_THREAD);
  pthread_mutex_lock(&g_profile_lock);
  if (g_timed_count == g_timed_capacity) {
    timed_launch *bigger = grow(g_timed, &g_timed_capacity, sizeof *g_timed);
    if (!bigger) {
      pthread_mutex_unlock(&g_profile_lock);
      onnxc_cu.EventDestroy(g_launch.start);
      onnxc_cu.EventDestroy(g_launch.stop);
      return;
    }
    g_timed = bigger;
  }
  g_timed[g_timed_count++] = g_launch;
  pthread_mutex_unlock(&g_profile_lock);
}

/* After a wait for the stream: every recorded event has happened. */
void onnxc_cuda_profile_harvest(void) {
  if (!profiling())
    return;
  pthread_mutex_lock(&g_profile_lock);
  for (size_t i = 0; i < g_timed_count; ++i) {
    float ms = 0;
    if (!onnxc_cu.EventElapsedTime(&ms, g_timed[i].start, g_timed[i].stop)) {
      g_stats[g_timed[i].stat].ms += ms;
      ++g_stats[g_timed[i].stat].launches;
    }
    onnxc_cu.EventDestroy(g_timed[i].start);
    onnxc_cu.EventDestroy(g_timed[i].stop);
  }
  g_timed_count = 0;
  pthread_mutex_unlock(&g_profile_lock);
}

__attribute__((destructor)) static void profile_report(void) {
  if (!g_profile_file || !g_stats_count)
    return;
  FILE *out = strcmp(g_profile_file, "-") ? fopen(g_profile_file, "a") : stderr;
  if (!out)
    return;
  double total = 0;
  long launches = 0;
  for (size_t i = 0; i < g_stats_count; ++i) {
    total += g_stats[i].ms;
    launches += g_stats[i].launches;
  }
  double runs = g_profile_runs > 0 ? (double)g_profile_runs : 1.0;
  fprintf(out,
          "onnxc cuda profile: %ld runs, %.1f launches and %.3f ms of "
          "kernels per run\n",
          g_profile_runs, launches / runs, total / runs);
  fprintf(out, "%5s %8s %10s %10s %6s  %-18s %-12s %s\n", "#", "per run",
          "ms/run", "us/launch", "%", "grid", "block", "kernel");
  for (size_t i = 0; i < g_stats_count; ++i) {
    const kernel_stat *s = &g_stats[i];
    char grid[40], block[40];
    snprintf(grid, sizeof grid, "%ux%ux%u", s->dims[0], s->dims[1], s->dims[2]);
    snprintf(block, sizeof block, "%ux%ux%u", s->dims[3], s->dims[4],
             s->dims[5]);
    fprintf(out, "%5zu %8.1f %10.4f %10.2f %6.2f  %-18s %-12s %s\n", i,
            s->launches / runs, s->ms / runs,
            s->launches ? 1e3 * s->ms / s->launches : 0.0,
            total > 0 ? 100.0 * s->ms / total : 0.0, grid, block, s->name);
  }
  if (out != stderr)
    fclose(out);
}
