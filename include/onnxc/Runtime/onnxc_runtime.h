/*===- onnxc_runtime.h - The C API of an onnxc-compiled model -------------===*
 *
 * Every shared object that onnxc produces exports these functions. The
 * library needs only libc, libm and libpthread at run time. All functions
 * are thread-safe; onnxc_run may be called from several threads at once,
 * also on the same input buffers: a model never writes its inputs.
 *
 * What the inputs decide only at run time is checked while the model runs
 * (index values, reshape sizes, dynamic broadcast dims, sizes and steps
 * read from tensors, dims the model's declared shapes fix): a failed check
 * makes onnxc_run return ONNXC_ERROR_RUNTIME with a message that names the
 * ONNX node and the values, after freeing everything the run allocated. An
 * allocation that fails gives ONNXC_ERROR_OUT_OF_MEMORY the same way.
 *
 * Tensors are dense, row-major, with the element types numbered as ONNX's
 * TensorProto.DataType (1 = float, 7 = int64, 9 = bool stored as one byte,
 * ...). The float8 types take a byte per element; the sub-byte types are
 * packed as in ONNX's raw_data: int4, uint4 and float4e2m1 two per byte,
 * int2 and uint2 four per byte, the first element in the lowest bits, the
 * last byte's unused bits zero. A tensor of strings (ONNXC_STRING) has
 * `data` pointing to an array of one `const char *` per element, each a
 * NUL-terminated UTF-8 string (bytes pass through unchecked): for inputs
 * the caller owns the array and the strings (a NULL entry reads as "", and
 * the model writes neither); for outputs both are the library's own copies
 * until the outputs are freed. An empty string tensor may have NULL data.
 *
 * A model compiled with --target=cuda has the same API and takes and gives
 * host buffers. It loads libcuda.so.1 at its first run (the library itself
 * needs no CUDA to load); without a driver or a device every run returns
 * ONNXC_ERROR_DEVICE. Its outputs live in CUDA managed memory, readable
 * from the host like any other; ONNXC_CUDA_DEVICE picks the device
 * (default 0). onnxc_run_with also takes inputs in device memory.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ONNXC_RUNTIME_H
#define ONNXC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ONNXC_API_VERSION 3

typedef enum onnxc_status {
  ONNXC_OK = 0,
  ONNXC_ERROR_INVALID_ARGUMENT = 1, /* null pointer, bad index, wrong count */
  ONNXC_ERROR_DTYPE = 2,            /* input element type differs from the model's */
  ONNXC_ERROR_RANK = 3,             /* input rank differs */
  ONNXC_ERROR_SHAPE = 4,            /* a static dim differs, a dim is negative, or a
                                       symbolic dim gets two different values */
  ONNXC_ERROR_OUT_OF_MEMORY = 5,    /* an allocation failed (nothing leaks) */
  ONNXC_ERROR_RUNTIME = 6,          /* a run-time check failed: the message
                                       names the node and the values */
  ONNXC_ERROR_DEVICE = 7            /* a model compiled for CUDA found no
                                       usable CUDA driver or device, or a
                                       CUDA call failed (the message says
                                       which) */
} onnxc_status;

/* Element types, as ONNX TensorProto.DataType. */
enum {
  ONNXC_FLOAT = 1, ONNXC_UINT8 = 2, ONNXC_INT8 = 3, ONNXC_UINT16 = 4,
  ONNXC_INT16 = 5, ONNXC_INT32 = 6, ONNXC_INT64 = 7, ONNXC_STRING = 8,
  ONNXC_BOOL = 9, ONNXC_FLOAT16 = 10, ONNXC_DOUBLE = 11, ONNXC_UINT32 = 12,
  ONNXC_UINT64 = 13, ONNXC_COMPLEX64 = 14, ONNXC_COMPLEX128 = 15,
  ONNXC_BFLOAT16 = 16, ONNXC_FLOAT8E4M3FN = 17, ONNXC_FLOAT8E4M3FNUZ = 18,
  ONNXC_FLOAT8E5M2 = 19, ONNXC_FLOAT8E5M2FNUZ = 20, ONNXC_UINT4 = 21,
  ONNXC_INT4 = 22, ONNXC_FLOAT4E2M1 = 23, ONNXC_FLOAT8E8M0 = 24,
  ONNXC_UINT2 = 25, ONNXC_INT2 = 26
};

typedef struct onnxc_tensor {
  int32_t dtype;        /* ONNXC_FLOAT, ... */
  int32_t rank;
  const int64_t *shape; /* rank entries */
  void *data;           /* dense row-major elements */
} onnxc_tensor;

/* Values that are not tensors: sequences, optionals and maps. A model
 * whose signature has one (onnxc_input_type / onnxc_output_type) runs
 * through onnxc_run_values; onnxc_run takes and gives tensors only.
 *
 *   ONNXC_KIND_TENSOR    `tensor` holds it.
 *   ONNXC_KIND_SEQUENCE  `items` points to `num_items` values of kind
 *                        ONNXC_KIND_TENSOR (their shapes may differ; their
 *                        element type is the sequence's, also given in
 *                        `tensor.dtype`, which is all an empty sequence says),
 *                        or of kind ONNXC_KIND_MAP (a sequence of maps).
 *   ONNXC_KIND_OPTIONAL  `num_items` is 0 (no value) or 1: then `items`
 *                        points to the value (a tensor or a sequence).
 *                        An optional entry of the signature is always
 *                        passed and returned as such a value.
 *   ONNXC_KIND_MAP       `num_items` is 2: `items[0]` is the keys, a 1-D
 *                        tensor of int64 or strings without duplicates
 *                        (the caller's duty: a repeated key's entry is
 *                        unspecified),
 *                        `items[1]` the values, a 1-D tensor of the same
 *                        length (entry i maps keys[i] to values[i]; the
 *                        order means nothing). `tensor.dtype` is the
 *                        values' dtype.
 *
 * `items` may be NULL when `num_items` is 0. Only `tensor.dtype` means
 * something in a sequence, an optional or a map (a sequence of maps: the
 * values' dtype). Map values are scalars (what ZipMap, DictVectorizer and
 * CastMap use); optional maps have no signature type yet. The thread-safety and
 * never-writes-its-inputs promises and the run-time checks of onnxc_run
 * hold for onnxc_run_values alike.
 *
 * Ownership: the caller owns what it passes to onnxc_run_values (every
 * level) and the library never writes it; everything reachable from the
 * outputs of onnxc_run_values (items arrays, shapes, data) belongs to the
 * library until onnxc_free_values releases it all at once. */
typedef enum onnxc_kind {
  ONNXC_KIND_TENSOR = 0,
  ONNXC_KIND_SEQUENCE = 1,
  ONNXC_KIND_OPTIONAL = 2,
  ONNXC_KIND_MAP = 3
} onnxc_kind;

typedef struct onnxc_value {
  int32_t kind;               /* onnxc_kind */
  onnxc_tensor tensor;        /* ONNXC_KIND_TENSOR; a sequence's dtype */
  size_t num_items;           /* see above */
  struct onnxc_value *items;
} onnxc_value;

/* The type of a signature entry (onnxc_input_type / onnxc_output_type):
 * its dtype, rank and dims (below) describe the tensor, or the tensors of
 * the sequence. A sequence (optional or not) whose tensors' rank the model
 * leaves open has rank -1, and so has a tensor output whose rank depends on
 * the branch an If takes (onnxc_run and onnxc_run_values return it as any
 * tensor, with the rank and shape it got). For a map, or a sequence of maps,
 * dtype is the values' dtype, the rank 1 with a dynamic dim (meaning nothing
 * more), and onnxc_{input,output}_key_dtype gives the keys' dtype (-1 for the
 * other types; part of version 2, as maps are). */
enum {
  ONNXC_TYPE_TENSOR = 0,
  ONNXC_TYPE_SEQUENCE = 1,          /* sequence of tensors */
  ONNXC_TYPE_OPTIONAL_TENSOR = 2,   /* optional tensor */
  ONNXC_TYPE_OPTIONAL_SEQUENCE = 3, /* optional sequence of tensors */
  ONNXC_TYPE_MAP = 4,               /* map (int64 or string keys) */
  ONNXC_TYPE_SEQUENCE_OF_MAPS = 5   /* sequence of maps (ZipMap's output) */
};

/* Signature. Indices run from 0 to count - 1. A dim is -1 when it is only
 * known at run time; its symbolic name (ONNX dim_param) is then given by
 * onnxc_*_dim_name, or "" when the model names none. Strings live as long
 * as the library is loaded. Invalid indices give -1 / NULL. */
int onnxc_api_version(void);
int onnxc_num_inputs(void);
int onnxc_num_outputs(void);
const char *onnxc_input_name(int index);
int32_t onnxc_input_dtype(int index);
int onnxc_input_type(int index); /* ONNXC_TYPE_* */
int32_t onnxc_input_key_dtype(int index);
int onnxc_input_rank(int index);
int64_t onnxc_input_dim(int index, int axis);
const char *onnxc_input_dim_name(int index, int axis);
const char *onnxc_output_name(int index);
int32_t onnxc_output_dtype(int index);
int onnxc_output_type(int index);
int32_t onnxc_output_key_dtype(int index);
int onnxc_output_rank(int index);
int64_t onnxc_output_dim(int index, int axis);
const char *onnxc_output_dim_name(int index, int axis);

/* Runs a model whose inputs and outputs are all tensors (else
 * ONNXC_ERROR_INVALID_ARGUMENT: use onnxc_run_values). `inputs` holds
 * onnxc_num_inputs() tensors in signature order; the caller keeps
 * ownership of them. On success *outputs points to
 * onnxc_num_outputs() tensors allocated by the library: release them with
 * onnxc_free_outputs. On failure *outputs is NULL and onnxc_last_error()
 * describes the problem. */
onnxc_status onnxc_run(const onnxc_tensor *inputs, size_t num_inputs,
                       onnxc_tensor **outputs, size_t *num_outputs);
void onnxc_free_outputs(onnxc_tensor *outputs, size_t num_outputs);

/* Where the data of onnxc_run_with's input tensors live (API version 3). */
enum {
  ONNXC_MEMORY_HOST = 0,  /* host memory, as onnxc_run takes */
  ONNXC_MEMORY_DEVICE = 1 /* device memory of a model compiled for CUDA */
};

typedef struct onnxc_run_options {
  size_t size;          /* sizeof(onnxc_run_options): later versions may add
                           fields, read only where `size` covers them */
  int32_t input_memory; /* ONNXC_MEMORY_HOST (default) or _DEVICE */
} onnxc_run_options;

/* onnxc_run with options; NULL options are onnxc_run's defaults.
 *
 * ONNXC_MEMORY_DEVICE (models compiled with --target=cuda only; elsewhere
 * ONNXC_ERROR_INVALID_ARGUMENT): each input's `data` is a CUDA device
 * address (a CUdeviceptr cast to a pointer) in the primary context of the
 * library's device (ONNXC_CUDA_DEVICE): memory from cuMemAlloc, cudaMalloc,
 * cuMemAllocManaged, a PyTorch CUDA tensor's data_ptr(), ... The run copies
 * the inputs on the device (device to device, on the calling thread's
 * per-thread default stream) instead of from the host; whatever wrote them
 * must be complete (synchronise its stream first). The model still never
 * writes its inputs. String inputs cannot be device memory
 * (ONNXC_ERROR_INVALID_ARGUMENT); an input the device cannot copy from (a
 * host pointer, a pointer of another device) is ONNXC_ERROR_DEVICE naming
 * it. The outputs are as onnxc_run gives them: CUDA managed memory, which is
 * at once readable by the host and a device address in the same context, so
 * that device pointers in give device pointers out without a copy; they are
 * complete when the call returns. */
onnxc_status onnxc_run_with(const onnxc_run_options *options,
                            const onnxc_tensor *inputs, size_t num_inputs,
                            onnxc_tensor **outputs, size_t *num_outputs);

/* Runs a model with values of any kind (tensors included), in signature
 * order; the same contract as onnxc_run otherwise. Release the outputs
 * with onnxc_free_values. An input whose kind or element type differs from
 * the signature gives ONNXC_ERROR_INVALID_ARGUMENT or ONNXC_ERROR_DTYPE
 * naming it. */
onnxc_status onnxc_run_values(const onnxc_value *inputs, size_t num_inputs,
                              onnxc_value **outputs, size_t *num_outputs);
void onnxc_free_values(onnxc_value *values, size_t num_values); /* NULL: no-op */

/* Intra-op threads: how many threads (the calling one included) one run
 * may use for its parallel loops. The default is ONNXC_NUM_THREADS when
 * that is set to a number >= 1, else the number of CPUs the process may run
 * on. 1 runs everything on the calling thread. onnxc_set_num_threads(n)
 * with n >= 1 sets it for every later run in the process and returns the
 * previous value; n <= 0 only returns the current value. */
int onnxc_set_num_threads(int n);
int onnxc_get_num_threads(void);

/* Where the model runs: "cpu", or "cuda" for a library compiled with
 * --target=cuda. */
const char *onnxc_device(void);

/* The message of the last failed call on the calling thread ("" if none). */
const char *onnxc_last_error(void);

/* Training (a library compiled with `onnxc --train`). Its signature is one
 * training step: inputs 0 .. onnxc_train_num_inputs() - 1 are the model's
 * inputs and the labels, the rest the state (the trained parameters,
 * BatchNormalization's running statistics, the optimizer's state, named as
 * onnxc_train_state_name gives); outputs are the loss, then the next state.
 * The library keeps the state, starting from the model's initializers (and
 * zeros for the optimizer): onnxc_train_step takes the inputs before the
 * state only, runs the step, stores the loss (converted to double) in
 * *loss and makes the next state current. onnxc_train_get_state /
 * onnxc_train_set_state copy state tensor i out or in (`bytes` must be
 * onnxc_train_state_bytes(i); its shape is input
 * onnxc_train_num_inputs() + i of the signature); onnxc_train_reset goes
 * back to the initial state; onnxc_train_save / onnxc_train_load write and
 * read a checkpoint of the whole state (a bad file changes nothing). The
 * training functions are serialised by a lock; on failure
 * onnxc_train_last_error() says why. In a library compiled without
 * --train, onnxc_train_num_state() and onnxc_train_num_inputs() return -1
 * and the others fail with ONNXC_ERROR_INVALID_ARGUMENT.
 *
 * onnxc_train_eval runs the model for inference (BatchNormalization with
 * its running statistics, no Dropout) with the current state's weights:
 * it takes the model's inputs (onnxc_train_eval_num_inputs of them, the
 * first inputs of the step; no labels) and returns the model's outputs
 * (onnxc_train_eval_num_outputs, named by onnxc_train_eval_output_name) as
 * onnxc_run does: free them with onnxc_free_outputs. */
int onnxc_train_num_state(void);
int onnxc_train_num_inputs(void);
const char *onnxc_train_state_name(int i);
size_t onnxc_train_state_bytes(int i);
onnxc_status onnxc_train_step(const onnxc_tensor *inputs, size_t num_inputs,
                              double *loss);
onnxc_status onnxc_train_get_state(int i, void *data, size_t bytes);
onnxc_status onnxc_train_set_state(int i, const void *data, size_t bytes);
onnxc_status onnxc_train_reset(void);
onnxc_status onnxc_train_save(const char *path);
onnxc_status onnxc_train_load(const char *path);
const char *onnxc_train_last_error(void);
int onnxc_train_eval_num_inputs(void);
int onnxc_train_eval_num_outputs(void);
const char *onnxc_train_eval_output_name(int i);
onnxc_status onnxc_train_eval(const onnxc_tensor *inputs, size_t num_inputs,
                              onnxc_tensor **outputs, size_t *num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* ONNXC_RUNTIME_H */
