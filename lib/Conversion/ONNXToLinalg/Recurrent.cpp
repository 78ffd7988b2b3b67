//===- Recurrent.cpp - RNN, GRU and LSTM to linalg and scf ----------------===//
//
// Each direction first projects the inputs of every step, X x W^T as one
// [seq*batch, gates*hidden] contraction, then is an scf.for over the time
// steps carrying the hidden state (and the LSTM's cell state) and a tensor
// of the step outputs. A step multiplies the hidden state by R (W and R are
// contracted over their last dims: read as ONNX stores them), then one
// linalg.generic over (batch, hidden) applies the gate equations to each
// gate's columns.
// sequence_lens (checked at run time to lie in [0, seq]): a batch row
// whose sequence has ended keeps its state and outputs zeros; the reverse direction walks each row from its own last
// step (its inputs are gathered per row, its outputs put back in time
// order after the loop).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

enum class Cell { RNN, GRU, LSTM };

/// One activation function of the op's list, with its alpha and beta.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

/// The activations of each direction: the op's list (or the defaults), the
/// alpha and beta values consumed in order by the functions that take them.
FailureOr<SmallVector<Activation>>
getActivations(Operation *op, ArrayRef<StringRef> defaults, int64_t dirs) {
  SmallVector<Activation> acts;
  auto names = op->getAttrOfType<ArrayAttr>("activations");
  if (names) {
    for (Attribute a : names)
      acts.push_back({cast<StringAttr>(a).getValue().str()});
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      for (StringRef name : defaults)
        acts.push_back({name.str()});
  }
  // RNN's default list is {Tanh, Tanh} whatever the direction: a forward
  // or reverse RNN uses the first.
  int64_t needed = (int64_t)defaults.size() * dirs;
  if ((int64_t)acts.size() < needed)
    return failure();
  acts.resize(needed);
  SmallVector<double> alphas, betas;
  if (auto a = op->getAttrOfType<ArrayAttr>("activation_alpha"))
    for (Attribute v : a)
      alphas.push_back(cast<FloatAttr>(v).getValueAsDouble());
  if (auto a = op->getAttrOfType<ArrayAttr>("activation_beta"))
    for (Attribute v : a)
      betas.push_back(cast<FloatAttr>(v).getValueAsDouble());
  size_t ai = 0, bi = 0;
  for (Activation &act : acts) {
    // (name, default alpha, default beta, takes alpha, takes beta)
    struct Known {
      StringRef name;
      double alpha, beta;
      bool takesAlpha, takesBeta;
    };
    static const Known known[] = {
        {"Relu", 0, 0, false, false},       {"Tanh", 0, 0, false, false},
        {"Sigmoid", 0, 0, false, false},    {"Affine", 1, 0, true, true},
        {"LeakyRelu", 0.01, 0, true, false}, {"ThresholdedRelu", 1, 0, true, false},
        {"ScaledTanh", 1, 1, true, true},   {"HardSigmoid", 0.2, 0.5, true, true},
        {"Elu", 1, 0, true, false},         {"Softsign", 0, 0, false, false},
        {"Softplus", 0, 0, false, false}};
    const Known *k = nullptr;
    for (const Known &candidate : known)
      if (StringRef(act.name).equals_insensitive(candidate.name))
        k = &candidate;
    if (!k)
      return failure();
    act.name = k->name.str();
    act.alpha = k->alpha;
    act.beta = k->beta;
    if (k->takesAlpha && ai < alphas.size())
      act.alpha = alphas[ai++];
    if (k->takesBeta && bi < betas.size())
      act.beta = betas[bi++];
  }
  return acts;
}

/// `act` applied to the scalar `x` (a float).
Value applyActivation(OpBuilder &b, Location loc, const Activation &act,
                      Value x) {
  Type t = x.getType();
  auto c = [&](double v) { return createScalarConstant(b, loc, t, v); };
  StringRef n = act.name;
  if (n == "Relu")
    return arith::MaximumFOp::create(b, loc, x, c(0));
  if (n == "Tanh")
    return math::TanhOp::create(b, loc, x);
  if (n == "Sigmoid") {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, c(1),
                                 arith::AddFOp::create(b, loc, c(1), e));
  }
  if (n == "Affine")
    return arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(act.alpha), x), c(act.beta));
  if (n == "LeakyRelu") {
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0));
    return arith::SelectOp::create(
        b, loc, neg, arith::MulFOp::create(b, loc, c(act.alpha), x), x);
  }
  if (n == "ThresholdedRelu") {
    // The RNN ops' spec: x if x >= alpha.
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, c(act.alpha));
    return arith::SelectOp::create(b, loc, above, x, c(0));
  }
  if (n == "ScaledTanh")
    return arith::MulFOp::create(
        b, loc, c(act.alpha),
        math::TanhOp::create(b, loc,
                             arith::MulFOp::create(b, loc, c(act.beta), x)));
  if (n == "HardSigmoid") {
    Value y = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(act.alpha), x), c(act.beta));
    return arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, y, c(0)), c(1));
  }
  if (n == "Elu") {
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0));
    Value em1 = arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x), c(1));
    return arith::SelectOp::create(
        b, loc, neg, arith::MulFOp::create(b, loc, c(act.alpha), em1), x);
  }
  if (n == "Softsign")
    return arith::DivFOp::create(
        b, loc, x,
        arith::AddFOp::create(b, loc, c(1), math::AbsFOp::create(b, loc, x)));
  // Softplus
  return math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
}

/// out[r, g] = sum_k a[r, k] * w[g, k].
Value matmulTransposed(OpBuilder &b, Location loc, Value a, Value w) {
  auto aType = cast<RankedTensorType>(a.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  Type elem = aType.getElementType();
  auto outType = RankedTensorType::get(
      {aType.getDimSize(0), wType.getDimSize(0)}, elem);
  SmallVector<OpFoldResult> sizes{getDims(b, loc, a)[0],
                                  getDims(b, loc, w)[0]};
  Value init = createFilled(b, loc, outType, sizes,
                            createScalarConstant(b, loc, elem, 0));
  MLIRContext *ctx = b.getContext();
  AffineExpr r, g, k;
  bindDims(ctx, r, g, k);
  SmallVector<AffineMap> maps{AffineMap::get(3, 0, {r, k}, ctx),
                              AffineMap::get(3, 0, {g, k}, ctx),
                              AffineMap::get(3, 0, {r, g}, ctx)};
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel,
                                             utils::IteratorType::parallel,
                                             utils::IteratorType::reduction};
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{a, w}, ValueRange{init},
             maps, iterators,
             [](OpBuilder &b, Location loc, ValueRange args) {
               Value mul = arith::MulFOp::create(b, loc, args[0], args[1]);
               linalg::YieldOp::create(
                   b, loc,
                   ValueRange{arith::AddFOp::create(b, loc, args[2], mul)});
             })
      .getResult(0);
}

/// Offsets, sizes and strides of the part of `v` (the whole tensor)
/// at [first, first + size) along dim 0.
struct Box {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};
Box dim0Box(OpBuilder &b, Location loc, Value v, OpFoldResult first,
            OpFoldResult size) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  Box box{SmallVector<OpFoldResult>(rank, b.getIndexAttr(0)),
          getDims(b, loc, v),
          SmallVector<OpFoldResult>(rank, b.getIndexAttr(1))};
  box.offsets[0] = first;
  box.sizes[0] = size;
  return box;
}

/// Rows [first, first + size) of a 2-D tensor, or element range of a 1-D.
Value sliceDim0(OpBuilder &b, Location loc, Value v, OpFoldResult first,
                OpFoldResult size) {
  Box box = dim0Box(b, loc, v, first, size);
  return tensor::ExtractSliceOp::create(b, loc, v, box.offsets, box.sizes,
                                        box.strides);
}

/// `v` (rank r+1, leading dim indexed) at index `i` of dim 0, rank r.
Value dropDim0(OpBuilder &b, Location loc, Value v, OpFoldResult i) {
  auto type = cast<RankedTensorType>(v.getType());
  Box box = dim0Box(b, loc, v, i, b.getIndexAttr(1));
  auto resultType = RankedTensorType::get(type.getShape().drop_front(),
                                          type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, v, box.offsets,
                                        box.sizes, box.strides);
}

/// Inserts `v` (rank r) at index `i` of dim 0 of `dest` (rank r+1).
Value insertDim0(OpBuilder &b, Location loc, Value v, Value dest,
                 OpFoldResult i) {
  Box box = dim0Box(b, loc, dest, i, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, v, dest, box.offsets,
                                       box.sizes, box.strides);
}

/// `v` with its dims permuted by `perm` (a linalg.transpose).
Value transpose(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> dims = getDims(b, loc, v), sizes;
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    sizes.push_back(dims[p]);
    shape.push_back(type.getDimSize(p));
  }
  Value init = createEmpty(
      b, loc, RankedTensorType::get(shape, type.getElementType()), sizes);
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

/// Fails with an error on `op` where `v` (may be null) is not of the rank
/// of `expected` or a static dim differs from a static one there; `form`
/// is ONNX's name for the shape.
LogicalResult expectShape(Operation *op, Value v, StringRef name,
                          ArrayRef<int64_t> expected, const Twine &form) {
  auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  if (!t)
    return success();
  bool ok = t.getRank() == int64_t(expected.size());
  for (int64_t i = 0; ok && i < t.getRank(); ++i)
    ok = t.isDynamicDim(i) || ShapedType::isDynamic(expected[i]) ||
         t.getDimSize(i) == expected[i];
  if (ok)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << name << " is " << t << ", but must be " << form
                            << " = [";
  llvm::interleaveComma(expected, diag, [&](int64_t s) {
    if (ShapedType::isDynamic(s))
      diag << "?";
    else
      diag << s;
  });
  return diag << "]";
}

template <typename OpTy, Cell cell>
class RecurrentLowering : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    constexpr int64_t gates =
        cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
    Value x = adaptor.getX(), w = adaptor.getW(), r = adaptor.getR();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    auto rType = dyn_cast<RankedTensorType>(r.getType());
    if (!xType || !wType || !rType || xType.getRank() != 3 ||
        wType.getRank() != 3 || rType.getRank() != 3)
      return rewriter.notifyMatchFailure(op, "needs ranked X, W and R");
    auto elem = dyn_cast<FloatType>(xType.getElementType());
    if (!elem)
      return rewriter.notifyMatchFailure(op, "needs float elements");
    int64_t hid = rType.getDimSize(2);
    if (ShapedType::isDynamic(hid))
      return rewriter.notifyMatchFailure(op, "needs a static hidden size");
    if (auto attr = op.getHiddenSizeAttr())
      if (attr.getInt() != hid)
        return op.emitOpError() << "hidden_size is " << attr.getInt()
                                << ", but R is " << rType;
    StringRef direction = op.getDirection();
    if (direction != "forward" && direction != "reverse" &&
        direction != "bidirectional")
      return rewriter.notifyMatchFailure(op, "unknown direction");
    int64_t dirs = direction == "bidirectional" ? 2 : 1;
    {
      // The operands' static shapes against each other (ONNX's forms,
      // layout 1 swapping batch and num_directions in the states).
      bool batchFirst = op.getLayout() != 0;
      int64_t batch = xType.getDimSize(batchFirst ? 0 : 1);
      int64_t input = xType.getDimSize(2);
      SmallVector<int64_t> state{dirs, batch, hid};
      StringRef stateForm = "[num_directions, batch_size, hidden_size]";
      if (batchFirst) {
        std::swap(state[0], state[1]);
        stateForm = "[batch_size, num_directions, hidden_size]";
      }
      std::string g = std::to_string(gates);
      Value initialC, peep;
      if constexpr (cell == Cell::LSTM) {
        initialC = adaptor.getInitialC();
        peep = adaptor.getP();
      }
      if (failed(expectShape(op, adaptor.getW(), "W", {dirs, gates * hid, input},
                             "[num_directions, " + g +
                                 "*hidden_size, input_size]")) ||
          failed(expectShape(op, adaptor.getR(), "R", {dirs, gates * hid, hid},
                             "[num_directions, " + g +
                                 "*hidden_size, hidden_size]")) ||
          failed(expectShape(op, adaptor.getB(), "B",
                             {dirs, 2 * gates * hid},
                             "[num_directions, " + std::to_string(2 * gates) +
                                 "*hidden_size]")) ||
          failed(expectShape(op, adaptor.getSequenceLens(), "sequence_lens",
                             {batch}, "[batch_size]")) ||
          failed(expectShape(op, adaptor.getInitialH(), "initial_h", state,
                             stateForm)) ||
          failed(expectShape(op, initialC, "initial_c", state, stateForm)) ||
          failed(expectShape(op, peep, "P", {dirs, 3 * hid},
                             "[num_directions, 3*hidden_size]")))
        return failure();
    }
    SmallVector<StringRef> defaults;
    if (cell == Cell::RNN)
      defaults = {"Tanh"};
    else if (cell == Cell::GRU)
      defaults = {"Sigmoid", "Tanh"};
    else
      defaults = {"Sigmoid", "Tanh", "Tanh"};
    FailureOr<SmallVector<Activation>> acts =
        getActivations(op, defaults, dirs);
    if (failed(acts))
      return rewriter.notifyMatchFailure(op, "unknown activations");
    bool batchFirst = op.getLayout() != 0;
    std::optional<double> clip;
    if (auto c = op.getClipAttr())
      clip = c.getValueAsDouble();
    bool linearBeforeReset = false, inputForget = false;
    if constexpr (cell == Cell::GRU)
      linearBeforeReset = op.getLinearBeforeReset() != 0;
    if constexpr (cell == Cell::LSTM)
      inputForget = op.getInputForget() != 0;

    Value bias = adaptor.getB(), lens = adaptor.getSequenceLens(),
          initialH = adaptor.getInitialH(), initialC, peep;
    if constexpr (cell == Cell::LSTM) {
      initialC = adaptor.getInitialC();
      peep = adaptor.getP();
    }
    // X as [seq, batch, input], the initial states as [dirs, batch, hid].
    if (batchFirst) {
      x = transpose(rewriter, loc, x, {1, 0, 2});
      if (initialH)
        initialH = transpose(rewriter, loc, initialH, {1, 0, 2});
      if (initialC)
        initialC = transpose(rewriter, loc, initialC, {1, 0, 2});
    }
    xType = cast<RankedTensorType>(x.getType());
    OpFoldResult seq = getDims(rewriter, loc, x)[0],
                 batch = getDims(rewriter, loc, x)[1];
    int64_t staticBatch = xType.getDimSize(1), staticSeq = xType.getDimSize(0);
    auto stateType = RankedTensorType::get({staticBatch, hid}, elem);
    SmallVector<OpFoldResult> stateSizes{batch, rewriter.getIndexAttr(hid)};
    Value zero = createScalarConstant(rewriter, loc, elem, 0);
    Value zeros = createFilled(rewriter, loc, stateType, stateSizes, zero);
    Value seqValue = getValueOrCreateConstantIndexOp(rewriter, loc, seq);
    // Lengths in [0, seq] (the reverse direction reads X at len - 1 - t).
    if (lens)
      emitIndexRangeCheck(
          rewriter, loc, op, lens,
          arith::AddIOp::create(rewriter, loc, seqValue,
                                arith::ConstantIndexOp::create(rewriter, loc, 1)),
          /*allowNegative=*/false,
          "in sequence_lens (a row's length is at most the sequence length)");

    SmallVector<Value> ys, hs, cs;
    for (int64_t d = 0; d < dirs; ++d) {
      bool reverse = direction == "reverse" || d == 1;
      ArrayRef<Activation> dirActs =
          ArrayRef<Activation>(*acts).slice(d * defaults.size(),
                                            defaults.size());
      OpFoldResult dIdx = rewriter.getIndexAttr(d);
      Value wd = dropDim0(rewriter, loc, w, dIdx);
      Value rd = dropDim0(rewriter, loc, r, dIdx);
      Value bd = bias ? dropDim0(rewriter, loc, bias, dIdx) : Value();
      Value pd = peep ? dropDim0(rewriter, loc, peep, dIdx) : Value();
      Value h0 = initialH ? dropDim0(rewriter, loc, initialH, dIdx) : zeros;
      Value c0 = cell == Cell::LSTM
                     ? (initialC ? dropDim0(rewriter, loc, initialC, dIdx)
                                 : zeros)
                     : Value();
      // GRU without linear_before_reset: Rh applies to r (.) H.
      Value rh = cell == Cell::GRU && !linearBeforeReset
                     ? sliceDim0(rewriter, loc, rd,
                                 rewriter.getIndexAttr(2 * hid),
                                 rewriter.getIndexAttr(hid))
                     : Value();
      auto stepsType = RankedTensorType::get({staticSeq, staticBatch, hid}, elem);
      Value steps = createFilled(
          rewriter, loc, stepsType,
          {seq, batch, rewriter.getIndexAttr(hid)}, zero);
      // The inputs' projection for every step at once, X x W^T as one
      // [seq*batch, gates*hid] contraction (the loop keeps only H x R^T).
      Value xw;
      {
        SmallVector<ReassociationIndices> merge{{0, 1}, {2}};
        Value rows = tensor::CollapseShapeOp::create(rewriter, loc, x, merge);
        Value product = matmulTransposed(rewriter, loc, rows, wd);
        auto type = RankedTensorType::get(
            {staticSeq, staticBatch, gates * hid}, elem);
        xw = tensor::ExpandShapeOp::create(
            rewriter, loc, type, product, merge,
            ArrayRef<OpFoldResult>{seq, batch,
                                   rewriter.getIndexAttr(gates * hid)});
      }
      SmallVector<Value> inits{h0, steps};
      if (c0)
        inits.push_back(c0);
      auto loop = scf::ForOp::create(
          rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
          seqValue, arith::ConstantIndexOp::create(rewriter, loc, 1), inits,
          [&](OpBuilder &b, Location l, Value t, ValueRange args) {
            SmallVector<Value> next =
                step(b, l, t, seqValue, args, xw, rd, rh, bd, pd, lens,
                     reverse, dirActs, clip, linearBeforeReset, inputForget,
                     hid, gates, stateType, stateSizes);
            scf::YieldOp::create(b, l, next);
          });
      Value stepsOut = loop.getResult(1);
      ys.push_back(reverse ? reorder(rewriter, loc, stepsOut, lens, seqValue)
                           : stepsOut);
      hs.push_back(loop.getResult(0));
      if (c0)
        cs.push_back(loop.getResult(2));
    }

    // Y [seq, dirs, batch, hid], Y_h and Y_c [dirs, batch, hid] (layout 0).
    auto stack = [&](ArrayRef<Value> parts, int64_t at) -> Value {
      auto partType = cast<RankedTensorType>(parts[0].getType());
      SmallVector<int64_t> shape(partType.getShape());
      shape.insert(shape.begin() + at, dirs);
      SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, parts[0]);
      sizes.insert(sizes.begin() + at, rewriter.getIndexAttr(dirs));
      Value result = createEmpty(
          rewriter, loc, RankedTensorType::get(shape, elem), sizes);
      for (auto [d, part] : llvm::enumerate(parts)) {
        SmallVector<OpFoldResult> offsets(shape.size(), rewriter.getIndexAttr(0));
        offsets[at] = rewriter.getIndexAttr(d);
        SmallVector<OpFoldResult> partSizes(sizes);
        partSizes[at] = rewriter.getIndexAttr(1);
        SmallVector<OpFoldResult> strides(shape.size(), rewriter.getIndexAttr(1));
        result = tensor::InsertSliceOp::create(rewriter, loc, part, result,
                                               offsets, partSizes, strides);
      }
      return result;
    };
    SmallVector<Value> results;
    if (op.getY()) {
      Value y = stack(ys, 1);
      results.push_back(batchFirst ? transpose(rewriter, loc, y, {2, 0, 1, 3})
                                   : y);
    }
    auto final = [&](ArrayRef<Value> parts) {
      Value v = stack(parts, 0);
      return batchFirst ? transpose(rewriter, loc, v, {1, 0, 2}) : v;
    };
    if (op.getYH())
      results.push_back(final(hs));
    if constexpr (cell == Cell::LSTM)
      if (op.getYC())
        results.push_back(final(cs));
    // Cast to the converted result types (static where shape inference
    // knew more).
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      auto type = dyn_cast_or_null<RankedTensorType>(
          this->getTypeConverter()->convertType(result.getType()));
      if (!type)
        continue;
      FailureOr<Value> cast = castOrReport(
          rewriter, loc, op, results[i], type,
          i == 0 ? "Y" : i == 1 ? "Y_h" : "Y_c");
      if (failed(cast))
        return failure();
      results[i] = *cast;
    }
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  /// One time step: the next hidden state, step outputs (and cell state).
  static SmallVector<Value>
  step(OpBuilder &b, Location loc, Value t, Value seq, ValueRange args,
       Value x, Value rd, Value rh, Value bd, Value pd, Value lens,
       bool reverse, ArrayRef<Activation> acts, std::optional<double> clip,
       bool linearBeforeReset, bool inputForget, int64_t hid, int64_t gates,
       RankedTensorType stateType, ArrayRef<OpFoldResult> stateSizes) {
    Value h = args[0], steps = args[1];
    Value c = args.size() > 2 ? args[2] : Value();
    Type elem = stateType.getElementType();
    MLIRContext *ctx = b.getContext();
    // The projected input rows of this step (`x` is X x W^T for every
    // step, [seq, batch, gates*hid]): row b at its time index (the reverse
    // direction with sequence lengths: each row from its own end).
    Value xt;
    if (reverse && lens) {
      auto xType = cast<RankedTensorType>(x.getType());
      auto rowsType = RankedTensorType::get(
          {xType.getDimSize(1), xType.getDimSize(2)}, elem);
      SmallVector<OpFoldResult> dims = getDims(b, loc, x);
      // Rows that ended read step 0 (their outputs are zeros).
      xt = buildIndexedGeneric(
          b, loc, rowsType, {dims[1], dims[2]}, ValueRange{}, {},
          [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
            Value at =
                fromEnd(b, l, rowLength(b, l, lens, ivs[0]), t).first;
            return tensor::ExtractOp::create(b, l, x,
                                             ValueRange{at, ivs[0], ivs[1]});
          });
    } else {
      xt = dropDim0(b, loc, x, reverse ? fromEnd(b, loc, seq, t).first : t);
    }
    Value xw = xt;
    Value hr = matmulTransposed(b, loc, h, rd);

    // Gate g's columns of a [rows, gates*hid] tensor, the k-th hid-long
    // piece of a vector (linalg wants an operand indexed by plain dims to
    // have the loops' sizes: no offset maps).
    AffineExpr row, j;
    bindDims(ctx, row, j);
    auto gateOf = [&](Value v, int64_t g) -> Value {
      SmallVector<OpFoldResult> dims = getDims(b, loc, v);
      return tensor::ExtractSliceOp::create(
          b, loc, v,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(g * hid)},
          ArrayRef<OpFoldResult>{dims[0], b.getIndexAttr(hid)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    };
    auto pieceOf = [&](Value v, int64_t k) -> Value {
      return sliceDim0(b, loc, v, b.getIndexAttr(k * hid), b.getIndexAttr(hid));
    };
    AffineMap vecMap = AffineMap::get(2, 0, {j}, ctx);
    AffineMap stateMap = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap rowMap = AffineMap::get(2, 0, {row}, ctx);
    auto cst = [&](OpBuilder &b, Location l, double v) {
      return createScalarConstant(b, l, elem, v);
    };

    // Operands: xw per gate, hr per gate, Wb and Rb per gate (when B is
    // given), the state(s), peepholes, lengths.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    auto add = [&](Value v, AffineMap m) -> unsigned {
      inputs.push_back(v);
      maps.push_back(m);
      return inputs.size() - 1;
    };
    SmallVector<unsigned> xwAt, hrAt, wbAt, rbAt, pAt;
    // The state first: linalg infers the loop sizes from the first operand
    // that indexes with a plain dim (xw's first gate would give rows x
    // gates*hid).
    unsigned hAt = add(h, stateMap);
    for (int64_t g = 0; g < gates; ++g) {
      xwAt.push_back(add(gateOf(xw, g), stateMap));
      hrAt.push_back(add(gateOf(hr, g), stateMap));
      if (bd) {
        wbAt.push_back(add(pieceOf(bd, g), vecMap));
        rbAt.push_back(add(pieceOf(bd, gates + g), vecMap));
      }
    }
    unsigned cAt = c ? add(c, stateMap) : 0;
    if (pd)
      for (int64_t k = 0; k < 3; ++k)
        pAt.push_back(add(pieceOf(pd, k), vecMap));
    unsigned lenAt = lens ? add(lens, rowMap) : 0;
    // GRU without linear_before_reset: (r (.) H) x Rh^T first.
    Value rhProduct;
    auto preact = [&](OpBuilder &b, Location l, ValueRange a, int64_t g,
                      Value hrValue) {
      Value v = arith::AddFOp::create(b, l, a[xwAt[g]], hrValue);
      if (!wbAt.empty())
        v = arith::AddFOp::create(
            b, l, v, arith::AddFOp::create(b, l, a[wbAt[g]], a[rbAt[g]]));
      return v;
    };
    auto activate = [&](OpBuilder &b, Location l, const Activation &act,
                        Value v) {
      if (clip) {
        v = arith::MaximumFOp::create(b, l, v, cst(b, l, -*clip));
        v = arith::MinimumFOp::create(b, l, v, cst(b, l, *clip));
      }
      return applyActivation(b, l, act, v);
    };
    if (rh) {
      Value init = createEmpty(b, loc, stateType, stateSizes);
      SmallVector<AffineMap> rMaps(maps);
      rMaps.push_back(stateMap);
      Value reset =
          linalg::GenericOp::create(
              b, loc, TypeRange{stateType}, inputs, ValueRange{init}, rMaps,
              SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
              [&](OpBuilder &b, Location l, ValueRange a) {
                Value rGate =
                    activate(b, l, acts[0], preact(b, l, a, 1, a[hrAt[1]]));
                linalg::YieldOp::create(
                    b, l, ValueRange{arith::MulFOp::create(b, l, rGate, a[hAt])});
              })
              .getResult(0);
      rhProduct = matmulTransposed(b, loc, reset, rh);
    }
    unsigned rhAt = rhProduct ? add(rhProduct, stateMap) : 0;

    // Outputs: the next H, the step's output row (zeros where the row's
    // sequence ended), the next C.
    SmallVector<Value> inits{createEmpty(b, loc, stateType, stateSizes),
                             createEmpty(b, loc, stateType, stateSizes)};
    if (c)
      inits.push_back(createEmpty(b, loc, stateType, stateSizes));
    SmallVector<AffineMap> allMaps(maps);
    for (size_t i = 0; i < inits.size(); ++i)
      allMaps.push_back(stateMap);
    SmallVector<Type> types(inits.size(), stateType);
    auto gen = linalg::GenericOp::create(
        b, loc, types, inputs, inits, allMaps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value hPrev = a[hAt];
          Value hNext, cNext;
          if (gates == 1) {
            hNext = activate(b, l, acts[0], preact(b, l, a, 0, a[hrAt[0]]));
          } else if (gates == 3) {
            Value z = activate(b, l, acts[0], preact(b, l, a, 0, a[hrAt[0]]));
            Value hTilde;
            if (rhProduct) {
              hTilde = preact(b, l, a, 2, a[rhAt]);
            } else {
              Value rGate =
                  activate(b, l, acts[0], preact(b, l, a, 1, a[hrAt[1]]));
              // Wh x + Wbh + r (.) (Rh H + Rbh).
              Value rec = a[hrAt[2]];
              if (!rbAt.empty())
                rec = arith::AddFOp::create(b, l, rec, a[rbAt[2]]);
              hTilde = arith::AddFOp::create(
                  b, l, a[xwAt[2]], arith::MulFOp::create(b, l, rGate, rec));
              if (!wbAt.empty())
                hTilde = arith::AddFOp::create(b, l, hTilde, a[wbAt[2]]);
            }
            hTilde = activate(b, l, acts[1], hTilde);
            // (1 - z) (.) h~ + z (.) H.
            Value oneMinus = arith::SubFOp::create(b, l, cst(b, l, 1), z);
            hNext = arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, oneMinus, hTilde),
                arith::MulFOp::create(b, l, z, hPrev));
          } else {
            // Gates in W's order: i, o, f, c; peepholes i, o, f.
            Value cPrev = a[cAt];
            auto peephole = [&](Value v, int64_t k, Value state) -> Value {
              if (pAt.empty())
                return v;
              return arith::AddFOp::create(
                  b, l, v, arith::MulFOp::create(b, l, a[pAt[k]], state));
            };
            Value i = activate(
                b, l, acts[0],
                peephole(preact(b, l, a, 0, a[hrAt[0]]), 0, cPrev));
            Value f =
                inputForget
                    ? arith::SubFOp::create(b, l, cst(b, l, 1), i).getResult()
                    : activate(b, l, acts[0],
                               peephole(preact(b, l, a, 2, a[hrAt[2]]), 2,
                                        cPrev));
            Value g = activate(b, l, acts[1], preact(b, l, a, 3, a[hrAt[3]]));
            cNext = arith::AddFOp::create(b, l,
                                          arith::MulFOp::create(b, l, f, cPrev),
                                          arith::MulFOp::create(b, l, i, g));
            Value o = activate(
                b, l, acts[0],
                peephole(preact(b, l, a, 1, a[hrAt[1]]), 1, cNext));
            hNext = arith::MulFOp::create(
                b, l, o, applyActivation(b, l, acts[2], cNext));
          }
          Value out = hNext;
          if (lens) {
            // Rows whose sequence ended keep their state, output zeros.
            Value len = arith::IndexCastOp::create(b, l, b.getIndexType(),
                                                   a[lenAt]);
            Value active =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t, len);
            hNext = arith::SelectOp::create(b, l, active, hNext, hPrev);
            out = arith::SelectOp::create(b, l, active, out, cst(b, l, 0));
            if (cNext)
              cNext = arith::SelectOp::create(b, l, active, cNext, a[cAt]);
          }
          SmallVector<Value> yields{hNext, out};
          if (cNext)
            yields.push_back(cNext);
          linalg::YieldOp::create(b, l, yields);
        });
    SmallVector<Value> next{gen.getResult(0),
                            insertDim0(b, loc, gen.getResult(1), steps, t)};
    if (c)
      next.push_back(gen.getResult(2));
    return next;
  }

  /// The length of batch row `row` (an index) from `lens` (i32).
  static Value rowLength(OpBuilder &b, Location loc, Value lens, Value row) {
    Value len = tensor::ExtractOp::create(b, loc, lens, ValueRange{row});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
  }

  /// The reverse direction's step outputs (step t of row b is time
  /// len_b - 1 - t) in time order: Y[s, b] = steps[len_b - 1 - s, b] for
  /// s < len_b, zeros after.
  static Value reorder(OpBuilder &b, Location loc, Value steps, Value lens,
                       Value seq) {
    auto type = cast<RankedTensorType>(steps.getType());
    return buildIndexedGeneric(
        b, loc, type, getDims(b, loc, steps), ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value len = lens ? rowLength(b, l, lens, ivs[1]) : seq;
          auto [at, inside] = fromEnd(b, l, len, ivs[0]);
          Value v = tensor::ExtractOp::create(b, l, steps,
                                              ValueRange{at, ivs[1], ivs[2]});
          Value zero = createScalarConstant(b, l, type.getElementType(), 0);
          return arith::SelectOp::create(b, l, inside, v, zero);
        });
  }

  /// Time len - 1 - s (step s of a row walked from its own end), clamped at
  /// 0, and whether it is >= 0 (the row still has that step).
  static std::pair<Value, Value> fromEnd(OpBuilder &b, Location l, Value len,
                                         Value s) {
    Value zero = arith::ConstantIndexOp::create(b, l, 0);
    Value at = arith::SubIOp::create(b, l, arith::SubIOp::create(b, l, len, s),
                                     arith::ConstantIndexOp::create(b, l, 1));
    Value inside =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, at, zero);
    return {arith::MaxSIOp::create(b, l, at, zero), inside};
  }
};

} // namespace

void mlir::onnxc::populateRecurrentPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<ONNXRNNOp, Cell::RNN>,
               RecurrentLowering<ONNXGRUOp, Cell::GRU>,
               RecurrentLowering<ONNXLSTMOp, Cell::LSTM>>(
      converter, patterns.getContext());
}
