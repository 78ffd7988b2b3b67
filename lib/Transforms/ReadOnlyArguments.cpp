//===- ReadOnlyArguments.cpp - Entry arguments are never written ----------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_READONLYARGUMENTS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
struct ReadOnlyArgumentsPass
    : mlir::onnxc::impl::ReadOnlyArgumentsBase<ReadOnlyArgumentsPass> {
  void runOnOperation() override {
    auto falseAttr = BoolAttr::get(&getContext(), false);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isExternal())
        continue;
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                          falseAttr);
    }
  }
};
} // namespace
