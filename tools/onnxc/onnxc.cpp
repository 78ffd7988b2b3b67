//===- onnxc.cpp - The onnxc compiler driver ------------------------------===//
//
// onnxc MODEL.onnx [-o OUT] [--emit=STAGE] [-O0..-O3] [--mcpu=CPU]
//       [--march=ARCH] [--mattr=FEATURES] [--mtriple=TRIPLE]
//
// Imports an ONNX model and compiles it as far as --emit asks:
//   onnx           the imported onnx dialect
//   onnx-inferred  ... after onnx-shape-inference
//   onnx-graph     ... after the graph passes (folding, simplification)
//   linalg         linalg/tensor/arith/math on tensors
//   llvm-mlir      the LLVM dialect
//   llvm-ir        optimised LLVM IR
//   obj            an object file
//   lib            a shared object with the onnxc C API (the default)
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Driver/CodeGen.h"
#include "onnxc/Driver/CrashRecovery.h"
#include "onnxc/Driver/Pipelines.h"
#include "onnxc/Importer/Importer.h"
#include "onnxc/InitAll.h"
#include "onnxc/Transforms/BoundedSubsets.h"

#include "Reports.h"
#include "ShapeOptions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <memory>
#include <thread>

using namespace mlir;

namespace {
enum class EmitStage {
  ONNX,
  ONNXInferred,
  ONNXGraph,
  Linalg,
  LLVMMLIR,
  LLVMIR,
  Obj,
  Lib
};

/// onnxc's own options: --help and --help-hidden list only these; LLVM's
/// and MLIR's options (--mlir-timing, backend flags) are still accepted.
llvm::cl::OptionCategory &onnxcCategory = onnxc::onnxcOptionCategory();

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<model.onnx>"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(onnxcCategory));
llvm::cl::opt<std::string> outputFile("o", llvm::cl::desc("Output file"),
                                      llvm::cl::value_desc("file"),
                                      llvm::cl::init(""),
                                      llvm::cl::cat(onnxcCategory));
llvm::cl::opt<EmitStage>
    emit("emit", llvm::cl::desc("What to produce"),
         llvm::cl::values(
             clEnumValN(EmitStage::ONNX, "onnx", "the imported onnx dialect"),
             clEnumValN(EmitStage::ONNXInferred, "onnx-inferred",
                        "the onnx dialect after onnx-shape-inference"),
             clEnumValN(EmitStage::ONNXGraph, "onnx-graph",
                        "the onnx dialect after the graph passes"),
             clEnumValN(EmitStage::Linalg, "linalg", "linalg on tensors"),
             clEnumValN(EmitStage::LLVMMLIR, "llvm-mlir", "the LLVM dialect"),
             clEnumValN(EmitStage::LLVMIR, "llvm-ir", "optimised LLVM IR"),
             clEnumValN(EmitStage::Obj, "obj", "an object file"),
             clEnumValN(EmitStage::Lib, "lib", "a shared object (default)")),
         llvm::cl::init(EmitStage::Lib), llvm::cl::cat(onnxcCategory));
llvm::cl::opt<unsigned> codegenThreads(
    "codegen-threads",
    llvm::cl::desc(
        "Threads that optimise and compile the LLVM module, each its "
        "own part of the functions (default 0: the available "
        "cores, at most 8; the object code depends on it)"),
    llvm::cl::init(0), llvm::cl::cat(onnxcCategory));
llvm::cl::opt<unsigned> optLevel("O", llvm::cl::desc("Optimisation level"),
                                 llvm::cl::Prefix, llvm::cl::init(2),
                                 llvm::cl::cat(onnxcCategory));
llvm::cl::opt<std::string> mcpu("mcpu",
                                llvm::cl::desc("Target CPU (default: host)"),
                                llvm::cl::init(""),
                                llvm::cl::cat(onnxcCategory));
llvm::cl::opt<std::string> mattr("mattr",
                                 llvm::cl::desc("Target features (+avx2,...)"),
                                 llvm::cl::init(""),
                                 llvm::cl::cat(onnxcCategory));
llvm::cl::opt<std::string>
    march("march",
          llvm::cl::desc("Target architecture, e.g. x86-64 (default: host)"),
          llvm::cl::init(""), llvm::cl::cat(onnxcCategory));
llvm::cl::opt<std::string> mtriple("mtriple", llvm::cl::desc("Target triple"),
                                   llvm::cl::init(""),
                                   llvm::cl::cat(onnxcCategory));
llvm::cl::opt<bool> noONNXShapeInference(
    "no-onnx-shape-inference",
    llvm::cl::desc("Import without running ONNX's graph shape inference"),
    llvm::cl::init(false), llvm::cl::cat(onnxcCategory));
llvm::cl::opt<bool> noGraphPasses(
    "no-graph-passes",
    llvm::cl::desc(
        "Leave out the graph passes on the onnx dialect "
        "(onnx-fold-constants, onnx-simplify, onnx-fold-batch-norm)"),
    llvm::cl::init(false), llvm::cl::cat(onnxcCategory));
llvm::cl::opt<bool> noRuntimeChecks(
    "no-runtime-checks",
    llvm::cl::desc("Leave out the run-time checks of index values and "
                   "data-decided sizes (only to measure their cost: bad "
                   "inputs are then undefined behaviour)"),
    llvm::cl::init(false), llvm::cl::cat(onnxcCategory));

llvm::cl::opt<bool> cudaGemmHostCheck(
    "cuda-gemm-host-check",
    llvm::cl::desc("Compile for the CPU with the CUDA target's matmul and "
                   "convolution views and fusions (each product a scalar "
                   "loop nest where --target=cuda builds a kernel), to "
                   "check them without a GPU"),
    llvm::cl::init(false), llvm::cl::Hidden, llvm::cl::cat(onnxcCategory));

llvm::cl::opt<std::string> testingCrashAtNode(
    "testing-crash-at-node",
    llvm::cl::desc("NODE[:fatal]: crash (a trap, or an LLVM fatal error) "
                   "while rewriting node NODE at the start of the onnx -> "
                   "linalg stage, to test that a crash is reported as an "
                   "error naming the node"),
    llvm::cl::Hidden, llvm::cl::cat(onnxcCategory));

llvm::cl::opt<bool> noVectorize(
    "no-vectorize",
    llvm::cl::desc("Lower every linalg op to scalar loops: no cache and "
                   "register tiling, no vectorisation (to compare)"),
    llvm::cl::init(false), llvm::cl::cat(onnxcCategory));

using onnxc::ConvLayout;
llvm::cl::opt<ConvLayout> layout(
    "layout",
    llvm::cl::desc("Activation layout of 2-D convolutions whose channel "
                   "counts are multiples of 16"),
    llvm::cl::values(
        clEnumValN(ConvLayout::NCHW, "nchw",
                   "NCHW: convs as matmuls (onnxc-conv-to-matmul)"),
        clEnumValN(ConvLayout::NCHWc, "nchwc",
                   "blocked NCHW16c: direct convs (the runtime's kernel)"),
        clEnumValN(ConvLayout::Auto, "auto",
                   "nchwc where the target has AVX-512 and the convs' work "
                   "outweighs the layout changes, else nchw (default)")),
    llvm::cl::init(ConvLayout::Auto), llvm::cl::cat(onnxcCategory));

enum class Target { CPU, CUDA };
llvm::cl::opt<Target> target(
    "target", llvm::cl::desc("What the model runs on"),
    llvm::cl::values(
        clEnumValN(Target::CPU, "cpu", "the host's CPU (default)"),
        clEnumValN(Target::CUDA, "cuda",
                   "NVIDIA GPUs: kernels as PTX (and a cubin for "
                   "--gpu-arch when CUDA's ptxas is installed), launched "
                   "by the shared object through libcuda")),
    llvm::cl::init(Target::CPU), llvm::cl::cat(onnxcCategory));

llvm::cl::opt<std::string> gpuArch(
    "gpu-arch",
    llvm::cl::desc("The GPU architecture of --target=cuda (sm_80, sm_90, "
                   "...): the cubin's, and the oldest the PTX supports"),
    llvm::cl::init("sm_80"), llvm::cl::cat(onnxcCategory));

enum class GPUBinary { Auto, Fatbin, PTX };
llvm::cl::opt<GPUBinary> gpuBinary(
    "gpu-binary", llvm::cl::desc("What --target=cuda embeds"),
    llvm::cl::values(
        clEnumValN(GPUBinary::Auto, "auto",
                   "fatbin when CUDA's ptxas and fatbinary are found, "
                   "else ptx (default)"),
        clEnumValN(GPUBinary::Fatbin, "fatbin",
                   "a fat binary of the cubin and the PTX (needs ptxas "
                   "and fatbinary)"),
        clEnumValN(GPUBinary::PTX, "ptx",
                   "PTX only, compiled by the driver at the first run")),
    llvm::cl::init(GPUBinary::Auto), llvm::cl::cat(onnxcCategory));

enum class GemmTile { Auto = 0, Small = 64, Large = 128 };
llvm::cl::opt<GemmTile> gpuGemmTile(
    "gpu-gemm-tile",
    llvm::cl::desc("The tile of C of --target=cuda's matmul and "
                   "convolution kernels"),
    llvm::cl::values(
        clEnumValN(GemmTile::Auto, "auto",
                   "128 x 128 where a product's static sizes give a wave "
                   "of such tiles, else 64 x 64 (default)"),
        clEnumValN(GemmTile::Small, "64", "64 x 64 for every product"),
        clEnumValN(GemmTile::Large, "128", "128 x 128 for every product")),
    llvm::cl::init(GemmTile::Auto), llvm::cl::cat(onnxcCategory));

enum class GPUPrecision { FP32, TF32 };
llvm::cl::opt<GPUPrecision> gpuPrecision(
    "gpu-precision",
    llvm::cl::desc("The arithmetic of --target=cuda's f32 matmuls and "
                   "convolutions"),
    llvm::cl::values(
        clEnumValN(GPUPrecision::FP32, "fp32", "f32 (default)"),
        clEnumValN(GPUPrecision::TF32, "tf32",
                   "tensor cores with tf32 operands (10 bits of mantissa) "
                   "and f32 sums; sm_80 or newer")),
    llvm::cl::init(GPUPrecision::FP32), llvm::cl::cat(onnxcCategory));

llvm::cl::opt<bool> gpuHalfMma(
    "gpu-half-mma",
    llvm::cl::desc("--target=cuda: f16 and bf16 matmuls and convolutions on "
                   "tensor cores, f32 sums (default on sm_80 or newer)"),
    llvm::cl::init(true), llvm::cl::cat(onnxcCategory));

enum class GPUBuffers { Auto, Managed };
llvm::cl::opt<GPUBuffers> gpuBuffers(
    "gpu-buffers",
    llvm::cl::desc("Where --target=cuda keeps the buffers of a run"),
    llvm::cl::values(
        clEnumValN(GPUBuffers::Auto, "auto",
                   "device memory for those only kernels touch, CUDA "
                   "managed memory for the others (default)"),
        clEnumValN(GPUBuffers::Managed, "managed",
                   "every buffer in CUDA managed memory")),
    llvm::cl::init(GPUBuffers::Auto), llvm::cl::cat(onnxcCategory));

llvm::cl::opt<bool> timeStages(
    "time-stages",
    llvm::cl::desc("Print the wall time of each compilation stage and of "
                   "each pass (as --mlir-timing does), then the peak RSS, "
                   "to stderr"),
    llvm::cl::init(false), llvm::cl::cat(onnxcCategory));

llvm::cl::opt<bool> memoryStats(
    "memory-stats",
    llvm::cl::desc("Print the memory plan to stderr: each function's arena "
                   "of activation buffers (and their size without reuse), "
                   "the allocations sized at run time, the weights' bytes"),
    llvm::cl::init(false), llvm::cl::cat(onnxcCategory));

llvm::cl::opt<bool> nodeLineTables(
    "node-line-tables",
    llvm::cl::desc("Emit a line table that maps each instruction to its ONNX "
                   "node, as file '<node name>' line 1 (for profilers: "
                   "perf report --sort srcfile)"),
    llvm::cl::init(false), llvm::cl::cat(onnxcCategory));

llvm::cl::OptionCategory trainCategory(
    "Training (--train): the library runs one training step per call of "
    "onnxc_run / onnxc_train_step (see onnxc_runtime.h)");

llvm::cl::opt<bool>
    train("train",
          llvm::cl::desc("Compile a training step instead of inference: the "
                         "float initializers the loss depends on are trained"),
          llvm::cl::init(false), llvm::cl::cat(trainCategory));

llvm::cl::opt<std::string> trainLoss(
    "loss",
    llvm::cl::desc("cross-entropy (int64 labels, logits N x C x ...), mse "
                   "(labels of the output's shape) or output (the output "
                   "is the loss)"),
    llvm::cl::init("cross-entropy"), llvm::cl::cat(trainCategory));

llvm::cl::opt<int64_t>
    trainLossOutput("loss-output",
                    llvm::cl::desc("The model output the loss is taken on"),
                    llvm::cl::init(0), llvm::cl::cat(trainCategory));

llvm::cl::opt<std::string>
    trainOptimizer("optimizer",
                   llvm::cl::desc("sgd, momentum, nesterov, adam or adagrad"),
                   llvm::cl::init("sgd"), llvm::cl::cat(trainCategory));

llvm::cl::opt<double> trainLearningRate("learning-rate",
                                        llvm::cl::desc("The learning rate"),
                                        llvm::cl::init(0.01),
                                        llvm::cl::cat(trainCategory));

llvm::cl::opt<double>
    trainMomentum("momentum",
                  llvm::cl::desc("momentum, nesterov: the momentum factor"),
                  llvm::cl::init(0.9), llvm::cl::cat(trainCategory));

llvm::cl::opt<double> trainBeta1("beta1",
                                 llvm::cl::desc("adam: beta1 (default 0.9)"),
                                 llvm::cl::init(0.9),
                                 llvm::cl::cat(trainCategory));

llvm::cl::opt<double> trainBeta2("beta2",
                                 llvm::cl::desc("adam: beta2 (default 0.999)"),
                                 llvm::cl::init(0.999),
                                 llvm::cl::cat(trainCategory));

llvm::cl::opt<double>
    trainEpsilon("epsilon",
                 llvm::cl::desc("adam, adagrad: epsilon (default 1e-8)"),
                 llvm::cl::init(1e-8), llvm::cl::cat(trainCategory));

llvm::cl::opt<double>
    trainWeightDecay("weight-decay",
                     llvm::cl::desc("L2 penalty added to the gradient"),
                     llvm::cl::init(0.0), llvm::cl::cat(trainCategory));

llvm::cl::list<std::string>
    trainFreeze("freeze",
                llvm::cl::desc("Initializers not to train (comma-separated)"),
                llvm::cl::CommaSeparated, llvm::cl::cat(trainCategory));

llvm::cl::opt<bool> ignoreTrainingInfo(
    "ignore-training-info",
    llvm::cl::desc("A model with its own training algorithm "
                   "(TrainingInfoProto) trains with it; this option trains "
                   "it with --loss and --optimizer instead"),
    llvm::cl::init(false), llvm::cl::cat(trainCategory));

int fail(const llvm::Twine &message) {
  llvm::errs() << "onnxc: error: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  llvm::cl::HideUnrelatedOptions({&onnxcCategory, &trainCategory});
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    std::string toolkit = onnxc::findCUDAToolkit();
    os << "onnxc --target=cuda: CUDA toolkit "
       << (toolkit.empty() ? std::string("none (PTX only; set CUDA_HOME to "
                                         "a toolkit with bin/ptxas and "
                                         "nvvm/libdevice)")
                           : toolkit)
       << "\n";
  });
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "onnxc: ONNX compiler\n\n"
      "  onnxc model.onnx -o model.so compiles a model into a shared object "
      "with the onnxc C API\n  (include/onnxc/Runtime/onnxc_runtime.h). MLIR's "
      "and LLVM's "
      "debugging options (--mlir-timing,\n  --mlir-print-ir-after-all, "
      "...) are accepted as well; --help lists onnxc's own.\n");
  if (optLevel > 3)
    return fail("-O takes 0, 1, 2 or 3");

  DialectRegistry registry;
  // First: the first model attached to an op wins.
  onnxc::registerBoundedSubsetModels(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  onnxc::registerAllDialects(registry);
  onnxc::registerTranslations(registry);
  MLIRContext context(registry);
  context.disableMultithreading();
  // Diagnostics name the node; dumping the op adds noise (and would print
  // half-converted IR).
  context.printOpOnDiagnostic(false);
  // Diagnostics name the ONNX node (the NameLoc the importer gives every
  // op) and the model file: "model.onnx: node 'conv1': error: ...".
  ScopedDiagnosticHandler diagHandler(&context, onnxc::printNodeDiagnostic);
  // A crash in a pipeline is an error naming the stage, pass and node.
  onnxc::CrashRecovery recovery(context);

  // --time-stages / --mlir-timing: one timer per stage, with the passes of
  // each pipeline nested under it.
  onnxc::PeakRSSReport peakReport;
  peakReport.enabled = timeStages;
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  if (timeStages)
    timing.setEnabled(true);
  TimingScope rootTimer = timing.getRootScope();

  onnxc::ImportOptions options;
  options.onnxShapeInference = !noONNXShapeInference;
  if (std::string error; !onnxc::parseShapeOptions(options, error))
    return fail(error);
  options.markInitializers = train;
  if (train && !ignoreTrainingInfo)
    options.trainingGraph = onnxc::TrainingGraph::Algorithm;
  OwningOpRef<ModuleOp> module;
  {
    TimingScope importTimer = rootTimer.nest("import (protobuf -> onnx dialect)");
    module = onnxc::importONNXModelFile(&context, inputFile, options);
  }
  if (!module)
    return 1;
  // A model with its own training algorithm (TrainingInfoProto) trains
  // with it; its initialization graph becomes a third function.
  bool fromModel = train && (*module)->hasAttr("onnxc.update_binding");
  bool hasInitialization =
      fromModel && (*module)->hasAttr("onnxc.has_initialization");
  (*module)->removeAttr("onnxc.has_initialization");
  if (fromModel) {
    for (llvm::cl::Option *o : std::initializer_list<llvm::cl::Option *>{
             &trainLoss, &trainLossOutput, &trainOptimizer, &trainLearningRate,
             &trainMomentum, &trainBeta1, &trainBeta2, &trainEpsilon,
             &trainWeightDecay, std::addressof(trainFreeze)})
      if (o->getNumOccurrences())
        llvm::errs() << "onnxc: warning: --" << o->ArgStr
                     << " is not used: the model trains with its own "
                        "algorithm (TrainingInfoProto; "
                        "--ignore-training-info uses the flags)\n";
  }

  // The pipelines run on `target`: the model, or a training library's
  // evaluation function.
  auto runPipelineOn = [&](ModuleOp target, StringRef stage,
                           function_ref<void(OpPassManager &)> build) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    TimingScope stageTimer = rootTimer.nest(stage);
    pm.enableTiming(stageTimer);
    build(pm);
    return recovery.run(stage, [&] { return pm.run(target); });
  };
  auto runPipeline = [&](StringRef stage,
                         function_ref<void(OpPassManager &)> build) {
    return runPipelineOn(*module, stage, build);
  };
  auto printModule = [&]() {
    std::string error;
    auto output = openOutputFile(outputFile.empty() ? std::string("-") : outputFile.getValue(), &error);
    if (!output)
      return fail(error);
    module->print(output->os());
    output->os() << "\n";
    output->keep();
    return 0;
  };

  if (emit == EmitStage::ONNX)
    return printModule();
  if (failed(runPipeline("shape inference", [&](OpPassManager &pm) {
        pm.addNestedPass<func::FuncOp>(onnxc::createONNXShapeInference());
      })))
    return 1;
  // A training library also runs the model for inference with the trained
  // state (onnxc_train_eval): a copy of the model before it becomes a step.
  OwningOpRef<ModuleOp> evalModule;
  bool withEval = train && (emit == EmitStage::Lib || emit == EmitStage::Obj ||
                            emit == EmitStage::LLVMIR);
  // The model imported again as `graph` (its inference graph, its
  // initialization graph), shape inference run.
  auto importAgain = [&](onnxc::TrainingGraph graph) {
    onnxc::ImportOptions again = options;
    again.trainingGraph = graph;
    OwningOpRef<ModuleOp> m;
    {
      TimingScope importTimer = rootTimer.nest("import (again)");
      m = onnxc::importONNXModelFile(&context, inputFile, again);
    }
    if (m &&
        failed(runPipelineOn(*m, "shape inference", [&](OpPassManager &pm) {
          pm.addNestedPass<func::FuncOp>(onnxc::createONNXShapeInference());
        })))
      m = nullptr;
    return m;
  };
  if (withEval) {
    // With the model's algorithm, the module holds more than the model.
    evalModule = fromModel ? importAgain(onnxc::TrainingGraph::Inference)
                           : module->clone();
    if (!evalModule)
      return 1;
  }
  OwningOpRef<ModuleOp> initModule;
  if (withEval && hasInitialization &&
      !(initModule = importAgain(onnxc::TrainingGraph::Initialization)))
    return 1;
  if (train && failed(runPipeline("training step", [&](OpPassManager &pm) {
        onnxc::ONNXBuildTrainingStepOptions step;
        step.entry = options.entryName;
        step.loss = trainLoss;
        step.lossOutput = trainLossOutput;
        step.optimizer = trainOptimizer;
        step.learningRate = trainLearningRate;
        step.momentum = trainMomentum;
        step.beta1 = trainBeta1;
        step.beta2 = trainBeta2;
        step.epsilon = trainEpsilon;
        step.weightDecay = trainWeightDecay;
        step.freeze.assign(trainFreeze.begin(), trainFreeze.end());
        step.fromModel = fromModel;
        pm.addPass(onnxc::createONNXBuildTrainingStep(step));
        pm.addNestedPass<func::FuncOp>(onnxc::createONNXShapeInference());
      })))
    return 1;
  if (emit == EmitStage::ONNXInferred)
    return printModule();
  if (emit == EmitStage::ONNXGraph) {
    if (failed(runPipeline("gradient derivation", [](OpPassManager &pm) {
          pm.addNestedPass<func::FuncOp>(onnxc::createONNXDeriveGradients());
        })))
      return 1;
    if (!noGraphPasses &&
        failed(runPipeline("graph passes", [](OpPassManager &pm) {
          onnxc::buildONNXGraphPipeline(pm);
        })))
      return 1;
    return printModule();
  }

  auto entry = module->lookupSymbol<func::FuncOp>(options.entryName);
  if (!entry)
    return fail("the model has no entry function");
  FailureOr<onnxc::ModelSignature> signature = onnxc::getModelSignature(entry);
  if (failed(signature))
    return 1;
  // The names now live in the signature; LLVM has no use for them.
  FailureOr<std::optional<onnxc::TrainingState>> training =
      onnxc::takeTrainingState(*module);
  if (failed(training))
    return 1;
  // The training state's names (the step's arguments from the first state
  // on), and the signature of another function's entry.
  SmallVector<std::string> stateNames;
  if (*training)
    for (unsigned i = (*training)->firstInput; i < entry.getNumArguments(); ++i)
      if (auto name = entry.getArgAttrOfType<StringAttr>(i, "onnx.name"))
        stateNames.push_back(name.getValue().str());
  auto signatureOf = [&](ModuleOp m) {
    auto f = m.lookupSymbol<func::FuncOp>(options.entryName);
    return f ? onnxc::getModelSignature(f)
             : FailureOr<onnxc::ModelSignature>(failure());
  };
  // The evaluation function takes the state tensors that are initializers
  // of the model (the parameters, the running statistics) after its inputs.
  std::optional<onnxc::ModelSignature> evalSignature;
  if (withEval && *training) {
    llvm::StringSet<> initializers;
    evalModule->walk([&](onnxc::ONNXConstantOp cst) {
      if (auto name = cst->getAttrOfType<StringAttr>("onnx.initializer"))
        initializers.insert(name.getValue());
    });
    onnxc::ONNXPromoteInitializersOptions promote;
    promote.entry = options.entryName;
    for (const std::string &name : stateNames)
      if (initializers.contains(name))
        promote.names.push_back(name);
    if (failed(runPipelineOn(
            *evalModule, "evaluation function", [&](OpPassManager &pm) {
              pm.addPass(onnxc::createONNXPromoteInitializers(promote));
            })))
      return 1;
    FailureOr<onnxc::ModelSignature> sig = signatureOf(*evalModule);
    if (failed(sig))
      return fail("the evaluation function has no signature");
    evalSignature = *sig;
  } else {
    evalModule = nullptr;
  }
  // The initialization graph sets state tensors (its outputs are named
  // after them); one it would set that is not state is compiled into the
  // step as a constant.
  std::optional<onnxc::ModelSignature> initSignature;
  if (initModule && *training) {
    FailureOr<onnxc::ModelSignature> sig = signatureOf(*initModule);
    if (failed(sig))
      return fail("the initialization graph has no signature");
    for (const auto &output : sig->outputs)
      if (!llvm::is_contained(stateNames, output.name))
        return fail("TrainingInfoProto: initialization_binding sets '" +
                    output.name +
                    "', which update_binding does not update (the step "
                    "holds it as a constant)");
    initSignature = *sig;
  } else {
    initModule = nullptr;
  }
  // The names now live in the signatures; LLVM has no use for them.
  auto prepareEntry = [&](ModuleOp m) {
    auto f = m.lookupSymbol<func::FuncOp>(options.entryName);
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      f.setArgAttrs(i, ArrayRef<NamedAttribute>());
    for (unsigned i = 0; i < f.getNumResults(); ++i) {
      f.setResultAttrs(i, ArrayRef<NamedAttribute>());
      // The signature gave it rank -1: returned boxed, even if the graph
      // passes learn its rank.
      if (isa<UnrankedTensorType>(f.getResultTypes()[i]))
        f.setResultAttr(i, "onnxc.box_output", UnitAttr::get(&context));
    }
    f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
               UnitAttr::get(&context));
  };
  prepareEntry(*module);
  if (evalModule)
    prepareEntry(*evalModule);
  if (initModule)
    prepareEntry(*initModule);
  auto toLinalg = [&](ModuleOp m) {
    return runPipelineOn(m, "onnx -> linalg", [](OpPassManager &pm) {
      if (!testingCrashAtNode.empty()) {
        StringRef node = testingCrashAtNode;
        bool fatal = node.consume_back(":fatal");
        pm.addPass(onnxc::createCrashTestPass(node, fatal));
      }
      onnxc::buildONNXToLinalgPipeline(pm, !noRuntimeChecks, !noGraphPasses);
    });
  };
  if (failed(toLinalg(*module)))
    return 1;
  if (emit == EmitStage::Linalg)
    return printModule();
  onnxc::CodeGenOptions codegen;
  codegen.optLevel = optLevel;
  codegen.cpu = mcpu;
  codegen.features = mattr;
  codegen.triple = mtriple;
  codegen.arch = march;
  // The CPU the strategy layer chooses for (docs/Performance.md).
  onnxc::CPUTarget cpuTarget = onnxc::getCPUTarget(codegen);
  ConvLayout convLayout = layout;
  if (convLayout == ConvLayout::Auto && !cpuTarget.hasAVX512)
    convLayout = ConvLayout::NCHW;
  onnxc::CUDAOptions cuda;
  bool isCUDA = target == Target::CUDA;
  if (isCUDA && cudaGemmHostCheck)
    return fail("--cuda-gemm-host-check compiles for the CPU: not with "
                "--target=cuda");
  if (isCUDA) {
    StringRef arch = gpuArch;
    unsigned sm = 0;
    if (!arch.consume_front("sm_") || arch.getAsInteger(10, sm) || sm < 50)
      return fail("--gpu-arch takes sm_<number> (sm_50 or newer), not '" +
                  gpuArch + "'");
    cuda.arch = gpuArch;
    cuda.gemmTile = static_cast<int64_t>(gpuGemmTile.getValue());
    cuda.tf32 = gpuPrecision == GPUPrecision::TF32;
    cuda.halfMma = gpuHalfMma && sm >= 80;
    cuda.deviceMemory = gpuBuffers == GPUBuffers::Auto;
    if (cuda.tf32 && sm < 80)
      return fail("--gpu-precision=tf32 needs tensor cores with tf32 "
                  "(--gpu-arch=sm_80 or newer), not " +
                  gpuArch);
    cuda.toolkit = onnxc::findCUDAToolkit();
    const std::string &toolkit = cuda.toolkit;
    bool hasTools =
        !toolkit.empty() &&
        llvm::sys::fs::exists(toolkit + "/bin/ptxas") &&
        llvm::sys::fs::exists(toolkit + "/bin/fatbinary");
    if (gpuBinary == GPUBinary::Fatbin && !hasTools)
      return fail("--gpu-binary=fatbin needs a CUDA toolkit with "
                  "bin/ptxas, bin/fatbinary and nvvm/libdevice (set "
                  "CUDA_HOME; onnxc --version shows the one found)");
    cuda.format = gpuBinary == GPUBinary::PTX ||
                          (gpuBinary == GPUBinary::Auto && !hasTools)
                      ? "isa"
                      : "fatbin";
  }
  auto toLLVMDialect = [&](ModuleOp m) {
    m->setAttr(onnxc::kTargetAttrName, cpuTarget.toAttr(&context));
    return runPipelineOn(m, "linalg -> LLVM dialect", [&](OpPassManager &pm) {
      if (isCUDA)
        onnxc::buildLinalgToCUDAPipeline(pm, cuda);
      else if (cudaGemmHostCheck)
        onnxc::buildCUDAGemmHostCheckPipeline(pm);
      else
        onnxc::buildLinalgToLLVMPipeline(pm, !noVectorize, convLayout);
      if (nodeLineTables)
        onnxc::buildNodeLineTablesPipeline(pm);
    });
  };
  if (failed(toLLVMDialect(*module)))
    return 1;
  if (memoryStats)
    onnxc::printStats(*module);
  if (emit == EmitStage::LLVMMLIR)
    return printModule();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    TimingScope translateTimer = rootTimer.nest("translation to LLVM IR");
    (void)recovery.run("translation to LLVM IR", [&] {
      llvmModule = onnxc::translateToLLVMIR(
          *module, llvmContext, options.entryName, *signature,
          *training ? &**training : nullptr);
      return success();
    });
  }
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  std::string error;
  // A training library's other functions: lowered like the model and
  // linked into its module under onnxc_<prefix>_*.
  auto linkFunction = [&](ModuleOp m, const onnxc::ModelSignature &sig,
                          StringRef prefix, StringRef what) -> LogicalResult {
    if (failed(toLinalg(m)) || failed(toLLVMDialect(m)))
      return failure();
    TimingScope translateTimer =
        rootTimer.nest(("translation to LLVM IR (" + what + ")").str());
    std::unique_ptr<llvm::Module> function =
        onnxc::translateToLLVMIR(m, llvmContext, options.entryName, sig);
    if (!function) {
      fail(("translation of the " + what + " to LLVM IR failed").str());
      return failure();
    }
    if (failed(onnxc::linkSecondFunction(*llvmModule, std::move(function),
                                         prefix, error))) {
      fail(error);
      return failure();
    }
    return success();
  };
  if (evalModule && failed(linkFunction(*evalModule, *evalSignature, "eval",
                                        "evaluation function")))
    return 1;
  if (initModule && failed(linkFunction(*initModule, *initSignature, "init",
                                        "initialization graph")))
    return 1;
  if (emit == EmitStage::LLVMIR) {
    TimingScope optTimer = rootTimer.nest("LLVM optimisation");
    if (failed(onnxc::optimizeModule(*llvmModule, codegen, error)))
      return fail(error);
    auto output = openOutputFile(outputFile.empty() ? std::string("-") : outputFile.getValue(), &error);
    if (!output)
      return fail(error);
    llvmModule->print(output->os(), nullptr);
    output->keep();
    return 0;
  }

  if (outputFile.empty() || outputFile == "-")
    return fail("--emit=obj and --emit=lib need an output file (-o)");
  // --emit=obj writes one object; a library links one per code generation
  // thread, each a temporary file.
  unsigned threads = emit == EmitStage::Lib ? codegenThreads.getValue() : 1;
  if (threads == 0)
    threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  SmallVector<std::string> objectPaths;
  auto removeTemporaries = [&] {
    if (emit == EmitStage::Lib)
      for (const std::string &path : objectPaths)
        llvm::sys::fs::remove(path);
  };
  if (emit == EmitStage::Lib) {
    for (unsigned i = 0; i < threads; ++i) {
      SmallString<128> temp;
      if (auto ec = llvm::sys::fs::createTemporaryFile("onnxc", "o", temp)) {
        removeTemporaries();
        return fail("cannot create a temporary file: " + ec.message());
      }
      objectPaths.push_back(std::string(temp));
    }
  } else {
    objectPaths.push_back(outputFile);
  }
  unsigned written = 0;
  LogicalResult emitted = [&] {
    TimingScope objTimer =
        rootTimer.nest("LLVM optimisation and object emission");
    return onnxc::emitObjectFiles(std::move(llvmModule), codegen, threads,
                                  objectPaths, written, error);
  }();
  if (failed(emitted)) {
    for (const std::string &path : objectPaths)
      llvm::sys::fs::remove(path);
    return fail(error);
  }
  if (timeStages)
    llvm::errs() << "onnxc: LLVM code generation in " << written
                 << (written == 1 ? " part\n" : " parts\n");
  if (emit == EmitStage::Obj)
    return 0;
  LogicalResult linked = [&] {
    TimingScope linkTimer = rootTimer.nest("link");
    return onnxc::linkSharedObject(ArrayRef(objectPaths).take_front(written),
                                   outputFile, isCUDA, error);
  }();
  removeTemporaries();
  if (failed(linked))
    return fail(error);
  return 0;
}
