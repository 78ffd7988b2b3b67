//===- ONNXOpsShard0.cpp - Generated op definitions, shard 0 ------------===//
//
// The generated op definitions are split into four translation units so
// that a two-core build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/OpImplementation.h"

#define GET_OP_DEFS_0
#include "onnxc/Dialect/ONNX/IR/ONNXOps.cpp.inc"
