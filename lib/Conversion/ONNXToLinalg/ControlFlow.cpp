//===- ControlFlow.cpp - If, Loop and Scan -> scf -------------------------===//
//
// If becomes scf.if; Loop becomes scf.while over (iteration, condition,
// carried values...), with scan outputs written into a tensor sized by the
// trip count and sliced to the iterations run. Subgraph regions move into
// the scf ops; their onnx.Yield terminators become scf.yield.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

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

/// `v` as `type`: a tensor.cast between tensor types; between a sequence or
/// optional and its pointer (a region's value of the onnx type taking the
/// converted one, or back), an unrealized cast that the pass reconciles
/// after the conversion.
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (isa<TensorType>(v.getType()) && isa<TensorType>(type))
    return tensor::CastOp::create(b, loc, type, v);
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

/// Ranked tensors, or pointers (sequences and optionals).
bool allRankedTensors(TypeRange types) {
  return llvm::all_of(types, [](Type t) {
    return isa<RankedTensorType, LLVM::LLVMPointerType>(t);
  });
}

/// A loop's operand or body argument type the lowering carries: a ranked
/// tensor the conversion leaves as it is, a sequence or an optional.
bool isCarriableType(const TypeConverter &converter, Type t) {
  if (isa<SeqType, OptType>(t))
    return true;
  return isa<RankedTensorType>(t) && converter.convertType(t) == t;
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
    // ONNX lets the branches yield different shapes; the scf.if needs each
    // result cast-compatible (same rank, no clashing static dims).
    for (Region *branch : {&op.getThenBranch(), &op.getElseBranch()}) {
      if (branch->empty())
        return rewriter.notifyMatchFailure(op, "empty branch");
      Operation *yield = branch->front().getTerminator();
      if (yield->getNumOperands() != types.size())
        return rewriter.notifyMatchFailure(op, "branch result count");
      for (auto [value, type] : llvm::zip(yield->getOperands(), types)) {
        Type converted = getTypeConverter()->convertType(value.getType());
        if (!converted ||
            (converted != type &&
             !(isa<TensorType>(converted) && isa<TensorType>(type) &&
               tensor::CastOp::areCastCompatible(converted, type))))
          return rewriter.notifyMatchFailure(
              op, "a branch yields a value of another rank");
      }
    }
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
      if (!isCarriableType(*getTypeConverter(), t))
        return rewriter.notifyMatchFailure(op, "unsupported loop types");
    Operation *yield = body.getTerminator();
    // Scan outputs are stacked into a tensor of trip-count rows; without a
    // trip count, or with element shapes known only at run time, they are
    // collected in a sequence and stacked after the loop (all elements must
    // then have the first one's shape).
    SmallVector<RankedTensorType> scanElemTypes;
    SmallVector<bool> viaSequence;
    for (unsigned i = 0; i < numScan; ++i) {
      Value elem = yield->getOperand(1 + numCarried + i);
      auto t = dyn_cast<RankedTensorType>(elem.getType());
      if (!t)
        return rewriter.notifyMatchFailure(op, "scan outputs need a rank");
      bool collect = !t.hasStaticShape() || !adaptor.getM();
      if (collect && (!seqCopyable(t.getElementType()) ||
                      getTypeConverter()->convertType(t) != t ||
                      !isa<RankedTensorType>(resultTypes[numCarried + i])))
        return rewriter.notifyMatchFailure(
            op, "scan outputs of this element type need a trip count and "
                "static element shapes");
      scanElemTypes.push_back(t);
      viaSequence.push_back(collect);
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
    Type ptr = LLVM::LLVMPointerType::get(getContext());
    for (auto [elem, collect] : llvm::zip(scanElemTypes, viaSequence)) {
      if (collect) {
        init.push_back(seqCallRuntime(
            rewriter, loc, "onnxc_rt_seq_empty", ptr,
            arith::ConstantIntOp::create(
                rewriter, loc, seqDataType(elem.getElementType()), 32)
                .getResult()));
        stateTypes.push_back(ptr);
        continue;
      }
      SmallVector<int64_t> shape = {ShapedType::kDynamic};
      llvm::append_range(shape, elem.getShape());
      auto type = RankedTensorType::get(shape, elem.getElementType());
      Value rows = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          arith::MaxSIOp::create(rewriter, loc, maxTrips, zero));
      init.push_back(tensor::EmptyOp::create(rewriter, loc, type,
                                             ValueRange{rows}));
      stateTypes.push_back(type);
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
      if (viaSequence[i]) {
        Value boxed =
            seqBoxTensor(rewriter, loc, elem, elemType.getElementType());
        next.push_back(seqCallRuntime(rewriter, loc, "onnxc_rt_seq_insert",
                                      ptr, {buffer, iter, boxed}));
        continue;
      }
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
      if (viaSequence[i]) {
        results.push_back(buildConcatFromSequence(
            rewriter, loc, op, whileOp.getResult(2 + numCarried + i),
            cast<RankedTensorType>(resultTypes[numCarried + i]), /*axis=*/0,
            /*newAxis=*/true, /*allowEmpty=*/true));
        continue;
      }
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

/// Scan -> scf.for over the scan length: each iteration slices the scan
/// inputs (rank-reducing tensor.extract_slice along their axes, reversed
/// where asked), runs the body, and inserts the scan output elements into
/// buffers of the full length.
class ScanLowering : public OpConversionPattern<ONNXScanOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Block &body = op.getBody().front();
    ValueRange inputs = adaptor.getInitialStateAndScanInputs();
    int64_t numScanIn = op.getNumScanInputs();
    int64_t numStates = int64_t(inputs.size()) - numScanIn;
    int64_t numScanOut = int64_t(op.getNumResults()) - numStates;
    if (numScanIn <= 0 || numStates < 0 || numScanOut < 0)
      return rewriter.notifyMatchFailure(op, "bad scan arity");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(),
                                                resultTypes)) ||
        !allRankedTensors(resultTypes))
      return rewriter.notifyMatchFailure(op, "needs ranked tensor results");
    for (Type t : llvm::concat<Type>(body.getArgumentTypes(),
                                     op->getOperandTypes()))
      if (!isa<RankedTensorType>(t) || getTypeConverter()->convertType(t) != t)
        return rewriter.notifyMatchFailure(op, "unsupported scan types");
    auto attrList = [&](std::optional<ArrayAttr> attr, int64_t n) {
      SmallVector<int64_t> v(n, 0);
      if (attr)
        for (auto [i, a] : llvm::enumerate(*attr))
          if (int64_t(i) < n)
            v[i] = cast<IntegerAttr>(a).getInt();
      return v;
    };
    SmallVector<int64_t> inAxes = attrList(op.getScanInputAxes(), numScanIn);
    SmallVector<int64_t> inDirs =
        attrList(op.getScanInputDirections(), numScanIn);
    SmallVector<int64_t> outAxes = attrList(op.getScanOutputAxes(), numScanOut);
    SmallVector<int64_t> outDirs =
        attrList(op.getScanOutputDirections(), numScanOut);
    Operation *yield = body.getTerminator();
    SmallVector<RankedTensorType> elemTypes;
    for (int64_t k = 0; k < numScanOut; ++k) {
      auto t = dyn_cast<RankedTensorType>(
          yield->getOperand(numStates + k).getType());
      if (!t || !t.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "scan outputs need static shapes");
      elemTypes.push_back(t);
      outAxes[k] = normalizeAxis(outAxes[k], t.getRank() + 1);
    }
    // The body must see states of the states' rank and slices of one rank
    // less than the scan inputs (Scan-8 models, with a batch dim, do not).
    for (int64_t i = 0; i < numStates; ++i)
      if (cast<RankedTensorType>(body.getArgument(i).getType()).getRank() !=
              cast<RankedTensorType>(resultTypes[i]).getRank() ||
          cast<RankedTensorType>(yield->getOperand(i).getType()).getRank() !=
              cast<RankedTensorType>(resultTypes[i]).getRank())
        return rewriter.notifyMatchFailure(op, "state ranks differ");
    for (int64_t j = 0; j < numScanIn; ++j)
      if (cast<RankedTensorType>(body.getArgument(numStates + j).getType())
                  .getRank() +
              1 !=
          cast<RankedTensorType>(inputs[numStates + j].getType()).getRank())
        return rewriter.notifyMatchFailure(op, "scan input ranks differ");
    for (int64_t j = 0; j < numScanIn; ++j)
      inAxes[j] = normalizeAxis(
          inAxes[j], cast<RankedTensorType>(inputs[numStates + j].getType())
                         .getRank());

    Value length = getDimValue(rewriter, loc, inputs[numStates], inAxes[0]);
    SmallVector<Value> init;
    for (int64_t i = 0; i < numStates; ++i)
      init.push_back(castTo(rewriter, loc, inputs[i], resultTypes[i]));
    SmallVector<RankedTensorType> bufferTypes;
    for (int64_t k = 0; k < numScanOut; ++k) {
      SmallVector<int64_t> shape(elemTypes[k].getShape());
      shape.insert(shape.begin() + outAxes[k], ShapedType::kDynamic);
      auto type = RankedTensorType::get(shape, elemTypes[k].getElementType());
      bufferTypes.push_back(type);
      init.push_back(tensor::EmptyOp::create(rewriter, loc, type,
                                             ValueRange{length}));
    }
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto forOp = scf::ForOp::create(rewriter, loc, zero, length, one, init);
    Block *loopBody = forOp.getBody();
    rewriter.setInsertionPointToStart(loopBody);
    Value iv = forOp.getInductionVar();
    Value last = arith::SubIOp::create(rewriter, loc, length, one);
    Value reversed = arith::SubIOp::create(rewriter, loc, last, iv);
    SmallVector<Value> bodyArgs;
    for (int64_t i = 0; i < numStates; ++i)
      bodyArgs.push_back(castTo(rewriter, loc, forOp.getRegionIterArg(i),
                                body.getArgument(i).getType()));
    for (int64_t j = 0; j < numScanIn; ++j) {
      Value in = inputs[numStates + j];
      auto argType = cast<RankedTensorType>(body.getArgument(numStates + j).getType());
      int64_t rank = cast<RankedTensorType>(in.getType()).getRank();
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
          sizes = getDims(rewriter, loc, in),
          strides(rank, rewriter.getIndexAttr(1));
      offsets[inAxes[j]] = inDirs[j] ? reversed : iv;
      sizes[inAxes[j]] = rewriter.getIndexAttr(1);
      SmallVector<int64_t> sliceShape;
      for (int64_t d = 0; d < rank; ++d)
        if (d != inAxes[j])
          sliceShape.push_back(getConstantIntValue(sizes[d]).value_or(
              ShapedType::kDynamic));
      auto sliceType = RankedTensorType::get(sliceShape, argType.getElementType());
      Value slice = tensor::ExtractSliceOp::create(rewriter, loc, sliceType, in,
                                                   offsets, sizes, strides);
      bodyArgs.push_back(castTo(rewriter, loc, slice, argType));
    }
    rewriter.mergeBlocks(&body, loopBody, bodyArgs);

    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next;
    for (int64_t i = 0; i < numStates; ++i)
      next.push_back(castTo(rewriter, loc, yield->getOperand(i), resultTypes[i]));
    for (int64_t k = 0; k < numScanOut; ++k) {
      Value elem = yield->getOperand(numStates + k);
      Value buffer = forOp.getRegionIterArg(numStates + k);
      int64_t rank = bufferTypes[k].getRank();
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
          sizes, strides(rank, rewriter.getIndexAttr(1));
      for (int64_t d = 0, e = 0; d < rank; ++d)
        sizes.push_back(d == outAxes[k]
                            ? rewriter.getIndexAttr(1)
                            : rewriter.getIndexAttr(elemTypes[k].getDimSize(e++)));
      offsets[outAxes[k]] = outDirs[k] ? reversed : iv;
      next.push_back(tensor::InsertSliceOp::create(rewriter, loc, elem, buffer,
                                                   offsets, sizes, strides));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);

    rewriter.setInsertionPointAfter(forOp);
    SmallVector<Value> results;
    for (int64_t i = 0; i < numStates; ++i)
      results.push_back(forOp.getResult(i));
    for (int64_t k = 0; k < numScanOut; ++k)
      results.push_back(castTo(rewriter, loc, forOp.getResult(numStates + k),
                               resultTypes[numStates + k]));
    rewriter.replaceOp(op, results);
    return success();
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
  patterns.add<IfLowering, LoopLowering, ScanLowering, YieldLowering>(
      converter, patterns.getContext());
}
