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

/// The least tensor type both `a` and `b` are instances of (same element
/// type assumed): dims that differ become dynamic, ranks that differ make it
/// unranked.
Type joinTensorTypes(Type a, Type b) {
  if (a == b)
    return a;
  auto ra = dyn_cast<RankedTensorType>(a), rb = dyn_cast<RankedTensorType>(b);
  auto elem = cast<TensorType>(a).getElementType();
  if (!ra || !rb || ra.getRank() != rb.getRank())
    return UnrankedTensorType::get(elem);
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ra.getShape(), rb.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, elem);
}

/// A sequence carried through a Loop holds what every iteration inserted:
/// its tensors' type (in the Loop's result and the body's argument) is the
/// join of the initial sequence's and the one the body yields (an empty
/// sequence declared of scalars may come back holding vectors).
bool generalizeLoopSequences(func::FuncOp func) {
  bool changed = false;
  func.walk([&](ONNXLoopOp loop) {
    Block &body = loop.getBody().front();
    Operation *yield = body.getTerminator();
    for (auto [i, init] : llvm::enumerate(loop.getVInitial())) {
      if (i >= loop->getNumResults() || 2 + i >= body.getNumArguments() ||
          1 + i >= yield->getNumOperands())
        break;
      auto a = dyn_cast<SeqType>(init.getType());
      auto b = dyn_cast<SeqType>(yield->getOperand(1 + i).getType());
      auto r = dyn_cast<SeqType>(loop->getResult(i).getType());
      if (!a || !b || !r || !isa<TensorType>(a.getElementType()) ||
          !isa<TensorType>(b.getElementType()) ||
          !isa<TensorType>(r.getElementType()) ||
          getElementTypeOrSelf(a.getElementType()) !=
              getElementTypeOrSelf(b.getElementType()))
        continue;
      Type joined = joinTensorTypes(
          joinTensorTypes(a.getElementType(), b.getElementType()),
          r.getElementType());
      auto type = SeqType::get(loop.getContext(), joined);
      if (type != r) {
        loop->getResult(i).setType(type);
        changed = true;
      }
      BlockArgument arg = body.getArgument(2 + i);
      if (isa<SeqType>(arg.getType()) && arg.getType() != type) {
        arg.setType(type);
        changed = true;
      }
    }
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
      changed |= generalizeLoopSequences(func);
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
