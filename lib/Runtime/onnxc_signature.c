/*===- onnxc_signature.c - Parsing signatures, checking inputs ------------===*
 *
 * The signature text onnxc writes for each compiled function: a line
 * "onnxc-signature 2", then one line per input (I) or output (O): type,
 * hex name, dtype, key dtype, rank (-1 when unknown), dims, hex dim names
 * ("-" for an empty one). And the checks of a run's input values against
 * the entries: kinds, dtypes, ranks, static dims, symbolic dims bound
 * across inputs, byte counts.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_signature.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return 0;
}

/* Decodes a hex token ("-" is the empty string) into a new string, or NULL
 * when out of memory. */
static char *decode(const char *tok, size_t len) {
  if (len == 1 && tok[0] == '-')
    len = 0;
  char *s = malloc(len / 2 + 1);
  if (!s)
    return NULL;
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

static void free_tables(sig_tensor *tensors, int count) {
  if (!tensors)
    return;
  for (int i = 0; i < count; ++i) {
    free(tensors[i].name);
    if (tensors[i].dim_names)
      for (int d = 0; d < tensors[i].rank; ++d)
        free(tensors[i].dim_names[d]);
    free(tensors[i].dims);
    free(tensors[i].dim_names);
  }
  free(tensors);
}

/* Frees the tables when the library is unloaded (dlclose). */
void onnxc_rt_free_signature(model_table *m) {
  free_tables(m->inputs, m->num_inputs);
  free_tables(m->outputs, m->num_outputs);
  m->inputs = m->outputs = NULL;
  m->num_inputs = m->num_outputs = -1;
}

/* Parses the signature; 0 when out of memory (the tables are then empty). */
int onnxc_rt_parse_tables(model_table *m) {
  const char *p = strchr(m->signature, '\n');
  int cap = 0;
  for (const char *q = m->signature; *q; ++q)
    cap += *q == '\n';
  m->inputs = calloc((size_t)cap + 1, sizeof(sig_tensor));
  m->outputs = calloc((size_t)cap + 1, sizeof(sig_tensor));
  m->num_inputs = m->num_outputs = 0;
  if (!m->inputs || !m->outputs)
    return 0;
  while (p && *p) {
    if (*p == '\n')
      ++p;
    if (!*p)
      break;
    char kind = *p++;
    sig_tensor *t = kind == 'I' ? &m->inputs[m->num_inputs++]
                                : &m->outputs[m->num_outputs++];
    const char *tok;
    size_t len;
    p = next_token(p, &tok, &len);
    t->type = (int)strtol(tok, NULL, 10);
    p = next_token(p, &tok, &len);
    if (!(t->name = decode(tok, len)))
      return 0;
    p = next_token(p, &tok, &len);
    t->dtype = (int32_t)strtol(tok, NULL, 10);
    p = next_token(p, &tok, &len);
    t->key_dtype = (int32_t)strtol(tok, NULL, 10);
    p = next_token(p, &tok, &len);
    int rank = (int)strtol(tok, NULL, 10); /* -1: a sequence's unknown rank */
    t->dims = calloc((size_t)(rank > 0 ? rank : 0) + 1, sizeof(int64_t));
    t->dim_names = calloc((size_t)(rank > 0 ? rank : 0) + 1, sizeof(char *));
    if (!t->dims || !t->dim_names)
      return 0;
    t->rank = rank;
    for (int i = 0; i < t->rank; ++i) {
      p = next_token(p, &tok, &len);
      t->dims[i] = strtoll(tok, NULL, 10);
    }
    for (int i = 0; i < t->rank; ++i) {
      p = next_token(p, &tok, &len);
      if (!(t->dim_names[i] = decode(tok, len)))
        return 0;
    }
    p = strchr(p, '\n');
  }
  return 1;
}

size_t onnxc_rt_dtype_size(int32_t dtype) {
  switch (dtype) {
  case ONNXC_FLOAT:
  case ONNXC_INT32:
  case ONNXC_UINT32:
    return 4;
  case ONNXC_DOUBLE:
  case ONNXC_INT64:
  case ONNXC_UINT64:
  case ONNXC_STRING: /* a pointer per element */
  case ONNXC_COMPLEX64:
    return 8;
  case ONNXC_COMPLEX128:
    return 16;
  case ONNXC_INT16:
  case ONNXC_UINT16:
  case ONNXC_FLOAT16:
  case ONNXC_BFLOAT16:
    return 2;
  case ONNXC_INT8:
  case ONNXC_UINT8:
  case ONNXC_BOOL:
  case ONNXC_FLOAT8E4M3FN:
  case ONNXC_FLOAT8E4M3FNUZ:
  case ONNXC_FLOAT8E5M2:
  case ONNXC_FLOAT8E5M2FNUZ:
  case ONNXC_FLOAT8E8M0:
  /* The generated code's buffers hold one sub-byte element per byte. */
  case ONNXC_UINT4:
  case ONNXC_INT4:
  case ONNXC_FLOAT4E2M1:
  case ONNXC_UINT2:
  case ONNXC_INT2:
    return 1;
  default:
    return 0;
  }
}

/* Bits per element of the types packed at the API, 0 for the others. */
int onnxc_rt_dtype_packed_bits(int32_t dtype) {
  switch (dtype) {
  case ONNXC_UINT4:
  case ONNXC_INT4:
  case ONNXC_FLOAT4E2M1:
    return 4;
  case ONNXC_UINT2:
  case ONNXC_INT2:
    return 2;
  default:
    return 0;
  }
}

/* Bytes of `count` elements in the API's layout; 0 on overflow. */
int onnxc_rt_api_bytes(int32_t dtype, int64_t count, int64_t *bytes) {
  int bits = onnxc_rt_dtype_packed_bits(dtype);
  if (bits) {
    *bytes = count / (8 / bits) + (count % (8 / bits) != 0);
    return 1;
  }
  return !__builtin_mul_overflow(count, (int64_t)onnxc_rt_dtype_size(dtype),
                                 bytes);
}

/* "input 2 ('x')", or "item 1 of input 2 ('x')" when `item` >= 0. */
static void name_input(char *what, size_t size, int i, int item,
                       const sig_tensor *t) {
  if (item < 0)
    snprintf(what, size, "input %d ('%s')", i, t->name);
  else
    snprintf(what, size, "item %d of input %d ('%s')", item, i, t->name);
}

/* Checks tensor `in` against signature entry `t`: input `i`, or item `item`
 * (>= 0) of its sequence. Symbolic dims bind across the inputs' tensors
 * (not across a sequence's items, whose shapes may differ). */
static onnxc_status check_tensor(int i, int item, const sig_tensor *t,
                                 const onnxc_tensor *in,
                                 onnxc_rt_bound_dim *bound, int *num_bound) {
  char what[96];
  name_input(what, sizeof what, i, item, t);
  if (in->dtype != t->dtype)
    return onnxc_rt_error(ONNXC_ERROR_DTYPE,
                          "%s has element type %d, the model expects %d", what,
                          in->dtype, t->dtype);
  if (t->rank >= 0 && in->rank != t->rank)
    return onnxc_rt_error(ONNXC_ERROR_RANK,
                          "%s has rank %d, the model expects %d", what,
                          in->rank, t->rank);
  if (in->rank < 0)
    return onnxc_rt_error(ONNXC_ERROR_RANK, "%s has rank %d", what, in->rank);
  if (in->rank > 0 && !in->shape)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT, "%s has a null shape",
                          what);
  int64_t count = 1;
  for (int d = 0; d < in->rank; ++d) {
    int64_t v = in->shape[d];
    if (v < 0)
      return onnxc_rt_error(ONNXC_ERROR_SHAPE, "%s has negative dim %d", what,
                            d);
    if (t->rank >= 0 && t->dims[d] >= 0 && v != t->dims[d])
      return onnxc_rt_error(
          ONNXC_ERROR_SHAPE,
          "%s has size %lld in dim %d, the model expects %lld", what,
          (long long)v, d, (long long)t->dims[d]);
    if (item < 0 && t->dims[d] < 0 && t->dim_names[d][0]) {
      int found = 0;
      for (int k = 0; k < *num_bound; ++k)
        if (!strcmp(bound[k].name, t->dim_names[d])) {
          found = 1;
          if (bound[k].value != v)
            return onnxc_rt_error(
                ONNXC_ERROR_SHAPE,
                "%s gives dim '%s' the size %lld, an earlier input "
                "gave it %lld",
                what, t->dim_names[d], (long long)v, (long long)bound[k].value);
        }
      if (!found) {
        bound[*num_bound].name = t->dim_names[d];
        bound[*num_bound].value = v;
        ++*num_bound;
      }
    }
    if (__builtin_mul_overflow(count, v, &count))
      return onnxc_rt_error(ONNXC_ERROR_SHAPE,
                            "%s has more elements than fit in 64 bits", what);
  }
  int64_t bytes;
  if (!onnxc_rt_api_bytes(t->dtype, count, &bytes) ||
      (uint64_t)bytes > (uint64_t)PTRDIFF_MAX)
    return onnxc_rt_error(ONNXC_ERROR_SHAPE,
                          "%s has more bytes than the address space", what);
  if (count > 0 && !in->data)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT, "%s has null data",
                          what);
  return ONNXC_OK;
}

static const char *kind_name(int32_t kind) {
  return kind == ONNXC_KIND_TENSOR     ? "a tensor"
         : kind == ONNXC_KIND_SEQUENCE ? "a sequence"
         : kind == ONNXC_KIND_OPTIONAL ? "an optional"
         : kind == ONNXC_KIND_MAP      ? "a map"
                                       : "of no known kind";
}

/* Checks map `m` (input `i`, item `item` of it when >= 0) against entry
 * `t`: two 1-D tensors of the keys' and the values' dtypes, one length. */
static onnxc_status check_map(int i, int item, const sig_tensor *t,
                              const onnxc_value *m) {
  char what[96];
  name_input(what, sizeof what, i, item, t);
  if (m->kind != ONNXC_KIND_MAP)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "%s is %s, the model expects a "
                          "map",
                          what, kind_name(m->kind));
  if (m->num_items != 2 || !m->items || m->items[0].kind != ONNXC_KIND_TENSOR ||
      m->items[1].kind != ONNXC_KIND_TENSOR)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "%s is a map without its two "
                          "tensors (keys, values)",
                          what);
  const onnxc_tensor *k = &m->items[0].tensor, *v = &m->items[1].tensor;
  if (k->dtype != t->key_dtype || v->dtype != t->dtype)
    return onnxc_rt_error(ONNXC_ERROR_DTYPE,
                          "%s maps element type %d to %d, the model "
                          "expects %d to %d",
                          what, k->dtype, v->dtype, t->key_dtype, t->dtype);
  if (k->rank != 1 || v->rank != 1 || !k->shape || !v->shape ||
      k->shape[0] != v->shape[0] || k->shape[0] < 0 ||
      (k->shape[0] && (!k->data || !v->data)))
    return onnxc_rt_error(ONNXC_ERROR_SHAPE,
                          "%s: keys and values must be 1-D tensors "
                          "of one length, with data",
                          what);
  return ONNXC_OK;
}

/* Checks input value `v` against its signature entry; *handle is what the
 * generated code gets for a sequence or an optional. */
onnxc_status onnxc_rt_check_value(const sig_tensor *t, int i,
                                  const onnxc_value *v,
                                  onnxc_rt_bound_dim *bound, int *num_bound,
                                  void **handle) {
  int optional = t->type == ONNXC_TYPE_OPTIONAL_TENSOR ||
                 t->type == ONNXC_TYPE_OPTIONAL_SEQUENCE;
  int sequence =
      t->type == ONNXC_TYPE_SEQUENCE || t->type == ONNXC_TYPE_OPTIONAL_SEQUENCE;
  *handle = NULL;
  if (optional) {
    if (v->kind != ONNXC_KIND_OPTIONAL)
      return onnxc_rt_error(
          ONNXC_ERROR_INVALID_ARGUMENT,
          "input %d ('%s') is %s, the model expects an optional", i, t->name,
          kind_name(v->kind));
    if (v->num_items > 1 || (v->num_items && !v->items))
      return onnxc_rt_error(
          ONNXC_ERROR_INVALID_ARGUMENT,
          "input %d ('%s') is an optional with %zu items (0 or 1, "
          "with items set)",
          i, t->name, v->num_items);
    if (!v->num_items)
      return ONNXC_OK;
    v = v->items;
  }
  if (t->type == ONNXC_TYPE_MAP) {
    *handle = (void *)(uintptr_t)v;
    return check_map(i, -1, t, v);
  }
  if (t->type == ONNXC_TYPE_SEQUENCE_OF_MAPS) {
    if (v->kind != ONNXC_KIND_SEQUENCE || (v->num_items && !v->items))
      return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                            "input %d ('%s') is %s, the "
                            "model expects a sequence of maps",
                            i, t->name, kind_name(v->kind));
    *handle = (void *)(uintptr_t)v;
    for (size_t k = 0; k < v->num_items; ++k) {
      onnxc_status s = check_map(i, (int)k, t, &v->items[k]);
      if (s != ONNXC_OK)
        return s;
    }
    return ONNXC_OK;
  }
  int32_t want = sequence ? ONNXC_KIND_SEQUENCE : ONNXC_KIND_TENSOR;
  if (v->kind != want)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "input %d ('%s') %sis %s, the model expects %s", i,
                          t->name, optional ? "holds a value that " : "",
                          kind_name(v->kind), kind_name(want));
  *handle = (void *)(uintptr_t)v; /* read only by the generated code */
  if (!sequence)
    return check_tensor(i, -1, t, &v->tensor, bound, num_bound);
  if (v->num_items && !v->items)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "input %d ('%s') is a sequence with null items", i,
                          t->name);
  for (size_t k = 0; k < v->num_items; ++k) {
    if (v->items[k].kind != ONNXC_KIND_TENSOR)
      return onnxc_rt_error(
          ONNXC_ERROR_INVALID_ARGUMENT,
          "item %zu of input %d ('%s') is %s, the model expects a "
          "tensor",
          k, i, t->name, kind_name(v->items[k].kind));
    onnxc_status s =
        check_tensor(i, (int)k, t, &v->items[k].tensor, bound, num_bound);
    if (s != ONNXC_OK)
      return s;
  }
  return ONNXC_OK;
}
