/*===- onnxc_ml.c - Look-ups of the ai.onnx.ml operators -------------------===*
 *
 * LabelEncoder, CategoryMapper, OneHotEncoder and the string class labels
 * of the classifiers look a key up in a table the compiler sorted
 * (lib/Conversion/ONNXToLinalg/ML.cpp): strings packed one after another
 * (each ending in NUL) with the offset of each, or int64 keys (float keys
 * as their bits). Each function returns the key's position in the sorted
 * table, or -1; the generated code maps the position to the value.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <string.h>

/* Binary search with strcmp (bytes compared as unsigned char, the order
 * the compiler sorted the keys in); a null pointer is the empty string. */
int64_t onnxc_rt_ml_find_string(const char *packed, const int64_t *offsets,
                                int64_t count, const char *key) {
  if (!key)
    key = "";
  int64_t lo = 0, hi = count;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int c = strcmp(packed + offsets[mid], key);
    if (c == 0)
      return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

int64_t onnxc_rt_ml_find_i64(const int64_t *keys, int64_t count, int64_t key) {
  int64_t lo = 0, hi = count;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] == key)
      return mid;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}
