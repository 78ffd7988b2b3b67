//===- Images.cpp - ImageDecoder -> a runtime call ------------------------===//
//
// ImageDecoder's result shape is known only once the image is decoded:
// onnxc_rt_image_decode (lib/Runtime/onnxc_images.c) decodes the encoded
// stream into a new tensor value, which is unboxed into the result (its
// channel count checked against the type).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

class ImageDecoderLowering : public OpConversionPattern<ONNXImageDecoderOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXImageDecoderOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op, 0);
    Value data = adaptor.getEncodedStream();
    auto dataType = dyn_cast<RankedTensorType>(data.getType());
    if (!type || type.getRank() != 3 || !dataType || dataType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "a 1-D stream, a 3-D result");
    StringRef pixels = op.getPixelFormat();
    int32_t format = pixels == "RGB" ? 0 : pixels == "BGR" ? 1 : 2;
    if (format == 2 && pixels != "Grayscale")
      return op.emitError() << "pixel_format '" << pixels
                            << "' is not RGB, BGR or Grayscale";
    Location loc = op.getLoc();
    // The node's description, for the runtime's messages.
    std::string node = describeNode(op);
    node += '\0';
    std::string name = addConstantGlobal(
        rewriter, loc, op, "__onnxc_node_",
        LLVM::LLVMArrayType::get(rewriter.getI8Type(), node.size()),
        rewriter.getStringAttr(node));
    Value nodeName = LLVM::AddressOfOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(getContext()), name);
    Value unranked = seqUnrankedView(rewriter, loc, data);
    Value value = seqCallRuntime(
        rewriter, loc, "onnxc_rt_image_decode",
        LLVM::LLVMPointerType::get(getContext()),
        {arith::ConstantIntOp::create(rewriter, loc, format, 32).getResult(),
         nodeName, unranked});
    rewriter.replaceOp(op, seqUnboxTensor(rewriter, loc, op, value, type,
                                          "the decoded image"));
    return success();
  }
};

} // namespace

void mlir::onnxc::populateImagePatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ImageDecoderLowering>(converter, patterns.getContext());
}
