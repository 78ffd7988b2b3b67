/*===- onnxc_cuda.h - What the CUDA runtime's C files share ---------------===*
 *
 * The CUDA driver API as lib/Runtime/onnxc_cuda.c loads it (dlopen), for
 * the CUDA runtime's other files. Hidden, like the rest of the runtime.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ONNXC_RUNTIME_CUDA_H
#define ONNXC_RUNTIME_CUDA_H

#include "onnxc/Runtime/onnxc_runtime.h"

#include <stddef.h>

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

typedef struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                               void **);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
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
} onnxc_cuda_api;
/* The driver's functions (onnxc_cuda.c loads them). */
extern onnxc_cuda_api onnxc_cu;

/* The driver's message for `r`. */
const char *onnxc_cuda_error_string(CUresult r);

/* onnxc_cuda_profile.c: ONNXC_CUDA_PROFILE's kernel table. */
void onnxc_cuda_profile_run(void);
void onnxc_cuda_profile_launch_begin(CUfunction f, const char *name,
                                     const unsigned dims[6]);
void onnxc_cuda_profile_launch_end(void);
void onnxc_cuda_profile_harvest(void);

/* onnxc_cuda_graphs.c: ONNXC_CUDA_GRAPHS=1's deferred launches. */
void onnxc_cuda_graphs_init(void *lib);
int onnxc_cuda_graphs_defer(CUfunction f, const char *name,
                            const unsigned dims[6], unsigned smem,
                            void **params, size_t num_params);
CUresult onnxc_cuda_graphs_flush(const char **failed, const char **last);
void onnxc_cuda_graphs_discard(void);

#endif /* ONNXC_RUNTIME_CUDA_H */
