//===- ResolveBroadcasts.cpp - Broadcasts proven at compile time ----------===//
//
// onnxc-resolve-broadcasts (linalg on tensors, right after the ONNX
// lowering): an elementwise op between tensors whose dims are dynamic reads
// an operand that may be broadcast along such a dim with tensor.extract, at
// index 0 when the operand's size there is 1 at run time:
//   %j' = arith.select (dim(%t, i) == 1), 0, linalg.index j
//   tensor.extract %t[..., %j', ...]
// Where the operand's size is provably the loop's (both derive from the
// same size), index 0 and the loop's index agree
// whenever the select picks 0, so the read is `%t` as an input of the op
// with an ordinary indexing map. The op is then an elementwise op like any
// other: it fuses with its neighbours and its loops vectorise (the reads
// through extract and select stayed scalar). Reads that cannot be proven
// stay as they are.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_RESOLVEBROADCASTS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// Where a dynamic size comes from, followed through the ops that pass a
/// size on unchanged: a destination-style op's result has its init's sizes,
/// tensor.empty and expand_shape the sizes they are given, a collapse of a
/// dim with unit dims that dim's size, a select between two equal sizes
/// that size. Two sizes with the same origin are equal. (A syntactic walk:
/// ValueBoundsOpInterface's constraint sets proved the same but walked the
/// whole graph for each question, 28 s for a BERT encoder.)
struct Origin {
  Value value;      // an index value, or a tensor; null: a constant
  int64_t dim = -1; // the tensor's dim, or the constant
  bool operator==(const Origin &o) const {
    return value == o.value && dim == o.dim;
  }
};

class SizeOrigins {
public:
  Origin ofDim(Value tensor, int64_t i) {
    // A dim of an unranked tensor, or one past its rank (a tensor.dim that
    // a dynamic-rank path guards at run time): its own origin.
    auto type = dyn_cast<RankedTensorType>(tensor.getType());
    if (!type || i < 0 || i >= type.getRank())
      return {tensor, i};
    if (!type.isDynamicDim(i))
      return {Value(), type.getDimSize(i)};
    auto key = std::make_pair(tensor, i);
    auto it = dims.find(key);
    if (it != dims.end())
      return it->second;
    Origin origin = walkDim(tensor, i);
    dims[key] = origin;
    return origin;
  }

  Origin ofSize(OpFoldResult size) {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return {Value(), *c};
    Value v = cast<Value>(size);
    if (auto dim = v.getDefiningOp<tensor::DimOp>())
      if (std::optional<int64_t> i = dim.getConstantIndex())
        return ofDim(dim.getSource(), *i);
    if (auto select = v.getDefiningOp<arith::SelectOp>()) {
      Origin a = ofSize(select.getTrueValue());
      if (a == ofSize(select.getFalseValue()))
        return a;
    }
    return {v, -1};
  }

private:
  Origin walkDim(Value tensor, int64_t i) {
    Operation *def = tensor.getDefiningOp();
    if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def))
      if (dps.hasPureTensorSemantics())
        if (OpOperand *init = dps.getTiedOpOperand(cast<OpResult>(tensor)))
          return ofDim(init->get(), i);
    if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def))
      return ofSize(empty.getMixedSizes()[i]);
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
      return ofSize(expand.getMixedOutputShape()[i]);
    if (auto cast = dyn_cast_or_null<tensor::CastOp>(def))
      return ofDim(cast.getSource(), i);
    if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
      // The one source dim of the group that is not a static 1.
      auto srcType = collapse.getSrcType();
      std::optional<int64_t> only;
      // A copy: getReassociationIndices() returns a temporary, which a
      // range-for over its element would not keep alive.
      SmallVector<ReassociationIndices> groups =
          collapse.getReassociationIndices();
      for (int64_t j : groups[i]) {
        if (srcType.getDimSize(j) == 1)
          continue;
        if (only)
          return {tensor, i};
        only = j;
      }
      if (only)
        return ofDim(collapse.getSrc(), *only);
    }
    return {tensor, i};
  }

  DenseMap<std::pair<Value, int64_t>, Origin> dims;
};

/// An operand of `op` and the dim of it that loop `d` walks whole (a
/// result of its indexing map that is exactly d), or none.
std::optional<std::pair<Value, int64_t>> loopExtent(linalg::GenericOp op,
                                                    unsigned d) {
  AffineExpr dim = getAffineDimExpr(d, op.getContext());
  // The inits first: their sizes are the loops' (an input may be read
  // through a broadcast of its own).
  SmallVector<OpOperand *> operands;
  for (OpOperand &init : op.getDpsInitsMutable())
    operands.push_back(&init);
  for (OpOperand *input : op.getDpsInputOperands())
    operands.push_back(input);
  for (OpOperand *operand : operands) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getResult(r) == dim)
        return std::make_pair(operand->get(), int64_t(r));
  }
  return std::nullopt;
}

/// The indexing expression of index `i` of `read` (a tensor.extract in
/// `op`'s body), or null: `linalg.index d` (or the broadcast select around
/// it) where the tensor's dim equals loop d's extent, or 0 at a static unit
/// dim.
AffineExpr readExpr(SizeOrigins &origins, linalg::GenericOp op,
                    tensor::ExtractOp read, unsigned i) {
  MLIRContext *ctx = op.getContext();
  Value source = read.getTensor();
  auto type = cast<RankedTensorType>(source.getType());
  Value index = read.getIndices()[i];
  if (isConstantIntValue(index, 0) && type.getDimSize(i) == 1)
    return getAffineConstantExpr(0, ctx);
  // numpy broadcasting: select(size == 1, 0, j) where size is this dim.
  if (auto select = index.getDefiningOp<arith::SelectOp>()) {
    auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
        !isConstantIntValue(select.getTrueValue(), 0) ||
        !isConstantIntValue(cmp.getRhs(), 1) ||
        !(origins.ofSize(cmp.getLhs()) == origins.ofDim(source, i)))
      return AffineExpr();
    index = select.getFalseValue();
  }
  auto loop = index.getDefiningOp<linalg::IndexOp>();
  if (!loop || loop->getParentOp() != op)
    return AffineExpr();
  unsigned d = loop.getDim();
  std::optional<std::pair<Value, int64_t>> extent = loopExtent(op, d);
  if (!extent)
    return AffineExpr();
  if (!(origins.ofDim(extent->first, extent->second) ==
        origins.ofDim(source, i)))
    return AffineExpr();
  return getAffineDimExpr(d, ctx);
}

/// The tensor.extracts of `op`'s body that read a tensor defined outside it
/// at indices readExpr resolves, each with its indexing map.
using Reads = SmallVector<std::pair<tensor::ExtractOp, AffineMap>>;
Reads resolvableReads(SizeOrigins &origins, linalg::GenericOp op) {
  Reads reads;
  for (Operation &inner : op.getBody()->without_terminator()) {
    auto read = dyn_cast<tensor::ExtractOp>(inner);
    // Tensors defined outside the op only.
    if (!read ||
        !read.getTensor().getParentRegion()->isAncestor(&op.getRegion()))
      continue;
    auto type = cast<RankedTensorType>(read.getTensor().getType());
    SmallVector<AffineExpr> exprs;
    for (unsigned i = 0; i < type.getRank(); ++i) {
      AffineExpr e = readExpr(origins, op, read, i);
      if (!e)
        break;
      exprs.push_back(e);
    }
    if (exprs.size() == size_t(type.getRank()))
      reads.emplace_back(
          read, AffineMap::get(op.getNumLoops(), 0, exprs, op.getContext()));
  }
  return reads;
}

/// `op` with `reads` as inputs.
void addInputs(RewriterBase &rewriter, linalg::GenericOp op, Reads reads) {
  SmallVector<Value> inputs(op.getDpsInputs());
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(input));
  for (auto &[read, map] : reads) {
    inputs.push_back(read.getTensor());
    maps.push_back(map);
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&init));
  rewriter.setInsertionPoint(op);
  auto resolved = linalg::GenericOp::create(
      rewriter, op.getLoc(), op.getResultTypes(), inputs, op.getDpsInits(),
      maps, op.getIteratorTypesArray());
  resolved->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), resolved.getRegion(),
                              resolved.getRegion().begin());
  Block *body = resolved.getBody();
  unsigned position = op.getNumDpsInputs();
  for (auto &[read, map] : reads) {
    BlockArgument arg = body->insertArgument(
        position++, read.getResult().getType(), read.getLoc());
    rewriter.replaceOp(read, arg);
  }
  rewriter.replaceOp(op, resolved.getResults());
}

struct ResolveBroadcastsPass
    : mlir::onnxc::impl::ResolveBroadcastsBase<ResolveBroadcastsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() &&
          !op.getBody()->getOps<tensor::ExtractOp>().empty())
        ops.push_back(op);
    });
    // All decided first: the origins refer to values the rewrites replace.
    SmallVector<std::pair<linalg::GenericOp, Reads>> plans;
    {
      SizeOrigins origins;
      for (linalg::GenericOp op : ops) {
        Reads reads = resolvableReads(origins, op);
        if (!reads.empty())
          plans.emplace_back(op, std::move(reads));
      }
    }
    IRRewriter rewriter(&getContext());
    for (auto &[op, reads] : plans)
      addInputs(rewriter, op, reads);
  }
};

} // namespace
