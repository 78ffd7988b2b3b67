/*===- onnxc_cuda.c - The CUDA part of the runtime of an onnxc model -------===*
 *
 * Linked (with onnxc_runtime.c) into models compiled with --target=cuda.
 *
 * - The mgpu* functions that MLIR's gpu-to-llvm conversion calls to load
 *   the embedded kernels and launch them, implemented on the CUDA driver
 *   API, which is loaded with dlopen("libcuda.so.1") at the first run: the
 *   shared object loads on machines without CUDA, and their runs end with
 *   ONNXC_ERROR_DEVICE.
 * - The allocator hooks of onnxc_runtime.c: buffers in CUDA managed memory,
 *   which the kernels and the host code around them both read and write.
 * - onnxc_rt_device_global: one managed copy of each global (weights,
 *   hoisted constants) that host code passes to kernels.
 *
 * Every kernel launch goes on the calling thread's per-thread default
 * stream and is synchronised before the host code goes on; a failed launch
 * or kernel ends the run with ONNXC_ERROR_DEVICE and the driver's message.
 *
 *===----------------------------------------------------------------------===*/
#include "onnxc_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

onnxc_cuda_api onnxc_cu;
static CUdevice g_device;
static int g_no_prefetch; /* ONNXC_CUDA_PREFETCH=0: leave it to the faults */
static int g_no_device_memory; /* ONNXC_CUDA_DEVICE_MEMORY=0: managed only */

static pthread_once_t g_cuda_once = PTHREAD_ONCE_INIT;
static CUcontext g_context;
static char g_cuda_problem[512]; /* why CUDA cannot be used, or "" */

const char *onnxc_cuda_error_string(CUresult r) {
  const char *s = NULL;
  if (onnxc_cu.GetErrorString && onnxc_cu.GetErrorString(r, &s) == 0 && s)
    return s;
  return "unknown CUDA error";
}

static void load_cuda(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(g_cuda_problem, sizeof g_cuda_problem,
             "no CUDA device: cannot load libcuda.so.1 (%s)", dlerror());
    return;
  }
  struct {
    void **slot;
    const char *name;
  } syms[] = {
      {(void **)&onnxc_cu.Init, "cuInit"},
      {(void **)&onnxc_cu.DeviceGetCount, "cuDeviceGetCount"},
      {(void **)&onnxc_cu.DeviceGet, "cuDeviceGet"},
      {(void **)&onnxc_cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void **)&onnxc_cu.CtxSetCurrent, "cuCtxSetCurrent"},
      {(void **)&onnxc_cu.ModuleLoadDataEx, "cuModuleLoadDataEx"},
      {(void **)&onnxc_cu.ModuleUnload, "cuModuleUnload"},
      {(void **)&onnxc_cu.ModuleGetFunction, "cuModuleGetFunction"},
      {(void **)&onnxc_cu.LaunchKernel, "cuLaunchKernel"},
      {(void **)&onnxc_cu.StreamSynchronize, "cuStreamSynchronize"},
      {(void **)&onnxc_cu.MemAllocManaged, "cuMemAllocManaged"},
      {(void **)&onnxc_cu.MemFree, "cuMemFree_v2"},
      {(void **)&onnxc_cu.GetErrorString, "cuGetErrorString"},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i) {
    *syms[i].slot = dlsym(lib, syms[i].name);
    if (!*syms[i].slot) {
      snprintf(g_cuda_problem, sizeof g_cuda_problem,
               "no CUDA device: libcuda.so.1 lacks %s", syms[i].name);
      return;
    }
  }
  onnxc_cu.MemPrefetchAsyncV2 = dlsym(lib, "cuMemPrefetchAsync_v2");
  onnxc_cu.MemPrefetchAsync = dlsym(lib, "cuMemPrefetchAsync");
  onnxc_cu.MemcpyHtoDAsync = dlsym(lib, "cuMemcpyHtoDAsync_v2");
  onnxc_cu.MemcpyDtoDAsync = dlsym(lib, "cuMemcpyDtoDAsync_v2");
  onnxc_cu.MemcpyDtoH = dlsym(lib, "cuMemcpyDtoH_v2");
  onnxc_cu.MemAlloc = dlsym(lib, "cuMemAlloc_v2");
  onnxc_cu.EventCreate = dlsym(lib, "cuEventCreate");
  onnxc_cu.EventRecord = dlsym(lib, "cuEventRecord");
  onnxc_cu.EventElapsedTime = dlsym(lib, "cuEventElapsedTime");
  onnxc_cu.EventDestroy = dlsym(lib, "cuEventDestroy_v2");
  CUresult r = onnxc_cu.Init(0);
  if (r) {
    snprintf(g_cuda_problem, sizeof g_cuda_problem,
             "no CUDA device: cuInit failed (%s)", onnxc_cuda_error_string(r));
    return;
  }
  int count = 0;
  r = onnxc_cu.DeviceGetCount(&count);
  int ordinal = 0;
  const char *env = getenv("ONNXC_CUDA_DEVICE");
  if (env && *env)
    ordinal = atoi(env);
  if (r || count <= 0 || ordinal < 0 || ordinal >= count) {
    snprintf(g_cuda_problem, sizeof g_cuda_problem,
             "no CUDA device: %d found, device %d asked for", r ? 0 : count,
             ordinal);
    return;
  }
  CUdevice device;
  if ((r = onnxc_cu.DeviceGet(&device, ordinal)) ||
      (r = onnxc_cu.DevicePrimaryCtxRetain(&g_context, device))) {
    snprintf(g_cuda_problem, sizeof g_cuda_problem,
             "no CUDA device: cannot open device %d (%s)", ordinal,
             onnxc_cuda_error_string(r));
    g_context = NULL;
    return;
  }
  g_device = device;
  const char *prefetch = getenv("ONNXC_CUDA_PREFETCH");
  g_no_prefetch = prefetch && !strcmp(prefetch, "0");
  const char *device_memory = getenv("ONNXC_CUDA_DEVICE_MEMORY");
  g_no_device_memory = device_memory && !strcmp(device_memory, "0");
  onnxc_cuda_graphs_init(lib);
}

static __thread const char *g_kernel; /* the run's last kernel looked up */

__attribute__((visibility("default"))) const char *onnxc_device(void) {
  return "cuda";
}

/* Called at the start of each run, before anything is allocated. */
void onnxc_rt_device_enter(void) {
  pthread_once(&g_cuda_once, load_cuda);
  if (!g_context)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE, "%s", g_cuda_problem);
  CUresult r = onnxc_cu.CtxSetCurrent(g_context);
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE, "CUDA: cuCtxSetCurrent failed (%s)",
                   onnxc_cuda_error_string(r));
  g_kernel = NULL; /* none of this run's yet */
  onnxc_cuda_profile_run();
}

void *onnxc_rt_device_malloc(size_t size) {
  CUdeviceptr p = 0;
  if (!g_context ||
      onnxc_cu.MemAllocManaged(&p, size ? size : 1, CU_MEM_ATTACH_GLOBAL))
    return NULL;
  return (void *)(uintptr_t)p;
}

/* Device memory for a buffer only kernels touch; NULL (managed memory
 * then) without cuMemAlloc_v2, with ONNXC_CUDA_DEVICE_MEMORY=0 or when the
 * driver has none left. */
void *onnxc_rt_device_malloc_device(size_t size) {
  CUdeviceptr p = 0;
  if (!g_context || !onnxc_cu.MemAlloc || g_no_device_memory ||
      onnxc_cu.MemAlloc(&p, size ? size : 1))
    return NULL;
  return (void *)(uintptr_t)p;
}

/* Starts moving a managed buffer the host wrote (a staged input, a block
 * whose last user was the host) to the device, ahead of the kernels on the
 * thread's stream, instead of page by page on their first touches. Best
 * effort: a driver without prefetching leaves it to the faults. */
void onnxc_rt_device_prefetch(void *p, size_t bytes) {
  if (!g_context || !p || !bytes || g_no_prefetch)
    return;
  CUdeviceptr d = (CUdeviceptr)(uintptr_t)p;
  if (onnxc_cu.MemPrefetchAsyncV2) {
    mem_location where = {1, g_device};
    onnxc_cu.MemPrefetchAsyncV2(d, bytes, where, 0, CU_STREAM_PER_THREAD);
  } else if (onnxc_cu.MemPrefetchAsync) {
    onnxc_cu.MemPrefetchAsync(d, bytes, g_device, CU_STREAM_PER_THREAD);
  }
}

/* Copies a caller's input into a buffer of the run: by the driver on the
 * thread's stream (returns once the caller's memory is read; the kernels
 * after it see the data, host code waits for it), else (a managed buffer,
 * not `dma_only`) by the host and prefetched. 1 when copied. */
static __thread int g_pending;
int onnxc_rt_device_upload(void *dst, const void *src, size_t bytes,
                           int dma_only) {
  if (g_context && onnxc_cu.MemcpyHtoDAsync &&
      !onnxc_cu.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, bytes,
                                CU_STREAM_PER_THREAD)) {
    g_pending = 1;
    return 1;
  }
  if (dma_only)
    return 0;
  memcpy(dst, src, bytes);
  onnxc_rt_device_prefetch(dst, bytes);
  return 1;
}

/* An input in device memory (onnxc_run_with): copied into the run's
 * buffer on the stream, or to host memory (`to_host`, for the host to
 * unpack: synchronous). NULL, or the driver's complaint. */
const char *onnxc_rt_device_copy_input(void *dst, const void *src, size_t bytes,
                                       int to_host) {
  CUdeviceptr from = (CUdeviceptr)(uintptr_t)src;
  CUresult r;
  if (to_host) {
    if (!onnxc_cu.MemcpyDtoH)
      return "the driver lacks cuMemcpyDtoH_v2";
    r = onnxc_cu.MemcpyDtoH(dst, from, bytes);
  } else {
    if (!onnxc_cu.MemcpyDtoDAsync)
      return "the driver lacks cuMemcpyDtoDAsync_v2";
    r = onnxc_cu.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst, from, bytes,
                                 CU_STREAM_PER_THREAD);
    if (!r)
      g_pending = 1;
  }
  return r ? onnxc_cuda_error_string(r) : NULL;
}

void onnxc_rt_device_free(void *p) {
  if (p && g_context)
    onnxc_cu.MemFree((CUdeviceptr)(uintptr_t)p); /* fails harmlessly at exit */
}

/*===----------------------------------------------------------------------===*
 * Globals
 *===----------------------------------------------------------------------===*/

typedef struct {
  const void *host;
  void *device;
} global_copy;

static pthread_mutex_t g_globals_lock = PTHREAD_MUTEX_INITIALIZER;
static global_copy *g_globals; /* open addressing, power-of-two capacity */
static size_t g_globals_count, g_globals_capacity;

static size_t slot_of(const global_copy *table, size_t capacity,
                      const void *host) {
  size_t h = ((uintptr_t)host >> 4) * 0x9E3779B97F4A7C15ull;
  for (size_t i = h & (capacity - 1);; i = (i + 1) & (capacity - 1))
    if (!table[i].host || table[i].host == host)
      return i;
}

static int grow_globals(void) {
  size_t capacity = g_globals_capacity ? 2 * g_globals_capacity : 64;
  global_copy *table = calloc(capacity, sizeof *table);
  if (!table)
    return 0;
  for (size_t i = 0; i < g_globals_capacity; ++i)
    if (g_globals[i].host)
      table[slot_of(table, capacity, g_globals[i].host)] = g_globals[i];
  free(g_globals);
  g_globals = table;
  g_globals_capacity = capacity;
  return 1;
}

/* The device-accessible copy of the global at `host` (`bytes` long), made
 * at the first call. Called only inside runs. */
void *onnxc_rt_device_global(const void *host, int64_t bytes) {
  pthread_mutex_lock(&g_globals_lock);
  if (2 * (g_globals_count + 1) > g_globals_capacity && !grow_globals()) {
    pthread_mutex_unlock(&g_globals_lock);
    onnxc_rt_abort(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  global_copy *slot = &g_globals[slot_of(g_globals, g_globals_capacity, host)];
  if (!slot->host) {
    void *copy = onnxc_rt_device_malloc((size_t)bytes);
    if (!copy) {
      pthread_mutex_unlock(&g_globals_lock);
      onnxc_rt_abort(ONNXC_ERROR_OUT_OF_MEMORY,
                     "out of memory: cannot allocate %lld bytes of CUDA "
                     "managed memory for a weight",
                     (long long)bytes);
    }
    memcpy(copy, host, (size_t)bytes);
    slot->host = host;
    slot->device = copy;
    ++g_globals_count;
  }
  void *device = slot->device;
  pthread_mutex_unlock(&g_globals_lock);
  return device;
}

/*===----------------------------------------------------------------------===*
 * Kernels: the functions MLIR's gpu-to-llvm conversion calls
 *===----------------------------------------------------------------------===*/

/* A module's binary, loaded at its first use (the constructors that call
 * mgpuModuleLoad run when the shared object is loaded, maybe without
 * CUDA). */
typedef struct {
  const void *data;
  CUmodule module;
} lazy_module;

static pthread_mutex_t g_modules_lock = PTHREAD_MUTEX_INITIALIZER;
/* g_kernel, g_pending (above): the last kernel looked up, and launches or
 * copies not yet waited for. */

void *mgpuModuleLoad(void *data, size_t size) {
  (void)size;
  lazy_module *m = calloc(1, sizeof *m);
  if (m)
    m->data = data;
  return m;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  (void)optLevel;
  return mgpuModuleLoad(data, 0);
}

void mgpuModuleUnload(void *handle) {
  lazy_module *m = handle;
  if (!m)
    return;
  if (m->module && g_context)
    onnxc_cu.ModuleUnload(m->module);
  free(m);
}

void *mgpuModuleGetFunction(void *handle, const char *name) {
  lazy_module *m = handle;
  if (!m)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "CUDA: kernel %s has no module (the shared object's "
                   "constructors did not run, or ran out of memory)",
                   name);
  pthread_mutex_lock(&g_modules_lock);
  if (!m->module) {
    char log[4096] = "";
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r =
        onnxc_cu.ModuleLoadDataEx(&m->module, m->data, 2, options, values);
    if (r) {
      m->module = NULL;
      pthread_mutex_unlock(&g_modules_lock);
      onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                     "CUDA: cannot load the model's kernels (%s)%s%s",
                     onnxc_cuda_error_string(r), log[0] ? ": " : "", log);
    }
  }
  pthread_mutex_unlock(&g_modules_lock);
  CUfunction f = NULL;
  CUresult r = onnxc_cu.ModuleGetFunction(&f, m->module, name);
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE, "CUDA: no kernel %s (%s)", name,
                   onnxc_cuda_error_string(r));
  g_kernel = name;
  return f;
}

void *mgpuStreamCreate(void) { return CU_STREAM_PER_THREAD; }
void mgpuStreamDestroy(void *stream) { (void)stream; }

/* The launches' own synchronisation: none. The host waits only where it
 * touches memory (onnxc_rt_device_sync, which onnxc-device-sync places),
 * so that kernels queue up on the stream. */
void mgpuStreamSynchronize(void *stream) { (void)stream; }

/* Waits for the kernels launched by this thread; a failure ends the run. */
/* Launches what onnxc_cuda_graphs.c deferred; a failure ends the run. */
static void flush_deferred(void) {
  const char *failed = NULL, *last = NULL;
  CUresult r = onnxc_cuda_graphs_flush(&failed, &last);
  if (last)
    g_kernel = last;
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE, "CUDA: cannot launch %s%s (%s)",
                   failed ? "kernel " : "a CUDA graph", failed ? failed : "",
                   onnxc_cuda_error_string(r));
}

void onnxc_rt_device_sync(void) {
  if (!g_pending)
    return;
  g_pending = 0;
  flush_deferred();
  CUresult r = onnxc_cu.StreamSynchronize(CU_STREAM_PER_THREAD);
  if (r && !g_kernel)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "CUDA: copying the inputs to the device failed (%s)",
                   onnxc_cuda_error_string(r));
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "CUDA: a kernel failed (%s); the last one launched was %s",
                   onnxc_cuda_error_string(r), g_kernel);
  onnxc_cuda_profile_harvest();
}

/* The same without ending the run (on the way out of a failed run). */
void onnxc_rt_device_drain(void) {
  if (!g_pending)
    return;
  g_pending = 0;
  onnxc_cuda_graphs_discard();
  onnxc_cu.StreamSynchronize(CU_STREAM_PER_THREAD);
  onnxc_cuda_profile_harvest();
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  g_pending = 1;
  unsigned dims[6] = {(unsigned)gridX,  (unsigned)gridY,  (unsigned)gridZ,
                      (unsigned)blockX, (unsigned)blockY, (unsigned)blockZ};
  if (!extra && onnxc_cuda_graphs_defer(function, g_kernel, dims,
                                        (unsigned)smem, params, paramsCount))
    return;
  const char *name = g_kernel;
  flush_deferred(); /* they go first */
  g_kernel = name;
  onnxc_cuda_profile_launch_begin(function, g_kernel, dims);
  CUresult r = onnxc_cu.LaunchKernel(function, dims[0], dims[1], dims[2],
                                     dims[3], dims[4], dims[5], (unsigned)smem,
                                     stream, params, extra);
  onnxc_cuda_profile_launch_end();
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "CUDA: cannot launch kernel %s on %ld x %ld x %ld blocks "
                   "of %ld x %ld x %ld threads (%s)",
                   g_kernel ? g_kernel : "?", (long)gridX, (long)gridY,
                   (long)gridZ, (long)blockX, (long)blockY, (long)blockZ,
                   onnxc_cuda_error_string(r));
}
