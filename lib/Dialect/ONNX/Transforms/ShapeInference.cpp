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
/// Gives unranked Loop body arguments the rank of what flows into them:
/// iteration number (i64 scalar), condition (bool scalar), carried values.
bool refineLoopBodies(func::FuncOp func) {
  bool changed = false;
  func.walk<WalkOrder::PreOrder>([&](ONNXLoopOp loop) {
    Block &body = loop.getBody().front();
    if (body.getNumArguments() != 2 + loop.getVInitial().size())
      return;
    auto refineArg = [&](BlockArgument arg, Type from) {
      auto ranked = dyn_cast<RankedTensorType>(from);
      if (!ranked || !isa<UnrankedTensorType>(arg.getType()))
        return;
      auto type = RankedTensorType::get(
          SmallVector<int64_t>(ranked.getRank(), ShapedType::kDynamic),
          ranked.getElementType());
      Type refined = refineType(arg.getType(), type);
      if (refined != arg.getType()) {
        arg.setType(refined);
        changed = true;
      }
    };
    Builder b(loop.getContext());
    refineArg(body.getArgument(0), RankedTensorType::get({}, b.getI64Type()));
    refineArg(body.getArgument(1), RankedTensorType::get({}, b.getI1Type()));
    for (auto [i, v] : llvm::enumerate(loop.getVInitial()))
      refineArg(body.getArgument(2 + i), v.getType());
  });
  return changed;
}

struct ONNXShapeInferencePass
    : mlir::onnxc::impl::ONNXShapeInferenceBase<ONNXShapeInferencePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // A Loop body may declare its carried values without a shape; their rank
    // is the initial values'. Refining them can refine the Loop's operands'
    // producers in turn, hence a few rounds.
    for (int round = 0; round < 3; ++round) {
      bool changed = refineLoopBodies(func);
      // Post-order: subgraph regions are refined before the op owning them.
      func.walk([&](Operation *op) {
        if (!lookupONNXOpInfo(op->getName().getStringRef()))
          return;
        std::string error;
        FailureOr<SmallVector<Type>> inferred = inferTypesFromSchema(op, error);
        if (failed(inferred))
          return; // Nothing to learn; the op keeps the types it has.
        for (auto [result, type] : llvm::zip(op->getResults(), *inferred)) {
          Type refined = refineType(result.getType(), type);
          changed |= refined != result.getType();
          result.setType(refined);
        }
      });
      if (!changed)
        break;
    }
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
