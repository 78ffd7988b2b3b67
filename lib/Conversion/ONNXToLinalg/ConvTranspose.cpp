//===- ConvTranspose.cpp - ConvTranspose -> linalg ------------------------===//
//
// ConvTranspose is the convolution of the stride-dilated, padded input with
// the flipped kernel whose in/out channels are swapped. With strides (static
// spatial sizes, no dilation along a strided dim) it is computed phase by
// phase instead: one stride-1 conv per phase of the stride with the taps
// that phase reads (all phases as one conv where they share taps and
// windows), interleaved by one elementwise op that adds the bias; no product
// of an inserted zero is computed.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// One spatial dim of a ConvTranspose split into its stride's phases. Output
/// o = q * s + r (phase r) takes the taps k = kr + j * s of the kernel, with
/// kr = (r + pb) mod s, from input q + (r + pb) div s - j: a stride-1
/// convolution of X with the reversed taps, which multiplies no inserted
/// zeros. With stride 1 there is one phase, the kernel reversed and dilated.
struct PhaseDim {
  int64_t s, d, k, pb, in, out;
  /// Outputs per phase (the last ones of some phases fall past `out`).
  int64_t q() const { return (out + s - 1) / s; }
  int64_t firstTap(int64_t r) const { return s == 1 ? 0 : (r + pb) % s; }
  int64_t taps(int64_t r) const {
    int64_t kr = firstTap(r);
    return kr < k ? (k - kr + s - 1) / s : 0;
  }
  /// The input index minus q of the phase's first window element.
  int64_t start(int64_t r) const {
    int64_t base = s == 1 ? pb : (r + pb) / s;
    return base - (taps(r) - 1) * d;
  }
  /// The input index of the phase's last window element.
  int64_t last(int64_t r) const {
    return start(r) + q() - 1 + (taps(r) - 1) * d;
  }
  /// Whether phase r multiplies anything: it has taps and its window
  /// overlaps X.
  bool reads(int64_t r) const {
    return taps(r) > 0 && last(r) >= 0 && start(r) < in;
  }
};

/// The phases of all dims share their taps and windows: one convolution with
/// every phase's filters computes them all.
bool phasesUniform(ArrayRef<PhaseDim> dims) {
  for (const PhaseDim &pd : dims)
    for (int64_t r = 1; r < pd.s; ++r)
      if (pd.taps(r) != pd.taps(0) || pd.start(r) != pd.start(0))
        return false;
  return true;
}

/// X cut and zero-padded to the window of phase `phase` (its q() outputs),
/// which reads X in every dim.
Value phaseInput(OpBuilder &b, Location loc, Value x, ArrayRef<PhaseDim> dims,
                 ArrayRef<int64_t> phase, Value zero) {
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = getDims(b, loc, x);
  sizes.resize(2);
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)), high = low;
  bool cut = false, pad = false;
  for (auto [pd, r] : llvm::zip_equal(dims, phase)) {
    int64_t first = pd.start(r), last = pd.last(r);
    int64_t lo = std::max<int64_t>(first, 0);
    int64_t hi = std::min<int64_t>(last, pd.in - 1);
    cut |= lo != 0 || hi != pd.in - 1;
    pad |= lo != first || hi != last;
    offsets.push_back(b.getIndexAttr(lo));
    sizes.push_back(b.getIndexAttr(hi - lo + 1));
    low.push_back(b.getIndexAttr(lo - first));
    high.push_back(b.getIndexAttr(last - hi));
  }
  if (cut) {
    SmallVector<OpFoldResult> ones(sizes.size(), b.getIndexAttr(1));
    x = tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, ones);
  }
  if (pad)
    x = tensor::PadOp::create(b, loc, Type(), x, low, high, zero);
  return x;
}

/// The filters of a phase convolution: element (m, c, j...) of `shape` is
/// W[cIndex, mIndex, tap...] (affine in the output's indices).
Value phaseWeights(OpBuilder &b, Location loc, Value w, ArrayRef<int64_t> shape,
                   ArrayRef<AffineExpr> wIndex) {
  auto wType = cast<RankedTensorType>(w.getType());
  auto type = RankedTensorType::get(shape, wType.getElementType());
  unsigned rank = shape.size();
  MLIRContext *ctx = b.getContext();
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{w},
             ValueRange{createEmpty(b, loc, type, {})},
             SmallVector<AffineMap>{AffineMap::get(rank, 0, wIndex, ctx),
                                    b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, args[0]);
             })
      .getResult(0);
}

/// ConvTranspose as one stride-1 convolution per phase (all phases in one
/// when they share taps and windows, group 1), into Z (N, s..., M, q...),
/// then Y[n, m, q0, r0, q1, r1, ...] = Z[n, r0, r1, ..., m, q...] + bias[m]
/// by one elementwise op, cut to the output's size.
FailureOr<Value> buildPhasedConvTranspose(OpBuilder &b, Location loc, Value x,
                                          Value w, Value bias,
                                          ArrayRef<PhaseDim> dims,
                                          int64_t group,
                                          RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  int64_t n = dims.size();
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  Type elementType = resultType.getElementType();
  Value zero = createScalarConstant(b, loc, elementType, 0);
  int64_t c = xType.getDimSize(1), mPerGroup = wType.getDimSize(1);
  int64_t m = mPerGroup * group, phases = 1;
  for (const PhaseDim &pd : dims)
    phases *= pd.s;
  OpFoldResult batch = getDims(b, loc, x)[0];
  SmallVector<int64_t> zShape{xType.getDimSize(0)};
  SmallVector<OpFoldResult> zSizes{batch};
  for (const PhaseDim &pd : dims) {
    zShape.push_back(pd.s);
    zSizes.push_back(b.getIndexAttr(pd.s));
  }
  zShape.push_back(m);
  zSizes.push_back(b.getIndexAttr(m));
  for (const PhaseDim &pd : dims) {
    zShape.push_back(pd.q());
    zSizes.push_back(b.getIndexAttr(pd.q()));
  }
  auto zType = RankedTensorType::get(zShape, elementType);
  // The kernel index of tap j (reversed) of the phase whose first tap is kr.
  auto tapIndex = [&](const PhaseDim &pd, AffineExpr kr, int64_t taps,
                      unsigned dim) {
    return kr + (taps - 1 - getAffineDimExpr(dim, ctx)) * pd.s;
  };
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  SmallVector<int64_t> ones(n, 1), dilations;
  for (const PhaseDim &pd : dims)
    dilations.push_back(pd.d);
  // Zeros (N, channels, q...): a phase convolution's accumulator.
  auto zeroAccumulator = [&](int64_t channels) {
    SmallVector<int64_t> shape{xType.getDimSize(0), channels};
    SmallVector<OpFoldResult> sizes{batch, b.getIndexAttr(channels)};
    for (const PhaseDim &pd : dims) {
      shape.push_back(pd.q());
      sizes.push_back(b.getIndexAttr(pd.q()));
    }
    return createFilled(b, loc, RankedTensorType::get(shape, elementType),
                        sizes, zero);
  };

  Value z;
  bool allRead = llvm::all_of(dims, [](const PhaseDim &pd) {
    for (int64_t r = 0; r < pd.s; ++r)
      if (!pd.reads(r))
        return false;
    return true;
  });
  if (group == 1 && allRead && phasesUniform(dims)) {
    // Filter p * M + m is filter m of phase p (phases row-major).
    SmallVector<int64_t> phase0(n, 0);
    Value input = phaseInput(b, loc, x, dims, phase0, zero);
    SmallVector<int64_t> wShape{phases * m, c};
    SmallVector<AffineExpr> wIndex{d1, d0 % m};
    int64_t inner = m;
    SmallVector<AffineExpr> taps(n);
    for (int64_t i = n - 1; i >= 0; --i) {
      AffineExpr r = d0.floorDiv(inner) % dims[i].s;
      inner *= dims[i].s;
      taps[i] = tapIndex(dims[i], (r + dims[i].pb) % dims[i].s, dims[i].taps(0),
                         i + 2);
    }
    for (int64_t i = 0; i < n; ++i)
      wShape.push_back(dims[i].taps(0));
    llvm::append_range(wIndex, taps);
    Value filters = phaseWeights(b, loc, w, wShape, wIndex);
    FailureOr<Value> acc =
        buildConv(b, loc, input, filters, zeroAccumulator(phases * m), ones,
                  dilations, 1);
    if (failed(acc))
      return failure();
    // (N, P * M, q...) -> (N, s..., M, q...).
    SmallVector<ReassociationIndices> groups{{0}, {}};
    for (int64_t i = 0; i <= n; ++i)
      groups.back().push_back(1 + i);
    for (int64_t i = 0; i < n; ++i)
      groups.push_back({n + 2 + i});
    z = tensor::ExpandShapeOp::create(b, loc, zType, *acc, groups);
  } else {
    // One convolution per phase, inserted into Z; phases that read nothing
    // keep zeros.
    z = allRead ? createEmpty(b, loc, zType, zSizes)
                : createFilled(b, loc, zType, zSizes, zero);
    SmallVector<int64_t> phase(n, 0);
    for (int64_t p = 0; p < phases; ++p) {
      for (int64_t i = n - 1, rest = p; i >= 0; --i) {
        phase[i] = rest % dims[i].s;
        rest /= dims[i].s;
      }
      SmallVector<int64_t> wShape{m, c / group};
      SmallVector<AffineExpr> wIndex{d0.floorDiv(mPerGroup) * (c / group) + d1,
                                     d0 % mPerGroup};
      bool empty = false;
      for (int64_t i = 0; i < n; ++i) {
        int64_t taps = dims[i].taps(phase[i]);
        empty |= !dims[i].reads(phase[i]);
        wShape.push_back(taps);
        wIndex.push_back(tapIndex(
            dims[i], getAffineConstantExpr(dims[i].firstTap(phase[i]), ctx),
            taps, i + 2));
      }
      if (empty)
        continue;
      Value input = phaseInput(b, loc, x, dims, phase, zero);
      Value filters = phaseWeights(b, loc, w, wShape, wIndex);
      SmallVector<OpFoldResult> offsets{b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sliceSizes{batch};
      for (int64_t i = 0; i < n; ++i) {
        offsets.push_back(b.getIndexAttr(phase[i]));
        sliceSizes.push_back(b.getIndexAttr(1));
      }
      offsets.push_back(b.getIndexAttr(0));
      sliceSizes.push_back(b.getIndexAttr(m));
      for (const PhaseDim &pd : dims) {
        offsets.push_back(b.getIndexAttr(0));
        sliceSizes.push_back(b.getIndexAttr(pd.q()));
      }
      FailureOr<Value> acc = buildConv(
          b, loc, input, filters, zeroAccumulator(m), ones, dilations, group);
      if (failed(acc))
        return failure();
      SmallVector<OpFoldResult> unit(offsets.size(), b.getIndexAttr(1));
      z = tensor::InsertSliceOp::create(b, loc, *acc, z, offsets, sliceSizes,
                                        unit);
    }
  }

  // Y (N, M, q0, s0, q1, s1, ...) from Z, plus the bias.
  SmallVector<int64_t> yShape{xType.getDimSize(0), m};
  SmallVector<OpFoldResult> ySizes{batch, b.getIndexAttr(m)};
  SmallVector<AffineExpr> zIndex{d0};
  for (int64_t i = 0; i < n; ++i) {
    yShape.append({dims[i].q(), dims[i].s});
    ySizes.append({b.getIndexAttr(dims[i].q()), b.getIndexAttr(dims[i].s)});
    zIndex.push_back(getAffineDimExpr(3 + 2 * i, ctx));
  }
  zIndex.push_back(d1);
  for (int64_t i = 0; i < n; ++i)
    zIndex.push_back(getAffineDimExpr(2 + 2 * i, ctx));
  unsigned yRank = yShape.size();
  auto yType = RankedTensorType::get(yShape, elementType);
  SmallVector<Value> ins{z};
  SmallVector<AffineMap> maps{AffineMap::get(yRank, 0, zIndex, ctx)};
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getDimSize(0) != m)
      bias = tensor::CastOp::create(
          b, loc, RankedTensorType::get({m}, biasType.getElementType()), bias);
    ins.push_back(bias);
    maps.push_back(AffineMap::get(yRank, 0, {d1}, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(yRank));
  Value y = linalg::GenericOp::create(
                b, loc, yType, ins,
                ValueRange{createEmpty(b, loc, yType, ySizes)}, maps,
                SmallVector<utils::IteratorType>(yRank,
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &nb, Location nloc, ValueRange args) {
                  Value v = args[0];
                  if (bias)
                    v = arith::AddFOp::create(nb, nloc, v, args[1]);
                  linalg::YieldOp::create(nb, nloc, v);
                })
                .getResult(0);
  // (N, M, q0 * s0, ...), cut to the output size.
  SmallVector<ReassociationIndices> merge{{0}, {1}};
  SmallVector<int64_t> fullShape{xType.getDimSize(0), m};
  bool cut = false;
  for (int64_t i = 0; i < n; ++i) {
    merge.push_back({2 + 2 * i, 3 + 2 * i});
    fullShape.push_back(dims[i].q() * dims[i].s);
    cut |= dims[i].q() * dims[i].s != dims[i].out;
  }
  y = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(fullShape, elementType), y, merge);
  if (cut) {
    SmallVector<OpFoldResult> offsets(n + 2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes{batch, b.getIndexAttr(m)};
    for (const PhaseDim &pd : dims)
      sizes.push_back(b.getIndexAttr(pd.out));
    SmallVector<OpFoldResult> unit(n + 2, b.getIndexAttr(1));
    y = tensor::ExtractSliceOp::create(b, loc, y, offsets, sizes, unit);
  }
  return y;
}

/// ConvTranspose: Y[n, m, o] = sum over i, k with o = i*s + k*d - pads_begin
/// of X[n, c, i] * W[c, m, k]. That is the stride-1 convolution of X dilated
/// by the stride and padded by effK - 1 - pads_begin in front, with W's
/// channels swapped and its spatial dims reversed.
class ConvTransposeLowering : public OpConversionPattern<ONNXConvTransposeOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
    if (!resultType || !xType || !wType)
      return rewriter.notifyMatchFailure(op, "unranked operands or result");
    int64_t rank = xType.getRank(), n = rank - 2;
    if (rank < 3 || rank > 5 || wType.getRank() != rank ||
        resultType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "only 1-D, 2-D and 3-D convs");
    // Static channels and kernel; batch and spatial dims may be dynamic.
    if (xType.isDynamicDim(1) || resultType.isDynamicDim(1) ||
        !wType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic channels or kernel");
    if (wType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "dynamic input channels in W");
    auto kernel = getKernelShape(op.getKernelShapeAttr(), wType);
    if (failed(kernel))
      return rewriter.notifyMatchFailure(op, "unknown kernel shape");
    if (Value bias = adaptor.getB()) {
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType || biasType.getRank() != 1)
        return rewriter.notifyMatchFailure(op, "bias is not 1-D");
    }
    int64_t group = op.getGroup();
    int64_t c = xType.getDimSize(1), mPerGroup = wType.getDimSize(1);
    if (group < 1)
      return rewriter.notifyMatchFailure(op, "group < 1");
    if (c % group != 0 || wType.getDimSize(0) != c)
      return op.emitOpError() << "X has " << c << " channels, but W is "
                              << wType << " with " << group
                              << (group == 1 ? " group" : " groups");
    if (resultType.getDimSize(1) != mPerGroup * group)
      return op.emitOpError() << "declares " << resultType.getDimSize(1)
                              << " output channels, but W is " << wType
                              << " with " << group
                              << (group == 1 ? " group" : " groups") << ": "
                              << mPerGroup * group;
    if (Value bias = adaptor.getB()) {
      auto biasType = cast<RankedTensorType>(bias.getType());
      if (!biasType.isDynamicDim(0) &&
          biasType.getDimSize(0) != mPerGroup * group)
        return op.emitOpError()
               << "B has " << biasType.getDimSize(0) << " values, but W is "
               << wType << " with " << group
               << (group == 1 ? " group" : " groups") << ": "
               << mPerGroup * group << " output channels";
    }
    for (int64_t i = 0; i < n; ++i)
      if (wType.getDimSize(i + 2) != (*kernel)[i])
        return rewriter.notifyMatchFailure(op, "kernel_shape differs from W");
    auto ints = [&](ArrayAttr attr, int64_t size,
                    int64_t dflt) -> FailureOr<SmallVector<int64_t>> {
      if (!attr)
        return SmallVector<int64_t>(size, dflt);
      if (int64_t(attr.size()) != size)
        return failure();
      SmallVector<int64_t> v;
      for (Attribute a : attr)
        v.push_back(cast<IntegerAttr>(a).getInt());
      return v;
    };
    auto strides = ints(op.getStridesAttr(), n, 1);
    auto dilations = ints(op.getDilationsAttr(), n, 1);
    auto outputPadding = ints(op.getOutputPaddingAttr(), n, 0);
    auto pads = ints(op.getPadsAttr(), 2 * n, 0);
    if (failed(strides) || failed(dilations) || failed(outputPadding) ||
        failed(pads))
      return rewriter.notifyMatchFailure(op, "attribute lengths");
    StringRef autoPad = op.getAutoPad();
    bool explicitShape = op.getOutputShapeAttr() != nullptr;
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
        autoPad != "SAME_LOWER")
      return rewriter.notifyMatchFailure(op, "unknown auto_pad");

    SmallVector<int64_t> outputShape;
    if (explicitShape) {
      for (Attribute a : op.getOutputShapeAttr())
        outputShape.push_back(cast<IntegerAttr>(a).getInt());
      // output_shape may name the spatial dims only, or all of them.
      if (int64_t(outputShape.size()) == rank)
        outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
      if (int64_t(outputShape.size()) != n)
        return rewriter.notifyMatchFailure(op, "output_shape length");
    }
    bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";

    Type elementType = resultType.getElementType();
    Value zero = createScalarConstant(rewriter, loc, elementType, 0);
    Value x = adaptor.getX();
    SmallVector<OpFoldResult> xSizes = getDims(rewriter, loc, x);
    // Per spatial dim: the output size, and the input dilated by the stride
    // and padded, with `low` zeros in front (the output's first element
    // reads from there) and zeros behind up to what the last one reads.
    IndexMath im(rewriter, loc);
    SmallVector<OpFoldResult> outSizes;
    SmallVector<int64_t> paddedShape{xType.getDimSize(0), c};
    SmallVector<OpFoldResult> paddedSizes{xSizes[0], xSizes[1]};
    SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sliceStrides(2, rewriter.getIndexAttr(1));
    bool trivial = true;
    // Per dim, for the phase split: strided dims undilated, sizes static.
    SmallVector<PhaseDim> phaseDims;
    bool phased = false, phasable = true;
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = (*strides)[i], d = (*dilations)[i];
      if (s < 1 || d < 1)
        return rewriter.notifyMatchFailure(op, "strides/dilations < 1");
      int64_t effK = ((*kernel)[i] - 1) * d + 1;
      int64_t outPad = (*outputPadding)[i];
      Value in = im.v(xSizes[i + 2]);
      // The full output: s * (in - 1) + output_padding + effK.
      Value full =
          im.add(im.mul(im.c(s), im.sub(in, im.c(1))), im.c(outPad + effK));
      Value out;
      if (!resultType.isDynamicDim(i + 2))
        out = im.c(resultType.getDimSize(i + 2));
      else if (explicitShape)
        out = im.c(outputShape[i]);
      else if (same)
        out = im.mul(in, im.c(s));
      else if (autoPad == "VALID")
        out = full;
      else
        out = im.sub(full, im.c((*pads)[i] + (*pads)[i + n]));
      std::optional<int64_t> begin;
      if (explicitShape || same) {
        // ONNX: the pads split full - out; SAME_UPPER puts the odd one at
        // the end.
        std::optional<int64_t> total =
            getConstantIntValue(OpFoldResult(im.sub(full, out)));
        if (same && !explicitShape)
          total = outPad + effK - s; // full - in * s
        if (total)
          begin = *total < 0                ? 0
                  : autoPad == "SAME_UPPER" ? *total / 2
                                            : *total - *total / 2;
      } else {
        begin = autoPad == "VALID" ? 0 : (*pads)[i];
      }
      if (!begin)
        return rewriter.notifyMatchFailure(op,
                                           "padding known only at run time");
      int64_t low = effK - 1 - *begin;
      if (low < 0)
        return rewriter.notifyMatchFailure(op, "pads larger than the kernel");
      // The conv reads out - 1 + effK elements: at least the dilated input.
      Value dilated = im.add(im.mul(im.sub(in, im.c(1)), im.c(s)), im.c(1));
      Value size =
          im.max(im.add(im.c(low), dilated), im.add(out, im.c(effK - 1)));
      std::optional<int64_t> staticSize =
          getConstantIntValue(OpFoldResult(size));
      paddedShape.push_back(staticSize ? *staticSize : ShapedType::kDynamic);
      paddedSizes.push_back(size);
      offsets.push_back(rewriter.getIndexAttr(low));
      sliceStrides.push_back(rewriter.getIndexAttr(s));
      outSizes.push_back(out);
      std::optional<int64_t> outStatic = getConstantIntValue(OpFoldResult(out));
      phased |= s > 1;
      phasable &= (s == 1 || d == 1) && outStatic && *outStatic > 0 &&
                  !xType.isDynamicDim(i + 2);
      if (phasable)
        phaseDims.push_back(PhaseDim{s, d, (*kernel)[i], *begin,
                                     xType.getDimSize(i + 2), *outStatic});
      trivial &= s == 1 && low == 0 && staticSize &&
                 !xType.isDynamicDim(i + 2) &&
                 *staticSize == xType.getDimSize(i + 2);
    }
    // Strided: one stride-1 convolution per phase of the stride, which
    // multiplies no inserted zeros.
    if (phased && phasable) {
      FailureOr<Value> y = buildPhasedConvTranspose(
          rewriter, loc, adaptor.getX(), adaptor.getW(), adaptor.getB(),
          phaseDims, group, resultType);
      if (succeeded(y)) {
        Value result = *y;
        if (result.getType() != resultType)
          result = tensor::CastOp::create(rewriter, loc, resultType, result);
        rewriter.replaceOp(op, result);
        return success();
      }
    }
    if (!trivial) {
      Value padded = createFilled(
          rewriter, loc, RankedTensorType::get(paddedShape, elementType),
          paddedSizes, zero);
      x = tensor::InsertSliceOp::create(rewriter, loc, x, padded, offsets,
                                        xSizes, sliceStrides);
    }

    // W (C, M/G, K...) -> (M, C/G, K...) with the kernel reversed.
    SmallVector<int64_t> wShape{mPerGroup * group, c / group};
    for (int64_t i = 0; i < n; ++i)
      wShape.push_back((*kernel)[i]);
    auto wOutType = RankedTensorType::get(wShape, elementType);
    MLIRContext *ctx = rewriter.getContext();
    // Output index (m, c', k...) reads W[g * C/G + c', m % (M/G), K-1-k...]
    // with g = m / (M/G).
    SmallVector<AffineExpr> wExprs;
    AffineExpr m = getAffineDimExpr(0, ctx), cc = getAffineDimExpr(1, ctx);
    wExprs.push_back(m.floorDiv(mPerGroup) * (c / group) + cc);
    wExprs.push_back(m % mPerGroup);
    for (int64_t i = 0; i < n; ++i)
      wExprs.push_back((*kernel)[i] - 1 - getAffineDimExpr(i + 2, ctx));
    Value wEmpty = createEmpty(rewriter, loc, wOutType, {});
    Value w = linalg::GenericOp::create(
                  rewriter, loc, wOutType, ValueRange{adaptor.getW()},
                  ValueRange{wEmpty},
                  SmallVector<AffineMap>{AffineMap::get(rank, 0, wExprs, ctx),
                                         rewriter.getMultiDimIdentityMap(rank)},
                  SmallVector<utils::IteratorType>(
                      rank, utils::IteratorType::parallel),
                  [](OpBuilder &nb, Location nloc, ValueRange args) {
                    linalg::YieldOp::create(nb, nloc, args[0]);
                  })
                  .getResult(0);

    SmallVector<OpFoldResult> sizes{xSizes[0],
                                    rewriter.getIndexAttr(mPerGroup * group)};
    llvm::append_range(sizes, outSizes);
    Value init =
        buildConvInit(rewriter, loc, resultType, sizes, adaptor.getB(), zero);
    SmallVector<int64_t> ones(n, 1);
    auto result = buildConv(rewriter, loc, x, w, init, ones, *dilations, group);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "unsupported grouping");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateConvTransposePatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ConvTransposeLowering>(converter, patterns.getContext());
}
