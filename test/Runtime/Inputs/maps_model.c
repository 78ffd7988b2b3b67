/*===- maps_model.c - A hand-written model with maps ----------------------===*
 *
 * Implements version 2 of onnxc_runtime.h by hand, the way an onnxc-compiled
 * model with maps does (ZipMap's output is a sequence of maps), for
 * onnxc-run's tests of them:
 *   inputs  m: map(string -> float32), p: float32[N,2]
 *   outputs keys_sorted = m's keys in byte order: string[K]
 *           scaled      = m with its values times 2, its entries in reverse
 *                         order: map(string -> float32)
 *           zip         = one map {0: p[i,0], 1: p[i,1]} per row i, key 1
 *                         first: seq(map(int64 -> float32))
 * Variants: -DMODIFY_VALUE writes a value of m, -DMODIFY_KEY points m's
 * first key to a copy of its string (the input check must see both);
 * -DNONDETERMINISTIC makes zip's item 0 count the runs at key 1;
 * -DDUPLICATE_KEY gives scaled its first key twice; -DNO_KEY_DTYPE leaves out
 * onnxc_{input,output}_key_dtype, as a library older than maps.
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
int onnxc_num_outputs(void) { return 3; }

struct entry {
  const char *name;
  int type;
  int32_t dtype, keyDtype;
  int rank;
  int64_t dims[2];
  const char *dimNames[2];
};

static const struct entry inputs[] = {
    {"m", ONNXC_TYPE_MAP, ONNXC_FLOAT, ONNXC_STRING, 1, {-1, 0}, {"", ""}},
    {"p", ONNXC_TYPE_TENSOR, ONNXC_FLOAT, -1, 2, {-1, 2}, {"N", ""}},
};
static const struct entry outputs[] = {
    {"keys_sorted", ONNXC_TYPE_TENSOR, ONNXC_STRING, -1, 1, {-1, 0}, {"K", ""}},
    {"scaled", ONNXC_TYPE_MAP, ONNXC_FLOAT, ONNXC_STRING, 1, {-1, 0}, {"", ""}},
    {"zip",
     ONNXC_TYPE_SEQUENCE_OF_MAPS,
     ONNXC_FLOAT,
     ONNXC_INT64,
     1,
     {-1, 0},
     {"", ""}},
};

static const struct entry *in(int i) {
  return i >= 0 && i < 2 ? &inputs[i] : NULL;
}
static const struct entry *out(int i) {
  return i >= 0 && i < 3 ? &outputs[i] : NULL;
}

const char *onnxc_input_name(int i) { return in(i) ? in(i)->name : NULL; }
int32_t onnxc_input_dtype(int i) { return in(i) ? in(i)->dtype : -1; }
int onnxc_input_type(int i) { return in(i) ? in(i)->type : -1; }
int onnxc_input_rank(int i) { return in(i) ? in(i)->rank : -1; }
int64_t onnxc_input_dim(int i, int a) {
  return in(i) && a >= 0 && a < in(i)->rank ? in(i)->dims[a] : -1;
}
const char *onnxc_input_dim_name(int i, int a) {
  return in(i) && a >= 0 && a < in(i)->rank ? in(i)->dimNames[a] : NULL;
}
const char *onnxc_output_name(int i) { return out(i) ? out(i)->name : NULL; }
int32_t onnxc_output_dtype(int i) { return out(i) ? out(i)->dtype : -1; }
int onnxc_output_type(int i) { return out(i) ? out(i)->type : -1; }
int onnxc_output_rank(int i) { return out(i) ? out(i)->rank : -1; }
int64_t onnxc_output_dim(int i, int a) {
  return out(i) && a >= 0 && a < out(i)->rank ? out(i)->dims[a] : -1;
}
const char *onnxc_output_dim_name(int i, int a) {
  return out(i) && a >= 0 && a < out(i)->rank ? out(i)->dimNames[a] : NULL;
}
#ifndef NO_KEY_DTYPE
int32_t onnxc_input_key_dtype(int i) { return in(i) ? in(i)->keyDtype : -1; }
int32_t onnxc_output_key_dtype(int i) { return out(i) ? out(i)->keyDtype : -1; }
#endif
const char *onnxc_last_error(void) { return lastError; }
const char *onnxc_device(void) { return "cpu"; }

/* Only onnxc_run_values runs this model (it has maps). */
onnxc_status onnxc_run(const onnxc_tensor *inputs, size_t num_inputs,
                       onnxc_tensor **outputs, size_t *num_outputs) {
  (void)inputs, (void)num_inputs;
  *outputs = NULL;
  *num_outputs = 0;
  return fail(ONNXC_ERROR_INVALID_ARGUMENT,
              "the model has maps: use onnxc_run_values");
}
void onnxc_free_outputs(onnxc_tensor *outputs, size_t num_outputs) {
  (void)outputs, (void)num_outputs;
}

static void freeValue(onnxc_value *v) {
  if (v->kind == ONNXC_KIND_TENSOR) {
    if (v->tensor.dtype == ONNXC_STRING && v->tensor.data)
      for (int64_t i = 0; i < v->tensor.shape[0]; ++i)
        free(((char **)v->tensor.data)[i]);
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

/* A 1-D tensor value of `n` elements of `dtype` (float32, int64 or string),
 * its data uninitialized (strings: NULL, to be set). */
static onnxc_value vectorValue(int32_t dtype, int64_t n) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_TENSOR;
  int64_t *shape = malloc(sizeof(int64_t));
  shape[0] = n;
  size_t elem = dtype == ONNXC_FLOAT   ? 4
                : dtype == ONNXC_INT64 ? 8
                                       : sizeof(char *);
  void *data = calloc(n ? (size_t)n : 1, elem);
  v.tensor = (onnxc_tensor){dtype, 1, shape, data};
  return v;
}

/* A map value of `keys` and `values`, both 1-D tensor values. */
static onnxc_value mapValue(onnxc_value keys, onnxc_value values) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_MAP;
  v.tensor.dtype = values.tensor.dtype;
  v.num_items = 2;
  v.items = malloc(2 * sizeof(onnxc_value));
  v.items[0] = keys;
  v.items[1] = values;
  return v;
}

static int byBytes(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
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
  const onnxc_value *m = &inputs[0], *p = &inputs[1];
  if (m->kind != ONNXC_KIND_MAP || m->num_items != 2 || !m->items)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "input 0 (m): not a map");
  const onnxc_tensor *keys = &m->items[0].tensor, *values = &m->items[1].tensor;
  if (keys->dtype != ONNXC_STRING)
    return fail(ONNXC_ERROR_DTYPE,
                "input 0 (m): keys of element type %d, "
                "expected 8",
                (int)keys->dtype);
  if (m->tensor.dtype != ONNXC_FLOAT || values->dtype != ONNXC_FLOAT)
    return fail(ONNXC_ERROR_DTYPE,
                "input 0 (m): values of element type %d, "
                "expected 1",
                (int)values->dtype);
  if (keys->rank != 1 || values->rank != 1 ||
      keys->shape[0] != values->shape[0])
    return fail(ONNXC_ERROR_SHAPE, "input 0 (m): keys and values differ");
  if (p->kind != ONNXC_KIND_TENSOR || p->tensor.dtype != ONNXC_FLOAT)
    return fail(ONNXC_ERROR_DTYPE, "input 1 (p): not a float32 tensor");
  if (p->tensor.rank != 2 || p->tensor.shape[1] != 2)
    return fail(ONNXC_ERROR_SHAPE, "input 1 (p): not of shape [N,2]");
  int64_t n = keys->shape[0], rows = p->tensor.shape[0];
  const char *const *k = keys->data;
  const float *v = values->data, *pv = p->tensor.data;
#ifdef MODIFY_VALUE
  if (n)
    ((float *)values->data)[n - 1] += 1;
#endif
#ifdef MODIFY_KEY
  if (n) /* the same bytes elsewhere (leaked: a test) */
    ((const char **)keys->data)[0] = strdup(k[0]);
#endif

  onnxc_value *outs = calloc(3, sizeof(onnxc_value));
  outs[0] = vectorValue(ONNXC_STRING, n);
  char **sorted = outs[0].tensor.data;
  for (int64_t i = 0; i < n; ++i)
    sorted[i] = strdup(k[i] ? k[i] : "");
  qsort(sorted, (size_t)n, sizeof(char *), byBytes);

  onnxc_value sk = vectorValue(ONNXC_STRING, n),
              sv = vectorValue(ONNXC_FLOAT, n);
  for (int64_t i = 0; i < n; ++i) {
    ((char **)sk.tensor.data)[i] = strdup(k[n - 1 - i] ? k[n - 1 - i] : "");
    ((float *)sv.tensor.data)[i] = 2 * v[n - 1 - i];
  }
#ifdef DUPLICATE_KEY
  if (n > 1) {
    free(((char **)sk.tensor.data)[1]);
    ((char **)sk.tensor.data)[1] = strdup(((char **)sk.tensor.data)[0]);
  }
#endif
  outs[1] = mapValue(sk, sv);

  outs[2].kind = ONNXC_KIND_SEQUENCE;
  outs[2].tensor.dtype = ONNXC_FLOAT;
  outs[2].num_items = (size_t)rows;
  outs[2].items = calloc(rows ? (size_t)rows : 1, sizeof(onnxc_value));
  for (int64_t r = 0; r < rows; ++r) {
    onnxc_value zk = vectorValue(ONNXC_INT64, 2),
                zv = vectorValue(ONNXC_FLOAT, 2);
    for (int j = 0; j < 2; ++j) {
      ((int64_t *)zk.tensor.data)[j] = 1 - j;
      ((float *)zv.tensor.data)[j] = pv[2 * r + 1 - j];
    }
#ifdef NONDETERMINISTIC
    if (r == 0)
      ((float *)zv.tensor.data)[0] += (float)atomic_fetch_add(&runs, 1);
#endif
    outs[2].items[r] = mapValue(zk, zv);
  }
  *outputs = outs;
  *num_outputs = 3;
  return ONNXC_OK;
}
