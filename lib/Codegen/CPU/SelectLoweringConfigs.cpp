//===- SelectLoweringConfigs.cpp - The CPU strategy's configurations ------===//
//
// onnxc-select-lowering-configs: every root op gets the lowering
// configuration that the strategy (Strategy.cpp) chooses for the module's
// target.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Codegen/CPU/Strategy.h"
#include "onnxc/Codegen/Passes.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_SELECTLOWERINGCONFIGS
#include "onnxc/Codegen/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// The ops whose tiling the strategy decides: linalg ops on tensors other
/// than data movement and fills, and not taken by a hand-written kernel.
bool isRootOp(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->hasAttr(onnxc::kUkernelAttrName))
    return false;
  return !isa<linalg::FillOp, linalg::CopyOp, linalg::TransposeOp,
              linalg::BroadcastOp>(op.getOperation());
}

struct SelectLoweringConfigsPass
    : mlir::onnxc::impl::SelectLoweringConfigsBase<SelectLoweringConfigsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto module = func->getParentOfType<ModuleOp>();
    onnxc::CPUTarget target = onnxc::CPUTarget::reference();
    if (Attribute attr = module ? module->getAttr(onnxc::kTargetAttrName)
                                : Attribute()) {
      auto dict = dyn_cast<DictionaryAttr>(attr);
      FailureOr<onnxc::CPUTarget> read = failure();
      if (dict)
        read = onnxc::CPUTarget::fromAttr(dict);
      if (failed(read)) {
        module.emitError() << "malformed '" << onnxc::kTargetAttrName
                           << "' attribute: " << attr;
        return signalPassFailure();
      }
      target = *read;
    }
    onnxc::ContractionConfig config = onnxc::chooseContractionConfig(target);
    func.walk([&](linalg::LinalgOp op) {
      if (isRootOp(op) && !onnxc::getContractionConfig(op))
        onnxc::setLoweringConfig(op, config);
    });
  }
};

} // namespace
