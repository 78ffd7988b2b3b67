//===- FoldToFixpoint.cpp - The onnx-fold-to-fixpoint pass ----------------===//
//
// Constant folding, simplification and shape inference each enable the
// others; this pass runs the three in rounds until a round changes nothing.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXFOLDTOFIXPOINT
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

struct ONNXFoldToFixpointPass
    : onnxc::impl::ONNXFoldToFixpointBase<ONNXFoldToFixpointPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    OpPassManager round(func::FuncOp::getOperationName());
    ONNXFoldConstantsOptions fold;
    fold.maxElements = maxElements;
    round.addPass(createONNXFoldConstants(fold));
    round.addPass(createONNXSimplify());
    round.addPass(createONNXShapeInference());
    for (unsigned i = 0; i < maxRounds; ++i) {
      OperationFingerPrint before(func);
      ++numRounds;
      if (failed(runPipeline(round, func)))
        return signalPassFailure();
      if (OperationFingerPrint(func) == before)
        return;
    }
  }
};

} // namespace
