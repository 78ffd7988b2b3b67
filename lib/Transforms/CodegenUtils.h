//===- CodegenUtils.h - Helpers shared by onnxc's codegen passes -*- C++ -*-===//
#ifndef ONNXC_LIB_TRANSFORMS_CODEGENUTILS_H
#define ONNXC_LIB_TRANSFORMS_CODEGENUTILS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::onnxc {

/// Rewrites every static f32 linalg.conv_2d_nchw_fchw of batch 1 under
/// `root` into a sum of linalg.matmul ops, one per kernel position
/// (ConvToMatmul.cpp); other convolutions stay as they are.
void decomposeConvolutions(RewriterBase &rewriter, Operation *root);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_TRANSFORMS_CODEGENUTILS_H
