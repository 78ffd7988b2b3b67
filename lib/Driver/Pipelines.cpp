//===- Pipelines.cpp - The compilation pipelines of onnxc -----------------===//

#include "onnxc/Driver/Pipelines.h"

#include "onnxc/Codegen/Passes.h"
#include "onnxc/Conversion/Passes.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// The innermost node name inside `loc`, or a null attribute.
StringAttr nodeName(Location loc) {
  StringAttr name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

struct LocateByNodePass
    : public PassWrapper<LocateByNodePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LocateByNodePass)
  StringRef getArgument() const override { return "onnxc-locate-by-node"; }
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (isa<LLVM::LLVMFuncOp, ModuleOp>(op))
        return;
      if (StringAttr name = nodeName(op->getLoc()))
        op->setLoc(FileLineColLoc::get(name, 1, 0));
    });
  }
};
} // namespace

void mlir::onnxc::buildNodeLineTablesPipeline(OpPassManager &pm) {
  pm.addPass(std::make_unique<LocateByNodePass>());
  LLVM::DIScopeForLLVMFuncOpPassOptions scope;
  scope.emissionKind = LLVM::DIEmissionKind::LineTablesOnly;
  pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass(scope));
}

void mlir::onnxc::buildONNXGraphPipeline(OpPassManager &pm) {
  // QDQ patterns first, before the folds turn weights' DequantizeLinear
  // into float constants.
  pm.addNestedPass<func::FuncOp>(createONNXFuseQDQ());
  // Shapes computed by Shape -> Gather -> Concat chains become constants,
  // which make their Reshapes static, which makes the next Shape constant:
  // folds, simplifications and inference in rounds until nothing changes.
  pm.addNestedPass<func::FuncOp>(createONNXFoldToFixpoint());
  pm.addNestedPass<func::FuncOp>(createONNXFoldBatchNorm());
  // The small weights the folds into Conv and Gemm computed; Ifs whose
  // conditions the folds made constant (branches on static shapes):
  // inlined, then typed and folded through.
  pm.addNestedPass<func::FuncOp>(createONNXFoldToFixpoint());
  pm.addPass(createCSEPass());
}

void mlir::onnxc::buildONNXToLinalgPipeline(OpPassManager &pm,
                                             bool runtimeChecks,
                                             bool graphPasses) {
  pm.addNestedPass<func::FuncOp>(createONNXShapeInference());
  // Backward graphs first, so that every later pass applies to them.
  pm.addNestedPass<func::FuncOp>(createONNXDeriveGradients());
  if (graphPasses)
    buildONNXGraphPipeline(pm);
  // Outputs whose rank the taken If branch decides leave as boxed values.
  pm.addNestedPass<func::FuncOp>(createONNXBoxUnrankedOutputs());
  ConvertONNXToLinalgOptions convert;
  convert.runtimeChecks = runtimeChecks;
  pm.addPass(createConvertONNXToLinalg(convert));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createResolveBroadcasts());
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  pm.addPass(createCanonicalizerPass());
}

void mlir::onnxc::addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Dynamic sizes as tensor.dims of the function's arguments, not of the
  // op before (and so on up the graph): bufferization proves slices of
  // them equivalent by walking those chains (a dynamic BERT encoder's
  // analysis took 22 s, 4 s with this).
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // A zero fill CSE shared between matmuls would be copied before each.
  pm.addNestedPass<func::FuncOp>(createUnshareFills());
  // Inputs belong to the caller: an op that writes to one works on a copy.
  pm.addPass(createReadOnlyArguments());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Its constants' globals in an order (and with names) of their own: the
  // same model, the same library.
  pm.addPass(createOrderGlobals());
  pm.addPass(createCanonicalizerPass());
  // Loops over tiles yield their iter_arg: the copies back into the same
  // subview become self-copies once CSE merges the subviews.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::onnxc::addDeallocation(OpPassManager &pm, bool planBuffers) {
  pm.addNestedPass<func::FuncOp>(createFreshResultBuffers());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  if (planBuffers)
    pm.addNestedPass<func::FuncOp>(createPlanBuffers());
}

void mlir::onnxc::addBf16AsF32(OpPassManager &pm, StringRef functionOp) {
  OpPassManager &functions = pm.nest(functionOp);
  functions.addPass(math::createMathExtendToSupportedTypes());
  // bf16 arithmetic runs in f32; the bf16 <-> f32 conversions become bit
  // operations, so no compiler-rt builtin is needed at link time.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  functions.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
}

void mlir::onnxc::addHostLowering(OpPassManager &pm, bool vectorize) {
  addBf16AsF32(pm, func::FuncOp::getOperationName());
  if (vectorize)
    pm.addNestedPass<func::FuncOp>(createApproximateMath());
  pm.addPass(createConvertMathToLibmPass());
  // Weights reach LLVM as one flat byte array each.
  pm.addPass(createWeightsAsBytes());
  pm.addPass(createExpandDynamicGroups());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Buffers come from the runtime's _mlir_memref_to_llvm_alloc/_free, which
  // keep a list per run: a failed run-time check frees them all.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  // Aligned buffers come aligned from the allocator (allocated == aligned),
  // so that the runtime hands out results without moving them.
  memrefToLLVM.useAlignedAlloc = true;
  // Canonicalization may have folded vector ops back into n-D masks.
  if (vectorize)
    pm.addNestedPass<func::FuncOp>(createLowerVectors());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  // Vector lowerings leave ub.poison (undefined lanes).
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::onnxc::buildLinalgToLLVMPipeline(OpPassManager &pm,
                                             bool vectorize,
                                             ConvLayout layout) {
  bool nchwc = vectorize && layout != ConvLayout::NCHW;
  if (nchwc) {
    ConvNCHWcOptions options;
    options.minFlopsPerMoved =
        layout == ConvLayout::Auto ? kAutoNCHWcFlopsPerMoved : 0;
    pm.addNestedPass<func::FuncOp>(createConvNCHWc(options));
    pm.addPass(createCanonicalizerPass());
  }
  if (vectorize) {
    // The strategy layer: each root op's tiles for the module's target,
    // read by the passes below; again for the matmuls the convs became.
    pm.addNestedPass<func::FuncOp>(createSelectLoweringConfigs());
    pm.addNestedPass<func::FuncOp>(createConvToMatmul());
    pm.addNestedPass<func::FuncOp>(createSelectLoweringConfigs());
    pm.addNestedPass<func::FuncOp>(createPackMatmulWeights());
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createHoistConstants());
  pm.addPass(createCanonicalizerPass());
  if (vectorize) {
    pm.addNestedPass<func::FuncOp>(createWriteIntoPads());
    pm.addNestedPass<func::FuncOp>(createTileAndVectorize());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  addBufferization(pm);
  if (nchwc)
    pm.addPass(createLowerUkernels());
  // Vector ops down to 1-D before buffer deallocation (whose ownership
  // bookkeeping must not land inside vector.mask regions).
  if (vectorize) {
    pm.addNestedPass<func::FuncOp>(createLowerVectors());
    VectorTransferToSCFOptions vectorToSCF;
    vectorToSCF.enableFullUnroll().setTargetRank(1);
    pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(vectorToSCF));
    pm.addNestedPass<func::FuncOp>(createLowerVectors());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    pm.addPass(createCanonicalizerPass(config));
  }
  addDeallocation(pm);
  if (vectorize)
    pm.addNestedPass<func::FuncOp>(createParallelLinalgLoops());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  if (vectorize)
    pm.addPass(createOutlineParallelLoops());
  {
    // Without rollback (every SCF pattern applies): the rollback-capable
    // conversion recorded each block split of a large function (swin_t with
    // dynamic dims: 6 s of its compile in this pass).
    SCFToControlFlowPassOptions scfToCF;
    scfToCF.allowPatternRollback = false;
    pm.addPass(createSCFToControlFlowPass(scfToCF));
  }
  addHostLowering(pm, vectorize);
  if (vectorize)
    pm.addPass(createDispatchParallelCalls());
  pm.addPass(createCanonicalizerPass());
}

void mlir::onnxc::registerPipelines() {
  PassPipelineRegistration<>("onnxc-onnx-to-linalg",
                             "onnx dialect -> linalg on tensors",
                             [](OpPassManager &pm) {
                               buildONNXToLinalgPipeline(pm);
                             });
  PassPipelineRegistration<>("onnxc-linalg-to-llvm",
                             "linalg on tensors -> LLVM dialect",
                             [](OpPassManager &pm) {
                               buildLinalgToLLVMPipeline(pm);
                             });
  PassPipelineRegistration<>(
      "onnxc-linalg-to-cuda",
      "linalg on tensors -> LLVM dialect host code and CUDA kernels (sm_80)",
      [](OpPassManager &pm) { buildLinalgToCUDAPipeline(pm, CUDAOptions()); });
  PassPipelineRegistration<>(
      "onnxc-linalg-to-llvm-nchwc",
      "linalg on tensors -> LLVM dialect, convs in the NCHWc layout",
      [](OpPassManager &pm) {
        buildLinalgToLLVMPipeline(pm, /*vectorize=*/true, ConvLayout::NCHWc);
      });
}
