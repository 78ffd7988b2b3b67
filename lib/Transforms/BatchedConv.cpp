//===- BatchedConv.cpp - A batch of images as one tall image --------------===//
//
// rewriteConv (ConvToMatmul.cpp) takes batch-1 convolutions. A batch of N
// images becomes one: the (padded) input N x C x Hp x Wp is transposed to
// C x N x Hp x Wp, i.e. one image of N * Hp rows, and convolved as such.
// Output row j of the tall image reads input rows j*s .. j*s + extent - 1;
// for j = n * Hp/s + oh (oh < OH) those all lie in image n, so its rows are
// image n's output rows; the rows whose window spans two images are
// computed and dropped (Hp/s - OH per image, the price of one matmul over
// the whole batch). Needs Hp to be a multiple of the row stride.
//
//===----------------------------------------------------------------------===//

#include "ConvUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::onnxc::conv;

FailureOr<linalg::Conv2DNchwFchwOp>
mlir::onnxc::conv::foldBatchIntoRows(RewriterBase &rewriter,
                                     linalg::Conv2DNchwFchwOp conv) {
  if (!isStaticF32(conv))
    return failure();
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> strides = attrValues(conv.getStridesAttr());
  SmallVector<int64_t> dilations = attrValues(conv.getDilationsAttr());
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1),
          hp = xType.getDimSize(2), wp = xType.getDimSize(3);
  int64_t f = wType.getDimSize(0), kh = wType.getDimSize(2);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t sh = strides[0];
  if (n == 1 || hp % sh != 0)
    return failure();
  int64_t extent = dilations[0] * (kh - 1) + 1;
  int64_t rows = (n * hp - extent) / sh + 1;
  int64_t perImage = hp / sh;
  Location loc = conv.getLoc();
  Type f32 = rewriter.getF32Type();
  rewriter.setInsertionPoint(conv);

  // N x C x Hp x Wp -> C x N x Hp x Wp -> 1 x C x (N Hp) x Wp.
  Value xt = linalg::TransposeOp::create(
                 rewriter, loc, x,
                 tensor::EmptyOp::create(rewriter, loc,
                                         ArrayRef<int64_t>{c, n, hp, wp}, f32),
                 ArrayRef<int64_t>{1, 0, 2, 3})
                 ->getResult(0);
  Value tall = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({c, n * hp, wp}, f32), xt,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
  tall = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({1, c, n * hp, wp}, f32), tall,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});

  // The tall conv starts as the original did (a fill or a bias, which
  // rewriteConv recognises), or at zero with the original init added after.
  ConvStart start(init);
  auto tallOutType = RankedTensorType::get({1, f, rows, ow}, f32);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, tallOutType.getShape(), f32);
  Value tallInit;
  if (start.bias)
    tallInit = linalg::BroadcastOp::create(rewriter, loc, start.bias, empty,
                                           ArrayRef<int64_t>{0, 2, 3})
                   ->getResult(0);
  else
    tallInit = linalg::FillOp::create(
                   rewriter, loc,
                   start.scalar ? start.scalar
                                : arith::ConstantOp::create(
                                      rewriter, loc, rewriter.getZeroAttr(f32))
                                      .getResult(),
                   empty)
                   .getResult(0);
  auto tallConv = linalg::Conv2DNchwFchwOp::create(
      rewriter, loc, TypeRange{tallOutType}, ValueRange{tall, w},
      ValueRange{tallInit}, conv.getStridesAttr(), conv.getDilationsAttr());

  // 1 x F x rows x OW -> F x (N Hp/s) x OW -> F x N x Hp/s x OW, then the
  // first OH rows of each image, as N x F x OH x OW.
  Value y = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, rows, ow}, f32),
      tallConv.getResult(0), ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
  y = zeroPadHigh(rewriter, loc, y, {0, n * perImage - rows, 0});
  y = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, n, perImage, ow}, f32), y,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
  y = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({f, n, oh, ow}, f32), y,
      ValueRange{}, ValueRange{}, ValueRange{},
      rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}),
      rewriter.getDenseI64ArrayAttr({f, n, oh, ow}),
      rewriter.getDenseI64ArrayAttr({1, 1, 1, 1}));
  Value result =
      linalg::TransposeOp::create(
          rewriter, loc, y,
          tensor::EmptyOp::create(rewriter, loc, outType.getShape(), f32),
          ArrayRef<int64_t>{1, 0, 2, 3})
          ->getResult(0);
  if (start.tensor)
    result = linalg::AddOp::create(rewriter, loc, ValueRange{result, init},
                                   ValueRange{tensor::EmptyOp::create(
                                       rewriter, loc, outType.getShape(), f32)})
                 .getResult(0);
  rewriter.replaceOp(conv, result);
  return tallConv;
}
