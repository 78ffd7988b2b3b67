//===- GraphUtils.cpp - Helpers of the graph passes -----------------------===//

#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::onnxc;

bool mlir::onnxc::isWeightOnly(Value v) {
  SmallVector<Value> worklist = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op)
      return false; // a block argument
    if (!seen.insert(op).second)
      continue;
    if (seen.size() > 64 || op->getNumRegions() != 0 || !isPure(op))
      return false;
    llvm::append_range(worklist, op->getOperands());
  }
  return true;
}

Value mlir::onnxc::createONNXConstant(OpBuilder &b, Location loc,
                                      DenseElementsAttr value) {
  return ONNXConstantOp::create(
      b, loc, TypeRange{value.getType()}, ValueRange{},
      ArrayRef<NamedAttribute>{b.getNamedAttr("value", value)});
}

Value mlir::onnxc::createONNXScalar(OpBuilder &b, Location loc,
                                    Type elementType, double value) {
  return createONNXConstant(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, elementType),
                             b.getFloatAttr(elementType, value)));
}

Value mlir::onnxc::createONNXShapeConstant(OpBuilder &b, Location loc,
                                           ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
  return createONNXConstant(b, loc, DenseElementsAttr::get(type, values));
}

void mlir::onnxc::replaceFusedPair(RewriterBase &rewriter, Operation *consumer,
                                   Operation *producer, Operation *fused) {
  rewriter.replaceOp(consumer, fused->getResults());
  rewriter.eraseOp(producer);
}
