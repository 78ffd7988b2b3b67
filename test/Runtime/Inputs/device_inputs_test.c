/* onnxc_run_with and inputs in device memory, against a stand-in
 * libcuda.so.1 (test/onnxc-run/Inputs/fake_libcuda.c, found through
 * LD_LIBRARY_PATH), whose device memory the host cannot touch.
 *
 *   device_inputs_test ADD_CUDA.so INT4_CUDA.so ADD_CPU.so
 *
 * ADD_*.so: Z = X + Y with X, Y, Z float[N,3] (Inputs/cases.py api),
 * compiled for cuda and for the CPU; INT4_CUDA.so: narrow_types.py's
 * int4.onnx (X int4[5]). Prints one line per check; FileCheck reads them
 * with the fake driver's lines. */
#include "onnxc/Runtime/onnxc_runtime.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*mem_alloc_fn)(unsigned long long *, size_t);
typedef int (*htod_fn)(unsigned long long, const void *, size_t);
typedef onnxc_status (*run_with_fn)(const onnxc_run_options *,
                                    const onnxc_tensor *, size_t,
                                    onnxc_tensor **, size_t *);

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) {
    printf("missing symbol %s\n", name);
    exit(1);
  }
  return p;
}

typedef struct {
  run_with_fn run_with;
  void (*free_outputs)(onnxc_tensor *, size_t);
  const char *(*last_error)(void);
} model;

static model load(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("dlopen failed: %s\n", dlerror());
    exit(1);
  }
  model m;
  m.run_with = (run_with_fn)sym(h, "onnxc_run_with");
  m.free_outputs =
      (void (*)(onnxc_tensor *, size_t))sym(h, "onnxc_free_outputs");
  m.last_error = (const char *(*)(void))sym(h, "onnxc_last_error");
  return m;
}

static void check(model *m, const char *what, const onnxc_run_options *o,
                  const onnxc_tensor *in, size_t n) {
  fflush(stdout);
  onnxc_tensor *out = (onnxc_tensor *)0x1;
  size_t count = 99;
  onnxc_status s = m->run_with(o, in, n, &out, &count);
  printf("%s: status %d, outputs %s, count %zu", what, (int)s,
         out ? "set" : "NULL", count);
  if (s == ONNXC_OK)
    printf(", output 0 rank %d shape [%lld,%lld]", out[0].rank,
           (long long)out[0].shape[0], (long long)out[0].shape[1]);
  printf(": %s\n", m->last_error());
  fflush(stdout);
  if (s == ONNXC_OK)
    m->free_outputs(out, count);
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    printf("no libcuda.so.1: %s\n", dlerror());
    return 1;
  }
  mem_alloc_fn mem_alloc = (mem_alloc_fn)sym(cuda, "cuMemAlloc_v2");
  htod_fn htod = (htod_fn)sym(cuda, "cuMemcpyHtoD_v2");
  model add = load(argv[1]), int4 = load(argv[2]), cpu = load(argv[3]);

  float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60};
  unsigned long long dx = 0, dy = 0, d4 = 0;
  if (mem_alloc(&dx, sizeof x) || mem_alloc(&dy, sizeof y) ||
      mem_alloc(&d4, 3) || htod(dx, x, sizeof x) || htod(dy, y, sizeof y))
    return 1;
  int64_t shape[2] = {2, 3};
  onnxc_tensor in[2] = {{ONNXC_FLOAT, 2, shape, (void *)(uintptr_t)dx},
                        {ONNXC_FLOAT, 2, shape, (void *)(uintptr_t)dy}};
  onnxc_run_options device = {sizeof device, ONNXC_MEMORY_DEVICE};

  /* Device addresses in: copied on the device, never read by the host. */
  check(&add, "device inputs", &device, in, 2);
  /* A host pointer where a device address belongs: the copy fails. */
  onnxc_tensor mixed[2] = {in[0], {ONNXC_FLOAT, 2, shape, y}};
  check(&add, "host pointer as device", &device, mixed, 2);
  /* Host memory through onnxc_run_with: NULL options, or HOST. */
  onnxc_tensor host[2] = {{ONNXC_FLOAT, 2, shape, x},
                          {ONNXC_FLOAT, 2, shape, y}};
  onnxc_run_options on_host = {sizeof on_host, ONNXC_MEMORY_HOST};
  check(&add, "null options", NULL, host, 2);
  check(&add, "host options", &on_host, host, 2);
  /* Options of an older, shorter struct: input_memory is not read. */
  onnxc_run_options short_options = {sizeof(size_t), ONNXC_MEMORY_DEVICE};
  check(&add, "short options", &short_options, host, 2);
  onnxc_run_options bad = {sizeof bad, 7};
  check(&add, "bad memory", &bad, host, 2);
  const char *strings[6] = {"a", "b", "c", "d", "e", "f"};
  onnxc_tensor text[2] = {in[0], {ONNXC_STRING, 2, shape, strings}};
  check(&add, "string input", &device, text, 2);
  /* Signature checks come as for onnxc_run. */
  check(&add, "one input", &device, in, 1);

  /* int4, packed: copied to the host and unpacked there. */
  unsigned char packed[3] = {0xF8, 0x30, 0x07};
  if (htod(d4, packed, sizeof packed))
    return 1;
  int64_t five = 5;
  onnxc_tensor in4 = {ONNXC_INT4, 1, &five, (void *)(uintptr_t)d4};
  fflush(stdout);
  onnxc_tensor *out = NULL;
  size_t count = 0;
  onnxc_status s = int4.run_with(&device, &in4, 1, &out, &count);
  printf("int4 device input: status %d, %zu outputs: %s\n", (int)s, count,
         int4.last_error());
  fflush(stdout);
  if (s == ONNXC_OK)
    int4.free_outputs(out, count);

  /* A CPU library takes host memory only. */
  check(&cpu, "cpu device inputs", &device, host, 2);
  check(&cpu, "cpu host inputs", &on_host, host, 2);
  return 0;
}
