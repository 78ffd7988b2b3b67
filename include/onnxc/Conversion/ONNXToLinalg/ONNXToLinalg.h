//===- ONNXToLinalg.h - Lowering onnx ops to linalg and friends -*- C++ -*-===//
//
// Shared by the pattern families of the onnx -> linalg lowering: the type
// converter, the populate functions, and helpers for broadcasting and for
// building scalar code with ONNX's element-type semantics.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CONVERSION_ONNXTOLINALG_ONNXTOLINALG_H
#define ONNXC_CONVERSION_ONNXTOLINALG_ONNXTOLINALG_H

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::onnxc {

/// Unsigned integer element types become signless; everything else stays.
class ONNXToLinalgTypeConverter : public TypeConverter {
public:
  ONNXToLinalgTypeConverter();
};

// Pattern families, one file each in lib/Conversion/ONNXToLinalg/.
void populateElementwisePatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);
void populateMatMulPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populateConvPatterns(const TypeConverter &converter,
                          RewritePatternSet &patterns);
void populateConvTransposePatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);
void populatePoolingPatterns(const TypeConverter &converter,
                             RewritePatternSet &patterns);
void populateNormalizationPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);
void populateSoftmaxPatterns(const TypeConverter &converter,
                             RewritePatternSet &patterns);
void populateReductionPatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns);
void populateTensorPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populateSlicePatterns(const TypeConverter &converter,
                           RewritePatternSet &patterns);
void populateGeneratorPatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns);
void populateControlFlowPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);
void populateQuantizationPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns);
/// DFT (DFT.cpp).
void populateDFTPatterns(const TypeConverter &converter,
                         RewritePatternSet &patterns);
void populateResizePatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populateEinsumPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populateGridSamplePatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns);
/// Sequence* and Optional*: calls of the runtime's value functions
/// (Sequence.cpp; SplitToSequence, ConcatFromSequence and the optionals in
/// SequenceOps.cpp).
void populateSequencePatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);
void populateSequenceOpsPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);
/// String tensors: constants, Equal, Cast from and to strings,
/// StringNormalizer (Strings.cpp).
void populateStringPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
/// ImageDecoder: onnxc_rt_image_decode (BMP, PNM, TIFF, PNG) (Images.cpp).
void populateImagePatterns(const TypeConverter &converter,
                           RewritePatternSet &patterns);
/// A new private constant LLVM global of `type` holding `value` in the
/// module of `anchor`, named `prefix` + the first free number; returns the
/// name (Strings.cpp).
std::string addConstantGlobal(OpBuilder &b, Location loc, Operation *anchor,
                              StringRef prefix, Type type, Attribute value);
/// A 1-D string tensor (i64 pointers) of the strings, kept in a global
/// (Strings.cpp); `anchor` is an op of the module.
Value buildStringConstant(OpBuilder &b, Location loc, Operation *anchor,
                          ArrayRef<StringRef> strings);
/// ZipMap, DictVectorizer, CastMap: maps are pointers to the runtime's map
/// values (Maps.cpp, lib/Runtime/onnxc_maps.c).
void populateMapPatterns(const TypeConverter &converter,
                         RewritePatternSet &patterns);
/// Of `unsupported` (ops no pattern lowers), one that a pattern exists for
/// and whose operands are ranked, inside an If branch: the innermost such
/// branch whose sibling has no unsupported op and whose If yields ranked
/// numeric tensors is compiled to fail at run time when taken (a warning
/// names the op). Returns whether it cut a branch (UncompilableBranches.cpp).
bool cutUncompilableBranches(ArrayRef<Operation *> unsupported,
                             const FrozenRewritePatternSet &patterns);
/// Reports every op on string tensors that no pattern handles correctly
/// (other patterns would compute on the strings' pointers).
LogicalResult checkStringOps(ModuleOp module);
/// Declares the runtime functions (onnxc_rt_*) those patterns call.
void declareRuntimeValueFunctions(ModuleOp module);
/// Sequence.cpp's helpers: a runtime tensor value holding a copy of a
/// ranked tensor; a tensor of `type` read out of one (rank and static dims
/// checked, `what` naming it in the messages); a tensor value copied into a
/// memref of its sizes; a tensor value's dims (checked likewise); a call of
/// a runtime function (declared on first use); whether the runtime copies
/// tensors of ONNX element type `onnxElem`.
Value seqBoxTensor(OpBuilder &b, Location loc, Value tensor, Type onnxElem);
Value seqUnboxTensor(OpBuilder &b, Location loc, Operation *op, Value value,
                     RankedTensorType type, const Twine &what);
void seqReadInto(OpBuilder &b, Location loc, Value value, Value buffer);
SmallVector<OpFoldResult> seqValueDims(OpBuilder &b, Location loc,
                                       Operation *op, Value value,
                                       RankedTensorType type,
                                       const Twine &what);
Value seqCallRuntime(OpBuilder &b, Location loc, StringRef name,
                     TypeRange results, ValueRange args);
/// A read-only view of the ranked `tensor` (converted types) as an unranked
/// memref of any strides: what a runtime function takes as (rank,
/// descriptor).
Value seqUnrankedView(OpBuilder &b, Location loc, Value tensor);
bool seqCopyable(Type onnxElem);
/// An scf.for built in place (attached to the function before its body is
/// built, so that run-time checks inside can reach the module); `body`
/// builds at `b`'s position and returns the values to yield.
scf::ForOp seqFor(OpBuilder &b, Location loc, Value lb, Value ub, Value step,
                  ValueRange iterArgs,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body);
/// The tensors of sequence `seq` concatenated along `axis` (stacked along a
/// new one with `newAxis`) into a tensor of `type` (SequenceOps.cpp);
/// `allowEmpty`: an empty sequence gives 0 along the axis (and in the dims
/// `type` leaves dynamic) instead of a run-time error.
Value buildConcatFromSequence(OpBuilder &b, Location loc, Operation *op,
                              Value seq, RankedTensorType type, int64_t axis,
                              bool newAxis, bool allowEmpty);
/// ONNX's TensorProto.DataType of a copyable element type.
int32_t seqDataType(Type onnxElem);

/// RNN, GRU and LSTM: a loop over the time steps per direction
/// (Recurrent.cpp).
void populateRecurrentPatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns);
/// Adagrad, Momentum and Adam (ai.onnx.preview.training): elementwise
/// updates of n tensors.
void populateTrainingPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);
/// NonMaxSuppression: per batch and class, a greedy scan over the boxes in
/// score order.
void populateDetectionPatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns);
/// TfIdfVectorizer over integer tokens.
void populateTextPatterns(const TypeConverter &converter,
                          RewritePatternSet &patterns);
/// ConvInteger and QLinearConv: the integer convolution, requantized.
void populateQuantizedConvPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);
/// Det: Gaussian elimination with partial pivoting per matrix.
void populateDetPatterns(const TypeConverter &converter,
                         RewritePatternSet &patterns);
/// LinearAttention: the recurrence token by token.
void populateLinearAttentionPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns);
/// Col2Im: a scatter-add of the columns into the image.
void populateCol2ImPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
/// DeformConv (2-D): bilinear samples at the offset kernel taps.
void populateDeformConvPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns);
/// Random*, Bernoulli, Multinomial and training-mode Dropout: a
/// counter-based generator per node.
void populateRandomPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
/// TreeEnsembleRegressor, TreeEnsembleClassifier and TreeEnsemble
/// (ai.onnx.ml): the trees as constant tables, walked per sample.
void populateTreeEnsemblePatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns);
/// The ai.onnx.ml operators but the tree ensembles and maps: ML.cpp,
/// MLLookup.cpp, MLLinear.cpp, MLSVM.cpp.
void populateMLPatterns(const TypeConverter &converter,
                        RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// Helpers (Common.cpp)
//===----------------------------------------------------------------------===//

/// The ONNX element type of a value of the original (unconverted) op.
Type getONNXElementType(Value v);
inline bool isUnsignedInteger(Type t) { return t.isUnsignedInteger(); }
/// True for float types (f16, bf16, f32, f64, ...).
inline bool isFloat(Type t) { return isa<FloatType>(t); }

/// The element type the lowered code holds an ONNX element type in: the
/// signless form of integers; i8 for the float8 and float4 types (their
/// bits) and the sub-byte integers (sign- or zero-extended), see
/// NarrowTypes.cpp.
Type toSignless(Type elementType);

/// The converted, ranked result type of `op`'s result `i`, or null.
RankedTensorType getConvertedResultType(const TypeConverter &converter,
                                        Operation *op, unsigned i = 0);

/// `v` as `type`: itself, or a tensor.cast where only static and dynamic
/// dims differ. Where a static dim, the rank or the element type differs
/// (no tensor.cast can be built), an error on `op` (the onnx op, whose
/// location names the node) says what the lowering computed and what the
/// model declares, and it fails.
FailureOr<Value> castOrReport(OpBuilder &b, Location loc, Operation *op,
                              Value v, RankedTensorType type,
                              StringRef what = "result");

/// Fails with an error on `op` where an operand's static dim (not 1)
/// differs from the static dim of `resultType` it broadcasts to (numpy
/// rules, right-aligned), or an operand has a higher rank.
LogicalResult checkStaticBroadcast(Operation *op, ValueRange operands,
                                   RankedTensorType resultType);

/// Sizes of every dim of a ranked tensor (constants where static).
SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value tensor);
/// Size of one dim as an index value.
Value getDimValue(OpBuilder &b, Location loc, Value tensor, int64_t dim);

/// `sizes`, with the static dims of `type` in place of the computed ones.
SmallVector<OpFoldResult> preferStatic(OpBuilder &b, RankedTensorType type,
                                       ArrayRef<OpFoldResult> sizes);

/// A tensor.empty of `type` whose dynamic dims come from `sizes`.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> sizes);
/// A tensor of `type` filled with `value`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes, Value value);

/// The sizes of the numpy broadcast of `operands` into `resultType`
/// (static dims from the type, dynamic ones computed at run time).
SmallVector<OpFoldResult> getBroadcastSizes(OpBuilder &b, Location loc,
                                            ValueRange operands,
                                            RankedTensorType resultType);

/// Builds the body of an elementwise op: receives the scalar operands (in
/// signless types) and returns the scalar result.
using ScalarBuilder =
    function_ref<Value(OpBuilder &b, Location loc, ValueRange args)>;

/// A linalg.generic computing `body` elementwise over the numpy broadcast of
/// `operands` (signless tensors of any ranks) into `resultType`. Dims that
/// may or may not broadcast (dynamic on both sides) are resolved at run time.
Value buildElementwise(OpBuilder &b, Location loc, ValueRange operands,
                       RankedTensorType resultType, ScalarBuilder body);

/// A scalar constant of the given (signless) element type.
Value createScalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// An index value as a float of type `type` (a signed conversion).
Value indexToFloat(OpBuilder &b, Location loc, Value index, Type type);
/// A float truncated toward zero to an index value.
Value floatToIndex(OpBuilder &b, Location loc, Value value);

/// ONNX Cast's attributes for results of the float8 types.
struct CastOptions {
  /// Out-of-range values become the largest finite value (else inf or NaN).
  bool saturate = true;
  /// float8e8m0 results: "up", "down" or "nearest".
  StringRef roundMode = "up";
};

/// Converts a scalar from ONNX element type `from` to `to` with the
/// semantics of ONNX Cast (values are signless; signedness from the types).
Value castScalar(OpBuilder &b, Location loc, Value v, Type from, Type to,
                 const CastOptions &options = {});

//===----------------------------------------------------------------------===//
// Narrow element types (NarrowTypes.cpp)
//===----------------------------------------------------------------------===//

/// float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0) and float4e2m1.
bool isNarrowFloat(Type t);
/// int4, uint4, int2, uint2.
bool isNarrowInteger(Type t);
/// The bits of an ONNX element type (bool: 8, as ONNX stores it).
unsigned getONNXBitWidth(Type t);
/// ONNX BitCast of a scalar held as `from` to `to` (same bit width): the
/// bits reinterpreted, narrow types through their i8 storage.
Value bitcastScalar(OpBuilder &b, Location loc, Value v, Type from, Type to);
/// castScalar where `from` or `to` is narrow (held in an i8).
Value castNarrowScalar(OpBuilder &b, Location loc, Value v, Type from,
                       Type to, const CastOptions &options);

/// Keys' cubic convolution weight of the (f64) distance `s` with
/// coefficient `a` (Resize's cubic_coeff_a, GridSample's -0.75): 0 beyond
/// |s| = 2.
Value cubicConvolutionWeight(OpBuilder &b, Location loc, Value s, double a);

/// Reads an integer list from a constant operand (onnx.Constant or
/// arith.constant). Returns failure when the value is not constant.
FailureOr<SmallVector<int64_t>> getConstantIntValues(Value v);

/// Normalises a possibly negative axis against `rank`.
inline int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Reduction family helpers (Common.cpp; used by Reduction.cpp and
// Normalization.cpp)
//===----------------------------------------------------------------------===//

/// Combines one element `x` into the accumulator `acc` of a reduction.
using ReduceCombiner =
    function_ref<Value(OpBuilder &b, Location loc, Value x, Value acc)>;

/// Reduces `input` over the sorted, distinct `axes` with a linalg.generic
/// into a tensor of the kept dims (in order) whose element type is `init`'s.
/// Every result element starts as `init`, so empty reductions give it.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Value init,
                     ReduceCombiner combine);

/// The number of elements of `input` over `axes` (static dims folded,
/// dynamic ones read), as a scalar of `type`.
Value reducedElementCount(OpBuilder &b, Location loc, Value input,
                          ArrayRef<int64_t> axes, Type type);

/// Inserts unit dims at the sorted `axes` of `reduced` (a tensor of the kept
/// dims), giving the keepdims form of rank `rank`.
Value expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                        ArrayRef<int64_t> axes, int64_t rank);

//===----------------------------------------------------------------------===//
// Data movement helpers (TensorHelpers.cpp; used by Tensor.cpp, Gather.cpp)
//===----------------------------------------------------------------------===//

/// Gathers, scatters, TopK, NonZero, ... (Gather.cpp); called by
/// populateTensorPatterns.
void populateGatherScatterPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);

/// CumSum, TopK, NonZero, Compress (Selection.cpp); called by
/// populateGatherScatterPatterns.
void populateSelectionPatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns);

/// The sizes of `t`'s dims as index values.
SmallVector<Value> dimValues(OpBuilder &b, Location loc, Value t);

/// A loop nest over [0, ubs) carrying `iterArgs`.
SmallVector<Value> loopNest(
    OpBuilder &b, Location loc, ArrayRef<Value> ubs, ValueRange iterArgs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                    ValueRange)>
        body);

/// `x != 0` for a scalar of ONNX type `t`.
Value isNonZero(OpBuilder &b, Location loc, Value x, Type t);

/// Element types that data-movement ops can lower (everything but strings).
bool isMovableElementType(Type t);

/// `v`'s ranked tensor type when its elements are movable, else null.
RankedTensorType getMovableRankedType(Value v);

/// Base of the data-movement patterns: the converted result type, ranked and
/// with movable elements, or null.
template <typename OpTy>
class TensorPattern : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;

protected:
  RankedTensorType resultType(Operation *op, unsigned i = 0) const {
    auto t = getConvertedResultType(*this->getTypeConverter(), op, i);
    if (!t || !isMovableElementType(t.getElementType()))
      return nullptr;
    return t;
  }
};

/// Index arithmetic that folds constants as it builds.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  IndexMath(OpBuilder &b, Location loc) : b(b), loc(loc) {}
  Value c(int64_t v) const;
  Value v(OpFoldResult ofr) const;
  Value add(Value x, Value y) const;
  Value sub(Value x, Value y) const;
  Value mul(Value x, Value y) const;
  Value div(Value x, Value y) const; // signed, rounds toward zero
  Value rem(Value x, Value y) const; // signed
  Value min(Value x, Value y) const;
  Value max(Value x, Value y) const;
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const;
  Value select(Value c, Value x, Value y) const;
  Value clamp(Value x, Value lo, Value hi) const;
  /// i < 0 ? i + n : i (ONNX's negative indices).
  Value wrapNegative(Value i, Value n) const;
};

/// An integer (or float) scalar as an index; `onnxType` gives signedness.
Value scalarToIndex(OpBuilder &b, Location loc, Value v, Type onnxType);
/// The only element of a 0-D or one-element tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor);
/// The elements of a 0-D or 1-D integer tensor of static length as index
/// values: constants when `original` is constant, extracted at run time
/// otherwise. Fails when the length is not static.
FailureOr<SmallVector<OpFoldResult>> readIndexList(OpBuilder &b, Location loc,
                                                   Value converted,
                                                   Value original);

/// Builds one element from the output indices and the elements of the
/// generic's inputs.
using IndexedBodyBuilder = function_ref<Value(
    OpBuilder &b, Location loc, ValueRange ivs, ValueRange args)>;
/// A linalg.generic producing a `type` tensor (dynamic sizes from `sizes`),
/// reading `inputs` through `inputMaps` (identity where absent).
Value buildIndexedGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                          ArrayRef<OpFoldResult> sizes, ValueRange inputs,
                          ArrayRef<AffineMap> inputMaps,
                          IndexedBodyBuilder body);

/// Reshapes `src` (row-major order kept) to `dstType` whose dynamic dims
/// are given by `sizes`, with tensor.collapse_shape/expand_shape.
Value reshapeTo(OpBuilder &b, Location loc, Value src,
                RankedTensorType dstType, ArrayRef<OpFoldResult> sizes);

//===----------------------------------------------------------------------===//
// Conv / Pooling family helpers (Common.cpp; used by Conv.cpp, Pooling.cpp)
//===----------------------------------------------------------------------===//

/// The geometry of a sliding window over the spatial dims of an
/// N x C x D1 x ... x Dn tensor, as ONNX's Conv and pooling ops define it.
struct SlidingWindow {
  SmallVector<int64_t> kernel, strides, dilations;
  /// The padding ONNX defines (pads, or derived from auto_pad).
  SmallVector<OpFoldResult> padLow, padHigh;
  /// padHigh, enlarged so that the padded input covers every window (the
  /// last ceil_mode window may run past padHigh).
  SmallVector<OpFoldResult> padHighCovering;
  /// The output's spatial sizes (from the result type where static).
  SmallVector<OpFoldResult> outSizes;
};

/// A conv's kernel sizes: kernel_shape, or W's (static) spatial dims.
FailureOr<SmallVector<int64_t>> getKernelShape(ArrayAttr kernelShape,
                                               RankedTensorType wType);

/// Computes the window of `input` (a ranked N x C x spatial tensor) given
/// the op's attributes (null ArrayAttrs take ONNX's defaults). Fails on an
/// unknown auto_pad or attribute lengths that do not match the rank.
FailureOr<SlidingWindow>
computeSlidingWindow(OpBuilder &b, Location loc, Value input,
                     RankedTensorType resultType, ArrayRef<int64_t> kernel,
                     ArrayAttr strides, ArrayAttr dilations, ArrayAttr pads,
                     StringRef autoPad, bool ceilMode);

/// `input` padded with `value` on its spatial dims by padLow and
/// padHighCovering (no op when both are zero).
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 const SlidingWindow &window, Value value);

/// The output tensor a convolution accumulates into: `bias` (1-D, the
/// output channels) broadcast along dim 1, or `zero`.
Value buildConvInit(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<OpFoldResult> sizes, Value bias, Value zero);
/// Fails with an error on `op` where static batch and channel counts
/// contradict each other: X's (N, C, ...) against W's (M, C/group, ...), M
/// against `group`, the bias (1-D, may be null) against M, N against the
/// declared result's.
LogicalResult checkConvChannels(Operation *op, RankedTensorType xType,
                                RankedTensorType wType, Value bias,
                                int64_t group, RankedTensorType resultType);
/// Splits dim `dim` of `v` into (outer, inner); `inner` is static.
Value splitDim(OpBuilder &b, Location loc, Value v, int64_t dim,
               int64_t inner);
/// Merges dims `dim` and `dim + 1` of `v`.
Value mergeDims(OpBuilder &b, Location loc, Value v, int64_t dim);
/// Convolves the padded input `x` (N, C, D...) with `w` (M, C/G, K...) in
/// `group` groups, accumulating into `init` (N, M, O...); float or integer
/// elements (integers accumulate in init's type).
FailureOr<Value> buildConv(OpBuilder &b, Location loc, Value x, Value w,
                           Value init, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations, int64_t group);

/// A float (f32) value rounded half to even, plus the zero point `zp` (of
/// `outType`, may be null), saturated to the integer `outType`.
Value roundToInteger(OpBuilder &b, Location loc, Value v, Value zp,
                     Type outType);

} // namespace mlir::onnxc

#endif // ONNXC_CONVERSION_ONNXTOLINALG_ONNXTOLINALG_H
