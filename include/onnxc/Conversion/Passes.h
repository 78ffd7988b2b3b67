//===- Passes.h - Conversions out of the onnx dialect -----------*- C++ -*-===//
#ifndef ONNXC_CONVERSION_PASSES_H
#define ONNXC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::onnxc {

#define GEN_PASS_DECL
#include "onnxc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onnxc/Conversion/Passes.h.inc"

} // namespace mlir::onnxc

#endif // ONNXC_CONVERSION_PASSES_H
