//===- ExpandDynamicGroups.cpp - Expanded views as reinterpret_casts ------===//
//
// A memref.expand_shape that splits one dim into several dynamic ones
// (a [batch * seq, features] buffer viewed as [batch, seq, features] with
// both run-time sizes, as every dynamic-batch, dynamic-sequence model has)
// becomes a memref.reinterpret_cast of the source's base buffer: the sizes
// are the op's output_shape, the innermost dim of each group keeps the
// source dim's stride and each dim outside it strides over the one inside.
// MLIR 22's expand-strided-metadata assumes at most one dynamic size per
// group and, in release builds, reads a null size for the second and
// crashes.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_EXPANDDYNAMICGROUPS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
struct ExpandDynamicGroup : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    MemRefType type = op.getResultType();
    SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
    bool twoDynamic = llvm::any_of(groups, [&](const ReassociationIndices &g) {
      return llvm::count_if(g, [&](int64_t d) {
               return type.isDynamicDim(d);
             }) > 1;
    });
    SmallVector<int64_t> typeStrides;
    int64_t typeOffset;
    if (!twoDynamic ||
        failed(type.getStridesAndOffset(typeStrides, typeOffset)))
      return failure();
    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    auto value = [&](OpFoldResult v) -> Value {
      if (auto attr = dyn_cast<Attribute>(v))
        return arith::ConstantIndexOp::create(
            rewriter, loc, cast<IntegerAttr>(attr).getInt());
      return cast<Value>(v);
    };
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(type.getRank());
    for (auto [srcDim, group] : llvm::enumerate(groups)) {
      Value stride = metadata.getStrides()[srcDim];
      for (int64_t d : llvm::reverse(group)) {
        strides[d] = stride;
        stride = arith::MulIOp::create(rewriter, loc, stride, value(sizes[d]));
      }
    }
    // Static sizes, strides and offset where the type has them (the cast's
    // verifier compares them).
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        sizes[d] = rewriter.getIndexAttr(type.getDimSize(d));
      if (!ShapedType::isDynamic(typeStrides[d]))
        strides[d] = rewriter.getIndexAttr(typeStrides[d]);
    }
    OpFoldResult offset = ShapedType::isDynamic(typeOffset)
                              ? OpFoldResult(metadata.getOffset())
                              : rewriter.getIndexAttr(typeOffset);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, type, metadata.getBaseBuffer(), offset, sizes, strides);
    return success();
  }
};

struct ExpandDynamicGroupsPass
    : mlir::onnxc::impl::ExpandDynamicGroupsBase<ExpandDynamicGroupsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandDynamicGroup>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
