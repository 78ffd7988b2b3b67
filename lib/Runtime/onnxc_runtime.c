/*===- onnxc_runtime.c - The C API linked into every compiled model -------===*
 *
 * Implements include/onnxc/Runtime/onnxc_runtime.h on top of two symbols
 * that onnxc generates for each model:
 *   onnxc_model_signature  text: one line per input/output (see below)
 *   onnxc_model_entry      void (void **args): args[0] -> result memref
 *                          descriptors, args[1..] -> input descriptors
 * Needs only libc. Thread-safe: the signature is parsed once under
 * pthread_once; runs share nothing mutable; errors are thread-local.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc/Runtime/onnxc_runtime.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char onnxc_model_signature[];
extern void onnxc_model_entry(void **args);

#define EXPORT __attribute__((visibility("default")))

typedef struct {
  char *name;
  int32_t dtype;
  int rank;
  int64_t *dims;
  char **dim_names;
} sig_tensor;

static sig_tensor *g_inputs, *g_outputs;
static int g_num_inputs = -1, g_num_outputs = -1;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static __thread char g_error[1024];

static onnxc_status fail(onnxc_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_error, sizeof(g_error), fmt, ap);
  va_end(ap);
  return code;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return 0;
}

/* Decodes a hex token ("-" is the empty string) into a new string. */
static char *decode(const char *tok, size_t len) {
  if (len == 1 && tok[0] == '-')
    len = 0;
  char *s = malloc(len / 2 + 1);
  if (!s)
    abort();
  for (size_t i = 0; i + 1 < len; i += 2)
    s[i / 2] = (char)(hexval(tok[i]) * 16 + hexval(tok[i + 1]));
  s[len / 2] = 0;
  return s;
}

static const char *next_token(const char *p, const char **tok, size_t *len) {
  while (*p == ' ')
    ++p;
  *tok = p;
  while (*p && *p != ' ' && *p != '\n')
    ++p;
  *len = (size_t)(p - *tok);
  return p;
}

static void parse_signature(void) {
  const char *p = strchr(onnxc_model_signature, '\n');
  int cap = 0;
  for (const char *q = onnxc_model_signature; *q; ++q)
    cap += *q == '\n';
  g_inputs = calloc((size_t)cap + 1, sizeof(sig_tensor));
  g_outputs = calloc((size_t)cap + 1, sizeof(sig_tensor));
  if (!g_inputs || !g_outputs)
    abort();
  g_num_inputs = g_num_outputs = 0;
  while (p && *p) {
    if (*p == '\n')
      ++p;
    if (!*p)
      break;
    char kind = *p++;
    sig_tensor *t = kind == 'I' ? &g_inputs[g_num_inputs++]
                                : &g_outputs[g_num_outputs++];
    const char *tok;
    size_t len;
    p = next_token(p, &tok, &len);
    t->name = decode(tok, len);
    p = next_token(p, &tok, &len);
    t->dtype = (int32_t)strtol(tok, NULL, 10);
    p = next_token(p, &tok, &len);
    t->rank = (int)strtol(tok, NULL, 10);
    t->dims = calloc((size_t)t->rank + 1, sizeof(int64_t));
    t->dim_names = calloc((size_t)t->rank + 1, sizeof(char *));
    if (!t->dims || !t->dim_names)
      abort();
    for (int i = 0; i < t->rank; ++i) {
      p = next_token(p, &tok, &len);
      t->dims[i] = strtoll(tok, NULL, 10);
    }
    for (int i = 0; i < t->rank; ++i) {
      p = next_token(p, &tok, &len);
      t->dim_names[i] = decode(tok, len);
    }
    p = strchr(p, '\n');
  }
}

static void ensure_signature(void) { pthread_once(&g_once, parse_signature); }

static size_t dtype_size(int32_t dtype) {
  switch (dtype) {
  case ONNXC_FLOAT: case ONNXC_INT32: case ONNXC_UINT32: return 4;
  case ONNXC_DOUBLE: case ONNXC_INT64: case ONNXC_UINT64:
  case ONNXC_COMPLEX64: return 8;
  case ONNXC_COMPLEX128: return 16;
  case ONNXC_INT16: case ONNXC_UINT16: case ONNXC_FLOAT16:
  case ONNXC_BFLOAT16: return 2;
  case ONNXC_INT8: case ONNXC_UINT8: case ONNXC_BOOL: return 1;
  default: return 0;
  }
}

EXPORT int onnxc_api_version(void) { return ONNXC_API_VERSION; }
EXPORT int onnxc_num_inputs(void) { ensure_signature(); return g_num_inputs; }
EXPORT int onnxc_num_outputs(void) { ensure_signature(); return g_num_outputs; }

static const sig_tensor *get(int output, int index) {
  ensure_signature();
  if (index < 0 || index >= (output ? g_num_outputs : g_num_inputs))
    return NULL;
  return output ? &g_outputs[index] : &g_inputs[index];
}

EXPORT const char *onnxc_input_name(int i) {
  const sig_tensor *t = get(0, i);
  return t ? t->name : NULL;
}
EXPORT int32_t onnxc_input_dtype(int i) {
  const sig_tensor *t = get(0, i);
  return t ? t->dtype : -1;
}
EXPORT int onnxc_input_rank(int i) {
  const sig_tensor *t = get(0, i);
  return t ? t->rank : -1;
}
EXPORT int64_t onnxc_input_dim(int i, int axis) {
  const sig_tensor *t = get(0, i);
  return t && axis >= 0 && axis < t->rank ? t->dims[axis] : -1;
}
EXPORT const char *onnxc_input_dim_name(int i, int axis) {
  const sig_tensor *t = get(0, i);
  return t && axis >= 0 && axis < t->rank ? t->dim_names[axis] : NULL;
}
EXPORT const char *onnxc_output_name(int i) {
  const sig_tensor *t = get(1, i);
  return t ? t->name : NULL;
}
EXPORT int32_t onnxc_output_dtype(int i) {
  const sig_tensor *t = get(1, i);
  return t ? t->dtype : -1;
}
EXPORT int onnxc_output_rank(int i) {
  const sig_tensor *t = get(1, i);
  return t ? t->rank : -1;
}
EXPORT int64_t onnxc_output_dim(int i, int axis) {
  const sig_tensor *t = get(1, i);
  return t && axis >= 0 && axis < t->rank ? t->dims[axis] : -1;
}
EXPORT const char *onnxc_output_dim_name(int i, int axis) {
  const sig_tensor *t = get(1, i);
  return t && axis >= 0 && axis < t->rank ? t->dim_names[axis] : NULL;
}
EXPORT const char *onnxc_last_error(void) { return g_error; }

/* A memref descriptor: allocated, aligned, offset, sizes[r], strides[r]. */
static size_t descriptor_words(int rank) { return 3 + 2 * (size_t)rank; }

typedef struct {
  const char *name;
  int64_t value;
} bound_dim;

static onnxc_status check_input(int i, const onnxc_tensor *in,
                                bound_dim *bound, int *num_bound) {
  const sig_tensor *t = &g_inputs[i];
  if (in->dtype != t->dtype)
    return fail(ONNXC_ERROR_DTYPE,
                "input %d ('%s') has element type %d, the model expects %d", i,
                t->name, in->dtype, t->dtype);
  if (in->rank != t->rank)
    return fail(ONNXC_ERROR_RANK,
                "input %d ('%s') has rank %d, the model expects %d", i,
                t->name, in->rank, t->rank);
  if (in->rank > 0 && !in->shape)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT,
                "input %d ('%s') has a null shape", i, t->name);
  int64_t count = 1;
  for (int d = 0; d < t->rank; ++d) {
    int64_t v = in->shape[d];
    if (v < 0)
      return fail(ONNXC_ERROR_SHAPE, "input %d ('%s') has negative dim %d", i,
                  t->name, d);
    if (t->dims[d] >= 0 && v != t->dims[d])
      return fail(ONNXC_ERROR_SHAPE,
                  "input %d ('%s') has size %lld in dim %d, the model expects "
                  "%lld",
                  i, t->name, (long long)v, d, (long long)t->dims[d]);
    if (t->dims[d] < 0 && t->dim_names[d][0]) {
      int found = 0;
      for (int k = 0; k < *num_bound; ++k)
        if (!strcmp(bound[k].name, t->dim_names[d])) {
          found = 1;
          if (bound[k].value != v)
            return fail(ONNXC_ERROR_SHAPE,
                        "input %d ('%s') gives dim '%s' the size %lld, an "
                        "earlier input gave it %lld",
                        i, t->name, t->dim_names[d], (long long)v,
                        (long long)bound[k].value);
        }
      if (!found) {
        bound[*num_bound].name = t->dim_names[d];
        bound[*num_bound].value = v;
        ++*num_bound;
      }
    }
    count *= v;
  }
  if (count > 0 && !in->data)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "input %d ('%s') has null data",
                i, t->name);
  return ONNXC_OK;
}

EXPORT onnxc_status onnxc_run(const onnxc_tensor *inputs, size_t num_inputs,
                              onnxc_tensor **outputs, size_t *num_outputs) {
  g_error[0] = 0;
  if (!outputs || !num_outputs)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "outputs pointers are null");
  *outputs = NULL;
  *num_outputs = 0;
  ensure_signature();
  if (num_inputs != (size_t)g_num_inputs)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT,
                "the model takes %d inputs, %zu given", g_num_inputs,
                num_inputs);
  if (num_inputs && !inputs)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "inputs is null");

  size_t total_dims = 0;
  for (int i = 0; i < g_num_inputs; ++i)
    total_dims += (size_t)g_inputs[i].rank;
  bound_dim *bound = calloc(total_dims + 1, sizeof(bound_dim));
  if (!bound)
    return fail(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  int num_bound = 0;
  for (int i = 0; i < g_num_inputs; ++i) {
    onnxc_status s = check_input(i, &inputs[i], bound, &num_bound);
    if (s != ONNXC_OK) {
      free(bound);
      return s;
    }
  }
  free(bound);

  /* Descriptors: inputs, then one block for all results. */
  size_t in_words = 0, out_words = 0;
  for (int i = 0; i < g_num_inputs; ++i)
    in_words += descriptor_words(g_inputs[i].rank);
  for (int i = 0; i < g_num_outputs; ++i)
    out_words += descriptor_words(g_outputs[i].rank);
  int64_t *words = calloc(in_words + out_words + 1, sizeof(int64_t));
  void **args = calloc((size_t)g_num_inputs + 1, sizeof(void *));
  onnxc_tensor *result = calloc((size_t)g_num_outputs + 1, sizeof(onnxc_tensor));
  if (!words || !args || !result) {
    free(words);
    free(args);
    free(result);
    return fail(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  int64_t *results = words + in_words;
  args[0] = results;
  int64_t *w = words;
  for (int i = 0; i < g_num_inputs; ++i) {
    const onnxc_tensor *in = &inputs[i];
    int r = in->rank;
    memcpy(&w[0], &in->data, sizeof(void *));
    memcpy(&w[1], &in->data, sizeof(void *));
    w[2] = 0;
    int64_t stride = 1;
    for (int d = r - 1; d >= 0; --d) {
      w[3 + d] = in->shape[d];
      w[3 + r + d] = stride;
      stride *= in->shape[d];
    }
    args[1 + i] = w;
    w += descriptor_words(r);
  }

  onnxc_model_entry(args);

  w = results;
  for (int i = 0; i < g_num_outputs; ++i) {
    const sig_tensor *t = &g_outputs[i];
    int r = t->rank;
    void *allocated, *aligned;
    memcpy(&allocated, &w[0], sizeof(void *));
    memcpy(&aligned, &w[1], sizeof(void *));
    int64_t *shape = malloc(sizeof(int64_t) * ((size_t)r + 1));
    if (!shape)
      abort();
    for (int d = 0; d < r; ++d)
      shape[d] = w[3 + d];
    /* The generated code returns fresh allocations (see the
     * onnxc-fresh-result-buffers pass); `allocated` is what malloc gave.
     * Move the data to the start of its own block so that free(data)
     * releases it. */
    size_t bytes = dtype_size(t->dtype);
    for (int d = 0; d < r; ++d)
      bytes *= (size_t)shape[d];
    char *data = (char *)aligned + w[2] * (int64_t)dtype_size(t->dtype);
    if (data != allocated && allocated)
      memmove(allocated, data, bytes);
    result[i].dtype = t->dtype;
    result[i].rank = r;
    result[i].shape = shape;
    result[i].data = allocated;
    w += descriptor_words(r);
  }
  free(words);
  free(args);
  *outputs = result;
  *num_outputs = (size_t)g_num_outputs;
  return ONNXC_OK;
}

EXPORT void onnxc_free_outputs(onnxc_tensor *outputs, size_t num_outputs) {
  if (!outputs)
    return;
  for (size_t i = 0; i < num_outputs; ++i) {
    free((void *)outputs[i].shape);
    free(outputs[i].data);
  }
  free(outputs);
}

/* MLIR's memref.copy of strided (non-contiguous) memrefs lowers to a call
 * of this function (the signature of MLIR's CRunnerUtils memrefCopy); the
 * compiled model links it from here instead of from libmlir_c_runner_utils.
 * Descriptors: allocated, aligned, offset, sizes[rank], strides[rank]. */
typedef struct {
  int64_t rank;
  void *descriptor;
} onnxc_unranked_memref;

void memrefCopy(int64_t elem_size, onnxc_unranked_memref *src,
                onnxc_unranked_memref *dst) {
  int64_t rank = src->rank;
  const int64_t *s = (const int64_t *)src->descriptor;
  const int64_t *d = (const int64_t *)dst->descriptor;
  char *src_base, *dst_base;
  memcpy(&src_base, &s[1], sizeof(char *));
  memcpy(&dst_base, &d[1], sizeof(char *));
  src_base += s[2] * elem_size;
  dst_base += d[2] * elem_size;
  if (rank == 0) {
    memcpy(dst_base, src_base, (size_t)elem_size);
    return;
  }
  const int64_t *sizes = &s[3], *src_strides = &s[3 + rank],
                *dst_strides = &d[3 + rank];
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  int64_t index[64] = {0};
  if (rank > 64)
    abort();
  int64_t src_off = 0, dst_off = 0;
  for (;;) {
    memcpy(dst_base + dst_off * elem_size, src_base + src_off * elem_size,
           (size_t)elem_size);
    int64_t axis = rank - 1;
    for (; axis >= 0; --axis) {
      ++index[axis];
      src_off += src_strides[axis];
      dst_off += dst_strides[axis];
      if (index[axis] < sizes[axis])
        break;
      src_off -= src_strides[axis] * sizes[axis];
      dst_off -= dst_strides[axis] * sizes[axis];
      index[axis] = 0;
    }
    if (axis < 0)
      return;
  }
}
