/*===- onnxc_maps.c - Maps of a run (ZipMap, DictVectorizer, CastMap) -----===*
 *
 * A map is an onnxc_value of kind ONNXC_KIND_MAP whose two items are its
 * keys and its values, 1-D tensors of one length (onnxc_runtime.h). What a
 * run builds lives in buffers of the run; keys tensors are shared, never
 * written. The lowering is lib/Conversion/ONNXToLinalg/Maps.cpp.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 1-D tensor value of `n` elements of `dtype` (uninitialised data). */
static onnxc_value tensor_1d(int32_t dtype, int64_t n) {
  onnxc_value v;
  memset(&v, 0, sizeof v);
  v.kind = ONNXC_KIND_TENSOR;
  v.tensor.dtype = dtype;
  v.tensor.rank = 1;
  int64_t *shape = onnxc_rt_alloc(sizeof(int64_t));
  shape[0] = n;
  v.tensor.shape = shape;
  v.tensor.data = onnxc_rt_alloc((size_t)n * onnxc_rt_dtype_size(dtype) + 1);
  return v;
}

/* ZipMap: one map per row of X ([N, C], or [C]: one map) from the C keys
 * to the row's values; a sequence of maps. */
void *onnxc_rt_zipmap(const onnxc_value *keys, int64_t rank, void *descriptor) {
  const int64_t *d = descriptor;
  const float *base;
  memcpy(&base, &d[1], sizeof base);
  base += d[2];
  int64_t n = rank == 2 ? d[3] : 1, c = rank == 2 ? d[4] : d[3];
  int64_t row_stride = rank == 2 ? d[5] : 0, col_stride = rank == 2 ? d[6] : d[4];
  if (c != keys->tensor.shape[0])
    onnxc_rt_abort(ONNXC_ERROR_RUNTIME, "ZipMap: %lld columns for %lld keys",
                   (long long)c, (long long)keys->tensor.shape[0]);
  onnxc_value *seq = onnxc_rt_alloc(sizeof(onnxc_value));
  memset(seq, 0, sizeof *seq);
  seq->kind = ONNXC_KIND_SEQUENCE;
  seq->tensor.dtype = ONNXC_FLOAT;
  seq->items = onnxc_rt_alloc(sizeof(onnxc_value) * (size_t)(n + 1));
  seq->num_items = (size_t)n;
  for (int64_t r = 0; r < n; ++r) {
    onnxc_value *map = &seq->items[r];
    memset(map, 0, sizeof *map);
    map->kind = ONNXC_KIND_MAP;
    map->tensor.dtype = ONNXC_FLOAT;
    map->num_items = 2;
    map->items = onnxc_rt_alloc(2 * sizeof(onnxc_value));
    map->items[0] = *keys;
    map->items[1] = tensor_1d(ONNXC_FLOAT, c);
    float *values = map->items[1].tensor.data;
    for (int64_t k = 0; k < c; ++k)
      values[k] = base[r * row_stride + k * col_stride];
  }
  return seq;
}

static int keys_equal(int32_t dtype, const void *keys, int64_t i,
                      const void *vocab, int64_t j) {
  if (dtype == ONNXC_STRING) {
    const char *a = ((const char *const *)keys)[i];
    const char *b = ((const char *const *)vocab)[j];
    return strcmp(a ? a : "", b ? b : "") == 0;
  }
  return ((const int64_t *)keys)[i] == ((const int64_t *)vocab)[j];
}

/* DictVectorizer: the map's value for each vocabulary entry, zero (or "")
 * where the map has none, into a contiguous buffer of the vocabulary's
 * length; keys not in the vocabulary are ignored (as onnxruntime does). */
void onnxc_rt_dict_vectorize(const onnxc_value *map, const onnxc_value *vocab,
                             int64_t rank, void *descriptor) {
  (void)rank;
  const int64_t *d = descriptor;
  char *out;
  memcpy(&out, &d[1], sizeof out);
  const onnxc_tensor *keys = &map->items[0].tensor,
                     *values = &map->items[1].tensor;
  size_t esize = onnxc_rt_dtype_size(values->dtype);
  out += d[2] * (int64_t)esize;
  int64_t v = vocab->tensor.shape[0], n = keys->shape[0];
  memset(out, 0, (size_t)v * esize);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < v; ++j)
      if (keys_equal(keys->dtype, keys->data, i, vocab->tensor.data, j)) {
        memcpy(out + j * (int64_t)esize, (const char *)values->data + i * esize,
               esize);
        break;
      }
}

extern double onnxc_rt_string_to_f64(const char *s);
extern int64_t onnxc_rt_string_to_i64(const char *s);

/* CastMap of a map from int64 keys: its values in key order (DENSE: [1, n])
 * or at their keys' positions (SPARSE: [1, max_map], keys in [0, max_map)),
 * cast to float (1), int64 (7) or string (8) as onnxruntime does (a float
 * to a string with "%f", a string to a number with strtod/strtoll). */
void *onnxc_rt_cast_map(const onnxc_value *map, int32_t cast_to,
                        int32_t sparse, int64_t max_map) {
  const onnxc_tensor *keys = &map->items[0].tensor,
                     *values = &map->items[1].tensor;
  int64_t n = keys->shape[0];
  const int64_t *k = keys->data;
  int64_t width = sparse ? max_map : n;
  /* Positions: by key order (DENSE) or the key itself (SPARSE). */
  int64_t *pos = onnxc_rt_alloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) {
    if (sparse) {
      if (k[i] < 0 || k[i] >= max_map)
        onnxc_rt_abort(ONNXC_ERROR_RUNTIME, "CastMap: key %lld is out of "
                       "range [0, %lld) of max_map", (long long)k[i],
                       (long long)max_map);
      pos[i] = k[i];
      continue;
    }
    int64_t below = 0;
    for (int64_t j = 0; j < n; ++j)
      below += k[j] < k[i];
    pos[i] = below;
  }
  size_t esize = onnxc_rt_dtype_size(cast_to);
  char *out = onnxc_rt_alloc((size_t)width * esize + 1);
  memset(out, 0, (size_t)width * esize);
  for (int64_t i = 0; i < n; ++i) {
    char *dst = out + pos[i] * (int64_t)esize;
    if (values->dtype == ONNXC_STRING) {
      const char *s = ((const char *const *)values->data)[i];
      if (cast_to == ONNXC_STRING)
        memcpy(dst, &s, sizeof s);
      else if (cast_to == ONNXC_FLOAT)
        *(float *)dst = (float)onnxc_rt_string_to_f64(s);
      else
        *(int64_t *)dst = onnxc_rt_string_to_i64(s);
      continue;
    }
    float f = ((const float *)values->data)[i];
    if (cast_to == ONNXC_FLOAT) {
      *(float *)dst = f;
    } else if (cast_to == ONNXC_INT64) {
      *(int64_t *)dst = (int64_t)f;
    } else {
      char buf[64];
      int len = snprintf(buf, sizeof buf, "%f", (double)f);
      char *s = onnxc_rt_alloc((size_t)len + 1);
      memcpy(s, buf, (size_t)len + 1);
      memcpy(dst, &s, sizeof s);
    }
  }
  if (cast_to == ONNXC_STRING) /* absent entries: "" */
    for (int64_t i = 0; i < width; ++i) {
      const char **slot = (const char **)(out + i * (int64_t)esize);
      if (!*slot)
        *slot = "";
    }
  int64_t shape[2] = {1, width};
  return onnxc_rt_box_contiguous(cast_to, 2, shape, out);
}

ALIAS(onnxc_rt_dict_vectorize, i64)
ALIAS(onnxc_rt_dict_vectorize, f32)
ALIAS(onnxc_rt_dict_vectorize, f64)
