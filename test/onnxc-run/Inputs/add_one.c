/*===- add_one.c - A hand-written model library for onnxc-run's tests -----===*
 *
 * Implements onnxc_runtime.h the way an onnxc-compiled model does, for
 *   inputs  X: float32[N,3], K: int64[2]
 *   outputs Y = X + 1: float32[N,3], Z = 2 * K: int64[2]
 * It checks its inputs like a compiled model. With -DFAIL_ON_VALUE=V, a run
 * whose X[0,0] equals V fails with ONNXC_ERROR_RUNTIME; with -DNONDETERMINISTIC
 * Y[0,0] counts the runs (to test onnxc-run's thread check); with
 * -DNO_THREAD_API it lacks onnxc_set_num_threads.
 *
 *===----------------------------------------------------------------------===*/
#include "onnxc/Runtime/onnxc_runtime.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char lastError[256];

static onnxc_status fail(onnxc_status status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(lastError, sizeof lastError, fmt, args);
  va_end(args);
  return status;
}

int onnxc_api_version(void) { return ONNXC_API_VERSION; }
int onnxc_num_inputs(void) { return 2; }
int onnxc_num_outputs(void) { return 2; }

static const char *const inputNames[] = {"X", "K"};
static const char *const outputNames[] = {"Y", "Z"};
static const int32_t dtypes[] = {ONNXC_FLOAT, ONNXC_INT64};
static const int ranks[] = {2, 1};
static const int64_t dims[2][2] = {{-1, 3}, {2, 0}};

const char *onnxc_input_name(int i) {
  return i >= 0 && i < 2 ? inputNames[i] : NULL;
}
int32_t onnxc_input_dtype(int i) { return i >= 0 && i < 2 ? dtypes[i] : -1; }
int onnxc_input_rank(int i) { return i >= 0 && i < 2 ? ranks[i] : -1; }
int64_t onnxc_input_dim(int i, int a) {
  return i >= 0 && i < 2 && a >= 0 && a < ranks[i] ? dims[i][a] : -1;
}
const char *onnxc_input_dim_name(int i, int a) {
  if (i < 0 || i >= 2 || a < 0 || a >= ranks[i])
    return NULL;
  return dims[i][a] < 0 ? "N" : "";
}
const char *onnxc_output_name(int i) {
  return i >= 0 && i < 2 ? outputNames[i] : NULL;
}
int32_t onnxc_output_dtype(int i) { return onnxc_input_dtype(i); }
int onnxc_output_rank(int i) { return onnxc_input_rank(i); }
int64_t onnxc_output_dim(int i, int a) { return onnxc_input_dim(i, a); }
const char *onnxc_output_dim_name(int i, int a) {
  return onnxc_input_dim_name(i, a);
}

const char *onnxc_last_error(void) { return lastError; }

#ifndef NO_THREAD_API
/* Intra-op threads: remembered only (this library computes on the caller). */
static atomic_int numThreads = 1;
int onnxc_set_num_threads(int n) {
  int previous = numThreads;
  if (n >= 1)
    numThreads = n;
  return previous;
}
int onnxc_get_num_threads(void) { return numThreads; }
#endif

#ifdef NONDETERMINISTIC
static atomic_int runs;
#endif

onnxc_status onnxc_run(const onnxc_tensor *inputs, size_t num_inputs,
                       onnxc_tensor **outputs, size_t *num_outputs) {
  lastError[0] = 0;
  if (!outputs || !num_outputs)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "null output pointer");
  *outputs = NULL;
  *num_outputs = 0;
  if (!inputs || num_inputs != 2)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "expected 2 inputs, got %zu",
                num_inputs);
  for (int i = 0; i < 2; ++i) {
    if (inputs[i].dtype != dtypes[i])
      return fail(ONNXC_ERROR_DTYPE,
                  "input %d (%s): element type %d, expected %d", i,
                  inputNames[i], (int)inputs[i].dtype, (int)dtypes[i]);
    if (inputs[i].rank != ranks[i])
      return fail(ONNXC_ERROR_RANK, "input %d (%s): rank %d, expected %d", i,
                  inputNames[i], (int)inputs[i].rank, ranks[i]);
    for (int a = 0; a < ranks[i]; ++a)
      if (inputs[i].shape[a] < 0 ||
          (dims[i][a] >= 0 && inputs[i].shape[a] != dims[i][a]))
        return fail(ONNXC_ERROR_SHAPE, "input %d (%s): dim %d is %lld", i,
                    inputNames[i], a, (long long)inputs[i].shape[a]);
  }
  int64_t n = inputs[0].shape[0];
  const float *x = inputs[0].data;
  const int64_t *k = inputs[1].data;
#ifdef FAIL_ON_VALUE
  if (n > 0 && x[0] == FAIL_ON_VALUE)
    return fail(ONNXC_ERROR_RUNTIME, "model failed on X[0,0] = %g", x[0]);
#endif
  /* One block: the tensors, then their shapes, then their data. */
  size_t bytes = 2 * sizeof(onnxc_tensor) + 3 * sizeof(int64_t) +
                 n * 3 * sizeof(float) + 2 * sizeof(int64_t);
  char *block = malloc(bytes);
  if (!block)
    return fail(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  onnxc_tensor *out = (onnxc_tensor *)block;
  int64_t *shapes = (int64_t *)(out + 2);
  int64_t *z = shapes + 3;
  float *y = (float *)(z + 2);
  shapes[0] = n;
  shapes[1] = 3;
  shapes[2] = 2;
  for (int64_t i = 0; i < n * 3; ++i)
    y[i] = x[i] + 1.0f;
  z[0] = 2 * k[0];
  z[1] = 2 * k[1];
#ifdef NONDETERMINISTIC
  if (n > 0)
    y[0] = (float)atomic_fetch_add(&runs, 1);
#endif
  out[0] = (onnxc_tensor){ONNXC_FLOAT, 2, shapes, y};
  out[1] = (onnxc_tensor){ONNXC_INT64, 1, shapes + 2, z};
  *outputs = out;
  *num_outputs = 2;
  return ONNXC_OK;
}

void onnxc_free_outputs(onnxc_tensor *outputs, size_t num_outputs) {
  (void)num_outputs;
  free(outputs);
}

#include "tensor_values.h"
