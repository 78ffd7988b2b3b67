//===- FreshResultBuffers.cpp - Returned memrefs become fresh allocs ------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_FRESHRESULTBUFFERS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
struct FreshResultBuffersPass
    : mlir::onnxc::impl::FreshResultBuffersBase<FreshResultBuffersPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    func.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 4> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<MemRefType>(v.getType());
        if (!type)
          continue;
        // A fresh allocation, or a reshape of one (same buffer, same start):
        // the runtime frees the buffer it was given.
        Value base = v;
        while (Operation *def = base.getDefiningOp()) {
          if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
            break;
          base = def->getOperand(0);
        }
        bool fresh = base.getDefiningOp<memref::AllocOp>() &&
                     type.getLayout().isIdentity() &&
                     cast<MemRefType>(base.getType()).getLayout().isIdentity() &&
                     seen.insert(base).second;
        if (fresh)
          continue;
        Location loc = ret.getLoc();
        SmallVector<Value> dynamicSizes;
        for (int64_t i = 0; i < type.getRank(); ++i)
          if (type.isDynamicDim(i))
            dynamicSizes.push_back(memref::DimOp::create(b, loc, v, i));
        auto freshType = MemRefType::get(type.getShape(), type.getElementType());
        Value copy = memref::AllocOp::create(b, loc, freshType, dynamicSizes);
        memref::CopyOp::create(b, loc, v, copy);
        operand.set(copy);
        seen.insert(copy);
      }
    });
  }
};
} // namespace
