/*===- onnxc_inputs.c - The inputs of a run, as the generated code takes them =*
 *
 * Sub-byte element types arrive packed (as ONNX packs them) and are
 * unpacked into buffers of the run; on the CUDA target every input is
 * copied into a buffer of the run that kernels can read (device memory for
 * those only kernels read), from host memory or, with onnxc_run_with's
 * ONNXC_MEMORY_DEVICE, from device memory.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_internal.h"
#include "onnxc_signature.h"

#include <stdint.h>
#include <string.h>

/* The CUDA target's part (onnxc_cuda.c), linked only into models compiled
 * for CUDA. */
extern void onnxc_rt_device_prefetch(void *p, size_t bytes)
    __attribute__((weak));
extern int onnxc_rt_device_upload(void *dst, const void *src, size_t bytes,
                                  int dma_only) __attribute__((weak));
/* Inputs in device memory (onnxc_run_with): copied into the run's buffer
 * on the device, or to the host (to be unpacked); NULL, or why not. */
extern const char *onnxc_rt_device_copy_input(void *dst, const void *src,
                                              size_t bytes, int to_host)
    __attribute__((weak));

/* Sub-byte element types (int4, uint4, float4e2m1, int2, uint2) travel
 * through the API packed as ONNX packs them: the first element in the
 * lowest bits of a byte. The generated code holds one element per byte (an
 * integer sign- or zero-extended, a float4's bits zero-extended). */
static void unpack_elements(uint8_t *dst, const uint8_t *src, int64_t count,
                            int bits, int is_signed) {
  int per_byte = 8 / bits;
  uint8_t mask = (uint8_t)((1u << bits) - 1);
  for (int64_t i = 0; i < count; ++i) {
    uint8_t v = (uint8_t)(src[i / per_byte] >> ((i % per_byte) * bits)) & mask;
    if (is_signed && (v >> (bits - 1)))
      v |= (uint8_t)~mask;
    dst[i] = v;
  }
}

/* Packs `count` one-byte elements into the front of the same buffer. */
void onnxc_rt_pack_elements(uint8_t *data, int64_t count, int bits) {
  int per_byte = 8 / bits;
  uint8_t mask = (uint8_t)((1u << bits) - 1);
  for (int64_t i = 0; i < count; i += per_byte) {
    uint8_t byte = 0;
    for (int k = 0; k < per_byte && i + k < count; ++k)
      byte |= (uint8_t)((data[i + k] & mask) << (k * bits));
    data[i / per_byte] = byte;
  }
}

static int dtype_is_signed_packed(int32_t dtype) {
  return dtype == ONNXC_INT4 || dtype == ONNXC_INT2;
}

/* Points each packed input's descriptor (args[1..]) at an unpacked copy in
 * a buffer of the run. */
static void copy_input_from_device(const model_table *m, int i, void *dst,
                                   const void *src, size_t bytes, int to_host) {
  const char *problem = onnxc_rt_device_copy_input(dst, src, bytes, to_host);
  if (problem)
    onnxc_rt_abort(ONNXC_ERROR_DEVICE,
                   "input '%s': cannot copy %zu bytes from device address %p "
                   "(%s)",
                   m->inputs[i].name, bytes, src, problem);
}

static void unpack_inputs(const model_table *m, void **args, int on_device) {
  for (int i = 0; i < m->num_inputs; ++i) {
    int bits = onnxc_rt_dtype_packed_bits(m->inputs[i].dtype);
    if (!bits || m->inputs[i].type != ONNXC_TYPE_TENSOR)
      continue;
    int64_t *w = args[1 + i];
    int64_t count = 1;
    for (int d = 0; d < m->inputs[i].rank; ++d)
      count *= w[3 + d];
    if (!count)
      continue;
    uint8_t *copy = onnxc_rt_allocate_block((size_t)count, 64, 1), *data;
    memcpy(&data, &w[1], sizeof data);
    if (on_device) { /* unpacked by the host from a host copy */
      size_t packed = ((size_t)count * (size_t)bits + 7) / 8;
      void *staged = onnxc_rt_allocate_block(packed, 64, 1);
      copy_input_from_device(m, i, staged, data, packed, 1);
      data = staged;
    }
    unpack_elements(copy, data, count, bits,
                    dtype_is_signed_packed(m->inputs[i].dtype));
    if (onnxc_rt_device_prefetch)
      onnxc_rt_device_prefetch(copy, (size_t)count);
    memcpy(&w[0], &copy, sizeof copy);
    memcpy(&w[1], &copy, sizeof copy);
  }
}

/* The CUDA target: each input descriptor (args[1..]) is pointed at a copy
 * in a buffer of the run (managed memory), which kernels can read, made by
 * the driver (onnxc_rt_device_upload), or on the device when the inputs
 * are device memory. */
static void stage_inputs(const model_table *m, void **args, int on_device) {
  for (int i = 0; i < m->num_inputs; ++i) {
    int64_t *w = args[1 + i];
    int r = m->inputs[i].rank;
    if (onnxc_rt_dtype_packed_bits(m->inputs[i].dtype) ||
        m->inputs[i].type != ONNXC_TYPE_TENSOR)
      continue; /* a copy in a buffer of the run already, or not a tensor */
    size_t bytes = onnxc_rt_dtype_size(m->inputs[i].dtype);
    for (int d = 0; d < r; ++d)
      bytes *= (size_t)w[3 + d];
    if (!bytes)
      continue;
    void *data, *allocated = NULL, *copy = NULL;
    memcpy(&data, &w[1], sizeof data);
    /* An input only kernels read goes to device memory, copied by the
     * driver; without a driver copy, to managed memory as the others. */
    if (m->device_inputs && (size_t)i < strlen(m->device_inputs) &&
        m->device_inputs[i] == '1') {
      onnxc_rt_allocate_device_block(bytes, &allocated, &copy);
      if (on_device) {
        copy_input_from_device(m, i, copy, data, bytes, 0);
      } else if (!onnxc_rt_device_upload(copy, data, bytes, 1)) {
        onnxc_rt_release_block(allocated, 0);
        allocated = NULL;
      }
    }
    if (!allocated) {
      allocated = copy = onnxc_rt_allocate_block(bytes, 64, 1);
      if (on_device)
        copy_input_from_device(m, i, copy, data, bytes, 0);
      else
        onnxc_rt_device_upload(copy, data, bytes, 0);
    }
    memcpy(&w[0], &allocated, sizeof allocated);
    memcpy(&w[1], &copy, sizeof copy);
  }
}

void onnxc_rt_stage_inputs(const model_table *m, void **args, int on_device,
                           int cuda) {
  unpack_inputs(m, args, on_device);
  if (cuda)
    stage_inputs(m, args, on_device);
}
