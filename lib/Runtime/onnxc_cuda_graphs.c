/*===- onnxc_cuda_graphs.c - Kernel launches replayed as CUDA graphs -------===*
 *
 * ONNXC_CUDA_GRAPHS=1 (off by default until measured on a GPU): the kernel
 * launches between two waits for the stream (a segment: the host touches
 * no memory inside one, see onnxc-device-sync) are deferred and recorded,
 * parameters included. When the host next waits, a segment that is the
 * same as one seen before (the same kernels, grids and parameter bytes:
 * the same buffers, which the allocator's cache hands out again run after
 * run) goes to the GPU as one launch of a CUDA graph; the second time a
 * segment is seen it is captured into one (stream capture of its launches,
 * then cuGraphInstantiate); other segments are launched kernel by kernel as
 * without graphs. A run's kernels then cost one launch per segment once
 * the model has run twice with the same shapes.
 *
 * Needs cuFuncGetParamInfo (CUDA 12.4) to copy the parameters, and the
 * graph functions; without them, or while profiling, launches are eager.
 *
 *===----------------------------------------------------------------------===*/
#include "onnxc_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void *CUgraph, *CUgraphExec;

#define CU_STREAM_NON_BLOCKING 0x1
#define CU_STREAM_CAPTURE_MODE_RELAXED 2
#define MAX_PARAMS 256
#define MAX_GRAPHS 64

static struct {
  CUresult (*FuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamBeginCapture)(CUstream, int);
  CUresult (*StreamEndCapture)(CUstream, CUgraph *);
  CUresult (*GraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*GraphLaunch)(CUgraphExec, CUstream);
  CUresult (*GraphDestroy)(CUgraph);
} g;
static int g_enabled;

void onnxc_cuda_graphs_init(void *lib) {
  const char *env = getenv("ONNXC_CUDA_GRAPHS");
  const char *profile = getenv("ONNXC_CUDA_PROFILE");
  if (!env || strcmp(env, "1") || (profile && *profile))
    return;
  g.FuncGetParamInfo = dlsym(lib, "cuFuncGetParamInfo");
  g.StreamCreate = dlsym(lib, "cuStreamCreate");
  g.StreamBeginCapture = dlsym(lib, "cuStreamBeginCapture_v2");
  g.StreamEndCapture = dlsym(lib, "cuStreamEndCapture");
  g.GraphInstantiate = dlsym(lib, "cuGraphInstantiateWithFlags");
  g.GraphLaunch = dlsym(lib, "cuGraphLaunch");
  g.GraphDestroy = dlsym(lib, "cuGraphDestroy");
  g_enabled = g.FuncGetParamInfo && g.StreamCreate && g.StreamBeginCapture &&
              g.StreamEndCapture && g.GraphInstantiate && g.GraphLaunch &&
              g.GraphDestroy;
}

/* One deferred launch; its parameters' bytes are at `bytes` of the
 * segment, their sizes at `sizes`. */
typedef struct {
  CUfunction function;
  const char *name;
  unsigned dims[6], smem;
  size_t num_params, bytes, sizes;
} launch;

typedef struct {
  launch *launches;
  size_t count, capacity;
  unsigned char *bytes; /* every launch's parameters, one after another */
  size_t num_bytes, bytes_capacity;
  size_t *sizes; /* every parameter's size */
  size_t num_sizes, sizes_capacity;
} segment;

static __thread segment g_segment;
static __thread CUstream g_capture_stream;

/* A segment seen before, and its graph once it has one. */
typedef struct {
  uint64_t hash;
  segment copy;
  CUgraphExec exec;
  int failed; /* capture failed: always eager */
} known_segment;

static pthread_mutex_t g_known_lock = PTHREAD_MUTEX_INITIALIZER;
static known_segment g_known[MAX_GRAPHS];
static int g_num_known;

static int reserve(void **array, size_t *capacity, size_t wanted, size_t size) {
  if (wanted <= *capacity)
    return 1;
  size_t n = *capacity ? *capacity : 64;
  while (n < wanted)
    n *= 2;
  void *bigger = realloc(*array, n * size);
  if (!bigger)
    return 0;
  *array = bigger;
  *capacity = n;
  return 1;
}

/* Records a launch into the thread's segment instead of launching it; 0
 * when it must be launched now (graphs off, its parameters unknown, out of
 * memory). */
int onnxc_cuda_graphs_defer(CUfunction f, const char *name,
                            const unsigned dims[6], unsigned smem,
                            void **params, size_t num_params) {
  if (!g_enabled || num_params > MAX_PARAMS)
    return 0;
  size_t sizes[MAX_PARAMS], total = 0;
  for (size_t i = 0; i < num_params; ++i) {
    size_t offset = 0;
    if (g.FuncGetParamInfo(f, i, &offset, &sizes[i]) || !params[i])
      return 0;
    total += sizes[i];
  }
  segment *s = &g_segment;
  if (!reserve((void **)&s->launches, &s->capacity, s->count + 1,
               sizeof *s->launches) ||
      !reserve((void **)&s->bytes, &s->bytes_capacity, s->num_bytes + total,
               1) ||
      !reserve((void **)&s->sizes, &s->sizes_capacity,
               s->num_sizes + num_params, sizeof *s->sizes))
    return 0;
  launch *l = &s->launches[s->count++];
  l->function = f;
  l->name = name;
  memcpy(l->dims, dims, sizeof l->dims);
  l->smem = smem;
  l->num_params = num_params;
  l->bytes = s->num_bytes;
  l->sizes = s->num_sizes;
  for (size_t i = 0; i < num_params; ++i) {
    memcpy(s->bytes + s->num_bytes, params[i], sizes[i]);
    s->num_bytes += sizes[i];
    s->sizes[s->num_sizes++] = sizes[i];
  }
  return 1;
}

static uint64_t hash_segment(const segment *s) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = s->bytes;
  for (size_t i = 0; i < s->num_bytes; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  for (size_t i = 0; i < s->count; ++i)
    h = (h ^ (uintptr_t)s->launches[i].function) * 1099511628211ull;
  return h;
}

static int same_segment(const segment *a, const segment *b) {
  if (a->count != b->count || a->num_bytes != b->num_bytes ||
      a->num_sizes != b->num_sizes ||
      memcmp(a->bytes, b->bytes, a->num_bytes) ||
      memcmp(a->sizes, b->sizes, a->num_sizes * sizeof *a->sizes))
    return 0;
  for (size_t i = 0; i < a->count; ++i) {
    const launch *x = &a->launches[i], *y = &b->launches[i];
    if (x->function != y->function ||
        memcmp(x->dims, y->dims, sizeof x->dims) || x->smem != y->smem ||
        x->num_params != y->num_params)
      return 0;
  }
  return 1;
}

static int copy_segment(segment *dst, const segment *src) {
  memset(dst, 0, sizeof *dst);
  dst->launches = malloc(src->count * sizeof *src->launches + 1);
  dst->bytes = malloc(src->num_bytes + 1);
  dst->sizes = malloc(src->num_sizes * sizeof *src->sizes + 1);
  if (!dst->launches || !dst->bytes || !dst->sizes) {
    free(dst->launches);
    free(dst->bytes);
    free(dst->sizes);
    return 0;
  }
  memcpy(dst->launches, src->launches, src->count * sizeof *src->launches);
  memcpy(dst->bytes, src->bytes, src->num_bytes);
  memcpy(dst->sizes, src->sizes, src->num_sizes * sizeof *src->sizes);
  dst->count = src->count;
  dst->num_bytes = src->num_bytes;
  dst->num_sizes = src->num_sizes;
  return 1;
}

/* Launches the segment's kernels one by one on `stream`; 0, or the first
 * failure (*failed: the kernel). */
static CUresult launch_all(const segment *s, CUstream stream,
                           const char **failed) {
  void *pointers[MAX_PARAMS];
  for (size_t i = 0; i < s->count; ++i) {
    const launch *l = &s->launches[i];
    unsigned char *p = s->bytes + l->bytes;
    for (size_t k = 0; k < l->num_params; ++k) {
      pointers[k] = p;
      p += s->sizes[l->sizes + k];
    }
    CUresult r = onnxc_cu.LaunchKernel(
        l->function, l->dims[0], l->dims[1], l->dims[2], l->dims[3], l->dims[4],
        l->dims[5], l->smem, stream, pointers, NULL);
    if (r) {
      *failed = l->name ? l->name : "?";
      return r;
    }
  }
  return 0;
}

/* The segment's graph, captured from its launches; NULL when that fails. */
static CUgraphExec capture(const segment *s) {
  if (!g_capture_stream &&
      g.StreamCreate(&g_capture_stream, CU_STREAM_NON_BLOCKING))
    return NULL;
  if (g.StreamBeginCapture(g_capture_stream, CU_STREAM_CAPTURE_MODE_RELAXED))
    return NULL;
  const char *failed = NULL;
  CUresult launched = launch_all(s, g_capture_stream, &failed);
  CUgraph graph = NULL;
  CUresult ended = g.StreamEndCapture(g_capture_stream, &graph);
  CUgraphExec exec = NULL;
  if (!launched && !ended && graph && g.GraphInstantiate(&exec, graph, 0))
    exec = NULL;
  if (graph)
    g.GraphDestroy(graph);
  return exec;
}

/* Sends the thread's deferred launches to the GPU (see the top); 0, or the
 * driver's failure (*failed: the kernel, left NULL when the graph's launch
 * failed). *last: the last kernel launched. */
CUresult onnxc_cuda_graphs_flush(const char **failed, const char **last) {
  segment *s = &g_segment;
  if (!s->count)
    return 0;
  *last = s->launches[s->count - 1].name;
  uint64_t hash = hash_segment(s);
  CUgraphExec exec = NULL;
  pthread_mutex_lock(&g_known_lock);
  known_segment *k = NULL;
  for (int i = 0; i < g_num_known && !k; ++i)
    if (g_known[i].hash == hash && same_segment(&g_known[i].copy, s))
      k = &g_known[i];
  if (k) {
    if (!k->exec && !k->failed) {
      k->exec = capture(s);
      k->failed = !k->exec;
    }
    exec = k->exec;
  } else if (g_num_known < MAX_GRAPHS &&
             copy_segment(&g_known[g_num_known].copy, s)) {
    g_known[g_num_known].hash = hash;
    g_known[g_num_known].exec = NULL;
    g_known[g_num_known].failed = 0;
    ++g_num_known;
  }
  pthread_mutex_unlock(&g_known_lock);
  CUresult r = exec ? g.GraphLaunch(exec, CU_STREAM_PER_THREAD)
                    : launch_all(s, CU_STREAM_PER_THREAD, failed);
  s->count = s->num_bytes = s->num_sizes = 0;
  return r;
}

/* Forgets the thread's deferred launches (a run that failed). */
void onnxc_cuda_graphs_discard(void) {
  g_segment.count = g_segment.num_bytes = g_segment.num_sizes = 0;
}
