//===- Autodiff.h - Reverse-mode differentiation of onnx graphs -*- C++ -*-===//
//
// Builds, in the onnx dialect itself, the ops that compute the gradient of a
// value with respect to other values of the same block: the backward graph
// of reverse-mode automatic differentiation. Every later pass (folding,
// simplification, lowering) then applies to the backward ops as to any
// others.
//
// Each differentiable operator has a gradient rule (GradientRules*.cpp):
// given the gradients of an op's results, it emits the gradients of its
// operands. The engine (buildGradients) walks the ops between the values to
// differentiate with respect to and the value to differentiate in reverse
// order, calls the rules, and sums the gradients of values used more than
// once.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_DIALECT_ONNX_TRANSFORMS_AUTODIFF_H
#define ONNXC_DIALECT_ONNX_TRANSFORMS_AUTODIFF_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::onnxc {

/// Emits onnx ops at a builder's insertion point, each typed by the ONNX
/// schema's inference (unranked where it infers nothing).
class GradientEmitter {
public:
  GradientEmitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// An op `onnx.<name>` with `operands` in ONNX positions (a null Value is
  /// an absent optional input), `attrs` by their ONNX names and `numResults`
  /// results of element type `elementType` (the first operand's when null).
  Operation *create(StringRef name, ArrayRef<Value> operands,
                    ArrayRef<std::pair<StringRef, Attribute>> attrs = {},
                    unsigned numResults = 1, Type elementType = {});
  /// The first result of `create`.
  Value make(StringRef name, ArrayRef<Value> operands,
             ArrayRef<std::pair<StringRef, Attribute>> attrs = {},
             Type elementType = {});

  Value add(Value a, Value b) { return make("Add", {a, b}); }
  Value sub(Value a, Value b) { return make("Sub", {a, b}); }
  Value mul(Value a, Value b) { return make("Mul", {a, b}); }
  Value div(Value a, Value b) { return make("Div", {a, b}); }
  Value neg(Value a) { return make("Neg", {a}); }
  /// A rank-0 constant of the float type of `like`'s elements.
  Value scalar(Value like, double value);
  /// A rank-0 constant of the integer type `type` (its bits of `value`).
  Value intScalar(Type type, uint64_t value);
  /// A rank-1 i64 constant.
  Value i64s(ArrayRef<int64_t> values);
  Value shapeOf(Value v);
  /// `v` reshaped to the shape of `like` (a no-op when the static types
  /// already agree).
  Value reshapeLike(Value v, Value like);
  /// `v` cast to the element type of `like` (a no-op when they agree).
  Value castLike(Value v, Value like);
  /// A constant of `shape` whose elements are all `value`.
  Value filled(ArrayRef<int64_t> shape, Type elementType, double value);
  /// A tensor of zeros (ones, ...) of the shape and type of `like`.
  Value filledLike(Value like, double value);
  /// Sums the gradient `grad` of an op's result over the dims along which
  /// the op broadcast its operand `operand` (numpy rules), so that the
  /// result has the operand's shape. `others` are the op's other operands,
  /// which show whether a dynamic dim can have been broadcast; the last
  /// `exactTrailing` dims are never broadcast (MatMul's matrix dims). Fails,
  /// with the reason in `why`, when that cannot be decided at compile time.
  FailureOr<Value> sumToOperand(Value grad, Value operand, ValueRange others,
                                std::string &why, int64_t exactTrailing = 0);
  /// A per-channel vector (C) as (C, 1, ..., 1), to broadcast over a
  /// rank-`rank` N x C x ... tensor.
  Value perChannel(Value v, int64_t rank);
  /// `Transpose(v, perm)`.
  Value transpose(Value v, ArrayRef<int64_t> perm);
  /// ReduceSum over `axes` (ReduceSum-13: axes as an input).
  Value reduceSum(Value v, ArrayRef<int64_t> axes, bool keepDims);

  Attribute i64Attr(int64_t v) { return b.getI64IntegerAttr(v); }
  Attribute i64ArrayAttr(ArrayRef<int64_t> v) { return b.getI64ArrayAttr(v); }
  Attribute f32Attr(double v) { return b.getF32FloatAttr(v); }

  OpBuilder &b;
  Location loc;
};

/// The rank of `v`'s type, -1 when unranked.
int64_t rankOf(Value v);
/// Axes 0, 2, 3, ... of a rank-`rank` N x C x ... tensor: all but the
/// channels.
SmallVector<int64_t> allButChannels(int64_t rank);

/// A gradient rule: given `op` and the gradients of its results (null for a
/// result no gradient flows to), sets the gradients of its operands (left
/// null for operands that are not differentiable or get none). Each gradient
/// has the type of the value it is the gradient of. Returns failure, with
/// the reason in `why`, for a case the rule does not cover.
using GradientRule = LogicalResult (*)(GradientEmitter &e, Operation *op,
                                       ArrayRef<Value> resultGrads,
                                       MutableArrayRef<Value> operandGrads,
                                       std::string &why);

/// The rules, by operation name (`onnx.Add`, ...).
const llvm::StringMap<GradientRule> &getGradientRules();
void registerElementwiseGradientRules(llvm::StringMap<GradientRule> &rules);
void registerTensorGradientRules(llvm::StringMap<GradientRule> &rules);
void registerNNGradientRules(llvm::StringMap<GradientRule> &rules);
void registerNormGradientRules(llvm::StringMap<GradientRule> &rules);

/// Builds, at `b`'s insertion point, the gradients of `y` (summed over its
/// elements, i.e. seeded with ones) with respect to each of `xs`; values in
/// `xs` and `stops` are treated as independent variables (the walk does not
/// go through the ops that compute them). An x that `y` does not depend on
/// gets zeros. Every value involved must be in the block of the insertion
/// point, before it. Fails with an error at the failing op's location when
/// an op on the way has no rule or its rule does not cover it.
FailureOr<SmallVector<Value>> buildGradients(OpBuilder &b, Location loc,
                                             Value y, ValueRange xs,
                                             ValueRange stops);

} // namespace mlir::onnxc

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_AUTODIFF_H
