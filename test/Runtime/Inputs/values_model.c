/*===- values_model.c - A hand-written model with sequences and optionals ===*
 *
 * Implements version 2 of onnxc_runtime.h by hand, the way an onnxc-compiled
 * model with non-tensor values does, for onnxc-run's tests of them:
 *   inputs  s: seq(float32[N,3]), o: optional(int64[2])
 *   outputs rev   = s reversed: seq(float32[N,3])
 *           o2    = 2 * o, or none: optional(int64[2])
 *           n     = the length of s: int64[]
 *           all   = s: seq(float32[*]) (rank left open)
 *           maybe = s when o has a value, else none:
 *optional(seq(float32[N,3])) Variants: -DMODIFY_INPUT writes s's item 1 (and
 *the input check must see it); -DNONDETERMINISTIC makes rev's item 0 count the
 *runs; -DWRONG_KIND returns rev as a tensor; -DUNKNOWN_RANK leaves the rank of
 * s's tensors open in the signature.
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
int onnxc_num_outputs(void) { return 5; }

struct entry {
  const char *name;
  int type;
  int32_t dtype;
  int rank;
  int64_t dims[2];
  const char *dimNames[2];
};

#ifdef UNKNOWN_RANK
#define S_RANK -1
#else
#define S_RANK 2
#endif

static const struct entry inputs[] = {
    {"s", ONNXC_TYPE_SEQUENCE, ONNXC_FLOAT, S_RANK, {-1, 3}, {"N", ""}},
    {"o", ONNXC_TYPE_OPTIONAL_TENSOR, ONNXC_INT64, 1, {2, 0}, {"", ""}},
};
static const struct entry outputs[] = {
    {"rev", ONNXC_TYPE_SEQUENCE, ONNXC_FLOAT, 2, {-1, 3}, {"N", ""}},
    {"o2", ONNXC_TYPE_OPTIONAL_TENSOR, ONNXC_INT64, 1, {2, 0}, {"", ""}},
    {"n", ONNXC_TYPE_TENSOR, ONNXC_INT64, 0, {0, 0}, {"", ""}},
    {"all", ONNXC_TYPE_SEQUENCE, ONNXC_FLOAT, -1, {0, 0}, {"", ""}},
    {"maybe", ONNXC_TYPE_OPTIONAL_SEQUENCE, ONNXC_FLOAT, 2, {-1, 3}, {"N", ""}},
};

static const struct entry *in(int i) {
  return i >= 0 && i < 2 ? &inputs[i] : NULL;
}
static const struct entry *out(int i) {
  return i >= 0 && i < 5 ? &outputs[i] : NULL;
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

static void freeValue(onnxc_value *v) {
  if (v->kind == ONNXC_KIND_TENSOR) {
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

static size_t numElements(const onnxc_tensor *t) {
  size_t n = 1;
  for (int a = 0; a < t->rank; ++a)
    n *= (size_t)t->shape[a];
  return n;
}

/* A tensor value copied from `t`, each element times `scale` (an int64
 * tensor when `isInt`, else float32). */
static onnxc_value tensorValue(const onnxc_tensor *t, int isInt, int scale) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_TENSOR;
  size_t n = numElements(t), elem = isInt ? 8 : 4;
  int64_t *shape = malloc(sizeof(int64_t) * (t->rank ? t->rank : 1));
  memcpy(shape, t->shape, sizeof(int64_t) * t->rank);
  void *data = malloc(n * elem + 1);
  for (size_t k = 0; k < n; ++k) {
    if (isInt)
      ((int64_t *)data)[k] = ((const int64_t *)t->data)[k] * scale;
    else
      ((float *)data)[k] = ((const float *)t->data)[k] * scale;
  }
  v.tensor = (onnxc_tensor){t->dtype, t->rank, shape, data};
  return v;
}

/* A sequence value holding copies of the items of `s`, reversed or not. */
static onnxc_value sequenceValue(const onnxc_value *s, int reversed) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_SEQUENCE;
  v.tensor.dtype = ONNXC_FLOAT;
  v.num_items = s->num_items;
  v.items = calloc(s->num_items ? s->num_items : 1, sizeof(onnxc_value));
  for (size_t i = 0; i < s->num_items; ++i)
    v.items[i] = tensorValue(
        &s->items[reversed ? s->num_items - 1 - i : i].tensor, 0, 1);
  return v;
}

static onnxc_value optionalValue(onnxc_value *contents, int32_t dtype) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_OPTIONAL;
  v.tensor.dtype = dtype;
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
  const onnxc_value *s = &inputs[0], *o = &inputs[1];
  if (s->kind != ONNXC_KIND_SEQUENCE)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT,
                "input 0 (s): kind %d, expected "
                "a sequence",
                (int)s->kind);
  if (s->tensor.dtype != ONNXC_FLOAT)
    return fail(ONNXC_ERROR_DTYPE,
                "input 0 (s): a sequence of element type "
                "%d, expected 1",
                (int)s->tensor.dtype);
  if (s->num_items && !s->items)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "input 0 (s): no items");
  for (size_t i = 0; i < s->num_items; ++i) {
    const onnxc_value *item = &s->items[i];
    if (item->kind != ONNXC_KIND_TENSOR || item->tensor.dtype != ONNXC_FLOAT)
      return fail(ONNXC_ERROR_DTYPE,
                  "input 0 (s): item %zu is not a float "
                  "tensor",
                  i);
    if (item->tensor.rank != 2)
      return fail(ONNXC_ERROR_RANK,
                  "input 0 (s): item %zu has rank %d, "
                  "expected 2",
                  i, (int)item->tensor.rank);
    if (item->tensor.shape[1] != 3)
      return fail(ONNXC_ERROR_SHAPE,
                  "input 0 (s): item %zu: dim 1 is %lld, "
                  "expected 3",
                  i, (long long)item->tensor.shape[1]);
  }
  if (o->kind != ONNXC_KIND_OPTIONAL || o->num_items > 1)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT, "input 1 (o): not an optional");
  const onnxc_tensor *ot = NULL;
  if (o->num_items) {
    ot = &o->items[0].tensor;
    if (o->items[0].kind != ONNXC_KIND_TENSOR || ot->dtype != ONNXC_INT64 ||
        ot->rank != 1 || ot->shape[0] != 2)
      return fail(ONNXC_ERROR_SHAPE, "input 1 (o): not an int64[2] tensor");
  }
#ifdef MODIFY_INPUT
  if (s->num_items > 1 && numElements(&s->items[1].tensor))
    ((float *)s->items[1].tensor.data)[0] += 1;
#endif

  onnxc_value *outs = calloc(5, sizeof(onnxc_value));
  outs[0] = sequenceValue(s, 1);
#ifdef NONDETERMINISTIC
  if (s->num_items && numElements(&outs[0].items[0].tensor))
    ((float *)outs[0].items[0].tensor.data)[0] +=
        (float)atomic_fetch_add(&runs, 1);
#endif
#ifdef WRONG_KIND
  if (s->num_items) {
    onnxc_value first = outs[0].items[0];
    for (size_t i = 1; i < outs[0].num_items; ++i)
      freeValue(&outs[0].items[i]);
    free(outs[0].items);
    outs[0] = first;
  }
#endif
  if (ot) {
    onnxc_value doubled = tensorValue(ot, 1, 2);
    outs[1] = optionalValue(&doubled, ONNXC_INT64);
  } else {
    outs[1] = optionalValue(NULL, ONNXC_INT64);
  }
  static const int64_t noDims[1] = {0};
  int64_t count = (int64_t)s->num_items;
  onnxc_tensor n = {ONNXC_INT64, 0, noDims, &count};
  outs[2] = tensorValue(&n, 1, 1);
  outs[3] = sequenceValue(s, 0);
  if (ot) {
    onnxc_value copy = sequenceValue(s, 0);
    outs[4] = optionalValue(&copy, ONNXC_FLOAT);
  } else {
    outs[4] = optionalValue(NULL, ONNXC_FLOAT);
  }
  *outputs = outs;
  *num_outputs = 5;
  return ONNXC_OK;
}
