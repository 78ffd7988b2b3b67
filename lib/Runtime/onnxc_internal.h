/*===- onnxc_internal.h - What the runtime's C files share ----------------===*
 *
 * Hidden functions of lib/Runtime (the library's own visibility is hidden;
 * only onnxc_runtime.h's functions are exported).
 *
 *===----------------------------------------------------------------------===*/
#ifndef ONNXC_RUNTIME_INTERNAL_H
#define ONNXC_RUNTIME_INTERNAL_H

#include "onnxc/Runtime/onnxc_runtime.h"

/* An unranked memref as MLIR passes it: the rank and a pointer to the
 * ranked descriptor (allocated, aligned, offset, sizes[rank],
 * strides[rank]). */
typedef struct {
  int64_t rank;
  void *descriptor;
} onnxc_unranked_memref;

/* Copies a strided memref into another of the same sizes (MLIR's
 * memref.copy of non-contiguous memrefs calls it). */
void memrefCopy(int64_t elem_size, onnxc_unranked_memref *src,
                onnxc_unranked_memref *dst);

/* onnxc_buffers.c: every buffer starts after this header; the headers of
 * a run form a doubly linked list with the run's sentinel. */
typedef struct onnxc_rt_block {
  struct onnxc_rt_block *prev, *next;
  void *raw;    /* what the allocator returned */
  size_t size;  /* what was asked for */
  size_t total; /* the size of the block at raw */
  int device;   /* device memory (onnxc_rt_device_buffer): this record is
                   apart from the block */
} onnxc_rt_block;
/* The sentinel of the calling thread's run in progress (NULL outside
 * runs: blocks then belong to no list). */
extern __thread onnxc_rt_block *onnxc_rt_run_blocks;
/* A buffer of the run. `for_host`: the host writes it first (a staged
 * input), so a block the cache had from the caller is not moved to the
 * device ahead of that. Out of memory ends the run. */
void *onnxc_rt_allocate_block(size_t size, size_t alignment, int for_host);
/* Frees a block (`host`: it comes back from the caller, an output). */
void onnxc_rt_release_block(void *p, int host);
/* Frees every block of a run's list. */
void onnxc_rt_release_all(onnxc_rt_block *sentinel);
/* A block of device memory for the run (managed memory where the driver
 * gives none): *allocated is its host record (what
 * onnxc_rt_release_block takes), *aligned the device address. */
void onnxc_rt_allocate_device_block(size_t size, void **allocated,
                                    void **aligned);
/* The block at `p`, unlinked from its run (an output handed out). */
void onnxc_rt_detach_block(void *p);

/* A buffer of the current run, freed when the run ends; a failed
 * allocation ends the run with ONNXC_ERROR_OUT_OF_MEMORY. */
void *onnxc_rt_alloc(size_t size);
/* A buffer that outlives the run (the outputs); NULL when out of memory. */
void *onnxc_rt_alloc_detached(size_t size);
/* Frees a buffer of either kind. */
void onnxc_rt_release(void *p);
/* Bytes per element in the generated code's buffers (sub-byte types: 1). */
size_t onnxc_rt_dtype_size(int32_t dtype);
/* Ends the current run with `code` and the message. */
__attribute__((noreturn)) void onnxc_rt_abort(onnxc_status code,
                                              const char *fmt, ...);
/* A training library's other functions: its evaluation (onnxc_eval_*) and
 * its initialization (onnxc_init_*). onnxc_rt_run_function runs one like
 * onnxc_run (errors in onnxc_last_error); onnxc_rt_function_num gives its
 * number of inputs or outputs (-1 without the function),
 * onnxc_rt_function_name their names. */
enum { ONNXC_RT_EVAL = 1, ONNXC_RT_INIT = 2 };
onnxc_status onnxc_rt_run_function(int which, const onnxc_tensor *inputs,
                                   size_t num_inputs, onnxc_tensor **outputs,
                                   size_t *num_outputs);
int onnxc_rt_function_num(int which, int output);
const char *onnxc_rt_function_name(int which, int output, int index);
/* The CUDA target's: waits for the kernels the thread launched. */
extern void onnxc_rt_device_sync(void) __attribute__((weak));

/* A detached copy of `count` strings (one block: the pointers, then the
 * characters); NULL when out of memory. */
void *onnxc_rt_copy_strings(const char *const *src, int64_t count);
void *onnxc_rt_tensor_box(int32_t dtype, int64_t rank, void *descriptor);
/* A new tensor value holding a copy of the row-major buffer `data` of
 * `shape` (what a runtime function computed, as a value to return). */
void *onnxc_rt_box_contiguous(int32_t dtype, int64_t rank, const int64_t *shape,
                              void *data);
void *onnxc_rt_seq_empty(int32_t dtype);
void *onnxc_rt_seq_insert(const onnxc_value *seq, int64_t pos,
                          const onnxc_value *item);

/* Deep copy of a value the run produced or was given, into detached
 * buffers; 0 when out of memory (*dst then holds nothing). */
int onnxc_rt_copy_value(const onnxc_value *src, onnxc_value *dst);
/* Frees what onnxc_rt_copy_value put into `v` (not `v` itself). */
void onnxc_rt_free_value(onnxc_value *v);

/* One more name for a function the generated code declares once per
 * element type of its memref argument (the C side takes the dtype). */
#define ALIAS(fn, suffix)                                                      \
  extern __typeof(fn) fn##_##suffix __attribute__((alias(#fn)));

#endif /* ONNXC_RUNTIME_INTERNAL_H */
