//===- UncompilableBranches.cpp - If branches that fail when taken --------===//
//
// A model's If may hold a branch that its input shapes make invalid: Silero
// VAD v5 computes a 16 kHz and an 8 kHz network in the two branches of an If
// on the sample rate, and for a 512-sample chunk the 8 kHz branch hands an
// LSTM a rank-5 input. ONNX Runtime never looks at the branch it does not
// take; a compiler has to compile both. Such a branch is compiled to fail
// when taken (a run-time error naming the node), with a warning here, where
// the If's other branch compiles.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"
#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

bool containsAny(Region &region, const DenseSet<Operation *> &ops) {
  bool found = false;
  region.walk([&](Operation *op) {
    if (ops.contains(op))
      found = true;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Whether placeholder() can make a value of `type`.
bool isNumericRankedTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<IntegerType, FloatType>(tensor.getElementType());
}

/// A zero of `type` (isNumericRankedTensor) to yield in place of the
/// branch's values (the branch fails before they are used).
Value placeholder(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape;
  for (int64_t d : tensor.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? 0 : d);
  auto staticType = RankedTensorType::get(shape, tensor.getElementType());
  Attribute zero = b.getZeroAttr(tensor.getElementType());
  Value v =
      createONNXConstant(b, loc, DenseElementsAttr::get(staticType, zero));
  if (staticType != tensor)
    v = tensor::CastOp::create(b, loc, tensor, v);
  return v;
}

std::string typeList(TypeRange types) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(types, os);
  return out;
}

/// Replaces the body of `branch` (of `ifOp`) by a run-time error about
/// `culprit` and placeholders for the If's results.
void cutBranch(ONNXIfOp ifOp, Region &branch, Operation *culprit) {
  Block &block = branch.front();
  Operation *yield = block.getTerminator();
  SmallVector<Operation *> old;
  for (Operation &op : block.without_terminator())
    old.push_back(&op);
  bool isThen = &branch == &ifOp.getThenBranch();
  std::string which = std::string(isThen ? "then" : "else") +
                      " branch of " + describeNode(ifOp.getOperation());
  culprit->emitWarning()
      << "'" << culprit->getName()
      << "' cannot be compiled for the shapes this If branch gives it ("
      << typeList(culprit->getOperandTypes()) << "): the " << which
      << " fails at run time if it is taken";

  OpBuilder b = OpBuilder::atBlockBegin(&block);
  Location loc = ifOp.getLoc();
  Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  emitRuntimeCheck(b, loc, culprit, yes,
                   "cannot be computed for the shapes of this run (" +
                       typeList(culprit->getOperandTypes()) + "); the " +
                       which + " was compiled to fail");
  SmallVector<Value> values;
  for (Type t : ifOp.getResultTypes())
    values.push_back(placeholder(b, loc, t));
  yield->setOperands(values);
  for (Operation *op : llvm::reverse(old)) {
    op->dropAllUses();
    op->erase();
  }
}

} // namespace

bool mlir::onnxc::cutUncompilableBranches(
    ArrayRef<Operation *> unsupported,
    const FrozenRewritePatternSet &patterns) {
  DenseSet<Operation *> bad(unsupported.begin(), unsupported.end());
  for (Operation *op : unsupported) {
    // An op onnxc has no lowering for stays a compile-time error; so does
    // one whose operands' ranks are unknown (shape inference may be what
    // failed, not the model).
    if (isa<ONNXYieldOp>(op) ||
        !patterns.getOpSpecificNativePatterns().count(op->getName()) ||
        !llvm::all_of(op->getOperandTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); }))
      continue;
    // The innermost If whose other branch compiles and whose results can be
    // given placeholders.
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
      auto ifOp = dyn_cast<ONNXIfOp>(p);
      if (!ifOp || bad.contains(ifOp))
        continue;
      bool inThen = ifOp.getThenBranch().isAncestor(op->getParentRegion());
      Region &mine = inThen ? ifOp.getThenBranch() : ifOp.getElseBranch();
      Region &other = inThen ? ifOp.getElseBranch() : ifOp.getThenBranch();
      if (containsAny(other, bad) ||
          !llvm::all_of(ifOp.getResultTypes(), isNumericRankedTensor))
        continue;
      cutBranch(ifOp, mine, op);
      return true;
    }
  }
  return false;
}
