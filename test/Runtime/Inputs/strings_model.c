/*===- strings_model.c - A hand-written model with string tensors --------===*
 *
 * Implements version 2 of onnxc_runtime.h by hand, the way an onnxc-compiled
 * model with string tensors does (an array of `const char *`, one per
 * element), for onnxc-run's tests of them:
 *   inputs  s:   string[N]
 *           sep: optional(string[])
 *   outputs upper  = s with ASCII letters upper-cased: string[N]
 *           lens   = the byte length of each string of s: int64[N]
 *           parts  = the strings of s, each a scalar: seq(string[])
 *           joined = the strings of s joined by sep, or none:
 *                    optional(string[])
 * Variants: -DMODIFY_BYTES writes a byte of s's element 0, -DMODIFY_POINTER
 * points s's element 0 at a copy of its string (the input check must see
 * both); -DNONDETERMINISTIC changes upper's element 0 after the first run;
 * -DNULL_STRING returns a null pointer as upper's element 1.
 *
 *===----------------------------------------------------------------------===*/
#include "onnxc/Runtime/onnxc_runtime.h"

#include <ctype.h>
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
int onnxc_num_outputs(void) { return 4; }

struct entry {
  const char *name;
  int type;
  int32_t dtype;
  int rank;
};

static const struct entry inputs[] = {
    {"s", ONNXC_TYPE_TENSOR, ONNXC_STRING, 1},
    {"sep", ONNXC_TYPE_OPTIONAL_TENSOR, ONNXC_STRING, 0},
};
static const struct entry outputs[] = {
    {"upper", ONNXC_TYPE_TENSOR, ONNXC_STRING, 1},
    {"lens", ONNXC_TYPE_TENSOR, ONNXC_INT64, 1},
    {"parts", ONNXC_TYPE_SEQUENCE, ONNXC_STRING, 0},
    {"joined", ONNXC_TYPE_OPTIONAL_TENSOR, ONNXC_STRING, 0},
};

static const struct entry *in(int i) {
  return i >= 0 && i < 2 ? &inputs[i] : NULL;
}
static const struct entry *out(int i) {
  return i >= 0 && i < 4 ? &outputs[i] : NULL;
}

/* Every rank-1 entry has the one dim N. */
const char *onnxc_input_name(int i) { return in(i) ? in(i)->name : NULL; }
int32_t onnxc_input_dtype(int i) { return in(i) ? in(i)->dtype : -1; }
int onnxc_input_type(int i) { return in(i) ? in(i)->type : -1; }
int onnxc_input_rank(int i) { return in(i) ? in(i)->rank : -1; }
int64_t onnxc_input_dim(int i, int a) {
  (void)i, (void)a;
  return -1;
}
const char *onnxc_input_dim_name(int i, int a) {
  return in(i) && a >= 0 && a < in(i)->rank ? "N" : NULL;
}
const char *onnxc_output_name(int i) { return out(i) ? out(i)->name : NULL; }
int32_t onnxc_output_dtype(int i) { return out(i) ? out(i)->dtype : -1; }
int onnxc_output_type(int i) { return out(i) ? out(i)->type : -1; }
int onnxc_output_rank(int i) { return out(i) ? out(i)->rank : -1; }
int64_t onnxc_output_dim(int i, int a) {
  (void)i, (void)a;
  return -1;
}
const char *onnxc_output_dim_name(int i, int a) {
  return out(i) && a >= 0 && a < out(i)->rank ? "N" : NULL;
}
const char *onnxc_last_error(void) { return lastError; }
const char *onnxc_device(void) { return "cpu"; }

/* Only onnxc_run_values runs this model (it has non-tensor values). */
onnxc_status onnxc_run(const onnxc_tensor *inputs, size_t num_inputs,
                       onnxc_tensor **outputs, size_t *num_outputs) {
  (void)inputs, (void)num_inputs;
  *outputs = NULL;
  *num_outputs = 0;
  return fail(ONNXC_ERROR_INVALID_ARGUMENT,
              "the model has sequences or optionals: use onnxc_run_values");
}
void onnxc_free_outputs(onnxc_tensor *outputs, size_t num_outputs) {
  (void)outputs, (void)num_outputs;
}

static size_t numElements(const onnxc_tensor *t) {
  size_t n = 1;
  for (int a = 0; a < t->rank; ++a)
    n *= (size_t)t->shape[a];
  return n;
}

static void freeValue(onnxc_value *v) {
  if (v->kind == ONNXC_KIND_TENSOR) {
    if (v->tensor.dtype == ONNXC_STRING && v->tensor.data) {
      char **strings = v->tensor.data;
      for (size_t k = 0, n = numElements(&v->tensor); k < n; ++k)
        free(strings[k]);
    }
    free((void *)v->tensor.shape);
    free(v->tensor.data);
    return;
  }
  for (size_t i = 0; i < v->num_items; ++i)
    freeValue(&v->items[i]);
  free(v->items);
}

void onnxc_free_values(onnxc_value *values, size_t num_values) {
  if (!values)
    return;
  for (size_t i = 0; i < num_values; ++i)
    freeValue(&values[i]);
  free(values);
}

/* A tensor value of `rank` (0 or 1) dims `n` and `elemSize` bytes per
 * element, its data zeroed. */
static onnxc_value tensorValue(int32_t dtype, int rank, size_t n,
                               size_t elemSize) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_TENSOR;
  int64_t *shape = malloc(sizeof(int64_t));
  shape[0] = (int64_t)n;
  v.tensor = (onnxc_tensor){dtype, rank, shape, calloc(n ? n : 1, elemSize)};
  return v;
}

/* A scalar string tensor holding a copy of `s`. */
static onnxc_value scalarString(const char *s) {
  onnxc_value v = tensorValue(ONNXC_STRING, 0, 1, sizeof(char *));
  ((char **)v.tensor.data)[0] = strdup(s);
  return v;
}

static onnxc_value optionalValue(onnxc_value *contents) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_OPTIONAL;
  v.tensor.dtype = ONNXC_STRING;
  if (contents) {
    v.num_items = 1;
    v.items = malloc(sizeof(onnxc_value));
    v.items[0] = *contents;
  }
  return v;
}

#ifdef NONDETERMINISTIC
static atomic_int runs;
#endif

onnxc_status onnxc_run_values(const onnxc_value *inputs, size_t num_inputs,
                              onnxc_value **outputs, size_t *num_outputs) {
  *outputs = NULL;
  *num_outputs = 0;
  if (!inputs || num_inputs != 2)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "expected 2 inputs, got %zu",
                num_inputs);
  const onnxc_value *s = &inputs[0], *sep = &inputs[1];
  if (s->kind != ONNXC_KIND_TENSOR)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "input 0 (s): not a tensor");
  if (s->tensor.dtype != ONNXC_STRING)
    return fail(ONNXC_ERROR_DTYPE, "input 0 (s): element type %d, expected 8",
                (int)s->tensor.dtype);
  if (s->tensor.rank != 1)
    return fail(ONNXC_ERROR_RANK, "input 0 (s): rank %d, expected 1",
                (int)s->tensor.rank);
  size_t n = (size_t)s->tensor.shape[0];
  const char *const *strings = s->tensor.data;
  for (size_t k = 0; k < n; ++k)
    if (!strings[k])
      return fail(ONNXC_ERROR_INVALID_ARGUMENT,
                  "input 0 (s): element %zu is a null pointer", k);
  if (sep->kind != ONNXC_KIND_OPTIONAL || sep->num_items > 1)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "input 1 (sep): not an optional");
  const char *separator = NULL;
  if (sep->num_items) {
    const onnxc_tensor *t = &sep->items[0].tensor;
    if (sep->items[0].kind != ONNXC_KIND_TENSOR || t->dtype != ONNXC_STRING ||
        t->rank != 0)
      return fail(ONNXC_ERROR_DTYPE, "input 1 (sep): not a string[] tensor");
    separator = ((const char *const *)t->data)[0];
  }
#ifdef MODIFY_BYTES
  if (n && strings[0][0])
    ((char *)strings[0])[0] ^= 1;
#endif
#ifdef MODIFY_POINTER
  if (n)
    ((const char **)s->tensor.data)[0] = strdup(strings[0]); /* leaks */
#endif

  onnxc_value *outs = calloc(4, sizeof(onnxc_value));
  outs[0] = tensorValue(ONNXC_STRING, 1, n, sizeof(char *));
  outs[1] = tensorValue(ONNXC_INT64, 1, n, sizeof(int64_t));
  char **upper = outs[0].tensor.data;
  int64_t *lens = outs[1].tensor.data;
  size_t total = 1;
  for (size_t k = 0; k < n; ++k) {
    size_t len = strlen(strings[k]);
    upper[k] = malloc(len + 1);
    for (size_t j = 0; j <= len; ++j)
      upper[k][j] = (char)toupper((unsigned char)strings[k][j]);
    lens[k] = (int64_t)len;
    total += len + (separator ? strlen(separator) : 0);
  }
#ifdef NONDETERMINISTIC
  if (atomic_fetch_add(&runs, 1) > 0 && n && upper[0][0])
    upper[0][0] = '#';
#endif
#ifdef NULL_STRING
  if (n > 1) {
    free(upper[1]);
    upper[1] = NULL;
  }
#endif

  outs[2].kind = ONNXC_KIND_SEQUENCE;
  outs[2].tensor.dtype = ONNXC_STRING;
  outs[2].num_items = n;
  outs[2].items = calloc(n ? n : 1, sizeof(onnxc_value));
  for (size_t k = 0; k < n; ++k)
    outs[2].items[k] = scalarString(strings[k]);

  if (separator) {
    char *text = calloc(total, 1);
    for (size_t k = 0; k < n; ++k) {
      if (k)
        strcat(text, separator);
      strcat(text, strings[k]);
    }
    onnxc_value joined = scalarString(text);
    free(text);
    outs[3] = optionalValue(&joined);
  } else {
    outs[3] = optionalValue(NULL);
  }
  *outputs = outs;
  *num_outputs = 4;
  return ONNXC_OK;
}
