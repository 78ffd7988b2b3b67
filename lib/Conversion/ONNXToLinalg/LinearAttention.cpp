//===- LinearAttention.cpp - LinearAttention -> scf loops -----------------===//
//
// LinearAttention-27 as its recurrence, token by token, in f32: per batch
// and key/value head a state S (d_k x d_v), from past_state or zeros, is
//   gated:  S *= exp(g_t)                      (g per head or per key dim)
//   delta:  v_t <- beta_t * (v_t - S^T k_t)    (beta per head or shared)
//   always: S += k_t (x) v_t
// and each of the head's q_num_heads / kv_num_heads query heads reads
// o_t = scale * q_t^T S. Loops carry S and the output as tensors (updated
// in place after bufferization); the chunk-parallel form is a later
// optimisation (chunk_size does not change the result).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

class LinearAttentionLowering : public TensorPattern<ONNXLinearAttentionOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXLinearAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto outType = resultType(op, 0), stateType = resultType(op, 1);
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    for (Value t : {q, k, v}) {
      auto r = getMovableRankedType(t);
      if (!r || r.getRank() != 3)
        return rewriter.notifyMatchFailure(op, "query/key/value (B, T, H*D)");
    }
    if (!outType || !stateType || outType.getRank() != 3 ||
        stateType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "result types");
    StringRef rule = op.getUpdateRule();
    bool gating = rule == "gated" || rule == "gated_delta";
    bool delta = rule == "delta" || rule == "gated_delta";
    if (!gating && !delta && rule != "linear")
      return rewriter.notifyMatchFailure(op, "unknown update_rule");
    Value past = adaptor.getPastState(), decay = adaptor.getDecay(),
          beta = adaptor.getBeta();
    if (gating != bool(decay) || delta != bool(beta))
      return rewriter.notifyMatchFailure(
          op, "decay is given exactly for the gated rules, beta for the delta "
              "rules");
    int64_t hq = op.getQNumHeads(), hkv = op.getKvNumHeads();
    if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
      return rewriter.notifyMatchFailure(
          op, "q_num_heads is a positive multiple of kv_num_heads");
    Type f32 = rewriter.getF32Type();
    Type qElem = getONNXElementType(op.getQuery());
    IndexMath m(rewriter, loc);
    Value batch = getDimValue(rewriter, loc, q, 0);
    Value steps = getDimValue(rewriter, loc, q, 1);
    Value dk = m.div(getDimValue(rewriter, loc, q, 2), m.c(hq));
    Value dv = m.div(getDimValue(rewriter, loc, v, 2), m.c(hkv));
    Value group = m.c(hq / hkv);
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::OrIOp::create(rewriter, loc,
                             m.cmp(Pred::ne, getDimValue(rewriter, loc, k, 2),
                                   m.mul(dk, m.c(hkv))),
                             m.cmp(Pred::ne, getDimValue(rewriter, loc, v, 2),
                                   m.mul(dv, m.c(hkv)))),
        "key's last dim {0} or value's {1} is not kv_num_heads times the head "
        "size (d_k {2})",
        {getDimValue(rewriter, loc, k, 2), getDimValue(rewriter, loc, v, 2),
         dk});
    // decay: per head (last dim kv_num_heads) or per key dim; beta: per head
    // or one for all heads.
    Value decayPerHead, betaShared;
    if (decay)
      decayPerHead =
          m.cmp(Pred::eq, getDimValue(rewriter, loc, decay, 2), m.c(hkv));
    if (beta)
      betaShared = m.cmp(Pred::eq, getDimValue(rewriter, loc, beta, 2), m.c(1));
    double scaleAttr = op.getScale().convertToDouble();
    Value scale;
    if (scaleAttr != 0.0) {
      scale = createScalarConstant(rewriter, loc, f32, scaleAttr);
    } else {
      Value dkF = indexToFloat(rewriter, loc, dk, f32);
      scale = arith::DivFOp::create(rewriter, loc,
                                    createScalarConstant(rewriter, loc, f32, 1),
                                    math::SqrtOp::create(rewriter, loc, dkF));
    }

    auto read = [&](OpBuilder &b, Location l, Value t, Value onnx,
                    ValueRange at) -> Value {
      Value x = tensor::ExtractOp::create(b, l, t, at);
      return castScalar(b, l, x, getONNXElementType(onnx), f32);
    };
    int64_t dyn = ShapedType::kDynamic;
    auto state32 = RankedTensorType::get({dyn, hkv, dyn, dyn}, f32);
    SmallVector<OpFoldResult> stateSizes{batch, m.c(hkv), dk, dv};
    Value state0;
    if (past) {
      emitRuntimeCheck(
          rewriter, loc, op,
          arith::OrIOp::create(
              rewriter, loc,
              m.cmp(Pred::ne, getDimValue(rewriter, loc, past, 2), dk),
              m.cmp(Pred::ne, getDimValue(rewriter, loc, past, 3), dv)),
          "past_state has head sizes {0} x {1}, not d_k {2} x d_v {3}",
          {getDimValue(rewriter, loc, past, 2),
           getDimValue(rewriter, loc, past, 3), dk, dv});
      Type pastElem = getONNXElementType(op.getPastState());
      state0 = buildElementwise(rewriter, loc, past, state32,
                                [&](OpBuilder &b, Location l, ValueRange a) {
                                  return castScalar(b, l, a[0], pastElem, f32);
                                });
    } else {
      state0 = createFilled(rewriter, loc, state32, stateSizes,
                            createScalarConstant(rewriter, loc, f32, 0));
    }
    auto out32 = RankedTensorType::get({dyn, dyn, dyn}, f32);
    Value out0 = tensor::EmptyOp::create(
        rewriter, loc, out32, ValueRange{batch, steps, m.mul(dv, m.c(hq))});

    SmallVector<Value> final = loopNest(
        rewriter, loc, SmallVector<Value>{batch, m.c(hkv), steps},
        ValueRange{state0, out0},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange it) -> SmallVector<Value> {
          IndexMath mm(b, l);
          Value bi = ivs[0], h = ivs[1], t = ivs[2];
          Value state = it[0], out = it[1];
          auto sAt = [&](Value s, Value d, Value e) -> Value {
            return tensor::ExtractOp::create(b, l, s, ValueRange{bi, h, d, e});
          };
          auto kAt = [&](Value d) {
            return read(b, l, k, op.getKey(),
                        {bi, t, mm.add(mm.mul(h, dk), d)});
          };
          auto each = [&](Value s, function_ref<Value(Value, Value, Value)> f) {
            return loopNest(
                b, l, SmallVector<Value>{dk, dv}, s,
                [&](OpBuilder &, Location, ValueRange de,
                    ValueRange st) -> SmallVector<Value> {
                  Value x = f(sAt(st[0], de[0], de[1]), de[0], de[1]);
                  return {tensor::InsertOp::create(
                      b, l, x, st[0], ValueRange{bi, h, de[0], de[1]})};
                })[0];
          };
          // Decay: S *= exp(g_t).
          if (gating)
            state = each(state, [&](Value s, Value d, Value) -> Value {
              Value at = mm.select(decayPerHead, h, mm.add(mm.mul(h, dk), d));
              Value g = read(b, l, decay, op.getDecay(), {bi, t, at});
              return arith::MulFOp::create(b, l, s,
                                           math::ExpOp::create(b, l, g));
            });
          // The value written: v_t, or beta_t * (v_t - S^T k_t).
          auto vAt = [&](Value e) {
            return read(b, l, v, op.getValue(),
                        {bi, t, mm.add(mm.mul(h, dv), e)});
          };
          Value written;
          if (delta) {
            Value bAt = mm.select(betaShared, mm.c(0), h);
            Value bt = read(b, l, beta, op.getBeta(), {bi, t, bAt});
            auto rowType = RankedTensorType::get({dyn}, f32);
            Value row0 = tensor::EmptyOp::create(b, l, rowType, dv);
            written = loopNest(
                b, l, SmallVector<Value>{dv}, row0,
                [&](OpBuilder &, Location, ValueRange e,
                    ValueRange r) -> SmallVector<Value> {
                  Value got = loopNest(
                      b, l, SmallVector<Value>{dk},
                      createScalarConstant(b, l, f32, 0),
                      [&](OpBuilder &, Location, ValueRange d,
                          ValueRange acc) -> SmallVector<Value> {
                        Value p = arith::MulFOp::create(
                            b, l, sAt(state, d[0], e[0]), kAt(d[0]));
                        return {arith::AddFOp::create(b, l, acc[0], p)};
                      })[0];
                  Value x = arith::MulFOp::create(
                      b, l, bt, arith::SubFOp::create(b, l, vAt(e[0]), got));
                  return {tensor::InsertOp::create(b, l, x, r[0], e[0])};
                })[0];
          }
          // S += k_t (x) written.
          state = each(state, [&](Value s, Value d, Value e) -> Value {
            Value w =
                written
                    ? tensor::ExtractOp::create(b, l, written, e).getResult()
                    : vAt(e);
            return arith::AddFOp::create(
                b, l, s, arith::MulFOp::create(b, l, kAt(d), w));
          });
          // Each query head of this key/value head reads q_t^T S.
          out = loopNest(
              b, l, SmallVector<Value>{group, dv}, out,
              [&](OpBuilder &, Location, ValueRange ge,
                  ValueRange o) -> SmallVector<Value> {
                Value qh = mm.add(mm.mul(h, group), ge[0]);
                Value dot = loopNest(
                    b, l, SmallVector<Value>{dk},
                    createScalarConstant(b, l, f32, 0),
                    [&](OpBuilder &, Location, ValueRange d,
                        ValueRange acc) -> SmallVector<Value> {
                      Value qv = read(b, l, q, op.getQuery(),
                                      {bi, t, mm.add(mm.mul(qh, dk), d[0])});
                      Value p = arith::MulFOp::create(b, l, qv,
                                                      sAt(state, d[0], ge[1]));
                      return {arith::AddFOp::create(b, l, acc[0], p)};
                    })[0];
                Value y = arith::MulFOp::create(b, l, scale, dot);
                return {tensor::InsertOp::create(
                    b, l, y, o[0],
                    ValueRange{bi, t, mm.add(mm.mul(qh, dv), ge[1])})};
              })[0];
          return {state, out};
        });
    Type stateElem = past ? getONNXElementType(op.getPastState()) : qElem;
    auto castTo = [&](Value x, RankedTensorType type, Type onnxElem) {
      Value y =
          buildElementwise(rewriter, loc, x, type.clone(type.getElementType()),
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             return castScalar(b, l, a[0], f32, onnxElem);
                           });
      return y;
    };
    rewriter.replaceOp(op, {castTo(final[1], outType, qElem),
                            castTo(final[0], stateType, stateElem)});
    return success();
  }
};

} // namespace

void mlir::onnxc::populateLinearAttentionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LinearAttentionLowering>(converter, patterns.getContext());
}
