//===- Reduction.cpp - Reduce*, ArgMax, ArgMin -> linalg ===//
//
// Not written yet: registers no patterns, so these ops are reported as not
// supported by the CPU backend.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

void mlir::onnxc::populateReductionPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns) {}
