//===- ConvEpilogue.cpp - Elementwise ops fused into conv blocks ----------===//

#include "ConvEpilogue.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// How an input of the elementwise op varies over the conv's output
/// (1 x F x OH x OW): per output channel, not at all, or otherwise.
enum class Variation { PerChannel, Scalar, Other };

Variation classify(AffineMap map, RankedTensorType type, int64_t f) {
  if (!type || !type.hasStaticShape())
    return Variation::Other;
  bool perChannel = false;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    int64_t size = type.getDimSize(i);
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      if (c.getValue() != 0 || size != 1)
        return Variation::Other;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return Variation::Other;
    if (dim.getPosition() == 1 && size == f && !perChannel) {
      perChannel = f != 1;
      continue;
    }
    // The batch dim (1), or a channel dim of one.
    if ((dim.getPosition() == 0 || dim.getPosition() == 1) && size == 1)
      continue;
    return Variation::Other;
  }
  return perChannel ? Variation::PerChannel : Variation::Scalar;
}

} // namespace

std::optional<ConvEpilogue> ConvEpilogue::match(Value convResult) {
  auto convType = dyn_cast<RankedTensorType>(convResult.getType());
  if (!convType || convType.getRank() != 4 || !convResult.hasOneUse())
    return std::nullopt;
  auto op = dyn_cast<linalg::GenericOp>(*convResult.getUsers().begin());
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() != 4 ||
      op->getResult(0).getType() != convType ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return std::nullopt;
  if (op.getBody()
          ->walk([](linalg::IndexOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return std::nullopt;
  // An op whose result is padded (for the next conv or a pooling) already
  // writes it into the padded buffer (onnxc-write-into-pads): the conv's
  // blocks could not, so fusing would add a copy of the whole result.
  for (Operation *user : op->getResult(0).getUsers()) {
    if (isa<tensor::PadOp>(user))
      return std::nullopt;
    if (isa<tensor::CollapseShapeOp>(user) &&
        llvm::any_of(user->getUsers(), llvm::IsaPred<tensor::PadOp>))
      return std::nullopt;
  }
  int64_t f = convType.getDimSize(1);
  std::optional<unsigned> convInput;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (input->get() == convResult) {
      if (convInput || !map.isIdentity())
        return std::nullopt;
      convInput = input->getOperandNumber();
      continue;
    }
    if (classify(map, dyn_cast<RankedTensorType>(input->get().getType()), f) ==
        Variation::Other)
      return std::nullopt;
  }
  if (!convInput)
    return std::nullopt;
  return ConvEpilogue(op, *convInput);
}

void ConvEpilogue::prepare(OpBuilder &b, Location loc) {
  operands.clear();
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (input->getOperandNumber() == convInput)
      continue;
    Value v = input->get();
    auto type = cast<RankedTensorType>(v.getType());
    // All dims but the channel's have size 1: one group gives the
    // F-vector; none gives a rank-0 tensor.
    bool perChannel = llvm::any_of(type.getShape(), [](int64_t s) { return s != 1; });
    if (type.getRank() > 1 || (!perChannel && type.getRank() == 1)) {
      SmallVector<ReassociationIndices> groups;
      if (perChannel)
        groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
      v = tensor::CollapseShapeOp::create(b, loc, v, groups);
    }
    operands.push_back(v);
  }
}

SmallVector<AffineMap> ConvEpilogue::getOperandMaps(unsigned rank) const {
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps;
  for (Value v : operands)
    maps.push_back(cast<RankedTensorType>(v.getType()).getRank() == 0
                       ? AffineMap::get(rank, 0, {}, ctx)
                       : AffineMap::get(rank, 0, getAffineDimExpr(0, ctx)));
  return maps;
}

Value ConvEpilogue::emitBody(OpBuilder &b, Value value, ValueRange args) const {
  Block *body = op.getBody();
  IRMapping mapping;
  unsigned next = 0;
  for (OpOperand *input : op.getDpsInputOperands())
    mapping.map(body->getArgument(input->getOperandNumber()),
                input->getOperandNumber() == convInput ? value : args[next++]);
  for (Operation &inner : body->without_terminator())
    b.clone(inner, mapping);
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  return mapping.lookupOrDefault(yield.getValues().front());
}

Value ConvEpilogue::apply(OpBuilder &b, Location loc, Value block, Value fi,
                          int64_t fb) const {
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> inputs;
  for (Value v : operands) {
    auto type = cast<RankedTensorType>(v.getType());
    inputs.push_back(
        type.getRank() == 0
            ? v
            : tensor::ExtractSliceOp::create(
                  b, loc, RankedTensorType::get({fb}, type.getElementType()),
                  v, ArrayRef<OpFoldResult>{fi},
                  ArrayRef<OpFoldResult>{b.getIndexAttr(fb)},
                  ArrayRef<OpFoldResult>{b.getIndexAttr(1)})
                  .getResult());
  }
  SmallVector<AffineMap> maps = getOperandMaps(2);
  maps.push_back(AffineMap::getMultiDimIdentityMap(2, ctx));
  // The conv's value is the output operand (the block, updated in place).
  auto fused = linalg::GenericOp::create(
      b, loc, TypeRange{block.getType()}, inputs, ValueRange{block}, maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(
            nb, nl, emitBody(nb, args.back(), args.drop_back()));
      });
  return fused.getResult(0);
}
