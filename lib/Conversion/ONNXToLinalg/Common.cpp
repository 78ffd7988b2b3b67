//===- Common.cpp - Helpers shared by the onnx -> linalg patterns ---------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::onnxc;

ONNXToLinalgTypeConverter::ONNXToLinalgTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](IntegerType t) -> Type { return toSignless(t); });
  addConversion([](FloatType t) -> Type { return toSignless(t); });
  addConversion([](RankedTensorType t) -> Type {
    return t.clone(toSignless(t.getElementType()));
  });
  addConversion([](UnrankedTensorType t) -> Type {
    return UnrankedTensorType::get(toSignless(t.getElementType()));
  });
  // Sequences and optionals: pointers to the runtime's values
  // (Sequence.cpp).
  addConversion([](SeqType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
  addConversion([](OptType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
  addConversion([](MapType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Type mlir::onnxc::toSignless(Type t) {
  // A string is a pointer to its characters (Strings.cpp).
  if (isa<StringType>(t))
    return IntegerType::get(t.getContext(), 64);
  if (isNarrowFloat(t) || isNarrowInteger(t))
    return IntegerType::get(t.getContext(), 8);
  if (auto i = dyn_cast<IntegerType>(t))
    if (!i.isSignless())
      return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

Type mlir::onnxc::getONNXElementType(Value v) {
  return mlir::getElementTypeOrSelf(v.getType());
}

RankedTensorType
mlir::onnxc::getConvertedResultType(const TypeConverter &converter,
                                    Operation *op, unsigned i) {
  return dyn_cast_or_null<RankedTensorType>(
      converter.convertType(op->getResult(i).getType()));
}

FailureOr<Value> mlir::onnxc::castOrReport(OpBuilder &b, Location loc,
                                           Operation *op, Value v,
                                           RankedTensorType type,
                                           StringRef what) {
  if (v.getType() == type)
    return v;
  if (!tensor::CastOp::areCastCompatible(v.getType(), type))
    return op->emitOpError() << "computes its " << what << " as " << v.getType()
                             << ", but the model declares " << type;
  return tensor::CastOp::create(b, loc, type, v).getResult();
}

LogicalResult mlir::onnxc::checkStaticBroadcast(Operation *op,
                                                ValueRange operands,
                                                RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  for (auto [k, v] : llvm::enumerate(operands)) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      continue;
    if (t.getRank() > rank)
      return op->emitOpError() << "operand " << k << " is " << t
                               << ", of higher rank than the declared result "
                               << resultType;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t s = t.getDimSize(i), r = resultType.getDimSize(i + rank - t.getRank());
      if (s != 1 && !ShapedType::isDynamic(s) && !ShapedType::isDynamic(r) &&
          s != r)
        return op->emitOpError()
               << "operand " << k << " is " << t << ": its dim " << i << " ("
               << s << ") does not broadcast to the declared result "
               << resultType;
    }
  }
  return success();
}

SmallVector<OpFoldResult> mlir::onnxc::getDims(OpBuilder &b, Location loc,
                                               Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (type.isDynamicDim(i))
      dims.push_back(tensor::DimOp::create(b, loc, tensor, i).getResult());
    else
      dims.push_back(b.getIndexAttr(type.getDimSize(i)));
  }
  return dims;
}

Value mlir::onnxc::getDimValue(OpBuilder &b, Location loc, Value tensor,
                               int64_t dim) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, tensor, dim);
}

Value mlir::onnxc::createEmpty(OpBuilder &b, Location loc,
                               RankedTensorType type,
                               ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[i]));
  return tensor::EmptyOp::create(b, loc, type, dynamic);
}

Value mlir::onnxc::createFilled(OpBuilder &b, Location loc,
                                RankedTensorType type,
                                ArrayRef<OpFoldResult> sizes, Value value) {
  Value empty = createEmpty(b, loc, type, sizes);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

SmallVector<OpFoldResult>
mlir::onnxc::getBroadcastSizes(OpBuilder &b, Location loc, ValueRange operands,
                               RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      continue;
    }
    // numpy: a dim of 1 takes the other side's size.
    Value size;
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value v : operands) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t i = d - (rank - t.getRank());
      if (i < 0 || t.getDimSize(i) == 1)
        continue;
      Value dim = getDimValue(b, loc, v, i);
      if (!size) {
        size = dim;
        continue;
      }
      Value isOne =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one);
      size = arith::SelectOp::create(b, loc, isOne, dim, size);
    }
    sizes.push_back(size ? OpFoldResult(size)
                         : OpFoldResult(b.getIndexAttr(1)));
  }
  return sizes;
}

Value mlir::onnxc::buildElementwise(OpBuilder &b, Location loc,
                                    ValueRange operands,
                                    RankedTensorType resultType,
                                    ScalarBuilder body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes =
      getBroadcastSizes(b, loc, operands, resultType);
  emitBroadcastCheck(b, loc, /*op=*/nullptr, operands, sizes);
  Value init = createEmpty(b, loc, resultType, sizes);

  // An operand dim broadcasts when it is 1 and the result's is not. A
  // dynamic operand dim is ambiguous when another operand may be the one
  // that sets the result's size: then the index is chosen at run time.
  auto mayBeLarger = [&](Value self, int64_t d) {
    for (Value v : operands) {
      if (v == self)
        continue;
      auto t = cast<RankedTensorType>(v.getType());
      int64_t i = d - (rank - t.getRank());
      if (i >= 0 && t.getDimSize(i) != 1)
        return true;
    }
    return false;
  };
  struct Gathered {
    unsigned operand;
    SmallVector<Value> dimIsOne; // null where the dim is not ambiguous
  };
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<int> inputSlot(operands.size(), -1);
  SmallVector<Gathered> gathered;
  for (auto [k, v] : llvm::enumerate(operands)) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t offset = rank - t.getRank();
    SmallVector<AffineExpr> exprs;
    SmallVector<Value> dimIsOne(t.getRank());
    bool ambiguous = false;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t d = i + offset;
      int64_t s = t.getDimSize(i), out = resultType.getDimSize(d);
      if (s == 1 && out != 1) {
        exprs.push_back(getAffineConstantExpr(0, ctx));
        continue;
      }
      exprs.push_back(getAffineDimExpr(d, ctx));
      if (!ShapedType::isDynamic(s) || out == 1)
        continue;
      if (ShapedType::isDynamic(out) && !mayBeLarger(v, d))
        continue;
      ambiguous = true;
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      dimIsOne[i] = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          getDimValue(b, loc, v, i), one);
    }
    if (ambiguous) {
      gathered.push_back({unsigned(k), dimIsOne});
      continue;
    }
    inputSlot[k] = inputs.size();
    inputs.push_back(v);
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> scalars(operands.size());
        for (auto [k, slot] : llvm::enumerate(inputSlot))
          if (slot >= 0)
            scalars[k] = args[slot];
        for (Gathered &g : gathered) {
          Value v = operands[g.operand];
          auto t = cast<RankedTensorType>(v.getType());
          int64_t offset = rank - t.getRank();
          Value zero = arith::ConstantIndexOp::create(nb, nloc, 0);
          SmallVector<Value> indices;
          for (int64_t i = 0; i < t.getRank(); ++i) {
            if (t.getDimSize(i) == 1) {
              indices.push_back(zero);
              continue;
            }
            Value idx = linalg::IndexOp::create(nb, nloc, i + offset);
            if (g.dimIsOne[i])
              idx = arith::SelectOp::create(nb, nloc, g.dimIsOne[i], zero, idx);
            indices.push_back(idx);
          }
          scalars[g.operand] = tensor::ExtractOp::create(nb, nloc, v, indices);
        }
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, scalars));
      });
  return generic.getResult(0);
}

Value mlir::onnxc::indexToFloat(OpBuilder &b, Location loc, Value index,
                                Type type) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

Value mlir::onnxc::floatToIndex(OpBuilder &b, Location loc, Value value) {
  Value i64 = arith::FPToSIOp::create(b, loc, b.getI64Type(), value);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

Value mlir::onnxc::createScalarConstant(OpBuilder &b, Location loc, Type type,
                                        double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, value));
  if (isa<IndexType>(type))
    return arith::ConstantIndexOp::create(b, loc, int64_t(value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(toSignless(type), int64_t(value)));
}

Value mlir::onnxc::castScalar(OpBuilder &b, Location loc, Value v, Type from,
                              Type to, const CastOptions &options) {
  if (from == to)
    return v;
  if (isNarrowFloat(from) || isNarrowInteger(from) || isNarrowFloat(to) ||
      isNarrowInteger(to))
    return castNarrowScalar(b, loc, v, from, to, options);
  Type dst = toSignless(to);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  bool fromBool = from.isInteger(1), toBool = to.isInteger(1);
  if (toBool) {
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   createScalarConstant(b, loc, from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 createScalarConstant(b, loc, from, 0));
  }
  if (fromFloat && toFloat) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw < tw)
      return arith::ExtFOp::create(b, loc, dst, v);
    if (fw > tw)
      return arith::TruncFOp::create(b, loc, dst, v);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, dst, wide);
  }
  if (fromFloat) {
    if (to.isUnsignedInteger())
      return arith::FPToUIOp::create(b, loc, dst, v);
    return arith::FPToSIOp::create(b, loc, dst, v);
  }
  if (toFloat) {
    if (fromBool || from.isUnsignedInteger())
      return arith::UIToFPOp::create(b, loc, dst, v);
    return arith::SIToFPOp::create(b, loc, dst, v);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw) {
    if (fromBool || from.isUnsignedInteger())
      return arith::ExtUIOp::create(b, loc, dst, v);
    return arith::ExtSIOp::create(b, loc, dst, v);
  }
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, dst, v);
  return v; // Same width, other signedness: the bits are the value.
}

Value mlir::onnxc::cubicConvolutionWeight(OpBuilder &b, Location loc, Value s,
                                          double a) {
  Type t = s.getType();
  auto f = [&](double v) { return createScalarConstant(b, loc, t, v); };
  // |s| <= 1: (a+2)|s|^3 - (a+3)|s|^2 + 1
  // 1 < |s| < 2: a|s|^3 - 5a|s|^2 + 8a|s| - 4a
  Value as = math::AbsFOp::create(b, loc, s);
  Value s2 = arith::MulFOp::create(b, loc, as, as);
  Value s3 = arith::MulFOp::create(b, loc, s2, as);
  Value near = arith::AddFOp::create(
      b, loc,
      arith::SubFOp::create(b, loc, arith::MulFOp::create(b, loc, f(a + 2), s3),
                            arith::MulFOp::create(b, loc, f(a + 3), s2)),
      f(1));
  Value far = arith::SubFOp::create(
      b, loc,
      arith::AddFOp::create(
          b, loc,
          arith::SubFOp::create(b, loc, arith::MulFOp::create(b, loc, f(a), s3),
                                arith::MulFOp::create(b, loc, f(5 * a), s2)),
          arith::MulFOp::create(b, loc, f(8 * a), as)),
      f(4 * a));
  Value isNear =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, as, f(1));
  Value isFar =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, as, f(2));
  return arith::SelectOp::create(
      b, loc, isNear, near, arith::SelectOp::create(b, loc, isFar, far, f(0)));
}

FailureOr<SmallVector<int64_t>> mlir::onnxc::getConstantIntValues(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return failure();
  SmallVector<int64_t> values;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &x : dense.getValues<APInt>())
      values.push_back(x.getSExtValue());
    return values;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    auto elem = dyn_cast<IntegerType>(resource.getType().getElementType());
    if (!blob || !elem)
      return failure();
    ArrayRef<char> data = blob->getData();
    unsigned width = elem.getWidth() / 8;
    if (width != 4 && width != 8)
      return failure();
    for (size_t i = 0; i + width <= data.size(); i += width) {
      if (width == 8) {
        int64_t x;
        std::memcpy(&x, data.data() + i, 8);
        values.push_back(x);
      } else {
        int32_t x;
        std::memcpy(&x, data.data() + i, 4);
        values.push_back(x);
      }
    }
    return values;
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Reduction family helpers (Reduction.cpp, Normalization.cpp)
//===----------------------------------------------------------------------===//

Value mlir::onnxc::buildReduction(OpBuilder &b, Location loc, Value input,
                                  ArrayRef<int64_t> axes, Value init,
                                  ReduceCombiner combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> dims = getDims(b, loc, input);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    shape.push_back(type.getDimSize(d));
    sizes.push_back(dims[d]);
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  auto outType = RankedTensorType::get(shape, init.getType());
  Value acc = createFilled(b, loc, outType, sizes, init);
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank),
                              AffineMap::get(rank, 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, outType, input, acc, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args[0], args[1]));
      });
  return generic.getResult(0);
}

Value mlir::onnxc::reducedElementCount(OpBuilder &b, Location loc, Value input,
                                       ArrayRef<int64_t> axes, Type type) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t known = 1;
  for (int64_t a : axes)
    if (!inType.isDynamicDim(a))
      known *= inType.getDimSize(a);
  Value count = arith::ConstantIndexOp::create(b, loc, known);
  for (int64_t a : axes)
    if (inType.isDynamicDim(a))
      count =
          arith::MulIOp::create(b, loc, count, getDimValue(b, loc, input, a));
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return castScalar(b, loc, i64, b.getI64Type(), type);
}

Value mlir::onnxc::expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                                     ArrayRef<int64_t> axes, int64_t rank) {
  auto type = cast<RankedTensorType>(reduced.getType());
  SmallVector<OpFoldResult> dims = getDims(b, loc, reduced);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  // Each kept dim takes the unit dims after it; leading unit dims join the
  // first kept dim's group.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  int64_t kept = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      shape.push_back(1);
      sizes.push_back(b.getIndexAttr(1));
      if (groups.empty())
        leading.push_back(d);
      else
        groups.back().push_back(d);
      continue;
    }
    shape.push_back(type.getDimSize(kept));
    sizes.push_back(dims[kept++]);
    groups.push_back(leading);
    groups.back().push_back(d);
    leading.clear();
  }
  auto outType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, outType, reduced, groups, sizes);
}

//===----------------------------------------------------------------------===//
// Conv / Pooling family helpers (Conv.cpp, Pooling.cpp)
//===----------------------------------------------------------------------===//

namespace {
/// Index arithmetic on OpFoldResults that stays constant where it can.
struct WindowMath {
  OpBuilder &b;
  Location loc;
  OpFoldResult c(int64_t v) { return b.getIndexAttr(v); }
  Value v(OpFoldResult x) { return getValueOrCreateConstantIndexOp(b, loc, x); }
  template <typename OpTy>
  OpFoldResult fold(OpFoldResult x, OpFoldResult y,
                    function_ref<int64_t(int64_t, int64_t)> f) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return c(f(*cx, *cy));
    return OpTy::create(b, loc, v(x), v(y)).getResult();
  }
  OpFoldResult add(OpFoldResult x, OpFoldResult y) {
    if (isConstantIntValue(y, 0))
      return x;
    return fold<arith::AddIOp>(x, y,
                               [](int64_t p, int64_t q) { return p + q; });
  }
  OpFoldResult sub(OpFoldResult x, OpFoldResult y) {
    if (isConstantIntValue(y, 0))
      return x;
    return fold<arith::SubIOp>(x, y,
                               [](int64_t p, int64_t q) { return p - q; });
  }
  OpFoldResult mul(OpFoldResult x, int64_t y) {
    if (y == 1)
      return x;
    return fold<arith::MulIOp>(x, c(y),
                               [](int64_t p, int64_t q) { return p * q; });
  }
  OpFoldResult floorDiv(OpFoldResult x, int64_t y) {
    if (y == 1)
      return x;
    return fold<arith::FloorDivSIOp>(x, c(y), [](int64_t p, int64_t q) {
      return p >= 0 ? p / q : -((-p + q - 1) / q);
    });
  }
  OpFoldResult ceilDiv(OpFoldResult x, int64_t y) {
    if (y == 1)
      return x;
    return fold<arith::CeilDivSIOp>(x, c(y), [](int64_t p, int64_t q) {
      return p >= 0 ? (p + q - 1) / q : -(-p / q);
    });
  }
  OpFoldResult max(OpFoldResult x, OpFoldResult y) {
    return fold<arith::MaxSIOp>(
        x, y, [](int64_t p, int64_t q) { return std::max(p, q); });
  }
};
} // namespace

FailureOr<SmallVector<int64_t>>
mlir::onnxc::getKernelShape(ArrayAttr kernelShape, RankedTensorType wType) {
  int64_t n = wType.getRank() - 2;
  SmallVector<int64_t> kernel;
  if (kernelShape) {
    if (int64_t(kernelShape.size()) != n)
      return failure();
    for (Attribute a : kernelShape)
      kernel.push_back(cast<IntegerAttr>(a).getInt());
    return kernel;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (wType.isDynamicDim(i + 2))
      return failure();
    kernel.push_back(wType.getDimSize(i + 2));
  }
  return kernel;
}

FailureOr<SlidingWindow> mlir::onnxc::computeSlidingWindow(
    OpBuilder &b, Location loc, Value input, RankedTensorType resultType,
    ArrayRef<int64_t> kernel, ArrayAttr strides, ArrayAttr dilations,
    ArrayAttr pads, StringRef autoPad, bool ceilMode) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t n = inputType.getRank() - 2;
  if (n < 1 || int64_t(kernel.size()) != n || resultType.getRank() != n + 2)
    return failure();
  auto ints = [&](ArrayAttr attr, size_t size,
                  int64_t dflt) -> FailureOr<SmallVector<int64_t>> {
    if (!attr)
      return SmallVector<int64_t>(size, dflt);
    if (attr.size() != size)
      return failure();
    SmallVector<int64_t> values;
    for (Attribute a : attr)
      values.push_back(cast<IntegerAttr>(a).getInt());
    return values;
  };
  SlidingWindow w;
  w.kernel.assign(kernel.begin(), kernel.end());
  auto s = ints(strides, n, 1), d = ints(dilations, n, 1);
  auto p = ints(pads, 2 * n, 0);
  if (failed(s) || failed(d) || failed(p))
    return failure();
  w.strides = *s;
  w.dilations = *d;
  if (llvm::any_of(w.strides, [](int64_t x) { return x < 1; }) ||
      llvm::any_of(w.dilations, [](int64_t x) { return x < 1; }) ||
      llvm::any_of(*p, [](int64_t x) { return x < 0; }) ||
      llvm::any_of(kernel, [](int64_t x) { return x < 1; }))
    return failure();
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return failure();

  WindowMath m{b, loc};
  SmallVector<OpFoldResult> inSizes = getDims(b, loc, input);
  for (int64_t i = 0; i < n; ++i) {
    OpFoldResult in = inSizes[i + 2];
    int64_t stride = w.strides[i];
    int64_t effK = (kernel[i] - 1) * w.dilations[i] + 1;
    OpFoldResult lo = m.c(0), hi = m.c(0), out;
    if (!ShapedType::isDynamic(resultType.getDimSize(i + 2)))
      out = m.c(resultType.getDimSize(i + 2));
    if (same) {
      // out = ceil(in / stride); the padding makes the windows reach it.
      OpFoldResult sameOut = m.ceilDiv(in, stride);
      if (!out)
        out = sameOut;
      OpFoldResult total = m.max(
          m.c(0),
          m.sub(m.add(m.mul(m.sub(sameOut, m.c(1)), stride), m.c(effK)), in));
      OpFoldResult half = m.floorDiv(total, 2);
      lo = autoPad == "SAME_UPPER" ? half : m.sub(total, half);
      hi = m.sub(total, lo);
    } else if (autoPad == "NOTSET") {
      lo = m.c((*p)[i]);
      hi = m.c((*p)[i + n]);
    }
    if (!out) {
      OpFoldResult span = m.sub(m.add(m.add(in, lo), hi), m.c(effK));
      if (!ceilMode) {
        out = m.add(m.floorDiv(span, stride), m.c(1));
      } else {
        // The last window must start inside the input or the low padding.
        out = m.add(m.ceilDiv(span, stride), m.c(1));
        OpFoldResult lastStart = m.mul(m.sub(out, m.c(1)), stride);
        OpFoldResult limit = m.add(in, lo);
        std::optional<int64_t> cs = getConstantIntValue(lastStart),
                               cl = getConstantIntValue(limit);
        if (cs && cl) {
          if (*cs >= *cl)
            out = m.sub(out, m.c(1));
        } else {
          Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                             m.v(lastStart), m.v(limit));
          out = arith::SelectOp::create(b, loc, past, m.v(m.sub(out, m.c(1))),
                                        m.v(out))
                    .getResult();
        }
      }
    }
    // The padded input must hold (out - 1) * stride + effK elements.
    OpFoldResult needed = m.add(m.mul(m.sub(out, m.c(1)), stride), m.c(effK));
    OpFoldResult covering = m.max(hi, m.sub(m.sub(needed, in), lo));
    w.padLow.push_back(lo);
    w.padHigh.push_back(hi);
    w.padHighCovering.push_back(covering);
    w.outSizes.push_back(out);
  }
  return w;
}

Value mlir::onnxc::padSpatial(OpBuilder &b, Location loc, Value input,
                              const SlidingWindow &window, Value value) {
  auto allZero = [](ArrayRef<OpFoldResult> xs) {
    return llvm::all_of(
        xs, [](OpFoldResult x) { return isConstantIntValue(x, 0); });
  };
  if (allZero(window.padLow) && allZero(window.padHighCovering))
    return input;
  SmallVector<OpFoldResult> low{b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> high = low;
  llvm::append_range(low, window.padLow);
  llvm::append_range(high, window.padHighCovering);
  return tensor::PadOp::create(b, loc, Type(), input, low, high, value);
}
