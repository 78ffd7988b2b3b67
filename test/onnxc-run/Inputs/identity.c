/*===- identity.c - A one-input identity model library for onnxc-run tests ===*
 *
 * Y = X for X of element type DTYPE (bytes per element ELEM_SIZE) and RANK
 * unnamed dynamic dims (default 2); build with -DDTYPE=N -DELEM_SIZE=S.
 *
 *===----------------------------------------------------------------------===*/
#include "onnxc/Runtime/onnxc_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RANK
#define RANK 2
#endif

static _Thread_local char lastError[128];

int onnxc_api_version(void) { return ONNXC_API_VERSION; }
int onnxc_num_inputs(void) { return 1; }
int onnxc_num_outputs(void) { return 1; }
const char *onnxc_input_name(int i) { return i == 0 ? "X" : NULL; }
int32_t onnxc_input_dtype(int i) { return i == 0 ? DTYPE : -1; }
int onnxc_input_rank(int i) { return i == 0 ? RANK : -1; }
int64_t onnxc_input_dim(int i, int a) {
  (void)i, (void)a;
  return -1;
}
const char *onnxc_input_dim_name(int i, int a) {
  return i == 0 && a >= 0 && a < RANK ? "" : NULL;
}
const char *onnxc_output_name(int i) { return i == 0 ? "Y" : NULL; }
int32_t onnxc_output_dtype(int i) { return onnxc_input_dtype(i); }
int onnxc_output_rank(int i) { return onnxc_input_rank(i); }
int64_t onnxc_output_dim(int i, int a) { return onnxc_input_dim(i, a); }
const char *onnxc_output_dim_name(int i, int a) {
  return onnxc_input_dim_name(i, a);
}
const char *onnxc_last_error(void) { return lastError; }

onnxc_status onnxc_run(const onnxc_tensor *inputs, size_t num_inputs,
                       onnxc_tensor **outputs, size_t *num_outputs) {
  *outputs = NULL;
  *num_outputs = 0;
  if (num_inputs != 1) {
    snprintf(lastError, sizeof lastError, "expected 1 input");
    return ONNXC_ERROR_INVALID_ARGUMENT;
  }
  if (inputs[0].dtype != DTYPE) {
    snprintf(lastError, sizeof lastError,
             "input 0 (X): element type %d, expected %d", (int)inputs[0].dtype,
             DTYPE);
    return ONNXC_ERROR_DTYPE;
  }
  if (inputs[0].rank != RANK) {
    snprintf(lastError, sizeof lastError, "input 0 (X): rank %d, expected %d",
             (int)inputs[0].rank, RANK);
    return ONNXC_ERROR_RANK;
  }
  size_t n = 1;
  for (int a = 0; a < RANK; ++a)
    n *= (size_t)inputs[0].shape[a];
  char *block =
      malloc(sizeof(onnxc_tensor) + RANK * sizeof(int64_t) + n * ELEM_SIZE);
  onnxc_tensor *out = (onnxc_tensor *)block;
  int64_t *shape = (int64_t *)(out + 1);
  memcpy(shape, inputs[0].shape, RANK * sizeof(int64_t));
  memcpy(shape + RANK, inputs[0].data, n * ELEM_SIZE);
  *out = (onnxc_tensor){DTYPE, RANK, shape, shape + RANK};
  *outputs = out;
  *num_outputs = 1;
  return ONNXC_OK;
}

void onnxc_free_outputs(onnxc_tensor *outputs, size_t num_outputs) {
  (void)num_outputs;
  free(outputs);
}

#include "tensor_values.h"
