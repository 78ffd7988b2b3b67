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

//===----------------------------------------------------------------------===//
// Helpers (Common.cpp)
//===----------------------------------------------------------------------===//

/// The ONNX element type of a value of the original (unconverted) op.
Type getONNXElementType(Value v);
inline bool isUnsignedInteger(Type t) { return t.isUnsignedInteger(); }
/// True for float types (f16, bf16, f32, f64, ...).
inline bool isFloat(Type t) { return isa<FloatType>(t); }

/// The signless form of an ONNX element type.
Type toSignless(Type elementType);

/// The converted, ranked result type of `op`'s result `i`, or null.
RankedTensorType getConvertedResultType(const TypeConverter &converter,
                                        Operation *op, unsigned i = 0);

/// Sizes of every dim of a ranked tensor (constants where static).
SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value tensor);
/// Size of one dim as an index value.
Value getDimValue(OpBuilder &b, Location loc, Value tensor, int64_t dim);

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

/// Converts a scalar from ONNX element type `from` to `to` with the
/// semantics of ONNX Cast (values are signless; signedness from the types).
Value castScalar(OpBuilder &b, Location loc, Value v, Type from, Type to);

/// Reads an integer list from a constant operand (onnx.Constant or
/// arith.constant). Returns failure when the value is not constant.
FailureOr<SmallVector<int64_t>> getConstantIntValues(Value v);

/// Normalises a possibly negative axis against `rank`.
inline int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

} // namespace mlir::onnxc

#endif // ONNXC_CONVERSION_ONNXTOLINALG_ONNXTOLINALG_H
