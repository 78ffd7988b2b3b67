//===- ShapeInference.cpp - The onnx-shape-inference pass -----------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Dialect/ONNX/Transforms/SchemaInference.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXSHAPEINFERENCE
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {
/// Gives unranked Loop body arguments the rank of what flows into them:
/// iteration number (i64 scalar), condition (bool scalar), carried values.
bool refineLoopBodies(func::FuncOp func) {
  bool changed = false;
  func.walk<WalkOrder::PreOrder>([&](ONNXLoopOp loop) {
    Block &body = loop.getBody().front();
    if (body.getNumArguments() != 2 + loop.getVInitial().size())
      return;
    auto refineArg = [&](BlockArgument arg, Type from) {
      auto ranked = dyn_cast<RankedTensorType>(from);
      if (!ranked || !isa<UnrankedTensorType>(arg.getType()))
        return;
      auto type = RankedTensorType::get(
          SmallVector<int64_t>(ranked.getRank(), ShapedType::kDynamic),
          ranked.getElementType());
      Type refined = refineType(arg.getType(), type);
      if (refined != arg.getType()) {
        arg.setType(refined);
        changed = true;
      }
    };
    Builder b(loop.getContext());
    refineArg(body.getArgument(0), RankedTensorType::get({}, b.getI64Type()));
    refineArg(body.getArgument(1), RankedTensorType::get({}, b.getI1Type()));
    for (auto [i, v] : llvm::enumerate(loop.getVInitial()))
      refineArg(body.getArgument(2 + i), v.getType());
  });
  return changed;
}

/// The least tensor type both `a` and `b` are instances of (same element
/// type assumed): dims that differ become dynamic, ranks that differ make it
/// unranked.
Type joinTensorTypes(Type a, Type b) {
  if (a == b)
    return a;
  auto ra = dyn_cast<RankedTensorType>(a), rb = dyn_cast<RankedTensorType>(b);
  auto elem = cast<TensorType>(a).getElementType();
  if (!ra || !rb || ra.getRank() != rb.getRank())
    return UnrankedTensorType::get(elem);
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ra.getShape(), rb.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, elem);
}

/// A sequence carried through a Loop holds what every iteration inserted:
/// its tensors' type (in the Loop's result and the body's argument) is the
/// join of the initial sequence's and the one the body yields (an empty
/// sequence declared of scalars may come back holding vectors).
bool generalizeLoopSequences(func::FuncOp func) {
  bool changed = false;
  func.walk([&](ONNXLoopOp loop) {
    Block &body = loop.getBody().front();
    Operation *yield = body.getTerminator();
    for (auto [i, init] : llvm::enumerate(loop.getVInitial())) {
      if (i >= loop->getNumResults() || 2 + i >= body.getNumArguments() ||
          1 + i >= yield->getNumOperands())
        break;
      auto a = dyn_cast<SeqType>(init.getType());
      auto b = dyn_cast<SeqType>(yield->getOperand(1 + i).getType());
      auto r = dyn_cast<SeqType>(loop->getResult(i).getType());
      if (!a || !b || !r || !isa<TensorType>(a.getElementType()) ||
          !isa<TensorType>(b.getElementType()) ||
          !isa<TensorType>(r.getElementType()) ||
          getElementTypeOrSelf(a.getElementType()) !=
              getElementTypeOrSelf(b.getElementType()))
        continue;
      Type joined = joinTensorTypes(
          joinTensorTypes(a.getElementType(), b.getElementType()),
          r.getElementType());
      auto type = SeqType::get(loop.getContext(), joined);
      if (type != r) {
        loop->getResult(i).setType(type);
        changed = true;
      }
      BlockArgument arg = body.getArgument(2 + i);
      if (isa<SeqType>(arg.getType()) && arg.getType() != type) {
        arg.setType(type);
        changed = true;
      }
    }
  });
  return changed;
}

/// `t` with every dim dynamic (its rank and element type kept); other types
/// as they are.
Type forgetDims(Type t) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  if (!ranked || ranked.getRank() == 0)
    return t;
  return RankedTensorType::get(
      SmallVector<int64_t>(ranked.getRank(), ShapedType::kDynamic),
      ranked.getElementType());
}

/// Forgets the dims inferred for everything computed from `roots`, so that
/// the next round of inference infers them again from more general types:
/// the results of their users (and of the ops owning a region whose
/// terminator uses them), transitively. Ranks and element types stay.
void forgetDimsDownstream(ArrayRef<Value> roots) {
  SmallVector<Value> work(roots.begin(), roots.end());
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      Operation *op = user;
      // A terminator passes the value to its region's owner's results.
      if (op->hasTrait<OpTrait::IsTerminator>())
        op = op->getParentOp();
      if (!op || isa<func::FuncOp>(op) || !seen.insert(op).second)
        continue;
      for (Value r : op->getResults()) {
        r.setType(forgetDims(r.getType()));
        work.push_back(r);
      }
    }
  }
}

/// A tensor carried through a Loop holds, in iteration k, what iteration
/// k - 1 yielded: its type (the body's argument and the Loop's result) is
/// the join of the initial value's and the yielded one's. Exporters declare
/// the body's arguments with the initial value's shape (an empty [0, 128,
/// 128] list of masks that grows by one per iteration): where the yield
/// disagrees, those dims become dynamic, and what was inferred from them
/// is inferred again.
bool generalizeLoopTensors(func::FuncOp func) {
  bool changed = false;
  func.walk([&](ONNXLoopOp loop) {
    Block &body = loop.getBody().front();
    Operation *yield = body.getTerminator();
    SmallVector<Value> generalized;
    for (auto [i, init] : llvm::enumerate(loop.getVInitial())) {
      if (i >= loop->getNumResults() || 2 + i >= body.getNumArguments() ||
          1 + i >= yield->getNumOperands())
        break;
      BlockArgument arg = body.getArgument(2 + i);
      Value result = loop->getResult(i);
      auto a = dyn_cast<RankedTensorType>(arg.getType());
      auto y = dyn_cast<RankedTensorType>(yield->getOperand(1 + i).getType());
      if (!a || !y || a.getRank() != y.getRank() ||
          a.getElementType() != y.getElementType())
        continue;
      Type joined = joinTensorTypes(a, y);
      if (joined != a) {
        arg.setType(joined);
        if (auto r = dyn_cast<RankedTensorType>(result.getType());
            r && r.getRank() == a.getRank() &&
            r.getElementType() == a.getElementType())
          result.setType(joinTensorTypes(r, joined));
        generalized.push_back(arg);
        generalized.push_back(result);
        continue;
      }
      // The result is the initial value (no iteration) or a yield: at
      // least as precise as the join of the two.
      auto v = dyn_cast<RankedTensorType>(init.getType());
      if (!v || v.getRank() != y.getRank() ||
          v.getElementType() != y.getElementType())
        continue;
      Type refined = refineType(result.getType(), joinTensorTypes(v, y));
      if (refined != result.getType()) {
        result.setType(refined);
        changed = true;
      }
    }
    if (!generalized.empty()) {
      forgetDimsDownstream(generalized);
      changed = true;
    }
  });
  return changed;
}

/// How ranked tensor types `declared` and `inferred` contradict each other:
/// other element types, or the same element type and other ranks (static
/// dims that differ are not looked at: the declared ones stay).
enum class Contradiction { None, ElementType, Rank };
Contradiction contradiction(Type declared, Type inferred) {
  auto d = dyn_cast_or_null<RankedTensorType>(declared);
  auto i = dyn_cast_or_null<RankedTensorType>(inferred);
  if (!d || !i)
    return Contradiction::None;
  if (d.getElementType() != i.getElementType())
    return Contradiction::ElementType;
  return d.getRank() != i.getRank() ? Contradiction::Rank
                                    : Contradiction::None;
}

struct ONNXShapeInferencePass
    : mlir::onnxc::impl::ONNXShapeInferenceBase<ONNXShapeInferencePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // A Loop body may declare its carried values without a shape; their rank
    // is the initial values'. Refining them can refine the Loop's operands'
    // producers in turn, hence a few rounds.
    // Carried tensors whose dims change from one iteration to the next
    // generalize their types, and what follows from them is inferred again
    // (each such round makes dims only more dynamic: bounded).
    bool failedAny = false;
    for (int round = 0; round < 8 && !failedAny; ++round) {
      bool changed = refineLoopBodies(func);
      // Post-order: subgraph regions are refined before the op owning them.
      func.walk([&](Operation *op) {
        if (!lookupONNXOpInfo(op->getName().getStringRef()))
          return;
        std::string error;
        FailureOr<SmallVector<Type>> inferred = inferTypesFromSchema(op, error);
        if (failed(inferred))
          return; // Nothing to learn; the op keeps the types it has.
        for (auto [k, result, type] :
             llvm::enumerate(op->getResults(), *inferred)) {
          // A type the model declares (an output's, a value_info's) of
          // another rank than the operator gives for its inputs: the
          // operator's semantics win. The declared type may hold only on the
          // path the exporter traced (ops cloned into both branches of an If
          // whose branches give different ranks), or the model is wrong;
          // code generated for the declared rank would be wrong either way.
          // Static dims that differ keep the declared ones: libonnx 1.12's
          // rules are older than some models (pooling's ceil mode), and the
          // lowerings check sizes against the operands. A different element
          // type is the model's error.
          Contradiction c = contradiction(result.getType(), type);
          if (c != Contradiction::None) {
            if (c == Contradiction::ElementType) {
              op->emitError() << "the model declares result " << k << " as "
                              << result.getType()
                              << ", but the operator gives " << type
                              << " for these inputs";
              failedAny = true;
              continue;
            }
            result.setType(type);
            changed = true;
            continue;
          }
          Type refined = refineType(result.getType(), type);
          changed |= refined != result.getType();
          result.setType(refined);
        }
      });
      changed |= generalizeLoopSequences(func);
      changed |= generalizeLoopTensors(func);
      if (!changed)
        break;
    }
    if (failedAny)
      return signalPassFailure();
    // Returned values may have become more precise.
    if (func.isExternal())
      return;
    Operation *ret = func.getBody().back().getTerminator();
    auto newType = FunctionType::get(func.getContext(),
                                     func.getArgumentTypes(),
                                     ret->getOperandTypes());
    if (newType != func.getFunctionType())
      func.setType(newType);
  }
};
} // namespace
