/*===- onnxc_values.c - Sequences and optionals of a run ------------------===*
 *
 * The generated code holds a sequence or an optional as a pointer to an
 * onnxc_value (onnxc_runtime.h): a sequence is a value of kind
 * ONNXC_KIND_SEQUENCE whose items are tensor values; an optional is the
 * pointer to its content, or NULL for none. Values are immutable: an
 * insertion builds a new sequence that shares the old one's tensors. What a
 * run builds lives in buffers of the run (freed when it ends); a model's
 * inputs are the caller's values, read in place. The lowering
 * (lib/Conversion/ONNXToLinalg/Sequence.cpp) checks positions and shapes
 * before it calls these functions.
 *
 * Tensors move between the generated code's buffers and values as
 * unranked memrefs (the rank and a pointer to the ranked descriptor); the
 * copying functions have one name per element type of the memref (MLIR
 * declares each with its own type), all aliases of one function that
 * takes the element size from the dtype.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_internal.h"

#include <stdlib.h>
#include <string.h>

static onnxc_value *new_value(int32_t kind, int32_t dtype) {
  onnxc_value *v = onnxc_rt_alloc(sizeof(onnxc_value));
  memset(v, 0, sizeof *v);
  v->kind = kind;
  v->tensor.dtype = dtype;
  return v;
}

void *onnxc_rt_seq_empty(int32_t dtype) {
  return new_value(ONNXC_KIND_SEQUENCE, dtype);
}

int64_t onnxc_rt_seq_length(const onnxc_value *seq) {
  return (int64_t)seq->num_items;
}

void *onnxc_rt_seq_item(const onnxc_value *seq, int64_t index) {
  return (void *)&seq->items[index];
}

/* A new sequence: `seq` with `item` (a tensor value) at `pos` (0..n). */
void *onnxc_rt_seq_insert(const onnxc_value *seq, int64_t pos,
                          const onnxc_value *item) {
  onnxc_value *v = new_value(ONNXC_KIND_SEQUENCE, seq->tensor.dtype);
  size_t n = seq->num_items, p = (size_t)pos;
  v->items = onnxc_rt_alloc((n + 1) * sizeof(onnxc_value));
  if (p)
    memcpy(v->items, seq->items, p * sizeof(onnxc_value));
  v->items[p] = *item;
  if (n > p)
    memcpy(v->items + p + 1, seq->items + p, (n - p) * sizeof(onnxc_value));
  v->num_items = n + 1;
  return v;
}

/* A new sequence: `seq` without its item at `pos` (0..n-1). */
void *onnxc_rt_seq_erase(const onnxc_value *seq, int64_t pos) {
  onnxc_value *v = new_value(ONNXC_KIND_SEQUENCE, seq->tensor.dtype);
  size_t n = seq->num_items, p = (size_t)pos;
  v->items = onnxc_rt_alloc((n ? n - 1 : 0) * sizeof(onnxc_value) + 1);
  memcpy(v->items, seq->items, p * sizeof(onnxc_value));
  memcpy(v->items + p, seq->items + p + 1, (n - p - 1) * sizeof(onnxc_value));
  v->num_items = n - 1;
  return v;
}

int64_t onnxc_rt_tensor_rank(const onnxc_value *t) { return t->tensor.rank; }

int64_t onnxc_rt_tensor_dim(const onnxc_value *t, int64_t axis) {
  return t->tensor.shape[axis];
}

/* A row-major descriptor of `rank` dims over `data`. */
static void contiguous_descriptor(int64_t *d, void *data, int64_t rank,
                                  const int64_t *sizes) {
  memcpy(&d[0], &data, sizeof data);
  memcpy(&d[1], &data, sizeof data);
  d[2] = 0;
  int64_t stride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    d[3 + i] = sizes[i];
    d[3 + rank + i] = stride;
    stride *= sizes[i];
  }
}

#define MAX_RANK 64

/* A new tensor value holding a copy of the memref. */
void *onnxc_rt_tensor_box(int32_t dtype, int64_t rank, void *descriptor) {
  if (rank > MAX_RANK)
    onnxc_rt_abort(ONNXC_ERROR_RUNTIME, "a tensor of rank %lld in a sequence "
                   "or optional (at most %d)", (long long)rank, MAX_RANK);
  if (onnxc_rt_device_sync)
    onnxc_rt_device_sync();
  const int64_t *src = descriptor;
  onnxc_value *v = new_value(ONNXC_KIND_TENSOR, dtype);
  int64_t *shape = onnxc_rt_alloc(sizeof(int64_t) * (size_t)(rank + 1));
  size_t esize = onnxc_rt_dtype_size(dtype), bytes = esize;
  for (int64_t i = 0; i < rank; ++i) {
    shape[i] = src[3 + i];
    bytes *= (size_t)shape[i];
  }
  v->tensor.rank = (int32_t)rank;
  v->tensor.shape = shape;
  v->tensor.data = onnxc_rt_alloc(bytes ? bytes : 1);
  int64_t dst[3 + 2 * MAX_RANK];
  contiguous_descriptor(dst, v->tensor.data, rank, shape);
  onnxc_unranked_memref from = {rank, descriptor}, to = {rank, dst};
  memrefCopy((int64_t)esize, &from, &to);
  return v;
}

void *onnxc_rt_box_contiguous(int32_t dtype, int64_t rank, const int64_t *shape,
                              void *data) {
  if (rank > MAX_RANK)
    onnxc_rt_abort(ONNXC_ERROR_RUNTIME,
                   "a tensor of rank %lld in a sequence "
                   "or optional (at most %d)",
                   (long long)rank, MAX_RANK);
  int64_t d[3 + 2 * MAX_RANK];
  contiguous_descriptor(d, data, rank, shape);
  return onnxc_rt_tensor_box(dtype, rank, d);
}

/* Copies a tensor value into a memref of its sizes. */
void onnxc_rt_tensor_read(const onnxc_value *t, int64_t rank,
                          void *descriptor) {
  if (onnxc_rt_device_sync)
    onnxc_rt_device_sync();
  int64_t src[3 + 2 * MAX_RANK];
  contiguous_descriptor(src, t->tensor.data, rank, t->tensor.shape);
  onnxc_unranked_memref from = {rank, src}, to = {rank, descriptor};
  memrefCopy((int64_t)onnxc_rt_dtype_size(t->tensor.dtype), &from, &to);
}

#define ALIASES(fn)                                                            \
  ALIAS(fn, i1) ALIAS(fn, i8) ALIAS(fn, i16) ALIAS(fn, i32) ALIAS(fn, i64)     \
  ALIAS(fn, f16) ALIAS(fn, bf16) ALIAS(fn, f32) ALIAS(fn, f64)
ALIASES(onnxc_rt_tensor_box)
ALIASES(onnxc_rt_tensor_read)

/*===----------------------------------------------------------------------===*
 * Outputs
 *===----------------------------------------------------------------------===*/

void onnxc_rt_free_value(onnxc_value *v) {
  if (v->kind == ONNXC_KIND_TENSOR) {
    int64_t *shape;
    memcpy(&shape, &v->tensor.shape, sizeof shape); /* ours: not const */
    free(shape);
    onnxc_rt_release(v->tensor.data);
  } else {
    for (size_t i = 0; i < v->num_items; ++i)
      onnxc_rt_free_value(&v->items[i]);
    free(v->items);
  }
  memset(v, 0, sizeof *v);
}

int onnxc_rt_copy_value(const onnxc_value *src, onnxc_value *dst) {
  memset(dst, 0, sizeof *dst);
  dst->kind = src->kind;
  dst->tensor.dtype = src->tensor.dtype;
  if (src->kind == ONNXC_KIND_TENSOR) {
    int32_t rank = src->tensor.rank;
    size_t bytes = onnxc_rt_dtype_size(src->tensor.dtype);
    int64_t *shape = malloc(sizeof(int64_t) * ((size_t)rank + 1));
    if (!shape)
      return 0;
    for (int32_t i = 0; i < rank; ++i) {
      shape[i] = src->tensor.shape[i];
      bytes *= (size_t)shape[i];
    }
    dst->tensor.rank = rank;
    dst->tensor.shape = shape;
    if (src->tensor.dtype == ONNXC_STRING) {
      int64_t count = (int64_t)(bytes / sizeof(char *));
      dst->tensor.data =
          onnxc_rt_copy_strings((const char *const *)src->tensor.data, count);
      if (!dst->tensor.data) {
        onnxc_rt_free_value(dst);
        return 0;
      }
      return 1;
    }
    if (bytes) {
      if (!(dst->tensor.data = onnxc_rt_alloc_detached(bytes))) {
        onnxc_rt_free_value(dst);
        return 0;
      }
      memcpy(dst->tensor.data, src->tensor.data, bytes);
    }
    return 1;
  }
  if (!src->num_items)
    return 1;
  dst->items = calloc(src->num_items, sizeof(onnxc_value));
  if (!dst->items)
    return 0;
  dst->num_items = src->num_items;
  for (size_t i = 0; i < src->num_items; ++i)
    if (!onnxc_rt_copy_value(&src->items[i], &dst->items[i])) {
      onnxc_rt_free_value(dst);
      return 0;
    }
  return 1;
}
