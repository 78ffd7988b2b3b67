/*===- onnxc_strings.c - String tensors of a run --------------------------===*
 *
 * The generated code holds a string tensor as an array of pointers (i64 in
 * its buffers) to NUL-terminated strings: the caller's (inputs), the
 * library's (constants, in read-only globals) or a run's (made by these
 * functions in buffers of the run, freed when it ends; outputs are copied
 * out, see onnxc_runtime.c). The lowering (lib/Conversion/ONNXToLinalg/
 * Strings.cpp) calls them per element or per tensor.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include <strings.h>

static const char *empty_string = "";

static char *copy_string(const char *s, size_t n) {
  char *d = onnxc_rt_alloc(n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

int32_t onnxc_rt_string_equal(const char *a, const char *b) {
  return strcmp(a ? a : "", b ? b : "") == 0;
}

/* ONNX's Cast from string: a decimal or scientific number, "INF", "-INF",
 * "NaN" (any case); what does not parse gives NaN. */
double onnxc_rt_string_to_f64(const char *s) {
  char *end;
  double v = strtod(s ? s : "", &end);
  return end == s ? NAN : v;
}
float onnxc_rt_string_to_f32(const char *s) {
  char *end;
  float v = strtof(s ? s : "", &end);
  return end == s ? NAN : v;
}
int64_t onnxc_rt_string_to_i64(const char *s) {
  return (int64_t)strtoll(s ? s : "", NULL, 10);
}

/* numpy's str() of a float (what ONNX's Cast tests expect): the shortest
 * digits that read back to the same value (`bits` 24: float, 53: double),
 * positional for exponents in [-4, 16) with at least one decimal, else
 * scientific; "NaN", "INF", "-INF". */
static const char *format_float(double v, int is_float) {
  if (isnan(v))
    return "NaN";
  if (isinf(v))
    return v > 0 ? "INF" : "-INF";
  char buf[64];
  int p = 1;
  for (; p < 17; ++p) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    if (is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
      break;
  }
  int exp10 = v == 0 ? 0 : (int)floor(log10(fabs(v)));
  /* log10 can be off by one near powers of ten: take it from the digits. */
  const char *e = strchr(buf, 'e');
  if (e)
    exp10 = atoi(e + 1);
  if (exp10 >= -4 && exp10 < 16) {
    int decimals = p - 1 - exp10;
    snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, v);
    if (!strchr(buf, '.'))
      strcat(buf, ".0");
  } else {
    /* Mantissa digits as found, exponent with at least two digits. */
    snprintf(buf, sizeof buf, "%.*e", p - 1, v);
  }
  return copy_string(buf, strlen(buf));
}
const char *onnxc_rt_f32_to_string(float v) { return format_float(v, 1); }
const char *onnxc_rt_f64_to_string(double v) { return format_float(v, 0); }
const char *onnxc_rt_i64_to_string(int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return copy_string(buf, strlen(buf));
}

/* Writes the `count` strings packed one after another (each ending in NUL)
 * at `packed` into the pointers of the i64 memref (a contiguous buffer);
 * a negative count: the first string, -count times. */
void onnxc_rt_string_fill(const char *packed, int64_t count, int64_t rank,
                          void *descriptor) {
  (void)rank;
  const int64_t *d = descriptor;
  const char **out;
  memcpy(&out, &d[1], sizeof out);
  out += d[2];
  if (count < 0) { /* a splat: one string, -count times */
    for (int64_t i = 0; i < -count; ++i)
      out[i] = packed;
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    out[i] = packed;
    packed += strlen(packed) + 1;
  }
}

/* StringNormalizer over a [C] or [1, C] tensor: stopwords (packed, ending
 * in an empty string) removed, compared case-sensitively or not (ASCII),
 * then the case changed (0 none, 1 lower, 2 upper; ASCII letters). All
 * removed gives one empty string ([1] or [1, 1]). A new tensor value. */
void *onnxc_rt_string_normalize(int32_t case_change, int32_t case_sensitive,
                                const char *stopwords, int64_t rank,
                                void *descriptor) {
  const int64_t *d = descriptor;
  const char *const *in;
  memcpy(&in, &d[1], sizeof in);
  in += d[2];
  int64_t count = rank == 0 ? 1 : d[3 + rank - 1];
  int64_t stride = rank == 0 ? 1 : d[3 + rank + rank - 1];
  const char **kept = onnxc_rt_alloc(sizeof(char *) * (size_t)(count + 1));
  int64_t n = 0;
  for (int64_t i = 0; i < count; ++i) {
    const char *s = in[i * stride] ? in[i * stride] : empty_string;
    int stop = 0;
    for (const char *w = stopwords; w && *w && !stop; w += strlen(w) + 1)
      stop = case_sensitive ? !strcmp(s, w) : !strcasecmp(s, w);
    if (stop)
      continue;
    size_t len = strlen(s);
    if (case_change) {
      char *c = copy_string(s, len);
      for (size_t k = 0; k < len; ++k)
        if (!((unsigned char)c[k] & 0x80))
          c[k] = (char)(case_change == 1 ? tolower((unsigned char)c[k])
                                         : toupper((unsigned char)c[k]));
      s = c;
    }
    kept[n++] = s;
  }
  if (n == 0)
    kept[n++] = empty_string;
  /* The result as a tensor value: [n], or [1, n]. */
  int64_t shape[2] = {1, n};
  return rank < 2 ? onnxc_rt_box_contiguous(ONNXC_STRING, 1, &shape[1], kept)
                  : onnxc_rt_box_contiguous(ONNXC_STRING, 2, shape, kept);
}

/* A detached copy of `count` strings: one block holding the pointer array
 * and then the characters (freed as one by onnxc_rt_release); NULL when out
 * of memory. */
void *onnxc_rt_copy_strings(const char *const *src, int64_t count) {
  size_t bytes = sizeof(char *) * (size_t)count;
  for (int64_t i = 0; i < count; ++i)
    bytes += strlen(src[i] ? src[i] : "") + 1;
  char **out = onnxc_rt_alloc_detached(bytes ? bytes : 1);
  if (!out)
    return NULL;
  char *chars = (char *)(out + count);
  for (int64_t i = 0; i < count; ++i) {
    const char *s = src[i] ? src[i] : "";
    size_t len = strlen(s) + 1;
    memcpy(chars, s, len);
    out[i] = chars;
    chars += len;
  }
  return out;
}

/* StringConcat of two strings: a new string of the run. */
const char *onnxc_rt_string_concat(const char *a, const char *b) {
  a = a ? a : "";
  b = b ? b : "";
  size_t la = strlen(a), lb = strlen(b);
  char *c = onnxc_rt_alloc(la + lb + 1);
  memcpy(c, a, la);
  memcpy(c + la, b, lb + 1);
  return c;
}

/* The parts of `s` split as Python's str.split does: at each occurrence of
 * `delimiter`, or (NULL or "") at runs of whitespace with none at the ends;
 * at most `maxsplit` splits when it is >= 0. Writes at most `cap` parts
 * (pointer and length each) when `parts` is not NULL; returns the count. */
static int64_t split_parts(const char *s, const char *delimiter,
                           int64_t maxsplit, const char **parts,
                           size_t *lengths, int64_t cap) {
  int64_t n = 0;
  s = s ? s : "";
#define EMIT(p, len)                                                          \
  do {                                                                         \
    if (parts && n < cap) {                                                    \
      parts[n] = (p);                                                          \
      lengths[n] = (len);                                                      \
    }                                                                          \
    ++n;                                                                       \
  } while (0)
  if (delimiter && *delimiter) {
    size_t dl = strlen(delimiter);
    const char *start = s;
    for (;;) {
      const char *hit = (maxsplit < 0 || n < maxsplit) ? strstr(start, delimiter)
                                                       : NULL;
      if (!hit) {
        EMIT(start, strlen(start));
        break;
      }
      EMIT(start, (size_t)(hit - start));
      start = hit + dl;
    }
    return n;
  }
  const char *p = s;
  for (;;) {
    while (*p && isspace((unsigned char)*p))
      ++p;
    if (!*p)
      break;
    if (maxsplit >= 0 && n == maxsplit) {
      /* The rest, its trailing whitespace dropped (as Python does). */
      size_t len = strlen(p);
      while (len && isspace((unsigned char)p[len - 1]))
        --len;
      EMIT(p, len);
      break;
    }
    const char *q = p;
    while (*q && !isspace((unsigned char)*q))
      ++q;
    EMIT(p, (size_t)(q - p));
    p = q;
  }
  return n;
#undef EMIT
}

/* StringSplit over a boxed tensor of strings X: a sequence value of two
 * tensors, the parts [X.shape..., max count] (padded with "") and the
 * counts [X.shape...] (int64). */
void *onnxc_rt_string_split(const char *delimiter, int64_t maxsplit,
                            const onnxc_value *x) {
  int32_t rank = x->tensor.rank;
  int64_t count = 1;
  for (int32_t i = 0; i < rank; ++i)
    count *= x->tensor.shape[i];
  const char *const *in = x->tensor.data;
  int64_t *counts = onnxc_rt_alloc(sizeof(int64_t) * (size_t)(count + 1));
  int64_t widest = 0;
  for (int64_t i = 0; i < count; ++i) {
    counts[i] = split_parts(in[i], delimiter, maxsplit, NULL, NULL, 0);
    if (counts[i] > widest)
      widest = counts[i];
  }
  size_t total = (size_t)(count * widest);
  const char **out = onnxc_rt_alloc(sizeof(char *) * (total + 1));
  const char **parts = onnxc_rt_alloc(sizeof(char *) * (size_t)(widest + 1));
  size_t *lengths = onnxc_rt_alloc(sizeof(size_t) * (size_t)(widest + 1));
  for (int64_t i = 0; i < count; ++i) {
    split_parts(in[i], delimiter, maxsplit, parts, lengths, widest);
    for (int64_t k = 0; k < widest; ++k)
      out[i * widest + k] =
          k < counts[i] ? copy_string(parts[k], lengths[k]) : empty_string;
  }
  /* X's shape, then the parts' width. */
  int64_t *shape = onnxc_rt_alloc(sizeof(int64_t) * (size_t)(rank + 1));
  for (int32_t i = 0; i < rank; ++i)
    shape[i] = x->tensor.shape[i];
  shape[rank] = widest;
  onnxc_value *pair = onnxc_rt_seq_empty(ONNXC_STRING);
  pair = onnxc_rt_seq_insert(
      pair, 0, onnxc_rt_box_contiguous(ONNXC_STRING, rank + 1, shape, out));
  return onnxc_rt_seq_insert(
      pair, 1, onnxc_rt_box_contiguous(ONNXC_INT64, rank, shape, counts));
}

/* RegexFullMatch over a boxed tensor of strings: a bool tensor value of
 * its shape. `pattern` is POSIX extended syntax (the compiler translated
 * and checked ONNX's RE2 pattern), already anchored at both ends. */
void *onnxc_rt_regex_full_match(const char *pattern, const onnxc_value *x) {
  regex_t re;
  if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
    onnxc_rt_abort(ONNXC_ERROR_RUNTIME, "RegexFullMatch: cannot compile "
                   "the pattern '%s'", pattern);
  int32_t rank = x->tensor.rank;
  int64_t count = 1;
  for (int32_t i = 0; i < rank; ++i)
    count *= x->tensor.shape[i];
  const char *const *in = x->tensor.data;
  uint8_t *out = onnxc_rt_alloc((size_t)count + 1);
  for (int64_t i = 0; i < count; ++i)
    out[i] = regexec(&re, in[i] ? in[i] : "", 0, NULL, 0) == 0;
  regfree(&re);
  return onnxc_rt_box_contiguous(ONNXC_BOOL, rank, x->tensor.shape, out);
}
