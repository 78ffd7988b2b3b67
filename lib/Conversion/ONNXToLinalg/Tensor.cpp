//===- Tensor.cpp - shape and data movement: Reshape, Transpose, Concat, Slice, Gather, ... -> linalg ===//
//
// Not written yet: registers no patterns, so these ops are reported as not
// supported by the CPU backend.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

void mlir::onnxc::populateTensorPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns) {}
