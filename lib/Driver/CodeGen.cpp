//===- CodeGen.cpp - LLVM dialect -> object file -> shared object ---------===//

#include "onnxc/Driver/CodeGen.h"
#include "onnxc/Transforms/DeviceMemory.h"
#include "onnxc/Transforms/Passes.h"

#include "onnxc/Conversion/RuntimeChecks.h"

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Support/ProtoConversion.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <thread>

#include "onnxc/Driver/Config.h"

using namespace mlir;
using namespace mlir::onnxc;

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

static std::string hexName(StringRef s) {
  return s.empty() ? "-" : llvm::toHex(s, /*LowerCase=*/true);
}

std::string ModelSignature::serialize() const {
  // One line per value: I or O, type, hex name, dtype, key dtype (maps; 0
  // otherwise), rank (-1 when unknown), dims, hex dim names.
  std::string out = "onnxc-signature 2\n";
  auto emit = [&](char kind, const Tensor &t) {
    out += kind;
    out += " " + std::to_string(t.type) + " " + hexName(t.name) + " " +
           std::to_string(t.dtype) + " " + std::to_string(t.keyDtype) + " " +
           (t.rankKnown ? std::to_string(t.dims.size()) : "-1");
    for (int64_t d : t.dims)
      out += " " + std::to_string(d);
    for (const std::string &n : t.dimNames)
      out += " " + hexName(n);
    out += "\n";
  };
  for (const Tensor &t : inputs)
    emit('I', t);
  for (const Tensor &t : outputs)
    emit('O', t);
  return out;
}

/// The op where `v`'s lack of a rank begins: following unranked operands
/// back from `v` to an op whose operands are all ranked (null when `v` is
/// an argument).
static Operation *originOfUnrankedValue(Value v) {
  Operation *op = v.getDefiningOp();
  while (op) {
    Operation *next = nullptr;
    for (Value operand : op->getOperands())
      if (isa<UnrankedTensorType>(operand.getType()) &&
          operand.getDefiningOp()) {
        next = operand.getDefiningOp();
        break;
      }
    if (!next)
      return op;
    op = next;
  }
  return nullptr;
}

static FailureOr<ModelSignature::Tensor>
getTensorSignature(func::FuncOp entry, Type type, DictionaryAttr attrs,
                   StringRef what, unsigned index) {
  ModelSignature::Tensor t;
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("onnx.name"))
      t.name = name.str();
  if (t.name.empty())
    t.name = what.str() + std::to_string(index);
  // Sequences of tensors, optional tensors and optional sequences: the
  // runtime passes them as values (onnxc_value); dtype and dims are the
  // tensors'.
  bool optional = false, sequence = false;
  // A map, or a sequence of maps (ZipMap's): dtype is the values', the
  // rank 1 with a dynamic dim.
  Type mapType = type;
  if (auto seq = dyn_cast<SeqType>(type))
    mapType = seq.getElementType();
  if (auto map = dyn_cast<MapType>(mapType)) {
    t.type = mapType == type ? 4 : 5;
    t.dtype = getONNXDataType(map.getValueType());
    t.keyDtype = getONNXDataType(map.getKeyType());
    t.dims = {-1};
    t.dimNames = {""};
    if (t.dtype == 0 || t.keyDtype == 0)
      return entry.emitError() << what << " '" << t.name << "' has type "
                               << type
                               << ", which the runtime does not support yet",
             failure();
    return t;
  }
  if (auto opt = dyn_cast<OptType>(type)) {
    optional = true;
    type = opt.getElementType();
  }
  if (auto seq = dyn_cast<SeqType>(type)) {
    sequence = true;
    type = seq.getElementType();
    if (auto unranked = dyn_cast<UnrankedTensorType>(type)) {
      t.type = optional ? 3 : 1;
      t.rankKnown = false;
      t.dtype = getONNXDataType(unranked.getElementType());
      if (t.dtype == 0)
        return entry.emitError()
                   << what << " '" << t.name << "' is a sequence of "
                   << unranked.getElementType()
                   << " tensors, which the runtime does not support yet",
               failure();
      return t;
    }
  }
  t.type = (sequence ? 1 : 0) + (optional ? 2 : 0);
  // An output whose rank the taken If branch decides: rank -1, returned
  // boxed (onnx-box-unranked-outputs) and copied out as a plain tensor.
  static constexpr int32_t kPacked[] = {21, 22, 23, 25, 26};
  Operation *origin = nullptr;
  if (what == "output" && !entry.empty())
    if (auto ret =
            dyn_cast<func::ReturnOp>(entry.getBody().back().getTerminator()))
      if (index < ret.getNumOperands())
        origin = originOfUnrankedValue(ret.getOperand(index));
  if (auto unranked = dyn_cast<UnrankedTensorType>(type);
      unranked && isa_and_nonnull<ONNXIfOp>(origin) && !sequence && !optional) {
    t.rankKnown = false;
    t.dtype = getONNXDataType(unranked.getElementType());
    if (t.dtype == 0 || llvm::is_contained(kPacked, t.dtype))
      return entry.emitError()
                 << what << " '" << t.name << "' has rank known only at run "
                 << "time and element type " << unranked.getElementType()
                 << ", which the runtime does not support for such outputs",
             failure();
    return t;
  }
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked) {
    InFlightDiagnostic diag =
        entry.emitError()
        << what << " '" << t.name << "' has type " << type
        << ": not supported by the runtime yet, which takes only tensors of "
           "known rank as model inputs and outputs (and outputs whose rank "
           "the branches of an If decide)";
    // Name the node where the rank got lost: its operands do not fit the
    // operator, or onnxc cannot infer its result from them.
    if (origin) {
      std::string operands;
      llvm::raw_string_ostream os(operands);
      llvm::interleaveComma(origin->getOperandTypes(), os);
      diag << "; the rank is unknown from " << describeNode(origin)
           << " on, whose operands (" << operands
           << ") do not fit the operator or give no result type";
    }
    return failure();
  }
  t.dtype = getONNXDataType(ranked.getElementType());
  if (t.dtype == 0)
    return entry.emitError() << what << " '" << t.name << "' has element type "
                             << ranked.getElementType()
                             << ", which is not supported by the runtime yet",
           failure();
  // The API packs the sub-byte types; the runtime does so for tensors only.
  if ((sequence || optional) && llvm::is_contained(kPacked, t.dtype))
    return entry.emitError() << what << " '" << t.name << "' holds "
                             << ranked.getElementType()
                             << " tensors in a sequence or optional, which "
                                "the runtime does not support yet",
           failure();
  ArrayAttr params;
  if (attrs)
    params = attrs.getAs<ArrayAttr>("onnx.dim_params");
  for (int64_t i = 0; i < ranked.getRank(); ++i) {
    t.dims.push_back(ranked.isDynamicDim(i) ? -1 : ranked.getDimSize(i));
    std::string name;
    if (params && i < int64_t(params.size()) && ranked.isDynamicDim(i))
      if (auto s = dyn_cast<StringAttr>(params[i]))
        name = s.str();
    t.dimNames.push_back(name);
  }
  return t;
}

FailureOr<ModelSignature> mlir::onnxc::getModelSignature(func::FuncOp entry) {
  ModelSignature sig;
  FunctionType type = entry.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto t = getTensorSignature(entry, type.getInput(i), entry.getArgAttrDict(i),
                                "input", i);
    if (failed(t))
      return failure();
    sig.inputs.push_back(*t);
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    auto t = getTensorSignature(entry, type.getResult(i),
                                entry.getResultAttrDict(i), "output", i);
    if (failed(t))
      return failure();
    sig.outputs.push_back(*t);
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// LLVM IR
//===----------------------------------------------------------------------===//

void mlir::onnxc::registerTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // The CUDA target: kernels to PTX (gpu-module-to-binary) and the
  // embedded binaries with their launches to LLVM IR.
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

/// The raw little-endian bytes of `value`'s elements.
static FailureOr<std::string> rawBytes(ElementsAttr value) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getElementType().isInteger(1))
      return failure();
    ArrayRef<char> raw = dense.getRawData();
    if (!dense.isSplat())
      return std::string(raw.begin(), raw.end());
    std::string out;
    for (int64_t i = 0, n = dense.getNumElements(); i < n; ++i)
      out.append(raw.begin(), raw.end());
    return out;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      ArrayRef<char> data = blob->getData();
      return std::string(data.begin(), data.end());
    }
  return failure();
}

FailureOr<std::optional<TrainingState>>
mlir::onnxc::takeTrainingState(ModuleOp module) {
  auto values = module->getAttrOfType<ArrayAttr>("onnxc.train_state");
  auto first = module->getAttrOfType<IntegerAttr>("onnxc.train_first_state");
  if (!values || !first)
    return std::optional<TrainingState>();
  TrainingState state;
  state.firstInput = first.getInt();
  for (Attribute a : values) {
    auto value = dyn_cast<ElementsAttr>(a);
    FailureOr<std::string> bytes =
        value ? rawBytes(value) : FailureOr<std::string>(failure());
    if (failed(bytes))
      return module.emitError() << "cannot read the initial value of a "
                                   "training state tensor";
    state.initial.push_back(std::move(*bytes));
  }
  module->removeAttr("onnxc.train_state");
  module->removeAttr("onnxc.train_first_state");
  return std::optional<TrainingState>(std::move(state));
}

/// The training state's table and initial values for onnxc_train.c:
/// onnxc_model_train_info, text "onnxc-train 1 <first input> <count>" then
/// "<offset> <bytes>" per state tensor, one per line; and
/// onnxc_model_train_state, the initial values at those offsets (64-byte
/// aligned).
static void emitTrainingState(llvm::Module &module,
                              const TrainingState &training) {
  llvm::LLVMContext &ctx = module.getContext();
  std::string info = "onnxc-train 1 " + std::to_string(training.firstInput) +
                     " " + std::to_string(training.initial.size()) + "\n";
  std::string blob;
  for (const std::string &bytes : training.initial) {
    blob.resize(llvm::alignTo(blob.size(), 64), '\0');
    info +=
        std::to_string(blob.size()) + " " + std::to_string(bytes.size()) + "\n";
    blob += bytes;
  }
  blob.resize(std::max<size_t>(blob.size(), 1), '\0');
  auto *text = llvm::ConstantDataArray::getString(ctx, info, true);
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           "onnxc_model_train_info");
  auto *data = llvm::ConstantDataArray::getString(ctx, blob, false);
  auto *global = new llvm::GlobalVariable(
      module, data->getType(), /*isConstant=*/true,
      llvm::GlobalValue::ExternalLinkage, data, "onnxc_model_train_state");
  global->setAlignment(llvm::Align(64));
}

std::unique_ptr<llvm::Module> mlir::onnxc::translateToLLVMIR(
    ModuleOp module, llvm::LLVMContext &llvmContext, StringRef entryName,
    const ModelSignature &signature, const TrainingState *training) {
  // The run-time check messages (see emitRuntimeCheck) leave the module
  // before translation: LLVM has no use for the attribute.
  std::string messages;
  if (auto list = module->getAttrOfType<ArrayAttr>(kRuntimeMessagesAttrName)) {
    for (Attribute a : list) {
      messages += cast<StringAttr>(a).getValue().str();
      messages += '\0';
    }
    module->removeAttr(kRuntimeMessagesAttrName);
  }

  // Which inputs only kernels read (onnxc-device-memory, CUDA): a '1' or
  // '0' per input; the runtime stages the 1s in device memory.
  std::string deviceInputs;
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(entryName))
    if (auto flags = fn->getAttrOfType<DenseBoolArrayAttr>(kDeviceInputsAttr))
      for (bool device : flags.asArrayRef())
        deviceInputs += device ? '1' : '0';

  DialectRegistry registry;
  registerTranslations(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "onnxc_model");
  if (!llvmModule)
    return nullptr;

  // The signature the runtime parses.
  std::string text = signature.serialize();
  auto *init = llvm::ConstantDataArray::getString(llvmContext, text, true);
  new llvm::GlobalVariable(*llvmModule, init->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, init,
                           "onnxc_model_signature");

  auto *deviceFlags =
      llvm::ConstantDataArray::getString(llvmContext, deviceInputs, true);
  new llvm::GlobalVariable(*llvmModule, deviceFlags->getType(),
                           /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, deviceFlags,
                           "onnxc_model_device_inputs");

  if (training)
    emitTrainingState(*llvmModule, *training);

  // The message table the runtime formats a failed check's message from:
  // each message ends in NUL, an empty message ends the table.
  auto *table = llvm::ConstantDataArray::getString(llvmContext, messages, true);
  new llvm::GlobalVariable(*llvmModule, table->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, table,
                           "onnxc_model_messages");
  if (llvm::Function *failFn = llvmModule->getFunction(kRuntimeFailFnName)) {
    failFn->addFnAttr(llvm::Attribute::NoReturn);
    failFn->addFnAttr(llvm::Attribute::Cold);
    failFn->addFnAttr(llvm::Attribute::NoUnwind);
  }

  // void onnxc_model_entry(void **args): args[0] points to the results,
  // args[1..] to the input memref descriptors.
  std::string ciface = ("_mlir_ciface_" + entryName).str();
  llvm::Function *target = llvmModule->getFunction(ciface);
  if (!target) {
    module.emitError() << "the entry function has no C interface (" << ciface
                       << ")";
    return nullptr;
  }
  llvm::Type *ptr = llvm::PointerType::getUnqual(llvmContext);
  auto *entryType =
      llvm::FunctionType::get(llvm::Type::getVoidTy(llvmContext), {ptr}, false);
  llvm::Function *entry =
      llvm::Function::Create(entryType, llvm::GlobalValue::ExternalLinkage,
                             "onnxc_model_entry", *llvmModule);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(llvmContext, "entry", entry));
  // The C interface returns a single result that is not a memref (a
  // sequence or an optional: a pointer) by value instead of through its
  // first argument: stored into the result block here.
  bool byValue = !target->getReturnType()->isVoidTy();
  SmallVector<llvm::Value *> args;
  for (unsigned i = 0; i < target->arg_size(); ++i) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, entry->getArg(0), i + (byValue ? 1 : 0));
    args.push_back(b.CreateLoad(ptr, slot));
  }
  llvm::Value *result = b.CreateCall(target, args);
  if (byValue) {
    if (!target->getReturnType()->isPointerTy()) {
      module.emitError() << "the entry function returns "
                         << "a value the runtime cannot take";
      return nullptr;
    }
    b.CreateStore(result, b.CreateLoad(ptr, entry->getArg(0)));
  }
  b.CreateRetVoid();

  // void onnxc_model_init(void): the weight-only work of
  // onnxc-hoist-constants, which the runtime runs once (empty without it).
  auto *initType =
      llvm::FunctionType::get(llvm::Type::getVoidTy(llvmContext), {}, false);
  llvm::Function *initFn =
      llvm::Function::Create(initType, llvm::GlobalValue::ExternalLinkage,
                             "onnxc_model_init", *llvmModule);
  llvm::IRBuilder<> ib(llvm::BasicBlock::Create(llvmContext, "entry", initFn));
  if (llvm::Function *hoisted = llvmModule->getFunction(kInitFunctionName)) {
    if (hoisted->arg_size() != 0) {
      module.emitError() << kInitFunctionName << " takes arguments";
      return nullptr;
    }
    hoisted->setLinkage(llvm::GlobalValue::InternalLinkage);
    ib.CreateCall(hoisted, {});
  }
  ib.CreateRetVoid();
  return llvmModule;
}

LogicalResult
mlir::onnxc::linkSecondFunction(llvm::Module &module,
                                std::unique_ptr<llvm::Module> function,
                                StringRef prefix, std::string &error) {
  for (StringRef name :
       {"signature", "messages", "entry", "init", "device_inputs"}) {
    llvm::GlobalValue *gv =
        function->getNamedValue(("onnxc_model_" + name).str());
    if (!gv || gv->isDeclaration()) {
      error = "the second function has no onnxc_model_" + name.str();
      return failure();
    }
    std::string renamed = ("onnxc_" + prefix + "_" + name).str();
    if (module.getNamedValue(renamed)) {
      error = "the library already has " + renamed;
      return failure();
    }
    gv->setName(renamed);
  }
  auto internalize = [&](llvm::GlobalValue &gv) {
    if (gv.isDeclaration() || gv.hasLocalLinkage() ||
        gv.getName().starts_with(("onnxc_" + prefix + "_").str()) ||
        gv.getName().starts_with("llvm."))
      return;
    gv.setLinkage(llvm::GlobalValue::InternalLinkage);
    gv.setVisibility(llvm::GlobalValue::DefaultVisibility);
  };
  for (llvm::Function &f : *function)
    internalize(f);
  for (llvm::GlobalVariable &gv : function->globals())
    internalize(gv);
  // Internal symbols that clash with the module's are renamed by the linker.
  if (llvm::Linker::linkModules(module, std::move(function))) {
    error = "cannot link the second function (" + prefix.str() + ")";
    return failure();
  }
  return success();
}

/// Registers the host target and its asm printer (idempotent).
static void initializeNativeTarget() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
}

static llvm::TargetMachine *createTargetMachine(const CodeGenOptions &options,
                                                std::string &error) {
  initializeNativeTarget();
  llvm::Triple triple(options.triple.empty() ? llvm::sys::getDefaultTargetTriple()
                                             : options.triple);
  if (!options.arch.empty()) {
    triple.setArchName(options.arch == "x86-64" ? "x86_64" : options.arch);
    if (triple.getArch() == llvm::Triple::UnknownArch) {
      error = "unknown architecture '" + options.arch + "'";
      return nullptr;
    }
  }
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu = options.cpu, features = options.features;
  bool hostArch = options.arch.empty() && options.triple.empty();
  if (cpu.empty() && !hostArch)
    cpu = "generic";
  if (cpu.empty() || cpu == "native" || cpu == "host") {
    cpu = llvm::sys::getHostCPUName().str();
    if (features.empty()) {
      SmallVector<std::string> list;
      for (auto &f : llvm::sys::getHostCPUFeatures())
        list.push_back((f.second ? "+" : "-") + f.first().str());
      features = llvm::join(list, ",");
    }
  }
  llvm::TargetOptions targetOptions;
  // Constructors (the CUDA target's kernel loading) in .init_array, which
  // the dynamic loader runs; .ctors needs crtbegin.o, which a model's link
  // leaves out.
  targetOptions.UseInitArray = true;
  llvm::CodeGenOptLevel level = options.optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : options.optLevel == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  return target->createTargetMachine(triple, cpu, features, targetOptions,
                                     llvm::Reloc::PIC_, std::nullopt, level);
}

bool mlir::onnxc::targetHasFeature(const CodeGenOptions &options,
                                   StringRef feature) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm(createTargetMachine(options, error));
  return tm && tm->getMCSubtargetInfo()->checkFeatures(("+" + feature).str());
}

CPUTarget mlir::onnxc::getCPUTarget(const CodeGenOptions &options) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm(createTargetMachine(options, error));
  if (!tm)
    return CPUTarget::reference(); // Code generation reports the error.
  const llvm::Triple &triple = tm->getTargetTriple();
  // The features the strategy reads, as the CPU has them (its own and those
  // --mattr adds or removes; checkFeatures resolves the CPU's implied ones).
  SmallVector<std::string> on;
  if (triple.isX86())
    for (const char *f : {"avx", "avx2", "fma", "avx512f", "avx512vnni",
                          "avxvnni", "avx512bf16"})
      if (tm->getMCSubtargetInfo()->checkFeatures(std::string("+") + f))
        on.push_back(std::string("+") + f);
  return CPUTarget::fromFeatures(triple.str(), tm->getTargetCPU(),
                                 llvm::join(on, ","));
}

static LogicalResult runOptimizer(llvm::Module &module, llvm::TargetMachine *tm,
                                  unsigned optLevel) {
  module.setTargetTriple(tm->getTargetTriple());
  module.setDataLayout(tm->createDataLayout());
  if (optLevel == 0)
    return success();
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
  return success();
}

LogicalResult mlir::onnxc::optimizeModule(llvm::Module &module,
                                          const CodeGenOptions &options,
                                          std::string &error) {
  std::unique_ptr<llvm::TargetMachine> tm(createTargetMachine(options, error));
  if (!tm)
    return failure();
  return runOptimizer(module, tm.get(), options.optLevel);
}

LogicalResult mlir::onnxc::emitObjectFile(llvm::Module &module,
                                          const CodeGenOptions &options,
                                          llvm::raw_pwrite_stream &os,
                                          std::string &error) {
  std::unique_ptr<llvm::TargetMachine> tm(createTargetMachine(options, error));
  if (!tm)
    return failure();
  if (failed(runOptimizer(module, tm.get(), options.optLevel)))
    return failure();
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(module);
  return success();
}

//===----------------------------------------------------------------------===//
// Parallel code generation
//===----------------------------------------------------------------------===//

/// Gives every local symbol a name and hidden external linkage, so that a
/// partition can refer to a definition that another one holds; the shared
/// object still exports only what was external before.
static void externalizeLocals(llvm::Module &module) {
  unsigned counter = 0;
  auto externalize = [&](llvm::GlobalValue &gv) {
    if (gv.isDeclaration() || !gv.hasLocalLinkage())
      return;
    if (!gv.hasName())
      gv.setName("__onnxc_local." + Twine(counter++));
    gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
    gv.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::Function &f : module)
    externalize(f);
  for (llvm::GlobalVariable &gv : module.globals())
    externalize(gv);
}

/// Assigns each function definition to one of `count` partitions, largest
/// first to the least loaded one (size in instructions). Global variables
/// (the weights) stay in partition 0, which is compiled from the original
/// module, so that their bytes are never serialised.
static llvm::DenseMap<const llvm::GlobalValue *, unsigned>
assignPartitions(llvm::Module &module, unsigned count) {
  // (size, position in the module): sorted the same way on every run.
  SmallVector<std::tuple<size_t, size_t, llvm::Function *>> functions;
  for (llvm::Function &f : module)
    if (!f.isDeclaration())
      functions.push_back({f.getInstructionCount(), functions.size(), &f});
  llvm::sort(functions, [](auto &a, auto &b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                            : std::get<1>(a) < std::get<1>(b);
  });
  SmallVector<size_t> load(count, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> owner;
  for (auto &[size, position, f] : functions) {
    unsigned best = 0;
    for (unsigned p = 1; p < count; ++p)
      if (load[p] < load[best])
        best = p;
    load[best] += size + 1;
    owner[f] = best;
  }
  return owner;
}

/// Optimises and compiles one module to the object file `path`.
static LogicalResult compileToFile(llvm::Module &module,
                                   const CodeGenOptions &options,
                                   StringRef path, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write " + path.str() + ": " + ec.message();
    return failure();
  }
  if (failed(emitObjectFile(module, options, os, error)))
    return failure();
  os.close();
  if (os.has_error()) {
    error = "cannot write " + path.str() + ": " + os.error().message();
    os.clear_error();
    return failure();
  }
  return success();
}

LogicalResult mlir::onnxc::emitObjectFiles(std::unique_ptr<llvm::Module> module,
                                           const CodeGenOptions &options,
                                           unsigned threads,
                                           ArrayRef<std::string> paths,
                                           unsigned &written,
                                           std::string &error) {
  unsigned count = std::min<unsigned>(std::max(threads, 1u), paths.size());
  unsigned definitions = 0;
  for (llvm::Function &f : *module)
    definitions += !f.isDeclaration();
  count = std::min(count, std::max(definitions, 1u));
  written = count;
  if (count <= 1)
    return compileToFile(*module, options, paths.front(), error);

  // Partitions 1..count-1 travel as bitcode to threads with their own
  // LLVMContext (a context is not thread-safe); partition 0 is what is
  // left of the original module.
  externalizeLocals(*module);
  auto owner = assignPartitions(*module, count);
  SmallVector<SmallVector<char, 0>> bitcode(count);
  for (unsigned p = 1; p < count; ++p) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(*module, map, [&](const llvm::GlobalValue *gv) {
          auto it = owner.find(gv);
          return it != owner.end() && it->second == p;
        });
    llvm::raw_svector_ostream os(bitcode[p]);
    llvm::WriteBitcodeToFile(*part, os);
  }
  for (llvm::Function &f : *module) {
    auto it = owner.find(&f);
    if (it != owner.end() && it->second != 0)
      f.deleteBody();
  }

  // Targets are registered before the threads start.
  initializeNativeTarget();
  SmallVector<std::string> errors(count);
  SmallVector<char> failed(count, 0);
  std::vector<std::thread> workers;
  for (unsigned p = 1; p < count; ++p)
    workers.emplace_back([&, p] {
      llvm::LLVMContext context;
      auto part = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(StringRef(bitcode[p].data(), bitcode[p].size()),
                                "partition"),
          context);
      if (!part) {
        errors[p] = llvm::toString(part.takeError());
        failed[p] = 1;
        return;
      }
      bitcode[p].clear();
      failed[p] = ::failed(compileToFile(**part, options, paths[p], errors[p]));
    });
  failed[0] = ::failed(compileToFile(*module, options, paths[0], errors[0]));
  for (std::thread &worker : workers)
    worker.join();
  for (unsigned p = 0; p < count; ++p)
    if (failed[p]) {
      error = errors[p];
      return failure();
    }
  return success();
}

//===----------------------------------------------------------------------===//
// Linking
//===----------------------------------------------------------------------===//

/// The runtime archive: next to the running onnxc (build tree: ../lib).
static std::string findRuntimeLibrary(StringRef name) {
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  SmallString<256> path(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(path, "..", "lib", name);
  if (llvm::sys::fs::exists(path))
    return std::string(path);
  SmallString<256> configured(
      llvm::sys::path::parent_path(ONNXC_RUNTIME_LIBRARY));
  llvm::sys::path::append(configured, name);
  return std::string(configured);
}

LogicalResult mlir::onnxc::linkSharedObject(ArrayRef<std::string> objectFiles,
                                            StringRef output, bool cuda,
                                            std::string &error) {
  std::string runtime = findRuntimeLibrary("libonnxc_runtime.a");
  std::string cudaRuntime = findRuntimeLibrary("libonnxc_runtime_cuda.a");
  auto linker = llvm::sys::findProgramByName(ONNXC_LINKER);
  if (!linker) {
    error = std::string("cannot find the linker ") + ONNXC_LINKER;
    return failure();
  }
  SmallVector<StringRef> args = {*linker, "-shared", "--hash-style=gnu", "-o",
                                 output};
  for (const std::string &object : objectFiles)
    args.push_back(object);
  args.append({"--whole-archive", runtime});
  // The CUDA target's launches and managed memory (libcuda is dlopened).
  if (cuda)
    args.push_back(cudaRuntime);
  args.append({"--no-whole-archive", "--as-needed"});
  if (cuda)
    args.push_back("-ldl");
  args.append({"-lm", "-lc", "--no-as-needed", "-z", "noexecstack",
               "-L/usr/lib/x86_64-linux-gnu", "-L/lib/x86_64-linux-gnu"});
  // Builtins such as __truncsfhf2 (f16 without F16C) come from the static
  // libgcc; the shared object gains no run-time dependency from it.
  if (StringRef(ONNXC_LIBGCC).size() && llvm::sys::fs::exists(ONNXC_LIBGCC))
    args.push_back(ONNXC_LIBGCC);
  std::string message;
  SmallString<128> errFile;
  llvm::sys::fs::createTemporaryFile("onnxc-link", "txt", errFile);
  std::optional<StringRef> redirects[] = {std::nullopt, std::nullopt,
                                          StringRef(errFile)};
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, redirects, 0,
                                     0, &message);
  auto text = llvm::MemoryBuffer::getFile(errFile);
  llvm::sys::fs::remove(errFile);
  if (rc != 0) {
    error = "linking failed: " + message;
    if (text)
      error += "\n" + (*text)->getBuffer().str();
    return failure();
  }
  return success();
}
