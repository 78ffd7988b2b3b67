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
#include "onnxc/Runtime/onnxc_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noreturn)) void onnxc_rt_abort(onnxc_status code,
                                              const char *fmt, ...);

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;
typedef unsigned long long CUdeviceptr;

typedef struct {
  int type; /* CU_MEM_LOCATION_TYPE_DEVICE = 1 */
  int id;
} mem_location;

#define CU_STREAM_PER_THREAD ((CUstream)0x2)
#define CU_MEM_ATTACH_GLOBAL 0x1
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                               void **);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, unsigned, CUstream,
                           void **, void **);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*MemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*GetErrorString)(CUresult, const char **);
  /* Optional: CUDA 12.2's form (a location), else the older (a device). */
  CUresult (*MemPrefetchAsyncV2)(CUdeviceptr, size_t, mem_location, unsigned,
                                 CUstream);
  CUresult (*MemPrefetchAsync)(CUdeviceptr, size_t, CUdevice, CUstream);
  /* Optional: inputs copied by the driver (DMA) instead of the host. */
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  /* Optional: inputs in device memory (onnxc_run_with). */
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  /* Optional: buffers only kernels touch (onnxc_rt_device_buffer). */
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  /* Optional: the kernel profile (ONNXC_CUDA_PROFILE). */
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*EventDestroy)(CUevent);
} cu;
static CUdevice g_device;
static int g_no_prefetch; /* ONNXC_CUDA_PREFETCH=0: leave it to the faults */
static int g_no_device_memory; /* ONNXC_CUDA_DEVICE_MEMORY=0: managed only */

static pthread_once_t g_cuda_once = PTHREAD_ONCE_INIT;
static CUcontext g_context;
static char g_cuda_problem[512]; /* why CUDA cannot be used, or "" */

static const char *error_string(CUresult r) {
  const char *s = NULL;
  if (cu.GetErrorString && cu.GetErrorString(r, &s) == 0 && s)
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
      {(void **)&cu.Init, "cuInit"},
      {(void **)&cu.DeviceGetCount, "cuDeviceGetCount"},
      {(void **)&cu.DeviceGet, "cuDeviceGet"},
      {(void **)&cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void **)&cu.CtxSetCurrent, "cuCtxSetCurrent"},
      {(void **)&cu.ModuleLoadDataEx, "cuModuleLoadDataEx"},
      {(void **)&cu.ModuleUnload, "cuModuleUnload"},
      {(void **)&cu.ModuleGetFunction, "cuModuleGetFunction"},
      {(void **)&cu.LaunchKernel, "cuLaunchKernel"},
      {(void **)&cu.StreamSynchronize, "cuStreamSynchronize"},
      {(void **)&cu.MemAllocManaged, "cuMemAllocManaged"},
      {(void **)&cu.MemFree, "cuMemFree_v2"},
      {(void **)&cu.GetErrorString, "cuGetErrorString"},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i) {
    *syms[i].slot = dlsym(lib, syms[i].name);
    if (!*syms[i].slot) {
      snprintf(g_cuda_problem, sizeof g_cuda_problem,
               "no CUDA device: libcuda.so.1 lacks %s", syms[i].name);
      return;
    }
  }
  cu.MemPrefetchAsyncV2 = dlsym(lib, "cuMemPrefetchAsync_v2");
  cu.MemPrefetchAsync = dlsym(lib, "cuMemPrefetchAsync");
  cu.MemcpyHtoDAsync = dlsym(lib, "cuMemcpyHtoDAsync_v2");
  cu.MemcpyDtoDAsync = dlsym(lib, "cuMemcpyDtoDAsync_v2");
  cu.MemcpyDtoH = dlsym(lib, "cuMemcpyDtoH_v2");
  cu.MemAlloc = dlsym(lib, "cuMemAlloc_v2");
  cu.EventCreate = dlsym(lib, "cuEventCreate");
  cu.EventRecord = dlsym(lib, "cuEventRecord");
  cu.EventElapsedTime = dlsym(lib, "cuEventElapsedTime");
  cu.EventDestroy = dlsym(lib, "cuEventDestroy_v2");
  CUresult r = cu.Init(0);
  if (r) {
    snprintf(g_cuda_problem, sizeof g_cuda_problem,
             "no CUDA device: cuInit failed (%s)", error_string(r));
    return;
  }
  int count = 0;
  r = cu.DeviceGetCount(&count);
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
  if ((r = cu.DeviceGet(&device, ordinal)) ||
      (r = cu.DevicePrimaryCtxRetain(&g_context, device))) {
    snprintf(g_cuda_problem, sizeof g_cuda_problem,
             "no CUDA device: cannot open device %d (%s)", ordinal,
             error_string(r));
    g_context = NULL;
    return;
  }
  g_device = device;
  const char *prefetch = getenv("ONNXC_CUDA_PREFETCH");
  g_no_prefetch = prefetch && !strcmp(prefetch, "0");
  const char *device_memory = getenv("ONNXC_CUDA_DEVICE_MEMORY");
  g_no_device_memory = device_memory && !strcmp(device_memory, "0");
}

static __thread const char *g_kernel; /* the run's last kernel looked up */
static void profile_run(void);
static void profile_launch_begin(CUfunction f, const char *name,
                                 const unsigned dims[6]);
static void profile_launch_end(void);
static void profile_harvest(void);

__attribute__((visibility("default"))) const char *onnxc_device(void) {
  return "cuda";
}

/* Called at the start of each run, before anything is allocated. */
void onnxc_rt_device_enter(void) {
  pthread_once(&g_cuda_once, load_cuda);
  if (!g_context)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE, "%s", g_cuda_problem);
  CUresult r = cu.CtxSetCurrent(g_context);
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE, "CUDA: cuCtxSetCurrent failed (%s)",
                   error_string(r));
  g_kernel = NULL; /* none of this run's yet */
  profile_run();
}

void *onnxc_rt_device_malloc(size_t size) {
  CUdeviceptr p = 0;
  if (!g_context || cu.MemAllocManaged(&p, size ? size : 1,
                                       CU_MEM_ATTACH_GLOBAL))
    return NULL;
  return (void *)(uintptr_t)p;
}

/* Device memory for a buffer only kernels touch; NULL (managed memory
 * then) without cuMemAlloc_v2, with ONNXC_CUDA_DEVICE_MEMORY=0 or when the
 * driver has none left. */
void *onnxc_rt_device_malloc_device(size_t size) {
  CUdeviceptr p = 0;
  if (!g_context || !cu.MemAlloc || g_no_device_memory ||
      cu.MemAlloc(&p, size ? size : 1))
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
  if (cu.MemPrefetchAsyncV2) {
    mem_location where = {1, g_device};
    cu.MemPrefetchAsyncV2(d, bytes, where, 0, CU_STREAM_PER_THREAD);
  } else if (cu.MemPrefetchAsync) {
    cu.MemPrefetchAsync(d, bytes, g_device, CU_STREAM_PER_THREAD);
  }
}

/* Copies a caller's input into a buffer of the run: by the driver on the
 * thread's stream (returns once the caller's memory is read; the kernels
 * after it see the data, host code waits for it), else (a managed buffer,
 * not `dma_only`) by the host and prefetched. 1 when copied. */
static __thread int g_pending;
int onnxc_rt_device_upload(void *dst, const void *src, size_t bytes,
                           int dma_only) {
  if (g_context && cu.MemcpyHtoDAsync &&
      !cu.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, bytes,
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
    if (!cu.MemcpyDtoH)
      return "the driver lacks cuMemcpyDtoH_v2";
    r = cu.MemcpyDtoH(dst, from, bytes);
  } else {
    if (!cu.MemcpyDtoDAsync)
      return "the driver lacks cuMemcpyDtoDAsync_v2";
    r = cu.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst, from, bytes,
                           CU_STREAM_PER_THREAD);
    if (!r)
      g_pending = 1;
  }
  return r ? error_string(r) : NULL;
}

void onnxc_rt_device_free(void *p) {
  if (p && g_context)
    cu.MemFree((CUdeviceptr)(uintptr_t)p); /* fails harmlessly at exit */
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
    cu.ModuleUnload(m->module);
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
    CUresult r = cu.ModuleLoadDataEx(&m->module, m->data, 2, options, values);
    if (r) {
      m->module = NULL;
      pthread_mutex_unlock(&g_modules_lock);
      onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                     "CUDA: cannot load the model's kernels (%s)%s%s",
                     error_string(r), log[0] ? ": " : "", log);
    }
  }
  pthread_mutex_unlock(&g_modules_lock);
  CUfunction f = NULL;
  CUresult r = cu.ModuleGetFunction(&f, m->module, name);
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE, "CUDA: no kernel %s (%s)", name,
                   error_string(r));
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
void onnxc_rt_device_sync(void) {
  if (!g_pending)
    return;
  g_pending = 0;
  CUresult r = cu.StreamSynchronize(CU_STREAM_PER_THREAD);
  if (r && !g_kernel)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "CUDA: copying the inputs to the device failed (%s)",
                   error_string(r));
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "CUDA: a kernel failed (%s); the last one launched was %s",
                   error_string(r), g_kernel);
  profile_harvest();
}

/* The same without ending the run (on the way out of a failed run). */
void onnxc_rt_device_drain(void) {
  if (!g_pending)
    return;
  g_pending = 0;
  cu.StreamSynchronize(CU_STREAM_PER_THREAD);
  profile_harvest();
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)paramsCount;
  g_pending = 1;
  unsigned dims[6] = {(unsigned)gridX,  (unsigned)gridY,  (unsigned)gridZ,
                      (unsigned)blockX, (unsigned)blockY, (unsigned)blockZ};
  profile_launch_begin(function, g_kernel, dims);
  CUresult r =
      cu.LaunchKernel(function, dims[0], dims[1], dims[2], dims[3], dims[4],
                      dims[5], (unsigned)smem, stream, params, extra);
  profile_launch_end();
  if (r)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "CUDA: cannot launch kernel %s on %ld x %ld x %ld blocks "
                   "of %ld x %ld x %ld threads (%s)",
                   g_kernel ? g_kernel : "?", (long)gridX, (long)gridY,
                   (long)gridZ, (long)blockX, (long)blockY, (long)blockZ,
                   error_string(r));
}

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
  return g_profile_file && cu.EventCreate && cu.EventRecord &&
         cu.EventElapsedTime && cu.EventDestroy;
}

static void profile_run(void) {
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

static void profile_launch_begin(CUfunction f, const char *name,
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
  if (cu.EventCreate(&g_launch.start, 0))
    return;
  if (cu.EventCreate(&g_launch.stop, 0)) {
    cu.EventDestroy(g_launch.start);
    return;
  }
  cu.EventRecord(g_launch.start, CU_STREAM_PER_THREAD);
  g_launch_timed = 1;
}

static void profile_launch_end(void) {
  if (!g_launch_timed)
    return;
  g_launch_timed = 0;
  cu.EventRecord(g_launch.stop, CU_STREAM_PER_THREAD);
  pthread_mutex_lock(&g_profile_lock);
  if (g_timed_count == g_timed_capacity) {
    timed_launch *bigger = grow(g_timed, &g_timed_capacity, sizeof *g_timed);
    if (!bigger) {
      pthread_mutex_unlock(&g_profile_lock);
      cu.EventDestroy(g_launch.start);
      cu.EventDestroy(g_launch.stop);
      return;
    }
    g_timed = bigger;
  }
  g_timed[g_timed_count++] = g_launch;
  pthread_mutex_unlock(&g_profile_lock);
}

/* After a wait for the stream: every recorded event has happened. */
static void profile_harvest(void) {
  if (!profiling())
    return;
  pthread_mutex_lock(&g_profile_lock);
  for (size_t i = 0; i < g_timed_count; ++i) {
    float ms = 0;
    if (!cu.EventElapsedTime(&ms, g_timed[i].start, g_timed[i].stop)) {
      g_stats[g_timed[i].stat].ms += ms;
      ++g_stats[g_timed[i].stat].launches;
    }
    cu.EventDestroy(g_timed[i].start);
    cu.EventDestroy(g_timed[i].stop);
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
