/* A stand-in libcuda.so.1 for machines without a GPU: the CUDA driver API
 * functions that lib/Runtime/onnxc_cuda.c loads, with managed memory from
 * malloc and kernel launches that only print what they were asked to run
 * ("launch KERNEL grid X Y Z block X Y Z params N") to stderr. It checks
 * the host side of a model compiled for CUDA: the kernels' modules loaded
 * by the shared object's constructors, functions looked up by name,
 * launch shapes, memory hooks, statuses. FAKE_CUDA_FAIL_LAUNCH=1 makes
 * every launch fail (CUDA_ERROR_LAUNCH_FAILED, 719), FAKE_CUDA_FAIL_SYNC=1
 * every wait for the stream (a kernel that failed while running). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

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
CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  static struct {
    void *module;
    char *name;
  } known[256];
  static int count;
  for (int i = 0; i < count; ++i)
    if (known[i].module == module && !strcmp(known[i].name, name)) {
      *f = known[i].name;
      return 0;
    }
  if (count == 256)
    return 2;
  known[count].module = module;
  known[count].name = strdup(name);
  *f = known[count++].name;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  (void)smem, (void)stream, (void)extra;
  int n = 0;
  while (params && params[n] && n < 64)
    ++n;
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
CUresult cuMemAllocManaged(unsigned long long *p, size_t size, unsigned f) {
  (void)f;
  void *m = NULL;
  if (posix_memalign(&m, 256, size))
    return 2;
  *p = (unsigned long long)(size_t)m;
  return 0;
}
CUresult cuMemFree_v2(unsigned long long p) {
  free((void *)(size_t)p);
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == 719 ? "unspecified launch failure" : "fake error";
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
  memcpy((void *)(size_t)dst, src, bytes);
  fprintf(stderr, "fake cuda: upload %zu bytes\n", bytes);
  return 0;
}
