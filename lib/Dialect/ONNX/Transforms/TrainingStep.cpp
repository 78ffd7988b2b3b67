//===- TrainingStep.cpp - An inference graph as one training step ---------===//
//
// onnx-build-training-step: turns the entry function of an imported model
// into one step of training it: the trainable initializers (and the
// optimizer's state, and BatchNormalization's running statistics) become
// inputs, a loss is computed on a model output and labels, the gradients
// come from buildGradients (Autodiff.h), an optimizer updates the
// parameters, and the function returns the loss and the new state. The
// state's initial values go into module attributes, which the code
// generator embeds for the runtime's training API (onnxc_train_*).
// onnx-promote-initializers makes the evaluation function of a training
// library: named initializers become arguments.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Autodiff.h"
#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXBUILDTRAININGSTEP
#define GEN_PASS_DEF_ONNXPROMOTEINITIALIZERS
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// One tensor of the training state: a function argument, its initial
/// value and the value the step returns for it.
struct StateTensor {
  BlockArgument arg;
  ElementsAttr initial;
  Value next;
};

struct ONNXBuildTrainingStepPass
    : onnxc::impl::ONNXBuildTrainingStepBase<ONNXBuildTrainingStepPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto f = module.lookupSymbol<func::FuncOp>(entry);
    if (!f) {
      module.emitError() << "onnx-build-training-step: no function '" << entry
                         << "'";
      return signalPassFailure();
    }
    if (failed(fromModel ? buildFromBinding(module, f) : build(module, f)))
      signalPassFailure();
  }

  /// Ends `f` with the step's results: the loss, then each state tensor's
  /// next value (in argument order), and records the initial state.
  void finish(ModuleOp module, func::FuncOp f, func::ReturnOp ret, Value loss,
              unsigned firstState, SmallVector<StateTensor> all) {
    OpBuilder b(ret);
    llvm::sort(all, [](const StateTensor &a, const StateTensor &b) {
      return a.arg.getArgNumber() < b.arg.getArgNumber();
    });
    SmallVector<Value> results{loss};
    SmallVector<Attribute> initial;
    SmallVector<DictionaryAttr> resultAttrs{b.getDictionaryAttr(
        b.getNamedAttr("onnx.name", b.getStringAttr("loss")))};
    for (StateTensor &s : all) {
      results.push_back(s.next);
      initial.push_back(s.initial);
      resultAttrs.push_back(f.getArgAttrDict(s.arg.getArgNumber()));
    }
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(),
                                TypeRange(ValueRange(results))));
    f.setAllResultAttrs(resultAttrs);
    module->setAttr("onnxc.train_state", b.getArrayAttr(initial));
    module->setAttr("onnxc.train_first_state", b.getI64IntegerAttr(firstState));
  }

  /// The step of a model's own training algorithm (`onnxc.update_binding`).
  LogicalResult buildFromBinding(ModuleOp module, func::FuncOp f) {
    auto binding = module->getAttrOfType<ArrayAttr>("onnxc.update_binding");
    if (!binding)
      return f.emitError() << "from-model: the module has no "
                              "onnxc.update_binding (the model has no "
                              "training algorithm)";
    Block &block = f.front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    llvm::StringMap<ONNXConstantOp> initializers;
    for (auto cst : block.getOps<ONNXConstantOp>())
      if (auto name = cst->getAttrOfType<StringAttr>("onnx.initializer"))
        initializers[name.getValue()] = cst;
    llvm::StringMap<unsigned> resultIndex;
    for (unsigned i = 0; i < f.getNumResults(); ++i)
      if (auto name = f.getResultAttrOfType<StringAttr>(i, "onnx.name"))
        resultIndex.try_emplace(name.getValue(), i);
    unsigned firstState = f.getNumArguments();
    SmallVector<StateTensor> state;
    llvm::StringSet<> bound;
    for (Attribute entry : binding) {
      auto pair = dyn_cast<ArrayAttr>(entry);
      auto key = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0])
                                          : StringAttr();
      auto value = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[1])
                                            : StringAttr();
      if (!key || !value)
        return f.emitError() << "onnxc.update_binding holds " << entry
                             << ", not a pair of names";
      ONNXConstantOp cst = initializers.lookup(key.getValue());
      auto initial = cst ? dyn_cast_or_null<ElementsAttr>(cst.getValueAttr())
                         : ElementsAttr();
      if (!initial)
        return f.emitError() << "update_binding: '" << key.getValue()
                             << "' is not an initializer with a value";
      auto it = resultIndex.find(value.getValue());
      if (it == resultIndex.end())
        return f.emitError() << "update_binding: '" << value.getValue()
                             << "' is not an output";
      Value next = ret.getOperand(it->second);
      Type type = cst.getType();
      auto nextType = dyn_cast<ShapedType>(next.getType());
      if (!nextType ||
          getElementTypeOrSelf(nextType) != getElementTypeOrSelf(type) ||
          (nextType.hasRank() &&
           failed(verifyCompatibleShape(nextType, cast<ShapedType>(type)))))
        return f.emitError()
               << "update_binding: '" << value.getValue() << "' ("
               << next.getType() << ") cannot be the next value of '"
               << key.getValue() << "' (" << type << ")";
      BlockArgument arg = addArgument(f, type, key.getValue());
      cst.getResult().replaceAllUsesWith(arg);
      cst->erase();
      initializers.erase(key.getValue());
      bound.insert(value.getValue());
      state.push_back({arg, initial, next});
    }
    for (auto &entry : initializers)
      entry.second->removeAttr("onnx.initializer");
    module->removeAttr("onnxc.update_binding");

    // The loss: the first result no binding names.
    OpBuilder b(ret);
    GradientEmitter e(b, f.getLoc());
    Value loss;
    for (unsigned i = 0; i < f.getNumResults() && !loss; ++i) {
      auto name = f.getResultAttrOfType<StringAttr>(i, "onnx.name");
      if (name && bound.contains(name.getValue()))
        continue;
      Value v = ret.getOperand(i);
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || !isa<FloatType>(type.getElementType()))
        return f.emitError() << "the algorithm's output '"
                             << (name ? name.getValue() : StringRef("?"))
                             << "', reported as the loss, is not a float "
                                "tensor of known rank";
      loss = type.getRank() == 0
                 ? v
                 : e.make("ReduceMean", {v}, {{"keepdims", e.i64Attr(0)}});
    }
    if (!loss)
      loss = e.filled({}, b.getF32Type(), 0.0);
    finish(module, f, ret, loss, firstState, std::move(state));
    return success();
  }

  BlockArgument addArgument(func::FuncOp f, Type type, StringRef name) {
    unsigned index = f.getNumArguments();
    OpBuilder b(f.getContext());
    (void)f.insertArgument(
        index, type,
        b.getDictionaryAttr(b.getNamedAttr("onnx.name", b.getStringAttr(name))),
        f.getLoc());
    return f.getArgument(index);
  }

  /// A step counter: an i64 state argument `name`, 0 at first, plus one per
  /// step (its next value built by `e`).
  StateTensor addStepCounter(func::FuncOp f, GradientEmitter &e,
                             StringRef name) {
    Type i64 = e.b.getI64Type();
    auto type = RankedTensorType::get({}, i64);
    BlockArgument arg = addArgument(f, type, name);
    return {arg, DenseElementsAttr::get(type, int64_t(0)),
            e.add(arg, e.intScalar(i64, 1))};
  }

  /// BatchNormalization in training mode with its running statistics as
  /// results (what model.train() means for it).
  void setTrainingModes(func::FuncOp f) {
    SmallVector<ONNXBatchNormalizationOp> ops;
    f.walk([&](ONNXBatchNormalizationOp op) { ops.push_back(op); });
    for (ONNXBatchNormalizationOp bn : ops) {
      if (bn.getTrainingMode() && bn.getRunningMean() && bn.getRunningVar())
        continue;
      OpBuilder b(bn);
      OperationState state(bn.getLoc(), bn->getName());
      state.addAttributes(bn->getAttrs());
      state.addOperands(bn->getOperands());
      state.addAttribute("training_mode", b.getI64IntegerAttr(1));
      state.addAttribute("resultSegmentSizes",
                         b.getDenseI32ArrayAttr({1, 1, 1}));
      state.addTypes({bn.getY().getType(), bn.getInputMean().getType(),
                      bn.getInputVar().getType()});
      Operation *replacement = b.create(state);
      for (auto [from, to] :
           llvm::zip(bn->getResults(), replacement->getResults()))
        from.replaceAllUsesWith(to);
      bn->erase();
    }
  }

  /// Dropout drops, with a new mask every step: each Dropout becomes
  /// x * keep / (1 - ratio), keep = u >= ratio for u uniform in [0, 1) from
  /// splitmix64 of (element index, the node, `step`) in uint64 onnx ops (the
  /// Dropout op's own generator draws the same mask on every run). Returns
  /// the `dropout.step` counter, or nothing without a Dropout.
  std::optional<StateTensor> dropEveryStep(func::FuncOp f,
                                           GradientEmitter &counter) {
    SmallVector<ONNXDropoutOp> ops;
    f.walk([&](ONNXDropoutOp op) { ops.push_back(op); });
    if (ops.empty())
      return std::nullopt;
    StateTensor step = addStepCounter(f, counter, "dropout.step");
    uint64_t node = 0;
    for (ONNXDropoutOp dropout : ops) {
      OpBuilder b(dropout);
      GradientEmitter e(b, dropout.getLoc());
      Value x = dropout.getData();
      Type u64 = b.getIntegerType(64, /*isSigned=*/false);
      auto u64s = [&](uint64_t v) { return e.intScalar(u64, v); };
      auto cast = [&](Value v, Type to, int64_t onnxType) {
        return e.make("Cast", {v}, {{"to", e.i64Attr(onnxType)}}, to);
      };
      auto shr = [&](Value v, uint64_t bits) {
        return e.make("BitShift", {v, u64s(bits)},
                      {{"direction", b.getStringAttr("RIGHT")}});
      };
      auto mix = [&](Value z, uint64_t bits, uint64_t mul) {
        Value v = e.make("BitwiseXor", {z, shr(z, bits)});
        return mul ? e.mul(v, u64s(mul)) : v;
      };
      // Element indices in x's shape.
      Type i64 = b.getI64Type();
      Value count = e.make("Size", {x}, {}, i64);
      Value index =
          e.make("Range", {e.intScalar(i64, 0), count, e.intScalar(i64, 1)});
      index = e.reshapeLike(cast(index, u64, /*UINT64=*/13), x);
      uint64_t key = 0x5EED0000ull + ++node * 0xD1B54A32D192ED03ull;
      Value offset = e.add(u64s(key), e.mul(cast(step.arg, u64, 13),
                                            u64s(0xA0761D6478BD642Full)));
      Value z = e.add(e.mul(index, u64s(0x9E3779B97F4A7C15ull)), offset);
      z = mix(mix(mix(z, 30, 0xBF58476D1CE4E5B9ull), 27, 0x94D049BB133111EBull),
              31, 0);
      Value uniform =
          e.mul(e.castLike(shr(z, 40), x), e.scalar(x, std::ldexp(1.0, -24)));
      Value ratio = dropout.getRatio() ? e.castLike(dropout.getRatio(), x)
                                       : e.scalar(x, 0.5);
      Value keep =
          e.make("GreaterOrEqual", {uniform, ratio}, {}, b.getI1Type());
      Value scale = e.div(e.scalar(x, 1.0), e.sub(e.scalar(x, 1.0), ratio));
      Value y = e.mul(e.mul(x, e.castLike(keep, x)), scale);
      y.setType(dropout.getOutput().getType());
      dropout.getOutput().replaceAllUsesWith(y);
      if (Value mask = dropout.getMask())
        mask.replaceAllUsesWith(keep);
      dropout->erase();
    }
    return step;
  }

  /// The loss of the model's output `out`; adds the labels argument.
  FailureOr<Value> buildLoss(func::FuncOp f, GradientEmitter &e, Value out) {
    auto type = dyn_cast<RankedTensorType>(out.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return f.emitError() << "the loss output is not a float tensor of "
                              "known rank";
    if (loss == "output")
      return type.getRank() == 0
                 ? out
                 : e.make("ReduceMean", {out}, {{"keepdims", e.i64Attr(0)}});
    if (loss == "mse") {
      Value labels = addArgument(f, type, "labels");
      Value diff = e.sub(out, labels);
      return e.make("ReduceMean", {e.mul(diff, diff)},
                    {{"keepdims", e.i64Attr(0)}});
    }
    if (loss != "cross-entropy")
      return f.emitError() << "unknown loss '" << loss
                           << "' (cross-entropy, mse or output)";
    if (type.getRank() < 2)
      return f.emitError() << "cross-entropy needs logits of rank 2 or more "
                              "(N, C, ...), not "
                           << type;
    SmallVector<int64_t> labelShape(type.getShape());
    labelShape.erase(labelShape.begin() + 1);
    Value labels = addArgument(
        f, RankedTensorType::get(labelShape, e.b.getI64Type()), "labels");
    // mean over the samples of -log softmax(out)[label].
    Value logProb = e.make("LogSoftmax", {out}, {{"axis", e.i64Attr(1)}});
    Value picked = e.make("GatherElements",
                          {logProb, e.make("Unsqueeze", {labels, e.i64s({1})})},
                          {{"axis", e.i64Attr(1)}});
    return e.neg(e.make("ReduceMean", {picked}, {{"keepdims", e.i64Attr(0)}}));
  }

  LogicalResult build(ModuleOp module, func::FuncOp f) {
    Block &block = f.front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    if (lossOutput < 0 || lossOutput >= int64_t(ret.getNumOperands()))
      return f.emitError() << "--loss-output " << lossOutput
                           << ": the model has " << ret.getNumOperands()
                           << " outputs";
    setTrainingModes(f);
    OpBuilder b(ret);
    GradientEmitter e(b, f.getLoc());
    FailureOr<Value> lossValue = buildLoss(f, e, ret.getOperand(lossOutput));
    if (failed(lossValue))
      return failure();
    unsigned firstState = f.getNumArguments();
    SmallVector<StateTensor> state;
    if (std::optional<StateTensor> step = dropEveryStep(f, e))
      state.push_back(*step);

    // What the loss depends on.
    llvm::DenseSet<Value> needed{*lossValue};
    for (Operation &op : llvm::reverse(block.without_terminator())) {
      if (llvm::none_of(op.getResults(),
                        [&](Value r) { return needed.contains(r); }))
        continue;
      op.walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          needed.insert(v);
      });
    }
    llvm::StringSet<> frozen;
    for (const std::string &name : freeze)
      frozen.insert(name);

    // BatchNormalization's running statistics: state updated by the op.
    llvm::DenseSet<Operation *> statistics;
    llvm::DenseMap<Value, Value> runningNext;
    f.walk([&](ONNXBatchNormalizationOp bn) {
      runningNext[bn.getInputMean()] = bn.getRunningMean();
      runningNext[bn.getInputVar()] = bn.getRunningVar();
    });

    // Trainable parameters: float initializers the loss depends on.
    SmallVector<ONNXConstantOp> initializers;
    for (auto cst : block.getOps<ONNXConstantOp>())
      if (cst->hasAttr("onnx.initializer"))
        initializers.push_back(cst);
    SmallVector<StateTensor> params;
    for (ONNXConstantOp cst : initializers) {
      Value v = cst.getResult();
      auto name = cst->getAttrOfType<StringAttr>("onnx.initializer");
      auto value = dyn_cast_or_null<ElementsAttr>(cst.getValueAttr());
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!value || !type || !isa<FloatType>(type.getElementType()) ||
          !needed.contains(v) || frozen.contains(name.getValue()))
        continue;
      bool isStatistic = runningNext.count(v) &&
                         llvm::all_of(v.getUsers(), [](Operation *user) {
                           return isa<ONNXBatchNormalizationOp>(user);
                         });
      BlockArgument arg = addArgument(f, type, name.getValue());
      v.replaceAllUsesWith(arg);
      if (isStatistic) {
        state.push_back({arg, value, runningNext.lookup(v)});
      } else {
        params.push_back({arg, value, Value()});
      }
    }
    for (ONNXConstantOp cst : initializers)
      if (cst->use_empty())
        cst->erase();
      else
        cst->removeAttr("onnx.initializer");
    if (params.empty())
      return f.emitError() << "no trainable parameter: no float initializer "
                              "(not frozen) that the loss depends on";
    Type element = params.front().arg.getType();
    element = getElementTypeOrSelf(element);
    for (StateTensor &p : params)
      if (getElementTypeOrSelf(p.arg.getType()) != element)
        return f.emitError() << "the parameters have different element types";

    // The gradients, then the optimizer.
    SmallVector<Value> xs;
    for (StateTensor &p : params)
      xs.push_back(p.arg);
    FailureOr<SmallVector<Value>> grads =
        buildGradients(b, f.getLoc(), *lossValue, xs, {});
    if (failed(grads))
      return failure();
    if (failed(optimize(f, e, params, *grads, state)))
      return failure();

    // loss, then the state in argument order.
    SmallVector<StateTensor> all(params);
    all.append(state.begin(), state.end());
    finish(module, f, ret, *lossValue, firstState, std::move(all));
    return success();
  }

  /// Sets each parameter's next value and adds the optimizer's state.
  LogicalResult optimize(func::FuncOp f, GradientEmitter &e,
                         MutableArrayRef<StateTensor> params,
                         ArrayRef<Value> grads,
                         SmallVectorImpl<StateTensor> &state) {
    Value like = params.front().arg;
    Type element = getElementTypeOrSelf(like.getType());
    if (optimizer == "sgd") {
      for (auto [p, g] : llvm::zip(params, grads)) {
        Value step = weightDecay != 0.0
                         ? e.add(g, e.mul(p.arg, e.scalar(like, weightDecay)))
                         : g;
        p.next = e.sub(p.arg, e.mul(step, e.scalar(like, learningRate)));
      }
      return success();
    }
    // The ONNX optimizers: R, T, then X..., G..., and their state tensors.
    unsigned slots = optimizer == "adam" ? 2 : 1;
    if (optimizer != "adam" && optimizer != "adagrad" &&
        optimizer != "momentum" && optimizer != "nesterov")
      return f.emitError() << "unknown optimizer '" << optimizer
                           << "' (sgd, momentum, nesterov, adam or adagrad)";
    StateTensor step = addStepCounter(f, e, "optimizer.step");
    SmallVector<SmallVector<BlockArgument>> slotArgs(slots);
    static const char *slotNames[3][2] = {
        {".momentum", ""}, {".adam_m", ".adam_v"}, {".adagrad_h", ""}};
    int kind = optimizer == "adam" ? 1 : optimizer == "adagrad" ? 2 : 0;
    for (unsigned s = 0; s < slots; ++s)
      for (StateTensor &p : params) {
        StringRef name =
            cast<StringAttr>(f.getArgAttr(p.arg.getArgNumber(), "onnx.name"))
                .getValue();
        slotArgs[s].push_back(
            addArgument(f, p.arg.getType(), (name + slotNames[kind][s]).str()));
      }
    SmallVector<Value> operands{e.scalar(like, learningRate)};
    // Adam's bias correction with the count including this step (as
    // PyTorch's); the others take the count of earlier steps.
    operands.push_back(optimizer == "adam" ? step.next : Value(step.arg));
    for (StateTensor &p : params)
      operands.push_back(p.arg);
    operands.append(grads.begin(), grads.end());
    for (auto &args : slotArgs)
      operands.append(args.begin(), args.end());
    SmallVector<std::pair<StringRef, Attribute>> attrs;
    StringRef opName;
    if (kind == 0) {
      opName = "preview.training.Momentum";
      attrs = {{"alpha", e.f32Attr(momentum)},
               {"beta", e.f32Attr(1.0)},
               {"mode", e.b.getStringAttr(
                            optimizer == "nesterov" ? "nesterov" : "standard")},
               {"norm_coefficient", e.f32Attr(weightDecay)}};
    } else if (kind == 1) {
      opName = "preview.training.Adam";
      attrs = {{"alpha", e.f32Attr(beta1)},
               {"beta", e.f32Attr(beta2)},
               {"epsilon", e.f32Attr(epsilon)},
               {"norm_coefficient", e.f32Attr(weightDecay)}};
    } else {
      opName = "preview.training.Adagrad";
      attrs = {{"epsilon", e.f32Attr(epsilon)},
               {"norm_coefficient", e.f32Attr(weightDecay)}};
    }
    Operation *op =
        e.create(opName, operands, attrs, params.size() * (1 + slots), element);
    unsigned r = 0;
    for (StateTensor &p : params) {
      op->getResult(r).setType(p.arg.getType());
      p.next = op->getResult(r++);
    }
    for (auto &args : slotArgs)
      for (BlockArgument arg : args) {
        op->getResult(r).setType(arg.getType());
        state.push_back({arg,
                         DenseElementsAttr::get(cast<ShapedType>(arg.getType()),
                                                e.b.getFloatAttr(element, 0.0)),
                         op->getResult(r++)});
      }
    state.push_back(step);
    return success();
  }
};

} // namespace

namespace {

struct ONNXPromoteInitializersPass
    : onnxc::impl::ONNXPromoteInitializersBase<ONNXPromoteInitializersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto f = module.lookupSymbol<func::FuncOp>(entry);
    if (!f) {
      module.emitError() << "onnx-promote-initializers: no function '" << entry
                         << "'";
      return signalPassFailure();
    }
    llvm::StringMap<ONNXConstantOp> initializers;
    for (auto cst : f.front().getOps<ONNXConstantOp>())
      if (auto name = cst->getAttrOfType<StringAttr>("onnx.initializer"))
        initializers[name.getValue()] = cst;
    OpBuilder b(f.getContext());
    for (const std::string &name : names) {
      ONNXConstantOp cst = initializers.lookup(name);
      if (!cst) {
        f.emitError() << "onnx-promote-initializers: '" << name
                      << "' is not an initializer of the function";
        return signalPassFailure();
      }
      unsigned index = f.getNumArguments();
      (void)f.insertArgument(index, cst.getType(),
                             b.getDictionaryAttr(b.getNamedAttr(
                                 "onnx.name", b.getStringAttr(name))),
                             cst.getLoc());
      cst.getResult().replaceAllUsesWith(f.getArgument(index));
      cst->erase();
      initializers.erase(name);
    }
    for (auto &entry : initializers)
      entry.second->removeAttr("onnx.initializer");
  }
};

} // namespace
