//===- Generators.cpp - Range, EyeLike, Trilu -> linalg -------------------===//
//
// Ops that compute their values from indices: Range, EyeLike and Trilu.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

//===----------------------------------------------------------------------===//
// Range, EyeLike, Trilu
//===----------------------------------------------------------------------===//

class RangeLowering : public TensorPattern<ONNXRangeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXRangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    if (!type || type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "unranked result");
    Type elem = type.getElementType();
    bool isFloat = isa<FloatType>(elem);
    Value start = extractScalar(rewriter, loc, adaptor.getStart());
    Value limit = extractScalar(rewriter, loc, adaptor.getLimit());
    Value delta = extractScalar(rewriter, loc, adaptor.getDelta());
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(type.getDimSize(0))};
    if (type.isDynamicDim(0)) {
      // max(ceil((limit - start) / delta), 0), computed in f64.
      Type f64 = rewriter.getF64Type();
      auto toF64 = [&](Value v) { return castScalar(rewriter, loc, v, elem, f64); };
      Value q = arith::DivFOp::create(
          rewriter, loc,
          arith::SubFOp::create(rewriter, loc, toF64(limit), toF64(start)),
          toF64(delta));
      q = math::CeilOp::create(rewriter, loc, q);
      Value zeroF = arith::ConstantOp::create(rewriter, loc,
                                              rewriter.getF64FloatAttr(0));
      emitRuntimeCheck(rewriter, loc, op,
                       arith::CmpFOp::create(rewriter, loc,
                                             arith::CmpFPredicate::OEQ,
                                             toF64(delta), zeroF),
                       "delta is 0");
      // Also NaN (a NaN input) and counts no buffer can hold.
      Value tooMany = arith::CmpFOp::create(
          rewriter, loc, arith::CmpFPredicate::UGE, q,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF64FloatAttr(0x1p60)));
      emitRuntimeCheck(rewriter, loc, op, tooMany,
                       "the range has too many elements (start, limit and "
                       "delta give a NaN or more than 2^60)");
      Value n = arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(), q);
      IndexMath m(rewriter, loc);
      sizes[0] = getAsOpFoldResult(
          m.max(scalarToIndex(rewriter, loc, n, nullptr), m.c(0)));
    }
    // Range-27's stash_type 1 (the default): f16/bf16 ranges computed in
    // f32 and rounded once.
    Type compT = elem;
    if ((elem.isF16() || elem.isBF16()) && op.getStashType() == 1)
      compT = rewriter.getF32Type();
    Value r = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[0]);
          if (isFloat) {
            Value fi = castScalar(b, l, i, b.getI64Type(), compT);
            Value v = arith::AddFOp::create(
                b, l, castScalar(b, l, start, elem, compT),
                arith::MulFOp::create(b, l, fi,
                                      castScalar(b, l, delta, elem, compT)));
            return castScalar(b, l, v, compT, elem);
          }
          Value ii = castScalar(b, l, i, b.getI64Type(), elem);
          return arith::AddIOp::create(b, l, start,
                                       arith::MulIOp::create(b, l, ii, delta));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class EyeLikeLowering : public TensorPattern<ONNXEyeLikeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXEyeLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    if (!type || type.getRank() != 2 || !isa<RankedTensorType>(in.getType()))
      return rewriter.notifyMatchFailure(op, "not 2-D");
    Type elem = type.getElementType();
    int64_t k = op.getK();
    Value r = buildIndexedGeneric(
        rewriter, loc, type,
        preferStatic(rewriter, type, getDims(rewriter, loc, in)), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          Value onDiag =
              mm.cmp(Pred::eq, mm.sub(ivs[1], ivs[0]), mm.c(k));
          return arith::SelectOp::create(b, l, onDiag,
                                         createScalarConstant(b, l, elem, 1),
                                         createScalarConstant(b, l, elem, 0));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class TriluLowering : public TensorPattern<ONNXTriluOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXTriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    if (!type || type.getRank() < 2 || in.getType() != type)
      return rewriter.notifyMatchFailure(op, "rank below 2");
    int64_t rank = type.getRank();
    Value k = arith::ConstantIndexOp::create(rewriter, loc, 0);
    if (Value kv = op.getK(); kv && !isa<NoneType>(kv.getType()))
      k = scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, adaptor.getK()),
                        nullptr);
    bool upper = op.getUpper();
    Type elem = type.getElementType();
    Value r = buildIndexedGeneric(
        rewriter, loc, type, getDims(rewriter, loc, in), in, {},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          IndexMath mm(b, l);
          Value diff = mm.sub(ivs[rank - 1], ivs[rank - 2]);
          Value keep = mm.cmp(upper ? Pred::sge : Pred::sle, diff, k);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(elem));
          return arith::SelectOp::create(b, l, keep, args[0], zero);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateGeneratorPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<RangeLowering, EyeLikeLowering, TriluLowering>(converter, patterns.getContext());
}
