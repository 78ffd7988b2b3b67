/* onnxc_ukernels.h - The runtime's hand-written kernels (onnxc_ukernels.c).
 *
 * Called by the code onnxc-lower-ukernels emits, through MLIR's C interface
 * (llvm.emit_c_interface: buffers as pointers to memref descriptors), and
 * by the unit tests.
 */
#ifndef ONNXC_LIB_RUNTIME_ONNXC_UKERNELS_H
#define ONNXC_LIB_RUNTIME_ONNXC_UKERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's descriptor of a memref of rank R. */
#define ONNXC_MEMREF(R)                                                        \
  typedef struct {                                                             \
    float *allocated, *aligned;                                                \
    int64_t offset, sizes[R], strides[R];                                      \
  } onnxc_memref##R
ONNXC_MEMREF(2);
ONNXC_MEMREF(4);
ONNXC_MEMREF(5);
ONNXC_MEMREF(6);
#undef ONNXC_MEMREF

/* How the conv's accumulators start. */
enum { ONNXC_CONV_ACCUMULATE = 0, ONNXC_CONV_BIAS = 1, ONNXC_CONV_ZERO = 2 };

/* in: N x CB x H x W x 16 (padded), w: FB x CB x KH x KW x 16 x 16
 * (contiguous), bias: FB x 16 (ONNXC_CONV_BIAS), out: N x FB x OH x OW x 16;
 * in and out with unit strides inside their 16-channel vectors and 16
 * between positions (onnxc-lower-ukernels checks it). act = 1: the result
 * clamped to [lo, hi] (a Relu: [0, inf]; a Clip), NaN kept. */
void _mlir_ciface_onnxc_uk_conv2d_nchwc_f32(
    const onnxc_memref5 *in, const onnxc_memref6 *w,
    const onnxc_memref2 *bias, const onnxc_memref5 *out, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, int64_t init, int64_t act, float lo,
    float hi);

/* The same with an NCHW input (a first conv's few channels): in N x C x H x
 * W (padded; unit stride along W), w: FB x C x KH x KW x 16. */
void _mlir_ciface_onnxc_uk_conv2d_nchw_nchwc_f32(
    const onnxc_memref4 *in, const onnxc_memref5 *w,
    const onnxc_memref2 *bias, const onnxc_memref5 *out, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, int64_t init, int64_t act, float lo,
    float hi);

/* blocked = 1: in N x CB x 16 x H x W -> out N x CB x H x W x 16; 0: back.
 * Any strides. */
void _mlir_ciface_onnxc_uk_transpose_nchwc_f32(const onnxc_memref5 *in,
                                                const onnxc_memref5 *out,
                                                int64_t blocked);

/* Set by the unit tests to run the portable conv kernel. */
extern int onnxc_uk_force_portable;

#ifdef __cplusplus
}
#endif

#endif /* ONNXC_LIB_RUNTIME_ONNXC_UKERNELS_H */
