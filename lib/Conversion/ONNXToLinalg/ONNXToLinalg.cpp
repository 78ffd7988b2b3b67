//===- ONNXToLinalg.cpp - The convert-onnx-to-linalg pass -----------------===//
//
// Drives the pattern families: first an analysis run finds every onnx op
// that no pattern can lower, and each is reported with its node; only when
// all can be lowered does the real conversion run.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/Passes.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_CONVERTONNXTOLINALG
#include "onnxc/Conversion/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// For a Conv, MaxPool or AveragePool with explicit pads (auto_pad NOTSET)
/// and static spatial input sizes: fails, with an error naming the dim,
/// when the dilated kernel is larger than the padded input.
LogicalResult checkWindowFits(Operation *op) {
  if (!isa<ONNXConvOp, ONNXMaxPoolOp, ONNXAveragePoolOp>(op) ||
      op->getNumOperands() == 0)
    return success();
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  if (autoPad && autoPad.getValue() != "NOTSET")
    return success();
  auto xType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!xType || xType.getRank() < 3)
    return success();
  int64_t n = xType.getRank() - 2;
  auto ints = [&](StringRef name, int64_t count,
                  int64_t fallback) -> SmallVector<int64_t> {
    SmallVector<int64_t> values(count, fallback);
    if (auto attr = op->getAttrOfType<ArrayAttr>(name)) {
      if (int64_t(attr.size()) != count)
        return {};
      for (auto [i, a] : llvm::enumerate(attr))
        if (auto v = dyn_cast<IntegerAttr>(a))
          values[i] = v.getInt();
    }
    return values;
  };
  SmallVector<int64_t> kernel = ints("kernel_shape", n, -1);
  if (isa<ONNXConvOp>(op) && op->getNumOperands() > 1)
    if (auto wType = dyn_cast<RankedTensorType>(op->getOperand(1).getType()))
      if (wType.getRank() == n + 2 && !kernel.empty())
        for (int64_t i = 0; i < n; ++i)
          if (kernel[i] < 0 && !wType.isDynamicDim(i + 2))
            kernel[i] = wType.getDimSize(i + 2);
  SmallVector<int64_t> dilations = ints("dilations", n, 1);
  SmallVector<int64_t> strides = ints("strides", n, 1);
  SmallVector<int64_t> pads = ints("pads", 2 * n, 0);
  if (kernel.size() != size_t(n) || dilations.size() != size_t(n) ||
      strides.size() != size_t(n) || pads.size() != size_t(2 * n))
    return success(); // The lowering reports malformed attributes.
  for (int64_t i = 0; i < n; ++i) {
    if (kernel[i] < 1 || strides[i] < 1 || xType.isDynamicDim(i + 2))
      continue;
    int64_t padded = xType.getDimSize(i + 2) + pads[i] + pads[i + n];
    int64_t window = (kernel[i] - 1) * dilations[i] + 1;
    // ONNX: floor((padded - window) / stride) + 1 (0 is an empty output).
    int64_t size = llvm::divideFloorSigned(padded - window, strides[i]) + 1;
    if (size < 0)
      return op->emitError()
             << "'" << op->getName() << "': the window along spatial dim " << i
             << " (kernel " << kernel[i] << ", dilation " << dilations[i]
             << ": " << window
             << " positions) is larger than the padded input ("
             << xType.getDimSize(i + 2) << " + pads " << pads[i] << " + "
             << pads[i + n] << " = " << padded << "): the output size would be "
             << size;
  }
  return success();
}

} // namespace

namespace {

/// onnx.Constant -> arith.constant (signless element type).
class ConstantLowering : public OpConversionPattern<ONNXConstantOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ElementsAttr value = op.getValueAttr();
    if (!value)
      return rewriter.notifyMatchFailure(op, "sparse constant");
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(value.getType()));
    if (!type || isa<StringType, ComplexType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    TypedAttr attr;
    if (auto dense = dyn_cast<DenseElementsAttr>(value))
      attr = type == dense.getType() ? dense
                                     : dense.bitcast(type.getElementType());
    else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
      attr = DenseResourceElementsAttr::get(type, resource.getRawHandle());
    else
      return rewriter.notifyMatchFailure(op, "unsupported attribute kind");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, attr);
    return success();
  }
};

/// Removes every run-time check (`runtime-checks=false`): the scf.if ops
/// that call onnxc_rt_fail; canonicalization then drops what only they used.
void removeRuntimeChecks(ModuleOp module) {
  SmallVector<scf::IfOp> checks;
  module.walk([&](func::CallOp call) {
    if (call.getCallee() == kRuntimeFailFnName)
      if (auto ifOp = dyn_cast<scf::IfOp>(call->getParentOp()))
        if (ifOp.getNumResults() == 0)
          checks.push_back(ifOp);
  });
  for (scf::IfOp ifOp : checks)
    ifOp.erase();
  module->removeAttr(kRuntimeMessagesAttrName);
}

struct ConvertONNXToLinalgPass
    : mlir::onnxc::impl::ConvertONNXToLinalgBase<ConvertONNXToLinalgPass> {
  using ConvertONNXToLinalgBase::ConvertONNXToLinalgBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    ONNXToLinalgTypeConverter converter;

    ConversionTarget target(*ctx);
    target.addIllegalDialect<ONNXDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect,
                           bufferization::BufferizationDialect>();
    target.addLegalOp<ModuleOp, func::CallOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(ctx);
    patterns.add<ConstantLowering>(converter, ctx);
    populateElementwisePatterns(converter, patterns);
    populateMatMulPatterns(converter, patterns);
    populateConvPatterns(converter, patterns);
    populatePoolingPatterns(converter, patterns);
    populateNormalizationPatterns(converter, patterns);
    populateSoftmaxPatterns(converter, patterns);
    populateReductionPatterns(converter, patterns);
    populateTensorPatterns(converter, patterns);
    populateControlFlowPatterns(converter, patterns);
    populateQuantizationPatterns(converter, patterns);
    populateResizePatterns(converter, patterns);
    populateEinsumPatterns(converter, patterns);
    populateGridSamplePatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    FrozenRewritePatternSet frozen(std::move(patterns));

    // A window larger than its padded input has no output position (ONNX's
    // shape inference gives the output a negative size, which the import
    // leaves dynamic): said here, instead of a slice out of bounds later.
    bool emptyWindows = false;
    module.walk([&](Operation *op) {
      if (failed(checkWindowFits(op)))
        emptyWindows = true;
    });
    if (emptyWindows)
      return signalPassFailure();

    // Find every op no pattern can lower, and report them all.
    DenseSet<Operation *> legalizable;
    ConversionConfig analysis;
    analysis.legalizableOps = &legalizable;
    (void)applyAnalysisConversion(module, target, frozen, analysis);
    bool unsupported = false;
    module.walk([&](Operation *op) {
      if (!isa<ONNXDialect>(op->getDialect()) || legalizable.contains(op))
        return;
      // Terminators of regions whose parent cannot be lowered add nothing.
      if (isa<ONNXYieldOp>(op) && !legalizable.contains(op->getParentOp()))
        return;
      unsupported = true;
      InFlightDiagnostic diag = op->emitError()
                                << "'" << op->getName()
                                << "' is not supported by the CPU backend";
      for (Type t : op->getOperandTypes())
        if (!isa<RankedTensorType>(t)) {
          diag << " with operand type " << t;
          break;
        }
      for (Type t : op->getResultTypes())
        if (!isa<RankedTensorType>(t)) {
          diag << " with result type " << t
               << " (shape inference could not give it a rank)";
          break;
        }
    });
    if (unsupported)
      return signalPassFailure();
    // Run-time checks call onnxc_rt_fail; drop the declaration if none does.
    declareRuntimeFailFn(module);
    if (failed(applyPartialConversion(module, target, frozen)))
      return signalPassFailure();
    // A tensor.cast that makes a dynamic dim static asserts the model's
    // inferred shape: check it at run time (declared vs actual dims).
    module.walk([&](tensor::CastOp cast) {
      auto src = dyn_cast<RankedTensorType>(cast.getSource().getType());
      auto dst = dyn_cast<RankedTensorType>(cast.getType());
      if (!src || !dst || src.getRank() != dst.getRank())
        return;
      bool narrows = false;
      for (int64_t i = 0; i < src.getRank(); ++i)
        narrows |= src.isDynamicDim(i) && !dst.isDynamicDim(i);
      if (!narrows)
        return;
      OpBuilder b(cast);
      emitStaticDimsCheck(b, cast.getLoc(), /*op=*/nullptr, cast.getSource(),
                          dst.getShape(), "a tensor");
    });
    if (!runtimeChecks)
      removeRuntimeChecks(module);
    Operation *failFn = module.lookupSymbol(kRuntimeFailFnName);
    if (failFn && SymbolTable::symbolKnownUseEmpty(failFn, module))
      failFn->erase();
  }
};

} // namespace
