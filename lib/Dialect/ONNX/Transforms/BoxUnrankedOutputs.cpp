//===- BoxUnrankedOutputs.cpp - Outputs of run-time rank as boxed values --===//
//
// A function result whose rank only the taken If branch decides cannot be
// returned as a memref descriptor (its size depends on the rank). It is
// returned as an optional holding the tensor instead: the runtime's values
// carry their rank, and the runtime copies the value out as a plain tensor.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXBOXUNRANKEDOUTPUTS
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// Makes operand `index` of `user` (a return or a branch's yield) a boxed
/// value of type `boxed`: an onnx.Optional of a ranked tensor, or, for the
/// result of an If used only there, the If's result boxed in each branch.
LogicalResult boxOperand(Operation *user, unsigned index, OptType boxed,
                         Operation *output) {
  Value v = user->getOperand(index);
  // The graph passes found its rank (an If folded once `onnxc
  // --input-shape` fixed the sizes it tests): the ranked tensor is boxed.
  if (auto cast = v.getDefiningOp<tensor::CastOp>();
      cast && isa<RankedTensorType>(cast.getSource().getType()))
    v = cast.getSource();
  if (auto ranked = dyn_cast<RankedTensorType>(v.getType())) {
    OpBuilder b(user);
    Value box = ONNXOptionalOp::create(b, v.getLoc(), boxed, v,
                                       /*type_=*/TypeAttr())
                    .getResult();
    user->setOperand(index, box);
    return success();
  }
  if (auto ifOp = v.getDefiningOp<ONNXIfOp>()) {
    if (!v.hasOneUse())
      return ifOp.emitError()
             << "result " << cast<OpResult>(v).getResultNumber()
             << " of this If has a rank that depends on the branch taken; "
                "it is an output of the model and has other uses, which "
                "onnxc cannot compile yet";
    unsigned result = cast<OpResult>(v).getResultNumber();
    for (Region *branch : {&ifOp.getThenBranch(), &ifOp.getElseBranch()})
      if (failed(boxOperand(branch->front().getTerminator(), result, boxed,
                            output)))
        return failure();
    v.setType(boxed);
    return success();
  }
  Operation *origin = v.getDefiningOp();
  (origin ? origin : output)->emitError()
      << "an output of the model has a rank known only at run time, from "
      << (origin ? "this node" : "a function argument")
      << " on; onnxc returns such an output only when the branches of an "
         "If decide its rank";
  return failure();
}

struct ONNXBoxUnrankedOutputsPass
    : onnxc::impl::ONNXBoxUnrankedOutputsBase<ONNXBoxUnrankedOutputsPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (f.isExternal())
      return;
    Operation *ret = f.getBody().back().getTerminator();
    bool changed = false;
    for (unsigned i = 0; i < f.getNumResults(); ++i) {
      Type type = f.getResultTypes()[i];
      bool marked = static_cast<bool>(f.getResultAttr(i, "onnxc.box_output"));
      if (!marked && !isa<UnrankedTensorType>(type))
        continue;
      auto tensor = dyn_cast<TensorType>(type);
      if (!tensor) {
        f.emitError() << "result " << i << " is marked onnxc.box_output but "
                      << "is not a tensor";
        return signalPassFailure();
      }
      auto boxed = OptType::get(
          f.getContext(), UnrankedTensorType::get(tensor.getElementType()));
      if (failed(boxOperand(ret, i, boxed, ret)))
        return signalPassFailure();
      changed = true;
    }
    if (changed)
      f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(),
                                  ret->getOperandTypes()));
  }
};

} // namespace
