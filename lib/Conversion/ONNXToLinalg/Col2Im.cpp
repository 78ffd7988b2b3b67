//===- Col2Im.cpp - Col2Im -> scf loops -----------------------------------===//
//
// Col2Im-18 folds columns back into an image: input (N, C * prod(block),
// L) holds, per block position l and kernel offset, one value that is added
// to the image position block * stride - pad_begin + offset * dilation (if
// it is inside the image). image_shape and block_shape are run-time inputs
// of static length; a loop over the input scatters-adds into a zeroed
// (N, C, image...) tensor, after checks that L is the number of block
// positions and dim 1 a multiple of the block size.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

class Col2ImLowering : public TensorPattern<ONNXCol2ImOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXCol2ImOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    auto inType = getMovableRankedType(in);
    auto imageType =
        dyn_cast<RankedTensorType>(adaptor.getImageShape().getType());
    if (!type || !inType || inType.getRank() != 3 || !imageType ||
        imageType.getRank() != 1 || imageType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "input (N, C*K, L), 1-D shapes");
    int64_t dims = imageType.getDimSize(0);
    if (dims < 1 || type.getRank() != dims + 2)
      return rewriter.notifyMatchFailure(op, "result rank");
    Type elem = inType.getElementType();
    if (!elem.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "numeric data");
    auto attr = [&](std::optional<ArrayAttr> a, size_t n,
                    int64_t dflt) -> FailureOr<SmallVector<int64_t>> {
      SmallVector<int64_t> v(n, dflt);
      if (!a)
        return v;
      if (a->size() != n)
        return failure();
      for (size_t i = 0; i < n; ++i)
        v[i] = cast<IntegerAttr>((*a)[i]).getInt();
      return v;
    };
    auto dilations = attr(op.getDilations(), dims, 1);
    auto strides = attr(op.getStrides(), dims, 1);
    auto pads = attr(op.getPads(), 2 * dims, 0);
    if (failed(dilations) || failed(strides) || failed(pads) ||
        llvm::any_of(*dilations, [](int64_t d) { return d < 1; }) ||
        llvm::any_of(*strides, [](int64_t d) { return d < 1; }))
      return rewriter.notifyMatchFailure(op, "dilations, strides or pads");
    IndexMath m(rewriter, loc);
    SmallVector<Value> image, block, blocks;
    Value kernel = m.c(1), positions = m.c(1);
    for (int64_t i = 0; i < dims; ++i) {
      auto at = [&](Value t) {
        return scalarToIndex(
            rewriter, loc,
            tensor::ExtractOp::create(rewriter, loc, t, ValueRange{m.c(i)}),
            nullptr);
      };
      image.push_back(at(adaptor.getImageShape()));
      block.push_back(at(adaptor.getBlockShape()));
      emitRuntimeCheck(rewriter, loc, op,
                       arith::OrIOp::create(rewriter, loc,
                                            m.cmp(Pred::slt, block[i], m.c(1)),
                                            m.cmp(Pred::slt, image[i], m.c(1))),
                       "image_shape[" + Twine(i) + "] = {0} or block_shape[" +
                           Twine(i) + "] = {1} is below 1",
                       {image[i], block[i]});
      // Block positions along dim i.
      Value span =
          m.add(m.mul(m.c((*dilations)[i]), m.sub(block[i], m.c(1))), m.c(1));
      Value padded = m.add(image[i], m.c((*pads)[i] + (*pads)[i + dims]));
      Value n = m.add(m.div(m.sub(padded, span), m.c((*strides)[i])), m.c(1));
      blocks.push_back(m.max(n, m.c(0)));
      kernel = m.mul(kernel, block[i]);
      positions = m.mul(positions, blocks[i]);
    }
    Value channels = getDimValue(rewriter, loc, in, 1);
    Value length = getDimValue(rewriter, loc, in, 2);
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::OrIOp::create(rewriter, loc,
                             m.cmp(Pred::ne, m.rem(channels, kernel), m.c(0)),
                             m.cmp(Pred::ne, length, positions)),
        "input has {0} rows and {1} columns; the blocks need a multiple of "
        "{2} rows and {3} columns",
        {channels, length, kernel, positions});
    SmallVector<OpFoldResult> sizes{getDims(rewriter, loc, in)[0],
                                    m.div(channels, kernel)};
    for (Value v : image)
      sizes.push_back(v);
    Value out0 =
        createFilled(rewriter, loc, type, preferStatic(rewriter, type, sizes),
                     createScalarConstant(rewriter, loc, elem, 0));
    Value result = loopNest(
        rewriter, loc,
        SmallVector<Value>{getDimValue(rewriter, loc, in, 0), channels, length},
        out0,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange it) -> SmallVector<Value> {
          IndexMath mm(b, l);
          Value c = mm.div(ivs[1], kernel);
          Value kr = mm.rem(ivs[1], kernel), lr = ivs[2];
          SmallVector<Value> at(dims + 2);
          at[0] = ivs[0];
          at[1] = c;
          Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
          for (int64_t i = dims - 1; i >= 0; --i) {
            Value k = mm.rem(kr, block[i]), p = mm.rem(lr, blocks[i]);
            kr = mm.div(kr, block[i]);
            lr = mm.div(lr, blocks[i]);
            Value o =
                mm.add(mm.sub(mm.mul(p, mm.c((*strides)[i])), mm.c((*pads)[i])),
                       mm.mul(k, mm.c((*dilations)[i])));
            inside = arith::AndIOp::create(
                b, l, inside,
                arith::AndIOp::create(b, l, mm.cmp(Pred::sge, o, mm.c(0)),
                                      mm.cmp(Pred::slt, o, image[i])));
            at[2 + i] = o;
          }
          auto ifOp = scf::IfOp::create(b, l, it.getTypes(), inside,
                                        /*withElseRegion=*/true);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          Value v = tensor::ExtractOp::create(b, l, in, ivs);
          Value old = tensor::ExtractOp::create(b, l, it[0], at);
          Value sum = isa<FloatType>(elem)
                          ? arith::AddFOp::create(b, l, old, v).getResult()
                          : arith::AddIOp::create(b, l, old, v).getResult();
          scf::YieldOp::create(
              b, l, tensor::InsertOp::create(b, l, sum, it[0], at).getResult());
          b.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(b, l, it);
          return SmallVector<Value>(ifOp.getResults());
        })[0];
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateCol2ImPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<Col2ImLowering>(converter, patterns.getContext());
}
