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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_CONVERTONNXTOLINALG
#include "onnxc/Conversion/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// For a Conv, MaxPool or AveragePool with static spatial input sizes:
/// fails, with an error naming the dim, where its window (as the lowering
/// computes it, computeSlidingWindow) has a negative number of output
/// positions: the dilated kernel is larger than the padded input by more
/// than a stride.
LogicalResult checkWindowFits(Operation *op) {
  FailureOr<SmallVector<int64_t>> kernel = failure();
  bool ceilMode = false;
  if (auto conv = dyn_cast<ONNXConvOp>(op)) {
    if (auto wType = dyn_cast<RankedTensorType>(conv.getW().getType()))
      kernel = getKernelShape(conv.getKernelShapeAttr(), wType);
  } else if (!isa<ONNXMaxPoolOp, ONNXAveragePoolOp>(op)) {
    return success();
  }
  auto xType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!xType || !resultType || xType.getRank() < 3)
    return success(); // The lowering reports what it cannot handle.
  if (auto pool = dyn_cast<ONNXMaxPoolOp>(op)) {
    kernel = getKernelShape(pool.getKernelShapeAttr(), xType);
    ceilMode = pool.getCeilMode() != 0;
  } else if (auto pool = dyn_cast<ONNXAveragePoolOp>(op)) {
    kernel = getKernelShape(pool.getKernelShapeAttr(), xType);
    ceilMode = pool.getCeilMode() != 0;
  }
  if (failed(kernel))
    return success();
  // The window's ops (tensor.dims of dynamic dims) go into a scratch block
  // that is thrown away.
  Block scratch;
  OpBuilder b(op->getContext());
  b.setInsertionPointToEnd(&scratch);
  auto attr = [&](StringRef name) {
    return op->getAttrOfType<ArrayAttr>(name);
  };
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  FailureOr<SlidingWindow> window = computeSlidingWindow(
      b, op->getLoc(), op->getOperand(0), resultType, *kernel, attr("strides"),
      attr("dilations"), attr("pads"), autoPad ? autoPad.getValue() : "NOTSET",
      ceilMode);
  if (failed(window))
    return success();
  for (int64_t i = 0, n = xType.getRank() - 2; i < n; ++i) {
    std::optional<int64_t> size = getConstantIntValue(window->outSizes[i]),
                           lo = getConstantIntValue(window->padLow[i]),
                           hi = getConstantIntValue(window->padHigh[i]);
    if (xType.isDynamicDim(i + 2) || !size || !lo || !hi || *size >= 0)
      continue;
    int64_t in = xType.getDimSize(i + 2);
    int64_t positions = ((*kernel)[i] - 1) * window->dilations[i] + 1;
    return op->emitError() << "'" << op->getName()
                           << "': the window along spatial dim " << i
                           << " (kernel " << (*kernel)[i] << ", dilation "
                           << window->dilations[i] << ": " << positions
                           << " positions) is larger than the padded input ("
                           << in << " + pads " << *lo << " + " << *hi << " = "
                           << in + *lo + *hi << "): the output size would be "
                           << *size;
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
    if (!type || isa<StringType, ComplexType>(value.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    TypedAttr attr;
    Type elem = value.getElementType();
    auto dense = dyn_cast<DenseElementsAttr>(value);
    if (dense && (isNarrowFloat(elem) || isNarrowInteger(elem))) {
      // Held in i8: the bits of a float, an integer extended.
      bool isSigned = isNarrowInteger(elem) && !elem.isUnsignedInteger();
      auto widen = [&](const APInt &bits) {
        return isSigned ? bits.sext(8) : bits.zext(8);
      };
      attr = isa<FloatType>(elem)
                 ? dense.mapValues(type.getElementType(),
                                   [&](const APFloat &f) {
                                     return widen(f.bitcastToAPInt());
                                   })
                 : dense.mapValues(type.getElementType(), widen);
    } else if (dense)
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
                           scf::SCFDialect, memref::MemRefDialect,
                           LLVM::LLVMDialect,
                           bufferization::BufferizationDialect>();
    target.addLegalOp<ModuleOp, func::CallOp, UnrealizedConversionCastOp>();
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
    populateDFTPatterns(converter, patterns);
    populateEinsumPatterns(converter, patterns);
    populateGridSamplePatterns(converter, patterns);
    populateRecurrentPatterns(converter, patterns);
    populateTrainingPatterns(converter, patterns);
    populateDetectionPatterns(converter, patterns);
    populateTextPatterns(converter, patterns);
    populateImagePatterns(converter, patterns);
    populateQuantizedConvPatterns(converter, patterns);
    populateDetPatterns(converter, patterns);
    populateLinearAttentionPatterns(converter, patterns);
    populateCol2ImPatterns(converter, patterns);
    populateDeformConvPatterns(converter, patterns);
    populateRandomPatterns(converter, patterns);
    populateTreeEnsemblePatterns(converter, patterns);
    populateSequencePatterns(converter, patterns);
    populateStringPatterns(converter, patterns);
    populateMLPatterns(converter, patterns);
    populateMapPatterns(converter, patterns);
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
    if (emptyWindows || failed(checkStringOps(module)))
      return signalPassFailure();

    // Find every op no pattern can lower, and report them all. The
    // analysis's own diagnostics (errors the patterns give) are held back
    // until it is final: an If branch that cannot be compiled for the
    // shapes it sees, beside one that can, is compiled to fail when taken
    // and is analysed no more.
    DenseSet<Operation *> legalizable;
    SmallVector<Diagnostic> analysisDiags;
    auto analyse = [&]() {
      legalizable.clear();
      analysisDiags.clear();
      ScopedDiagnosticHandler hold(ctx, [&](Diagnostic &d) {
        analysisDiags.push_back(std::move(d));
        return success();
      });
      ConversionConfig analysis;
      analysis.legalizableOps = &legalizable;
      (void)applyAnalysisConversion(module, target, frozen, analysis);
      SmallVector<Operation *> found;
      module.walk([&](Operation *op) {
        if (!isa<ONNXDialect>(op->getDialect()) || legalizable.contains(op))
          return;
        // Terminators of regions whose parent cannot be lowered add nothing.
        if (isa<ONNXYieldOp>(op) && !legalizable.contains(op->getParentOp()))
          return;
        found.push_back(op);
      });
      return found;
    };
    SmallVector<Operation *> unsupportedOps = analyse();
    while (!unsupportedOps.empty() &&
           cutUncompilableBranches(unsupportedOps, frozen))
      unsupportedOps = analyse();
    // An op a pattern already gave an error (a contradiction it names) is
    // not reported again as unsupported.
    DenseSet<Location> explained;
    for (Diagnostic &d : analysisDiags) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        explained.insert(d.getLocation());
      ctx->getDiagEngine().emit(std::move(d));
    }
    bool unsupported = !unsupportedOps.empty();
    for (Operation *op : unsupportedOps) {
      if (explained.contains(op->getLoc()))
        continue;
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
    }
    if (unsupported)
      return signalPassFailure();
    // Run-time checks call onnxc_rt_fail; drop the declaration if none does.
    declareRuntimeFailFn(module);
    if (failed(applyPartialConversion(module, target, frozen)))
      return signalPassFailure();
    declareRuntimeValueFunctions(module);
    // The casts between sequences or optionals and their pointers that
    // control flow put at region boundaries cancel out now.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp c) { casts.push_back(c); });
    reconcileUnrealizedCasts(casts);
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
