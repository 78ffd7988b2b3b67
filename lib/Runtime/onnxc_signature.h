/*===- onnxc_signature.h - Signatures of compiled functions ---------------===*
 *
 * What onnxc_runtime.c parses of a compiled function's signature text (the
 * model, or a training library's evaluation or initialization function)
 * and the checks of a run's inputs against it (onnxc_signature.c).
 *
 *===----------------------------------------------------------------------===*/
#ifndef ONNXC_RUNTIME_SIGNATURE_H
#define ONNXC_RUNTIME_SIGNATURE_H

#include "onnxc_internal.h"

#include <pthread.h>

typedef struct {
  char *name;
  int type; /* ONNXC_TYPE_*: a tensor's dtype and dims, or its items' */
  int32_t key_dtype; /* a map's keys' (ONNXC_TYPE_MAP, _SEQUENCE_OF_MAPS) */
  int32_t dtype;
  int rank;
  int64_t *dims;
  char **dim_names;
} sig_tensor;

/* A compiled function the runtime runs and what it parsed of its
 * signature: the model, or a training library's evaluation or
 * initialization function. */
typedef struct model_table {
  const char *signature;
  const char *messages;
  /* '1' for each input that only kernels read (CUDA: staged in device
   * memory), else '0'; may be shorter than the inputs, or NULL. */
  const char *device_inputs;
  void (*entry)(void **args);
  void (*init)(void);
  void (*parse)(void); /* parses this table (a pthread_once routine) */
  pthread_once_t once;
  sig_tensor *inputs, *outputs;
  int num_inputs, num_outputs;
  int signature_ok;
  pthread_mutex_t init_lock;
  int init_done; /* init has run */
} model_table;

/* onnxc_inputs.c: points the input descriptors args[1..] of a run of `m`
 * at copies in buffers of the run where the generated code needs them:
 * sub-byte types unpacked, and on the CUDA target (`cuda`) every tensor in
 * memory kernels can read; `on_device`: the caller's data are CUDA device
 * addresses (onnxc_run_with). */
void onnxc_rt_stage_inputs(const model_table *m, void **args, int on_device,
                           int cuda);
/* Packs `count` one-byte elements of `bits` bits into the front of the
 * same buffer (an output of a sub-byte type). */
void onnxc_rt_pack_elements(uint8_t *data, int64_t count, int bits);

/* Sets the calling thread's error message (onnxc_last_error); returns
 * `code`. */
onnxc_status onnxc_rt_error(onnxc_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses m->signature into m's tables; 0 when out of memory (the tables
 * are then partly filled: onnxc_rt_free_signature frees them). */
int onnxc_rt_parse_tables(model_table *m);
/* Frees m's tables (also when the library is unloaded). */
void onnxc_rt_free_signature(model_table *m);

/* Bits per element of the types packed at the API, 0 for the others. */
int onnxc_rt_dtype_packed_bits(int32_t dtype);
/* Bytes of `count` elements in the API's layout; 0 on overflow. */
int onnxc_rt_api_bytes(int32_t dtype, int64_t count, int64_t *bytes);

/* A symbolic dim's size, bound by the first input that has it. */
typedef struct {
  const char *name;
  int64_t value;
} onnxc_rt_bound_dim;

/* Checks input value `v` (input `i`) against its signature entry `t`,
 * binding symbolic dims in `bound`; *handle is what the generated code
 * gets for it. */
onnxc_status onnxc_rt_check_value(const sig_tensor *t, int i,
                                  const onnxc_value *v,
                                  onnxc_rt_bound_dim *bound, int *num_bound,
                                  void **handle);

#endif /* ONNXC_RUNTIME_SIGNATURE_H */
