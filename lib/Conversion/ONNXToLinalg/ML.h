//===- ML.h - Helpers shared by the ai.onnx.ml lowerings --------*- C++ -*-===//
//
// The ai.onnx.ml lowerings: ML.cpp (preprocessing, and these helpers'
// attributes, globals and results), MLLookup.cpp (the look-ups),
// MLLinear.cpp (scores, post_transform, class labels; the linear models)
// and MLSVM.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LIB_CONVERSION_ONNXTOLINALG_ML_H
#define ONNXC_LIB_CONVERSION_ONNXTOLINALG_ML_H

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include <string>
#include <utility>

namespace mlir::onnxc::ml {

using Pred = arith::CmpIPredicate;
using FPred = arith::CmpFPredicate;
using IT = utils::IteratorType;

//===----------------------------------------------------------------------===//
// ML.cpp
//===----------------------------------------------------------------------===//

/// The values of a list attribute (none when it is absent).
SmallVector<float> floatsOf(ArrayAttr a);
SmallVector<int64_t> intsOf(ArrayAttr a);
SmallVector<StringRef> stringsOf(ArrayAttr a);

/// The address of a global (an !llvm.ptr).
Value addressOf(OpBuilder &b, Location loc, StringRef name);
Value i64Const(OpBuilder &b, Location loc, int64_t v);
Value f32Const(OpBuilder &b, Location loc, float v);
Value constantF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<float> v);
Value constantI64(OpBuilder &b, Location loc, ArrayRef<int64_t> v);
Value select(OpBuilder &b, Location loc, Value c, Value x, Value y);

/// A linalg.generic of one result (`init`'s type).
Value generic(OpBuilder &b, Location loc, Value init, ValueRange inputs,
              ArrayRef<AffineMap> maps, ArrayRef<IT> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body);
/// The map of a rank-`rank` iteration to the listed dims.
AffineMap mapOf(OpBuilder &b, int64_t rank, ArrayRef<unsigned> which);

/// `v` as `type`: a tensor.cast where static and dynamic dims differ (the
/// pass checks those dims at run time); an error naming the op where static
/// dims disagree.
FailureOr<Value> castTo(OpBuilder &b, Location loc, Operation *op, Value v,
                        RankedTensorType type);
/// Replaces `op` with `v` cast to `type` (castTo).
LogicalResult replaceWithCast(ConversionPatternRewriter &rewriter,
                              Operation *op, Value v, RankedTensorType type);

//===----------------------------------------------------------------------===//
// MLLinear.cpp: scores, post_transform and class labels
//===----------------------------------------------------------------------===//

enum class Transform { None, Logistic, Softmax, SoftmaxZero, Probit };

/// post_transform's value, or an error naming the op.
FailureOr<Transform> parseTransform(Operation *op, StringRef s);
/// onnxruntime's ComputeLogistic and ComputeProbit of an f32 scalar.
Value logistic(OpBuilder &b, Location l, Value x);
Value probit(OpBuilder &b, Location l, Value x);
/// post_transform over the rows of s [N, T] (f32).
Value applyTransform(OpBuilder &b, Location loc, Value s, Transform tr);

/// X ([F] or [N, F]) as [N, F] f32 (onnxruntime's casts).
Value rowsF32(OpBuilder &b, Location loc, Value x, Type onnxElem);
/// Fails, naming the op, when X [N, F] has a static F other than `f`;
/// checks a dynamic one at run time ("... but <what> <f>").
LogicalResult checkFeatures(OpBuilder &b, Location loc, Operation *op, Value x,
                            int64_t f, const Twine &what);
/// x [N, F] times w^T (w: [T, F] row-major) plus `bias` (T values, one for
/// all, or none): [N, T], a linalg.matmul.
Value affine(OpBuilder &b, Location loc, Value x, ArrayRef<float> w, int64_t t,
             int64_t f, ArrayRef<float> bias);
/// Per row of s [N, T] (f32 or i64): the largest value and its index (i64;
/// the first of equals, NaN never; T where nothing beats the lowest value).
std::pair<Value, Value> argmaxRows(OpBuilder &b, Location loc, Value s);

/// Class labels: int64s or strings.
struct Labels {
  bool strings = false;
  SmallVector<int64_t> ints;
  SmallVector<StringRef> strs;
  size_t size() const { return strings ? strs.size() : ints.size(); }
};
/// The op's labels, which must match its label output `y`'s element type.
FailureOr<Labels> labelsOf(Operation *op, Value y, ArrayAttr ints,
                           ArrayAttr strings);
/// Y [N]: the labels at the class indices idx [N] (an index past the last
/// label reads label 0).
Value labelsAt(OpBuilder &b, Location loc, Operation *op, Value idx,
               const Labels &labels);
/// One score column s [N, 1] as two: [-s, s] (`negate`), [-p, p] with
/// p = probit(s) (`probitPair`), else [1 - s, s].
Value binaryScores(OpBuilder &b, Location loc, Value s, bool negate,
                   bool probitPair);

/// MLLookup.cpp: each string of `x` (a string tensor, as the type converter
/// gives it) as its position among `keys` (sorted, unique), -1 where it is
/// none of them: an i64 tensor of x's shape (TfIdfVectorizer's tokens).
Value stringPositions(OpBuilder &b, Location loc, Operation *anchor, Value x,
                      ArrayRef<StringRef> keys);

/// The patterns of MLLookup.cpp, MLLinear.cpp and MLSVM.cpp.
void populateLookupPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populateLinearPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populateSVMPatterns(const TypeConverter &converter,
                         RewritePatternSet &patterns);

} // namespace mlir::onnxc::ml

#endif // ONNXC_LIB_CONVERSION_ONNXTOLINALG_ML_H
