/* A stand-in libcuda.so.1 for machines without a GPU: the CUDA driver API
 * functions that lib/Runtime/onnxc_cuda.c loads, with managed memory from
 * malloc and kernel launches that only print what they were asked to run
 * ("launch KERNEL grid X Y Z block X Y Z params N") to stderr. It checks
 * the host side of a model compiled for CUDA: the kernels' modules loaded
 * by the shared object's constructors, functions looked up by name,
 * launch shapes, memory hooks, statuses. FAKE_CUDA_FAIL_LAUNCH=1 makes
 * every launch fail (CUDA_ERROR_LAUNCH_FAILED, 719), FAKE_CUDA_FAIL_SYNC=1
 * every wait for the stream (a kernel that failed while running).
 *
 * Device memory (cuMemAlloc_v2) is what the host cannot touch: pages mapped
 * PROT_NONE, which only this library's copies open for a moment, so that
 * host code that reads or writes it crashes the test. Copies from device
 * addresses accept only addresses this library allocated
 * (CUDA_ERROR_INVALID_VALUE, 1, otherwise) and print which allocation
 * they read ("device#K", "managed#K", in the order of allocation).
 * FAKE_CUDA_LOG_ALLOCS=1 prints each device allocation's size. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int CUresult;

/* The allocations and the known kernels, for runs on several threads. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

CUresult cuInit(unsigned flags) { return flags ? 1 : 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) {
  (void)d;
  *ctx = (void *)0x1;
  return 0;
}
CUresult cuCtxSetCurrent(void *ctx) { return ctx ? 0 : 201; }
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  (void)options, (void)values, (void)n;
  *module = (void *)image;
  fprintf(stderr, "fake cuda: module loaded\n");
  return image ? 0 : 200;
}
CUresult cuModuleUnload(void *module) { (void)module; return 0; }
/* The same handle for the same module and name, as the driver does; the
 * handle is the kernel's name, which the launches print. */
static struct {
  void *module;
  char *name;
  int num_params; /* -1: unknown (not PTX text) */
  size_t param_sizes[64];
} known[4096];
static int known_count;

/* The sizes of the parameters of kernel `name` declared in PTX text
 * (".entry NAME(" then ".param .u64 x," ...); -1 when not found. */
static int ptx_params(const char *ptx, const char *name, size_t *sizes) {
  if (strncmp(ptx, "//", 2) && strncmp(ptx, ".version", 8))
    return -1;
  char entry[512];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  const char *p = strstr(ptx, entry);
  if (!p)
    return -1;
  const char *end = strchr(p, ')');
  int n = 0;
  for (p = strstr(p, ".param"); p && p < end && n < 64;
       p = strstr(p + 6, ".param")) {
    const char *type = p + 6; /* ".param .u64 name" */
    while (*type == ' ' || *type == '\t' || *type == '.')
      ++type;
    int bits = 0;
    if (strchr("usbf", type[0]) && sscanf(type + 1, "%d", &bits) == 1)
      sizes[n++] = (size_t)bits / 8;
    else
      return -1;
  }
  return n;
}

CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  pthread_mutex_lock(&g_lock);
  CUresult r = 0;
  int i = 0;
  while (i < known_count &&
         (known[i].module != module || strcmp(known[i].name, name)))
    ++i;
  if (i == known_count && known_count < 4096) {
    known[i].module = module;
    known[i].name = strdup(name);
    known[i].num_params = ptx_params(module, name, known[i].param_sizes);
    ++known_count;
  }
  if (i < known_count)
    *f = known[i].name;
  else
    r = 2;
  pthread_mutex_unlock(&g_lock);
  return r;
}
/* CUDA graphs: a stream created here captures the launches made on it
 * between cuStreamBeginCapture_v2 and cuStreamEndCapture into a graph,
 * which cuGraphLaunch only reports ("graph launch of N kernels"). */
typedef struct {
  int capturing, launches;
} fake_stream;
typedef struct {
  int launches;
} fake_graph;
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = calloc(1, sizeof(fake_stream));
  return *stream ? 0 : 2;
}
CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  (void)mode;
  fake_stream *s = stream;
  s->capturing = 1;
  s->launches = 0;
  return 0;
}
CUresult cuStreamEndCapture(void *stream, void **graph) {
  fake_stream *s = stream;
  fake_graph *g = malloc(sizeof *g);
  if (!g)
    return 2;
  g->launches = s->launches;
  s->capturing = 0;
  *graph = g;
  fprintf(stderr, "fake cuda: captured %d kernels\n", g->launches);
  return 0;
}
CUresult cuGraphInstantiateWithFlags(void **exec, void *graph,
                                     unsigned long long flags) {
  (void)flags;
  fake_graph *copy = malloc(sizeof *copy);
  if (!copy)
    return 2;
  *copy = *(fake_graph *)graph;
  *exec = copy;
  return 0;
}
CUresult cuGraphDestroy(void *graph) {
  free(graph);
  return 0;
}
CUresult cuGraphLaunch(void *exec, void *stream) {
  (void)stream;
  fprintf(stderr, "fake cuda: graph launch of %d kernels\n",
          ((fake_graph *)exec)->launches);
  return 0;
}
/* Parameter sizes as the kernel's PTX declares them (models compiled
 * with --gpu-binary=ptx); CUDA_ERROR_INVALID_VALUE otherwise. */
CUresult cuFuncGetParamInfo(void *f, size_t index, size_t *offset,
                            size_t *size) {
  for (int i = 0; i < known_count; ++i) {
    if (known[i].name != f)
      continue;
    if (known[i].num_params < 0 || index >= (size_t)known[i].num_params)
      return 1;
    *offset = 0;
    for (size_t k = 0; k < index; ++k)
      *offset += known[i].param_sizes[k];
    *size = known[i].param_sizes[index];
    return 0;
  }
  return 1;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  (void)smem, (void)extra, (void)params;
  /* The per-thread (0x2) and legacy (0x1, NULL) default streams are not
   * this library's. */
  if ((size_t)stream > 0x2 && ((fake_stream *)stream)->capturing) {
    ++((fake_stream *)stream)->launches;
    return 0;
  }
  fprintf(stderr, "fake cuda: launch %s grid %u %u %u block %u %u %u\n",
          (const char *)f, gx, gy, gz, bx, by, bz);
  const char *fail = getenv("FAKE_CUDA_FAIL_LAUNCH");
  return fail && *fail == '1' ? 719 : 0;
}
CUresult cuStreamSynchronize(void *stream) {
  (void)stream;
  const char *fail = getenv("FAKE_CUDA_FAIL_SYNC");
  return fail && *fail == '1' ? 719 : 0;
}
/* Every live allocation: its range, kind and number. */
typedef struct {
  char *start;
  size_t size, mapped; /* mapped: device memory's mmap length, else 0 */
  long number;
} allocation;
static allocation g_allocations[4096];

static int g_num_allocations;
static long g_next_number[2];

static allocation *find(const void *p) {
  for (int i = 0; i < g_num_allocations; ++i)
    if ((const char *)p >= g_allocations[i].start &&
        (const char *)p < g_allocations[i].start + g_allocations[i].size)
      return &g_allocations[i];
  return NULL;
}

static CUresult add(void *start, size_t size, size_t mapped) {
  pthread_mutex_lock(&g_lock);
  if (g_num_allocations == 4096) {
    pthread_mutex_unlock(&g_lock);
    return 2;
  }
  allocation *a = &g_allocations[g_num_allocations++];
  a->start = start;
  a->size = size ? size : 1;
  a->mapped = mapped;
  a->number = g_next_number[mapped != 0]++;
  pthread_mutex_unlock(&g_lock);
  return 0;
}

CUresult cuMemAllocManaged(unsigned long long *p, size_t size, unsigned f) {
  (void)f;
  void *m = NULL;
  if (posix_memalign(&m, 256, size ? size : 1))
    return 2;
  /* Zeros, not garbage, where kernels that do not run should have written:
   * host code that reads a count or an index a kernel computed gets 0. */
  memset(m, 0, size ? size : 1);
  *p = (unsigned long long)(size_t)m;
  return add(m, size, 0);
}
CUresult cuMemAlloc_v2(unsigned long long *p, size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t mapped = ((size ? size : 1) + page - 1) / page * page;
  void *m = mmap(NULL, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return 2;
  *p = (unsigned long long)(size_t)m;
  const char *log = getenv("FAKE_CUDA_LOG_ALLOCS");
  if (log && *log == '1')
    fprintf(stderr, "fake cuda: device memory %zu bytes\n", size);
  return add(m, size, mapped);
}
CUresult cuMemFree_v2(unsigned long long p) {
  pthread_mutex_lock(&g_lock);
  allocation *a = find((void *)(size_t)p);
  if (!a || a->start != (char *)(size_t)p) {
    pthread_mutex_unlock(&g_lock);
    return 1;
  }
  if (a->mapped)
    munmap(a->start, a->mapped);
  else
    free(a->start);
  *a = g_allocations[--g_num_allocations];
  pthread_mutex_unlock(&g_lock);
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == 719 ? "unspecified launch failure"
       : r == 1 ? "invalid argument"
                : "fake error";
  return 0;
}

/* Copies `bytes` between addresses the host may or may not touch: device
 * memory opened for the copy. */
static void open_device(allocation *a, int prot) {
  if (a && a->mapped)
    mprotect(a->start, a->mapped, prot);
}
static void copy(void *dst, const void *src, size_t bytes) {
  pthread_mutex_lock(&g_lock);
  allocation *d = find(dst), *s = find(src);
  open_device(d, PROT_READ | PROT_WRITE);
  open_device(s, PROT_READ | PROT_WRITE);
  memcpy(dst, src, bytes);
  open_device(d, PROT_NONE);
  open_device(s, PROT_NONE);
  pthread_mutex_unlock(&g_lock);
}
static CUresult device_copy(const char *what, void *dst, const void *src,
                            size_t bytes) {
  pthread_mutex_lock(&g_lock);
  allocation *s = find(src), source = s ? *s : (allocation){0};
  pthread_mutex_unlock(&g_lock);
  if (!s || (const char *)src + bytes > source.start + source.size) {
    fprintf(stderr, "fake cuda: %s from %p: not device memory\n", what, src);
    return 1;
  }
  copy(dst, src, bytes);
  fprintf(stderr, "fake cuda: %s %zu bytes from %s#%ld+%zu\n", what, bytes,
          source.mapped ? "device" : "managed", source.number,
          (size_t)((const char *)src - source.start));
  return 0;
}
CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src,
                              size_t bytes, void *stream) {
  (void)stream;
  return device_copy("copy device->device", (void *)(size_t)dst,
                     (const void *)(size_t)src, bytes);
}
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
  return device_copy("copy device->host", dst, (const void *)(size_t)src,
                     bytes);
}
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src,
                         size_t bytes) {
  copy((void *)(size_t)dst, src, bytes);
  return 0;
}
/* Events: each record is one tick later than the one before; a tick is a
 * quarter of a millisecond, so every launch takes 0.25 ms. */
static long g_ticks;
CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = calloc(1, sizeof(long));
  return *event ? 0 : 2;
}
CUresult cuEventRecord(void *event, void *stream) {
  (void)stream;
  *(long *)event = ++g_ticks;
  return 0;
}
CUresult cuEventElapsedTime(float *ms, void *start, void *stop) {
  *ms = 0.25f * (float)(*(long *)stop - *(long *)start);
  return 0;
}
CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return 0;
}

/* Copies as the host would; FAKE_CUDA_NO_DMA=1 fails them (the runtime
 * then copies itself). */
CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src,
                              size_t bytes, void *stream) {
  (void)stream;
  const char *no = getenv("FAKE_CUDA_NO_DMA");
  if (no && *no == '1')
    return 1;
  copy((void *)(size_t)dst, src, bytes);
  fprintf(stderr, "fake cuda: upload %zu bytes\n", bytes);
  return 0;
}
