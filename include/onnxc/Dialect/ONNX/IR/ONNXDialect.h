//===- ONNXDialect.h - The onnx dialect and its types -----------*- C++ -*-===//
#ifndef ONNXC_DIALECT_ONNX_IR_ONNXDIALECT_H
#define ONNXC_DIALECT_ONNX_IR_ONNXDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Types.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "onnxc/Dialect/ONNX/IR/ONNXOpsTypes.h.inc"

#endif // ONNXC_DIALECT_ONNX_IR_ONNXDIALECT_H
