/* Drives a compiled model through the C API of onnxc_runtime.h: the
 * signature, a successful run, every status a bad call or bad input gives,
 * a run-time error, and repeated dlopen/dlclose.
 *
 *   api_test API.so GATHER.so
 *
 * API.so: Z = X + Y with X, Y, Z float[N,3] (Inputs/cases.py api).
 * GATHER.so: the `gather` case (data float[5,3], indices int64[n]).
 * Prints one line per check; FileCheck reads them. */
#include "onnxc/Runtime/onnxc_runtime.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  void *handle;
  int (*num_inputs)(void);
  int (*num_outputs)(void);
  const char *(*input_name)(int);
  int64_t (*input_dim)(int, int);
  const char *(*input_dim_name)(int, int);
  onnxc_status (*run)(const onnxc_tensor *, size_t, onnxc_tensor **, size_t *);
  void (*free_outputs)(onnxc_tensor *, size_t);
  const char *(*last_error)(void);
} api;

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) {
    printf("missing symbol %s\n", name);
    exit(1);
  }
  return p;
}

static api load(const char *path) {
  api a;
  a.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!a.handle) {
    printf("dlopen failed: %s\n", dlerror());
    exit(1);
  }
  a.num_inputs = (int (*)(void))sym(a.handle, "onnxc_num_inputs");
  a.num_outputs = (int (*)(void))sym(a.handle, "onnxc_num_outputs");
  a.input_name = (const char *(*)(int))sym(a.handle, "onnxc_input_name");
  a.input_dim = (int64_t(*)(int, int))sym(a.handle, "onnxc_input_dim");
  a.input_dim_name =
      (const char *(*)(int, int))sym(a.handle, "onnxc_input_dim_name");
  a.run = (onnxc_status(*)(const onnxc_tensor *, size_t, onnxc_tensor **,
                           size_t *))sym(a.handle, "onnxc_run");
  a.free_outputs =
      (void (*)(onnxc_tensor *, size_t))sym(a.handle, "onnxc_free_outputs");
  a.last_error = (const char *(*)(void))sym(a.handle, "onnxc_last_error");
  return a;
}

static void expect(api *a, const char *what, const onnxc_tensor *in, size_t n) {
  onnxc_tensor *out = (onnxc_tensor *)0x1;
  size_t count = 99;
  onnxc_status s = a->run(in, n, &out, &count);
  printf("%s: status %d, outputs %s, count %zu: %s\n", what, (int)s,
         out ? "set" : "NULL", count, a->last_error());
  if (s == ONNXC_OK)
    a->free_outputs(out, count);
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  api a = load(argv[1]);
  printf("signature: %d inputs, %d outputs, input 0 '%s' dims [%lld,%lld] "
         "'%s'\n",
         a.num_inputs(), a.num_outputs(), a.input_name(0),
         (long long)a.input_dim(0, 0), (long long)a.input_dim(0, 1),
         a.input_dim_name(0, 0));
  printf("invalid index: %s %lld\n", a.input_name(7) ? "name" : "NULL",
         (long long)a.input_dim(0, 5));

  float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60};
  int64_t shape[2] = {2, 3};
  onnxc_tensor in[2] = {{ONNXC_FLOAT, 2, shape, x}, {ONNXC_FLOAT, 2, shape, y}};
  onnxc_tensor *out = NULL;
  size_t count = 0;
  onnxc_status s = a.run(in, 2, &out, &count);
  printf("run: status %d, %zu outputs, shape [%lld,%lld], z[5] = %g, x[5] = "
         "%g\n",
         (int)s, count, (long long)out[0].shape[0], (long long)out[0].shape[1],
         ((float *)out[0].data)[5], x[5]);
  a.free_outputs(out, count);

  s = a.run(in, 2, NULL, &count);
  printf("null outputs: status %d: %s\n", (int)s, a.last_error());
  expect(&a, "null inputs", NULL, 2);
  expect(&a, "one input", in, 1);

  onnxc_tensor bad[2];
  memcpy(bad, in, sizeof(in));
  bad[1].dtype = ONNXC_INT32;
  expect(&a, "dtype", bad, 2);

  memcpy(bad, in, sizeof(in));
  int64_t flat[1] = {6};
  bad[0].rank = 1;
  bad[0].shape = flat;
  expect(&a, "rank", bad, 2);

  memcpy(bad, in, sizeof(in));
  int64_t wide[2] = {2, 4};
  bad[0].shape = wide;
  expect(&a, "static dim", bad, 2);

  memcpy(bad, in, sizeof(in));
  int64_t other[2] = {1, 3};
  bad[1].shape = other;
  expect(&a, "symbolic dim", bad, 2);

  memcpy(bad, in, sizeof(in));
  int64_t negative[2] = {-1, 3};
  bad[0].shape = negative;
  expect(&a, "negative dim", bad, 2);

  memcpy(bad, in, sizeof(in));
  int64_t huge[2] = {INT64_C(1) << 62, 3};
  bad[0].shape = huge;
  bad[1].shape = huge;
  expect(&a, "overflow", bad, 2);

  memcpy(bad, in, sizeof(in));
  bad[0].data = NULL;
  expect(&a, "null data", bad, 2);

  memcpy(bad, in, sizeof(in));
  bad[0].shape = NULL;
  expect(&a, "null shape", bad, 2);

  /* Empty tensors are fine. */
  int64_t empty[2] = {0, 3};
  onnxc_tensor none[2] = {{ONNXC_FLOAT, 2, empty, NULL},
                          {ONNXC_FLOAT, 2, empty, NULL}};
  expect(&a, "empty", none, 2);
  dlclose(a.handle);

  /* A run-time error, then a good run of the same library. */
  api g = load(argv[2]);
  float data[15];
  for (int i = 0; i < 15; ++i)
    data[i] = (float)i;
  int64_t dshape[2] = {5, 3}, ishape[1] = {2};
  int64_t bad_idx[2] = {1, 17}, good_idx[2] = {4, -1};
  onnxc_tensor gin[2] = {{ONNXC_FLOAT, 2, dshape, data},
                         {ONNXC_INT64, 1, ishape, bad_idx}};
  expect(&g, "gather bad index", gin, 2);
  gin[1].data = good_idx;
  s = g.run(gin, 2, &out, &count);
  printf("gather after error: status %d, y[0] = %g, error '%s'\n", (int)s,
         ((float *)out[0].data)[0], g.last_error());
  g.free_outputs(out, count);
  dlclose(g.handle);

  /* Loading and unloading repeatedly keeps working (and, under
   * LeakSanitizer, leaks nothing: the signature tables go with dlclose). */
  for (int i = 0; i < 3; ++i) {
    api r = load(argv[1]);
    s = r.run(in, 2, &out, &count);
    if (s == ONNXC_OK)
      r.free_outputs(out, count);
    printf("reload %d: status %d, %d inputs\n", i, (int)s, r.num_inputs());
    dlclose(r.handle);
  }
  return 0;
}
