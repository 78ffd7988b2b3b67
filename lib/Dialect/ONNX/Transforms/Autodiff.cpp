//===- Autodiff.cpp - Reverse-mode differentiation of onnx graphs ---------===//
//
// The engine of onnx-derive-gradients: GradientEmitter (typed onnx ops at an
// insertion point), buildGradients (the reverse walk) and the pass, which
// replaces each ai.onnx.preview.training Gradient op by the backward graph.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/Transforms/Autodiff.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Dialect/ONNX/Transforms/SchemaInference.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXDERIVEGRADIENTS
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

//===----------------------------------------------------------------------===//
// GradientEmitter
//===----------------------------------------------------------------------===//

Operation *
GradientEmitter::create(StringRef name, ArrayRef<Value> operands,
                        ArrayRef<std::pair<StringRef, Attribute>> attrs,
                        unsigned numResults, Type elementType) {
  std::string opName = ("onnx." + name).str();
  const ONNXOpInfo *info = lookupONNXOpInfo(opName);
  assert(info && "GradientEmitter: not an onnx op");
  OperationState state(loc, opName);
  for (Value v : operands)
    if (v)
      state.addOperands(v);
  if (info->attrSizedOperands) {
    SmallVector<int32_t> segments;
    for (size_t i = 0; i < info->inputs.size(); ++i)
      segments.push_back(i < operands.size() && operands[i] ? 1 : 0);
    state.addAttribute("operandSegmentSizes", b.getDenseI32ArrayAttr(segments));
  }
  if (!elementType)
    elementType = getElementTypeOrSelf(operands.front().getType());
  for (unsigned i = 0; i < numResults; ++i)
    state.addTypes(UnrankedTensorType::get(elementType));
  if (info->attrSizedResults) {
    SmallVector<int32_t> segments(info->outputs.size(), 0);
    for (unsigned i = 0; i < numResults && i < segments.size(); ++i)
      segments[i] = 1;
    state.addAttribute("resultSegmentSizes", b.getDenseI32ArrayAttr(segments));
  }
  for (auto [attrName, value] : attrs)
    state.addAttribute(getODSAttrName(state.name, attrName), value);
  Operation *op = b.create(state);
  std::string error;
  FailureOr<SmallVector<Type>> inferred = inferTypesFromSchema(op, error);
  if (succeeded(inferred))
    for (auto [result, type] : llvm::zip(op->getResults(), *inferred))
      if (type && isa<TensorType>(type))
        result.setType(type);
  return op;
}

Value GradientEmitter::make(StringRef name, ArrayRef<Value> operands,
                            ArrayRef<std::pair<StringRef, Attribute>> attrs,
                            Type elementType) {
  return create(name, operands, attrs, 1, elementType)->getResult(0);
}

Value GradientEmitter::scalar(Value like, double value) {
  return createONNXScalar(b, loc, getElementTypeOrSelf(like.getType()), value);
}

Value GradientEmitter::intScalar(Type type, uint64_t value) {
  return createONNXConstant(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, type),
                             APInt(type.getIntOrFloatBitWidth(), value)));
}

Value GradientEmitter::i64s(ArrayRef<int64_t> values) {
  return createONNXShapeConstant(b, loc, values);
}

Value GradientEmitter::shapeOf(Value v) {
  if (auto type = dyn_cast<RankedTensorType>(v.getType());
      type && type.hasStaticShape())
    return i64s(type.getShape());
  return make("Shape", {v}, {}, b.getI64Type());
}

Value GradientEmitter::reshapeLike(Value v, Value like) {
  auto likeType = dyn_cast<RankedTensorType>(like.getType());
  auto vType = dyn_cast<RankedTensorType>(v.getType());
  if (likeType && vType && likeType.hasStaticShape() &&
      likeType.getShape() == vType.getShape())
    return v;
  Value r = make("Reshape", {v, shapeOf(like)});
  if (likeType)
    r.setType(likeType.clone(getElementTypeOrSelf(v.getType())));
  return r;
}

Value GradientEmitter::castLike(Value v, Value like) {
  Type to = getElementTypeOrSelf(like.getType());
  if (getElementTypeOrSelf(v.getType()) == to)
    return v;
  return make("CastLike", {v, like}, {}, to);
}

static Attribute elementAttr(OpBuilder &b, Type element, double value) {
  return isa<FloatType>(element)
             ? Attribute(b.getFloatAttr(element, value))
             : Attribute(b.getIntegerAttr(element, int64_t(value)));
}

Value GradientEmitter::filled(ArrayRef<int64_t> shape, Type elementType,
                              double value) {
  return createONNXConstant(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get(shape, elementType),
                             elementAttr(b, elementType, value)));
}

Value GradientEmitter::filledLike(Value like, double value) {
  auto type = dyn_cast<RankedTensorType>(like.getType());
  Type element = getElementTypeOrSelf(like.getType());
  Attribute one = elementAttr(b, element, value);
  if (type && type.hasStaticShape())
    return createONNXConstant(b, loc, DenseElementsAttr::get(type, one));
  auto single = RankedTensorType::get({1}, element);
  Value r = make("ConstantOfShape", {shapeOf(like)},
                 {{"value", DenseElementsAttr::get(single, one)}}, element);
  if (type)
    r.setType(type);
  return r;
}

Value GradientEmitter::perChannel(Value v, int64_t rank) {
  if (rank <= 2)
    return v;
  return make("Unsqueeze",
              {v, i64s(llvm::to_vector(llvm::seq<int64_t>(1, rank - 1)))});
}

int64_t mlir::onnxc::rankOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getRank() : -1;
}

SmallVector<int64_t> mlir::onnxc::allButChannels(int64_t rank) {
  SmallVector<int64_t> axes{0};
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  return axes;
}

Value GradientEmitter::transpose(Value v, ArrayRef<int64_t> perm) {
  return make("Transpose", {v}, {{"perm", i64ArrayAttr(perm)}});
}

Value GradientEmitter::reduceSum(Value v, ArrayRef<int64_t> axes,
                                 bool keepDims) {
  return make("ReduceSum", {v, i64s(axes)}, {{"keepdims", i64Attr(keepDims)}});
}

FailureOr<Value> GradientEmitter::sumToOperand(Value grad, Value operand,
                                               ValueRange others,
                                               std::string &why,
                                               int64_t exactTrailing) {
  auto gType = dyn_cast<RankedTensorType>(grad.getType());
  auto xType = dyn_cast<RankedTensorType>(operand.getType());
  if (!gType || !xType) {
    why = "the rank of a broadcast operand is unknown";
    return failure();
  }
  int64_t r = gType.getRank(), k = xType.getRank();
  if (k > r) {
    why = "an operand has a higher rank than the result";
    return failure();
  }
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < r; ++i) {
    if (i < r - k) {
      axes.push_back(i);
      continue;
    }
    int64_t xd = xType.getDimSize(i - (r - k)), gd = gType.getDimSize(i);
    if (xd == 1) {
      if (gd != 1)
        axes.push_back(i);
      continue;
    }
    if (!ShapedType::isDynamic(xd) || i >= r - exactTrailing)
      continue;
    // A dynamic dim is broadcast at run time only when it is 1 and another
    // operand's is not: impossible where every other operand has no such
    // dim or a static 1 there.
    bool othersOne = llvm::all_of(others, [&](Value other) {
      auto t = dyn_cast<RankedTensorType>(other.getType());
      if (!t)
        return false;
      int64_t j = i - (r - t.getRank());
      return j < 0 || t.getDimSize(j) == 1;
    });
    if (!othersOne) {
      why = "an operand may be broadcast along dynamic dim " +
            std::to_string(i) +
            " (its size is only known at run time); give the model static "
            "shapes";
      return failure();
    }
  }
  if (axes.empty())
    return reshapeLike(grad, operand);
  return reshapeLike(reduceSum(grad, axes, /*keepDims=*/true), operand);
}

//===----------------------------------------------------------------------===//
// The reverse walk
//===----------------------------------------------------------------------===//

const llvm::StringMap<GradientRule> &mlir::onnxc::getGradientRules() {
  static const llvm::StringMap<GradientRule> rules = [] {
    llvm::StringMap<GradientRule> r;
    registerElementwiseGradientRules(r);
    registerTensorGradientRules(r);
    registerNNGradientRules(r);
    registerNormGradientRules(r);
    return r;
  }();
  return rules;
}

static bool isDifferentiable(Value v) {
  return isa<FloatType>(getElementTypeOrSelf(v.getType())) &&
         isa<TensorType>(v.getType());
}

/// Training-mode Dropouts before `end` that do not return their mask get
/// it: the backward pass multiplies by that same mask. Returns `y`, or the
/// replacement of a Dropout result it was.
static Value addDropoutMasks(Block *block, Block::iterator end, Value y) {
  for (Operation &op :
       llvm::make_early_inc_range(llvm::make_range(block->begin(), end))) {
    auto dropout = dyn_cast<ONNXDropoutOp>(&op);
    if (!dropout || dropout.getMask() || !dropout.getTrainingMode())
      continue;
    DenseElementsAttr mode;
    if (matchPattern(dropout.getTrainingMode(), m_Constant(&mode)) &&
        !mode.getSplatValue<bool>())
      continue;
    auto type = dyn_cast<TensorType>(dropout.getOutput().getType());
    if (!type)
      continue;
    OpBuilder b(&op);
    OperationState state(op.getLoc(), op.getName());
    state.addOperands(op.getOperands());
    state.addAttributes(op.getAttrs());
    state.addAttribute("resultSegmentSizes", b.getDenseI32ArrayAttr({1, 1}));
    state.addTypes({type, type.clone(b.getI1Type())});
    Operation *masked = b.create(state);
    if (y == dropout.getOutput())
      y = masked->getResult(0);
    dropout.getOutput().replaceAllUsesWith(masked->getResult(0));
    op.erase();
  }
  return y;
}

FailureOr<SmallVector<Value>> mlir::onnxc::buildGradients(OpBuilder &b,
                                                          Location loc, Value y,
                                                          ValueRange xs,
                                                          ValueRange stops) {
  Block *block = b.getInsertionBlock();
  Block::iterator end = b.getInsertionPoint();
  llvm::DenseSet<Value> independent(xs.begin(), xs.end());
  independent.insert(stops.begin(), stops.end());
  y = addDropoutMasks(block, end, y);

  // Forward: the values that depend on an x.
  llvm::DenseSet<Value> varying(xs.begin(), xs.end());
  auto usesVarying = [&](Operation *op) {
    bool found = false;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        found |= varying.contains(v);
    });
    return found;
  };
  for (Operation &op : llvm::make_range(block->begin(), end))
    if (usesVarying(&op))
      for (Value r : op.getResults())
        if (!independent.contains(r) && isDifferentiable(r))
          varying.insert(r);

  GradientEmitter e(b, loc);
  llvm::DenseMap<Value, Value> grads;
  auto accumulate = [&](Value v, Value g) {
    Value &slot = grads[v];
    slot = slot ? GradientEmitter(b, loc).add(slot, g) : g;
  };
  if (varying.contains(y))
    grads[y] = e.filledLike(y, 1.0);

  const llvm::StringMap<GradientRule> &rules = getGradientRules();
  Operation *last = y.getDefiningOp();
  if (varying.contains(y) && last && last->getBlock() == block &&
      !independent.contains(y)) {
    for (Operation &op : llvm::reverse(
             llvm::make_range(block->begin(), ++last->getIterator()))) {
      SmallVector<Value> resultGrads;
      bool any = false;
      for (Value r : op.getResults()) {
        resultGrads.push_back(grads.lookup(r));
        any |= resultGrads.back() != nullptr;
      }
      if (!any || !usesVarying(&op))
        continue;
      auto rule = rules.find(op.getName().getStringRef());
      if (rule == rules.end()) {
        op.emitError() << "cannot derive a gradient through " << op.getName()
                       << ": onnxc has no gradient rule for the operator";
        return failure();
      }
      SmallVector<Value> operandGrads(op.getNumOperands());
      std::string why;
      GradientEmitter opEmitter(b, op.getLoc());
      if (failed(
              rule->second(opEmitter, &op, resultGrads, operandGrads, why))) {
        op.emitError() << "cannot derive a gradient through " << op.getName()
                       << ": " << why;
        return failure();
      }
      for (auto [operand, g] : llvm::zip(op.getOperands(), operandGrads))
        if (g && varying.contains(operand))
          accumulate(operand, g);
    }
  }

  SmallVector<Value> result;
  for (Value x : xs) {
    Value g = grads.lookup(x);
    result.push_back(g ? g : e.filledLike(x, 0.0));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// onnx-derive-gradients
//===----------------------------------------------------------------------===//

namespace {
struct ONNXDeriveGradientsPass
    : public onnxc::impl::ONNXDeriveGradientsBase<ONNXDeriveGradientsPass> {
  void runOnOperation() override {
    SmallVector<ONNXTrainingGradientOp> gradients;
    getOperation().walk(
        [&](ONNXTrainingGradientOp op) { gradients.push_back(op); });
    for (ONNXTrainingGradientOp op : gradients)
      if (failed(derive(op)))
        return signalPassFailure();
  }

  LogicalResult derive(ONNXTrainingGradientOp op) {
    size_t numXs = op.getXs().size();
    size_t numZs = op.getZs() ? op.getZs()->size() : 0;
    size_t numInputs = numXs + numZs;
    ValueRange operands = op->getOperands();
    if (operands.size() != 2 * numInputs + 1)
      return op.emitError()
             << "Gradient: expected its inputs, then the values xs and zs "
                "name, then the value y names as operands, as the onnxc "
                "importer builds it";
    if (op->getNumResults() > numXs)
      return op.emitError() << "Gradient has more outputs than xs";
    ValueRange inputs = operands.take_front(numInputs);
    ValueRange named = operands.slice(numInputs, numInputs);
    Value y = operands.back();
    OpBuilder b(op);
    // Inputs other than the named values: the gradient at those values, so
    // the computation from the named values to y is cloned on the inputs.
    if (!llvm::equal(inputs, named)) {
      IRMapping map;
      map.map(named, inputs);
      llvm::DenseSet<Value> dependent(named.begin(), named.end());
      llvm::DenseSet<Value> namedSet(named.begin(), named.end());
      for (Operation &inner :
           llvm::make_range(op->getBlock()->begin(), op->getIterator())) {
        bool uses = false;
        inner.walk([&](Operation *nested) {
          for (Value v : nested->getOperands())
            uses |= dependent.contains(v);
        });
        if (!uses || llvm::any_of(inner.getResults(), [&](Value r) {
              return namedSet.contains(r);
            }))
          continue;
        b.clone(inner, map);
        for (Value r : inner.getResults())
          dependent.insert(r);
      }
      y = map.lookupOrDefault(y);
    }
    FailureOr<SmallVector<Value>> grads = buildGradients(
        b, op.getLoc(), y, inputs.take_front(numXs), inputs.drop_front(numXs));
    if (failed(grads))
      return op.emitError()
             << "cannot derive Gradient of '" << op.getY() << "'";
    for (auto [result, g] : llvm::zip(op->getResults(), *grads)) {
      Value v = g;
      Type refined = refineType(v.getType(), result.getType());
      if (refined != v.getType())
        v.setType(refined);
      if (v.getType() != result.getType())
        v = tensor::CastOp::create(b, op.getLoc(), result.getType(), v);
      result.replaceAllUsesWith(v);
    }
    op.erase();
    return success();
  }
};
} // namespace
