//===- FoldConstants.cpp - The onnx-fold-constants pass -------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/ConstantEvaluator.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"

#include "mlir/Transforms/RegionUtils.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXFOLDCONSTANTS
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// Constants with more elements than this are never read.
constexpr int64_t kMaxOperandElements = 1 << 16;

struct ONNXFoldConstantsPass
    : onnxc::impl::ONNXFoldConstantsBase<ONNXFoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // What is known of each value: constants as they are read, and results
    // evaluated so far, complete or in part (a Shape with dynamic dims).
    DenseMap<Value, std::unique_ptr<KnownTensor>> known;
    auto lookup = [&](Value v) -> const KnownTensor * {
      auto it = known.find(v);
      if (it != known.end())
        return it->second.get();
      auto cst = v.getDefiningOp<ONNXConstantOp>();
      ElementsAttr attr = cst ? cst.getValueAttr() : nullptr;
      if (!attr || attr.getShapedType() != v.getType())
        return nullptr;
      std::optional<KnownTensor> t =
          KnownTensor::fromAttr(attr, kMaxOperandElements);
      if (!t)
        return nullptr;
      auto &slot = known[v];
      slot = std::make_unique<KnownTensor>(std::move(*t));
      return slot.get();
    };

    // Program order: operands are evaluated before their users (also
    // across subgraph regions, which may read outer values).
    SmallVector<Operation *> ops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<ONNXDialect>(op->getDialect()) && !isa<ONNXConstantOp>(op))
        ops.push_back(op);
    });
    OpBuilder builder(func.getContext());
    for (Operation *op : ops) {
      std::optional<KnownTensor> value =
          evaluateONNXOp(op, lookup, maxElements);
      if (!value)
        continue;
      Value result = op->getResult(0);
      Type elementType = getElementTypeOrSelf(result.getType());
      DenseElementsAttr attr = value->toAttr(elementType);
      known[result] = std::make_unique<KnownTensor>(std::move(*value));
      if (!attr)
        continue; // known in part only
      builder.setInsertionPoint(op);
      Value cst = ONNXConstantOp::create(
                      builder, op->getLoc(), TypeRange{attr.getType()},
                      ValueRange{},
                      ArrayRef<NamedAttribute>{
                          builder.getNamedAttr("value", attr)})
                      .getResult();
      // A terminator (func.return, a subgraph's yield) keeps the type it
      // had: shape inference refines it afterwards.
      bool sameType = cst.getType() == result.getType();
      result.replaceUsesWithIf(cst, [&](OpOperand &use) {
        return sameType ||
               !use.getOwner()->hasTrait<OpTrait::IsTerminator>();
      });
      ++numFolded;
    }

    // Ops (and constants) nothing reads any more.
    IRRewriter rewriter(func.getContext());
    (void)runRegionDCE(rewriter, func->getRegions());
  }
};

} // namespace
