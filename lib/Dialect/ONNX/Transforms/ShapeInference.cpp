//===- ShapeInference.cpp - The onnx-shape-inference pass -----------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Dialect/ONNX/Transforms/SchemaInference.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXSHAPEINFERENCE
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {
struct ONNXShapeInferencePass
    : mlir::onnxc::impl::ONNXShapeInferenceBase<ONNXShapeInferencePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Post-order: subgraph regions are refined before the op that owns them.
    func.walk([&](Operation *op) {
      if (!lookupONNXOpInfo(op->getName().getStringRef()))
        return;
      std::string error;
      FailureOr<SmallVector<Type>> inferred = inferTypesFromSchema(op, error);
      if (failed(inferred))
        return; // Nothing to learn; the op keeps the types it has.
      for (auto [result, type] : llvm::zip(op->getResults(), *inferred))
        result.setType(refineType(result.getType(), type));
    });
    // Returned values may have become more precise.
    if (func.isExternal())
      return;
    Operation *ret = func.getBody().back().getTerminator();
    auto newType = FunctionType::get(func.getContext(),
                                     func.getArgumentTypes(),
                                     ret->getOperandTypes());
    if (newType != func.getFunctionType())
      func.setType(newType);
  }
};
} // namespace
