//===- Windowed.cpp - Depthwise convs and pooling over shifted views ------===//
//
// Part of onnxc-conv-to-matmul: a depthwise convolution or a max or sum
// pooling becomes one elementwise linalg.generic over the window's shifted
// views of the input (no reduction loop, so onnxc-tile-and-vectorize
// vectorises it along the image and keeps each output vector in a
// register across the window).
//
//===----------------------------------------------------------------------===//

#include "ConvEpilogue.h"
#include "ConvUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlir::onnxc::conv {

namespace {
constexpr int64_t kMaxTaps = 64;
constexpr int64_t kMaxColumnStride = 4;
} // namespace

/// A depthwise convolution (1 x C x Hp x Wp, filter C x KH x KW) as one
/// elementwise linalg.generic whose operands are the KH*KW shifted views of
/// the input and the matching filter columns: its body sums the products,
/// so the vectorised loop keeps each output vector in a register across the
/// kernel positions. A max or sum pooling is the same without the filter:
/// the body takes the maximum or the sum of the views.
/// - Stride 1: the iteration space is C x positions over the flattened
///   input, as in rewriteConv (rows of Wp columns, Wp - OW of them dropped),
///   so that the vectors run along whole images, not along short rows.
/// - Other strides: the iteration space is C x OH x OW over strided views
///   of the input (no copies: reading the input's column phases from
///   copies made MaxPool 3x3/2 on 96 x 111 x 111 three passes, 0.27 ms;
///   direct, 0.15 ms).
LogicalResult rewriteWindowed(RewriterBase &rewriter, linalg::LinalgOp conv,
                              bool fuseEpilogue) {
  Window kind = windowKind(conv);
  if (kind == Window::None || !isStaticF32Batch1(conv))
    return failure();
  bool depthwise = kind == Window::Depthwise;
  // A depthwise conv's elementwise consumer becomes part of the body.
  std::optional<onnxc::ConvEpilogue> epilogue;
  if (fuseEpilogue && depthwise)
    epilogue = onnxc::ConvEpilogue::match(conv->getResult(0));
  Value x = conv.getDpsInputs()[0], w = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  auto attr = [&](StringRef name) {
    return attrValues(conv->getAttrOfType<DenseIntElementsAttr>(name));
  };
  SmallVector<int64_t> strides = attr("strides");
  SmallVector<int64_t> dilations = attr("dilations");
  int64_t c = xType.getDimSize(1), wp = xType.getDimSize(3);
  // The window: the filter is C x KH x KW, a pooling's window KH x KW.
  int64_t kh = wType.getDimSize(depthwise ? 1 : 0),
          kw = wType.getDimSize(depthwise ? 2 : 1);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t dh = dilations[0], dw = dilations[1];
  bool unitStride = strides[0] == 1 && strides[1] == 1;
  // One operand per kernel position, columns read with a shuffle: large
  // windows or column strides (a 60 x 80 pooling window) stay as they are.
  if (kh * kw > kMaxTaps || strides[1] > kMaxColumnStride)
    return failure();
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(epilogue ? epilogue->getOp().getOperation()
                                      : conv.getOperation());
  if (epilogue)
    epilogue->prepare(rewriter, epilogue->getOp().getLoc());
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  auto one = idx(1), zero = idx(0);

  int64_t positions = oh * wp;
  int64_t computed = positions - (kw - 1) * dw;
  SmallVector<int64_t> domain =
      unitStride ? SmallVector<int64_t>{c, computed}
                 : SmallVector<int64_t>{c, oh, ow};
  unsigned rank = domain.size();
  auto domainType = RankedTensorType::get(domain, f32);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(0, ctx));

  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // Stride 1: views of the flattened input. Other strides: strided views
  // of the input planes (onnxc-lower-vectors reads a column stride of up
  // to 4 as one contiguous load and a shuffle).
  int64_t sh = strides[0], sw = strides[1];
  Value flat, planes;
  if (unitStride)
    flat = dropBatch(rewriter, loc, x, /*mergeLast=*/true);
  else
    planes = dropBatch(rewriter, loc, x, /*mergeLast=*/false);
  for (int64_t i = 0; i < kh; ++i) {
    for (int64_t j = 0; j < kw; ++j) {
      if (unitStride) {
        inputs.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc, domainType, flat,
            ArrayRef<OpFoldResult>{zero, idx(i * dh * wp + j * dw)},
            ArrayRef<OpFoldResult>{idx(c), idx(computed)},
            ArrayRef<OpFoldResult>{one, one}));
      } else {
        inputs.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc, domainType, planes,
            ArrayRef<OpFoldResult>{zero, idx(i * dh), idx(j * dw)},
            ArrayRef<OpFoldResult>{idx(c), idx(oh), idx(ow)},
            ArrayRef<OpFoldResult>{one, idx(sh), idx(sw)}));
      }
      maps.push_back(identity);
      if (!depthwise)
        continue;
      inputs.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({c}, f32), w,
          ArrayRef<OpFoldResult>{zero, idx(i), idx(j)},
          ArrayRef<OpFoldResult>{idx(c), one, one},
          ArrayRef<OpFoldResult>{one, one, one}));
      maps.push_back(channel);
    }
  }
  // The initial value: a fill's scalar, a per-channel bias, or the whole
  // init tensor laid out like the iteration space.
  ConvStart kindOfStart(init);
  Value start;
  bool startIsInput = true;
  if (kindOfStart.scalar) {
    start = kindOfStart.scalar;
    startIsInput = false;
  } else if (kindOfStart.bias) {
    start = kindOfStart.bias;
    maps.push_back(channel);
  } else if (unitStride) {
    Value acc = dropBatch(rewriter, loc, init, /*mergeLast=*/false);
    if (wp != ow)
      acc = zeroPadHigh(rewriter, loc, acc, {0, 0, wp - ow});
    acc = tensor::CollapseShapeOp::create(
        rewriter, loc, acc, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    start = tensor::ExtractSliceOp::create(
        rewriter, loc, domainType, acc, ArrayRef<OpFoldResult>{zero, zero},
        ArrayRef<OpFoldResult>{idx(c), idx(computed)},
        ArrayRef<OpFoldResult>{one, one});
    maps.push_back(identity);
  } else {
    start = dropBatch(rewriter, loc, init, /*mergeLast=*/false);
    maps.push_back(identity);
  }
  if (startIsInput)
    inputs.push_back(start);
  if (epilogue) {
    llvm::append_range(inputs, epilogue->getOperands());
    llvm::append_range(maps, epilogue->getOperandMaps(rank));
  }
  maps.push_back(identity); // the output

  // Stride 1: the output is written into the first `computed` positions of
  // a C x (OH * Wp) tensor, whose other columns are never read.
  Value full, out;
  if (unitStride) {
    full = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{c, positions}, f32);
    out = tensor::ExtractSliceOp::create(
        rewriter, loc, domainType, full, ArrayRef<OpFoldResult>{zero, zero},
        ArrayRef<OpFoldResult>{idx(c), idx(computed)},
        ArrayRef<OpFoldResult>{one, one});
  } else {
    out = tensor::EmptyOp::create(rewriter, loc, domain, f32);
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  // Operands per kernel position: the view, and the filter column.
  int64_t taps = kh * kw, perTap = depthwise ? 2 : 1;
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{domainType}, inputs, ValueRange{out}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value acc = combineWindow(
            b, l, kind, startIsInput ? args[perTap * taps] : start, args, taps);
        if (epilogue)
          acc = epilogue->emitBody(
              b, acc,
              args.slice(perTap * taps + startIsInput,
                         epilogue->getOperands().size()));
        linalg::YieldOp::create(b, l, acc);
      });
  Value result = generic.getResult(0);
  if (unitStride) {
    result = tensor::InsertSliceOp::create(
        rewriter, loc, result, full, ArrayRef<OpFoldResult>{zero, zero},
        ArrayRef<OpFoldResult>{idx(c), idx(computed)},
        ArrayRef<OpFoldResult>{one, one});
    result = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({c, oh, wp}, f32), result,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
  }
  replaceConvByRows(rewriter, loc, conv,
                    epilogue ? epilogue->getOp().getOperation() : nullptr,
                    result);
  return success();
}

} // namespace mlir::onnxc::conv
