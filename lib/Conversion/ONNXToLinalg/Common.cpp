//===- Common.cpp - Helpers shared by the onnx -> linalg patterns ---------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::onnxc;

ONNXToLinalgTypeConverter::ONNXToLinalgTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](IntegerType t) -> Type { return toSignless(t); });
  addConversion([](RankedTensorType t) -> Type {
    return t.clone(toSignless(t.getElementType()));
  });
  addConversion([](UnrankedTensorType t) -> Type {
    return UnrankedTensorType::get(toSignless(t.getElementType()));
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
  if (auto i = dyn_cast<IntegerType>(t))
    if (!i.isSignless())
      return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

Type mlir::onnxc::getONNXElementType(Value v) {
  return mlir::getElementTypeOrSelf(v.getType());
}

RankedTensorType mlir::onnxc::getConvertedResultType(
    const TypeConverter &converter, Operation *op, unsigned i) {
  return dyn_cast_or_null<RankedTensorType>(
      converter.convertType(op->getResult(i).getType()));
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
    sizes.push_back(size ? OpFoldResult(size) : OpFoldResult(b.getIndexAttr(1)));
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
                              Type to) {
  if (from == to)
    return v;
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
