//===- ControlFlow.cpp - If and Loop -> scf -------------------------------===//
//
// If becomes scf.if; Loop becomes scf.while over (iteration, condition,
// carried values...), with scan outputs written into a tensor sized by the
// trip count and sliced to the iterations run. Subgraph regions move into
// the scf ops; their onnx.Yield terminators become scf.yield.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// The scalar in a rank-0 or one-element tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, tensor, zeros);
}

Value toRank0(OpBuilder &b, Location loc, Value scalar) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, scalar.getType()), scalar);
}

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

bool allRankedTensors(TypeRange types) {
  return llvm::all_of(types, [](Type t) { return isa<RankedTensorType>(t); });
}

class IfLowering : public OpConversionPattern<ONNXIfOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXIfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)) ||
        !allRankedTensors(types) ||
        !isa<RankedTensorType>(adaptor.getCond().getType()))
      return rewriter.notifyMatchFailure(op, "needs ranked tensor results");
    Location loc = op.getLoc();
    Value cond = extractScalar(rewriter, loc, adaptor.getCond());
    auto ifOp = scf::IfOp::create(rewriter, loc, types, cond,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenBranch(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseBranch(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

class LoopLowering : public OpConversionPattern<ONNXLoopOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXLoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Block &body = op.getBody().front();
    unsigned numCarried = op.getVInitial().size();
    unsigned numScan = op.getNumResults() - numCarried;
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(),
                                                resultTypes)) ||
        !allRankedTensors(resultTypes))
      return rewriter.notifyMatchFailure(op, "needs ranked tensor results");
    for (Type t : llvm::concat<Type>(body.getArgumentTypes(),
                                     op->getOperandTypes()))
      if (!isa<RankedTensorType>(t) || getTypeConverter()->convertType(t) != t)
        return rewriter.notifyMatchFailure(op, "unsupported loop types");
    Operation *yield = body.getTerminator();
    // Scan outputs are stacked into a tensor of trip-count rows.
    SmallVector<RankedTensorType> scanElemTypes;
    for (unsigned i = 0; i < numScan; ++i) {
      auto t = dyn_cast<RankedTensorType>(
          yield->getOperand(1 + numCarried + i).getType());
      if (!t || !t.hasStaticShape() || !adaptor.getM())
        return rewriter.notifyMatchFailure(
            op, "scan outputs need a trip count and static element shapes");
      scanElemTypes.push_back(t);
    }

    Type i64 = rewriter.getI64Type();
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getI64IntegerAttr(0));
    Value trueValue =
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    Value maxTrips =
        adaptor.getM() ? extractScalar(rewriter, loc, adaptor.getM()) : Value();
    Value condInit = adaptor.getCond()
                         ? extractScalar(rewriter, loc, adaptor.getCond())
                         : trueValue;

    // State: iteration, condition, carried values, scan buffers.
    SmallVector<Value> init = {toRank0(rewriter, loc, zero),
                               toRank0(rewriter, loc, condInit)};
    SmallVector<Type> stateTypes = {RankedTensorType::get({}, i64),
                                    RankedTensorType::get({}, rewriter.getI1Type())};
    for (unsigned i = 0; i < numCarried; ++i) {
      init.push_back(castTo(rewriter, loc, adaptor.getVInitial()[i],
                            resultTypes[i]));
      stateTypes.push_back(resultTypes[i]);
    }
    SmallVector<RankedTensorType> bufferTypes;
    for (RankedTensorType elem : scanElemTypes) {
      SmallVector<int64_t> shape = {ShapedType::kDynamic};
      llvm::append_range(shape, elem.getShape());
      auto type = RankedTensorType::get(shape, elem.getElementType());
      Value rows = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          arith::MaxSIOp::create(rewriter, loc, maxTrips, zero));
      init.push_back(tensor::EmptyOp::create(rewriter, loc, type,
                                             ValueRange{rows}));
      stateTypes.push_back(type);
      bufferTypes.push_back(type);
    }

    auto whileOp = scf::WhileOp::create(rewriter, loc, stateTypes, init);
    // Before: continue while i < M (if given) and cond (if given).
    {
      Block *before = rewriter.createBlock(
          &whileOp.getBefore(), {}, stateTypes,
          SmallVector<Location>(stateTypes.size(), loc));
      Value iter = extractScalar(rewriter, loc, before->getArgument(0));
      Value go = trueValue;
      if (maxTrips)
        go = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                   iter, maxTrips);
      if (adaptor.getCond())
        go = arith::AndIOp::create(
            rewriter, loc, go, extractScalar(rewriter, loc, before->getArgument(1)));
      scf::ConditionOp::create(rewriter, loc, go, before->getArguments());
    }
    // After: the body, then the next state.
    Block *after = rewriter.createBlock(
        &whileOp.getAfter(), {}, stateTypes,
        SmallVector<Location>(stateTypes.size(), loc));
    SmallVector<Value> bodyArgs;
    for (unsigned i = 0; i < body.getNumArguments(); ++i)
      bodyArgs.push_back(
          castTo(rewriter, loc, after->getArgument(i), body.getArgumentTypes()[i]));
    rewriter.mergeBlocks(&body, after, bodyArgs);

    // The body's onnx.Yield (cond, carried..., scan...) -> scf.yield.
    rewriter.setInsertionPoint(yield);
    Value iter = extractScalar(rewriter, loc, after->getArgument(0));
    Value one = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getI64IntegerAttr(1));
    SmallVector<Value> next = {
        toRank0(rewriter, loc, arith::AddIOp::create(rewriter, loc, iter, one)),
        toRank0(rewriter, loc,
                extractScalar(rewriter, loc, yield->getOperand(0)))};
    for (unsigned i = 0; i < numCarried; ++i)
      next.push_back(
          castTo(rewriter, loc, yield->getOperand(1 + i), stateTypes[2 + i]));
    Value row = arith::IndexCastOp::create(rewriter, loc,
                                           rewriter.getIndexType(), iter);
    for (unsigned i = 0; i < numScan; ++i) {
      Value elem = yield->getOperand(1 + numCarried + i);
      RankedTensorType elemType = scanElemTypes[i];
      Value buffer = after->getArgument(2 + numCarried + i);
      SmallVector<OpFoldResult> offsets = {row}, sizes = {rewriter.getIndexAttr(1)},
                                strides(elemType.getRank() + 1,
                                        rewriter.getIndexAttr(1));
      for (int64_t d : elemType.getShape()) {
        offsets.push_back(rewriter.getIndexAttr(0));
        sizes.push_back(rewriter.getIndexAttr(d));
      }
      SmallVector<int64_t> rowShape = {1};
      llvm::append_range(rowShape, elemType.getShape());
      Value elemRow = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(rowShape, elemType.getElementType()), elem,
          getReassociationForRank(elemType.getRank()));
      next.push_back(tensor::InsertSliceOp::create(rewriter, loc, elemRow,
                                                   buffer, offsets, sizes,
                                                   strides));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);

    // Results: carried values, then the scan buffers cut to the trips run.
    rewriter.setInsertionPointAfter(whileOp);
    SmallVector<Value> results;
    for (unsigned i = 0; i < numCarried; ++i)
      results.push_back(whileOp.getResult(2 + i));
    Value trips = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        extractScalar(rewriter, loc, whileOp.getResult(0)));
    for (unsigned i = 0; i < numScan; ++i) {
      RankedTensorType elemType = scanElemTypes[i];
      SmallVector<OpFoldResult> offsets(elemType.getRank() + 1,
                                        rewriter.getIndexAttr(0)),
          sizes = {trips},
          strides(elemType.getRank() + 1, rewriter.getIndexAttr(1));
      for (int64_t d : elemType.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      Value cut = tensor::ExtractSliceOp::create(
          rewriter, loc, whileOp.getResult(2 + numCarried + i), offsets, sizes,
          strides);
      results.push_back(castTo(rewriter, loc, cut, resultTypes[numCarried + i]));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  static SmallVector<ReassociationIndices> getReassociationForRank(int64_t rank) {
    // [1, d0, d1, ...] from [d0, d1, ...]: the new unit dim joins dim 0.
    SmallVector<ReassociationIndices> r;
    if (rank == 0)
      return r;
    r.push_back({0, 1});
    for (int64_t i = 1; i < rank; ++i)
      r.push_back({i + 1});
    return r;
  }
};

/// onnx.Yield in an scf.if -> scf.yield, cast to the scf.if's result types.
class YieldLowering : public OpConversionPattern<ONNXYieldOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXYieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto ifOp = dyn_cast<scf::IfOp>(op->getParentOp());
    if (!ifOp)
      return failure();
    SmallVector<Value> values;
    for (auto [v, t] : llvm::zip(adaptor.getOutputs(), ifOp.getResultTypes()))
      values.push_back(castTo(rewriter, op.getLoc(), v, t));
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, values);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateControlFlowPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<IfLowering, LoopLowering, YieldLowering>(converter,
                                                        patterns.getContext());
}
