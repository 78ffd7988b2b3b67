//===- MLLookup.cpp - ai.onnx.ml look-ups -> linalg, runtime calls --------===//
//
// LabelEncoder (ai.onnx.ml 2 and 4), CategoryMapper and OneHotEncoder: the
// keys are sorted here into private globals and searched, per element, by
// onnxc_rt_ml_find_string (strcmp) or onnxc_rt_ml_find_i64
// (lib/Runtime/onnxc_ml.c; integer keys sign-extended, float keys by their
// bits, as the spec says, every NaN as one), inside a linalg.generic:
//
//   LabelEncoder,          the position indexes a table of the values in
//   CategoryMapper         key order whose last entry is the default (a
//                          constant, or a string table)
//   OneHotEncoder          the position gives the category's index (-1:
//                          none; floats truncated to int64 as onnxruntime
//                          casts them), then a [..., K] one-hot; with
//                          zeros = 0 an unknown value fails at run time,
//                          with the count of them
//
// Repeated keys: the last counts (LabelEncoder-4's rule, and onnxruntime's
// assignment for CategoryMapper and OneHotEncoder).
//
//===----------------------------------------------------------------------===//

#include "ML.h"

#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::ml;

namespace {

/// One list of an op's keys or values: strings, integers (held as int64) or
/// floats (held as double); `elem` is the tensor element type of a numeric
/// column (null: i64 or f32).
struct Column {
  enum Kind { Strings, Ints, Floats } kind = Ints;
  Type elem;
  SmallVector<StringRef> strings;
  SmallVector<int64_t> ints;
  SmallVector<double> floats;
  size_t size() const {
    return kind == Strings ? strings.size()
           : kind == Ints  ? ints.size()
                           : floats.size();
  }
  Type elementType(MLIRContext *ctx) const {
    if (elem)
      return elem;
    return kind == Floats ? Type(Float32Type::get(ctx))
                          : Type(IntegerType::get(ctx, 64));
  }
};

/// The column of ONNX element type `t`: strings, int64/int32/int16 or
/// float/double (LabelEncoder-4's types).
std::optional<Column> columnFor(Type t) {
  Column c;
  if (isa<StringType>(t)) {
    c.kind = Column::Strings;
    return c;
  }
  if (t.isInteger(64) || t.isInteger(32) || t.isInteger(16)) {
    c.kind = Column::Ints;
    c.elem = t;
    return c;
  }
  if (t.isF32() || t.isF64()) {
    c.kind = Column::Floats;
    c.elem = t;
    return c;
  }
  return std::nullopt;
}

/// Fills `c` from a LabelEncoder-4 `<name>` tensor attribute; an error when
/// it holds another kind of element than `c`.
LogicalResult fillFromTensor(Operation *op, Column &c, StringRef name,
                             ElementsAttr t) {
  Type e = t.getElementType();
  std::optional<Column> found = columnFor(e);
  const char *kinds[] = {"strings", "integers", "floats"};
  if (!found || found->kind != c.kind)
    return op->emitOpError()
           << "has " << name << " of " << e << ", but "
           << (name.starts_with("keys") ? "its input" : "its output")
           << " holds " << kinds[c.kind];
  if (c.kind == Column::Strings) {
    auto strings = dyn_cast<DenseStringElementsAttr>(t);
    if (!strings)
      return op->emitOpError() << "has an unreadable " << name;
    if (strings.isSplat())
      c.strings.assign(t.getNumElements(), strings.getRawStringData()[0]);
    else
      llvm::append_range(c.strings, strings.getRawStringData());
    return success();
  }
  if (c.kind == Column::Ints) {
    auto values = t.tryGetValues<APInt>();
    if (!values)
      return op->emitOpError() << "has an unreadable " << name;
    for (APInt v : *values)
      c.ints.push_back(v.getSExtValue());
    return success();
  }
  auto values = t.tryGetValues<APFloat>();
  if (!values)
    return op->emitOpError() << "has an unreadable " << name;
  for (APFloat v : *values) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    c.floats.push_back(v.convertToDouble());
  }
  return success();
}

/// The `kind` list of an op's `<what>_{strings,int64s,floats}` attributes;
/// an error when only a list of another kind is given.
/// (`tensor`: LabelEncoder-4's `<what>_tensor`, which takes precedence.)
FailureOr<Column> columnOf(Operation *op, Column c, StringRef what,
                           ArrayAttr strings, ArrayAttr ints, ArrayAttr floats,
                           ElementsAttr tensor = {}) {
  if (tensor) {
    if (failed(fillFromTensor(op, c, (what + "_tensor").str(), tensor)))
      return failure();
    return c;
  }
  c.strings = stringsOf(strings);
  c.ints = intsOf(ints);
  for (float f : floatsOf(floats))
    c.floats.push_back(f);
  const char *names[] = {"strings", "int64s", "floats"};
  ArrayAttr lists[] = {strings, ints, floats};
  if (c.size() == 0)
    for (int k = 0; k < 3; ++k)
      if (lists[k] && !lists[k].empty())
        return op->emitOpError()
               << "has " << what << "_" << names[k] << ", but its "
               << (what == "keys" ? "input" : "output") << " holds "
               << names[c.kind];
  return c;
}

/// Keys sorted for the runtime's binary search. The search gives a key's
/// position; `order[position]` is its index in the attribute.
struct Lookup {
  bool strings = false;
  int64_t size = 0;
  std::string keys, offsets; // the globals
  SmallVector<int64_t> order;
};

/// The i64 a float key of type `elem` (f32 or f64) is searched by: its
/// bits; every NaN as the one quiet NaN (NaN keys match any NaN input).
int64_t floatKey(double v, Type elem) {
  if (elem && elem.isF64())
    return std::isnan(v) ? int64_t(0x7FF8000000000000)
                         : llvm::bit_cast<int64_t>(v);
  float f = float(v);
  return std::isnan(f) ? int64_t(0x7FC00000)
                       : int64_t(llvm::bit_cast<uint32_t>(f));
}

Lookup buildLookup(OpBuilder &b, Location loc, Operation *anchor,
                   const Column &keys, bool keepLast) {
  Lookup t;
  t.strings = keys.kind == Column::Strings;
  SmallVector<int64_t> ints;
  if (keys.kind == Column::Ints)
    ints = keys.ints;
  for (double f : keys.floats)
    ints.push_back(floatKey(f, keys.elem));
  SmallVector<int64_t> index(keys.size());
  std::iota(index.begin(), index.end(), 0);
  auto less = [&](int64_t x, int64_t y) {
    return t.strings ? keys.strings[x] < keys.strings[y] : ints[x] < ints[y];
  };
  // Equal keys stay in attribute order.
  llvm::sort(index, [&](int64_t x, int64_t y) {
    return less(x, y) || (!less(y, x) && x < y);
  });
  for (size_t i = 0; i < index.size();) {
    size_t j = i;
    while (j + 1 < index.size() && !less(index[i], index[j + 1]))
      ++j;
    t.order.push_back(keepLast ? index[j] : index[i]);
    i = j + 1;
  }
  t.size = t.order.size();
  if (t.size == 0)
    return t;
  Type i64 = b.getI64Type();
  auto i64Array = [&](ArrayRef<int64_t> v) {
    return addConstantGlobal(
        b, loc, anchor, "__onnxc_ml_", LLVM::LLVMArrayType::get(i64, v.size()),
        DenseIntElementsAttr::get(
            RankedTensorType::get({int64_t(v.size())}, i64), v));
  };
  SmallVector<int64_t> sorted;
  if (!t.strings) {
    for (int64_t k : t.order)
      sorted.push_back(ints[k]);
    t.keys = i64Array(sorted);
    return t;
  }
  std::string packed;
  for (int64_t k : t.order) {
    sorted.push_back(packed.size());
    packed += keys.strings[k].str();
    packed += '\0';
  }
  t.keys =
      addConstantGlobal(b, loc, anchor, "__onnxc_ml_",
                        LLVM::LLVMArrayType::get(b.getI8Type(), packed.size()),
                        b.getStringAttr(packed));
  t.offsets = i64Array(sorted);
  return t;
}

/// The position of `key` (a string pointer, an int64 or a float's bits, as
/// i64) in the table, or -1. Built in place (a generic's body).
Value findKey(OpBuilder &b, Location loc, const Lookup &t, Value key) {
  if (t.size == 0)
    return i64Const(b, loc, -1);
  Type i64 = b.getI64Type();
  Value n = i64Const(b, loc, t.size);
  if (t.strings)
    return seqCallRuntime(
        b, loc, "onnxc_rt_ml_find_string", i64,
        {addressOf(b, loc, t.keys), addressOf(b, loc, t.offsets), n, key});
  return seqCallRuntime(b, loc, "onnxc_rt_ml_find_i64", i64,
                        {addressOf(b, loc, t.keys), n, key});
}

/// An element as the i64 a key column is searched by: a string's pointer,
/// an integer sign-extended, a float's bits (any NaN as the quiet NaN's).
Value keyOf(OpBuilder &b, Location loc, Value x, const Column &keys) {
  Type i64 = b.getI64Type();
  if (keys.kind == Column::Strings || x.getType() == i64)
    return x;
  if (keys.kind == Column::Ints)
    return arith::ExtSIOp::create(b, loc, i64, x);
  bool wide = x.getType().isF64();
  Value bits =
      arith::BitcastOp::create(b, loc, wide ? i64 : Type(b.getI32Type()), x);
  if (!wide)
    bits = arith::ExtUIOp::create(b, loc, i64, bits);
  Value nan = arith::CmpFOp::create(b, loc, FPred::UNO, x, x);
  return arith::SelectOp::create(
      b, loc, nan,
      i64Const(b, loc, wide ? int64_t(0x7FF8000000000000) : 0x7FC00000), bits);
}

/// The values in the table's order, then `fallback`: a constant, or a
/// string table.
Value valueTable(OpBuilder &b, Location loc, Operation *anchor, const Lookup &t,
                 const Column &values, const Column &fallback) {
  auto type = [&](Type elem) {
    return RankedTensorType::get({t.size + 1}, elem);
  };
  switch (values.kind) {
  case Column::Strings: {
    SmallVector<StringRef> s;
    for (int64_t k : t.order)
      s.push_back(values.strings[k]);
    s.push_back(fallback.strings[0]);
    return buildStringConstant(b, loc, anchor, s);
  }
  case Column::Ints: {
    Type elem = values.elementType(b.getContext());
    unsigned width = elem.getIntOrFloatBitWidth();
    SmallVector<APInt> v;
    for (int64_t k : t.order)
      v.push_back(APInt(width, values.ints[k], /*isSigned=*/true,
                        /*implicitTrunc=*/true));
    v.push_back(APInt(width, fallback.ints[0], true, true));
    return arith::ConstantOp::create(b, loc,
                                     DenseIntElementsAttr::get(type(elem), v));
  }
  case Column::Floats: {
    Type elem = values.elementType(b.getContext());
    SmallVector<APFloat> v;
    auto add = [&](double x) {
      APFloat f(x);
      bool lost;
      f.convert(cast<FloatType>(elem).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    };
    for (int64_t k : t.order)
      add(values.floats[k]);
    add(fallback.floats[0]);
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(type(elem), v));
  }
  }
  llvm_unreachable("column kind");
}

/// Each element of `x` mapped through keys -> values, `fallback` for the
/// keys not there.
Value mapElements(OpBuilder &b, Location loc, Operation *op, Value x,
                  RankedTensorType type, const Column &keys,
                  const Column &values, const Column &fallback, bool keepLast) {
  Lookup t = buildLookup(b, loc, op, keys, keepLast);
  Value table = valueTable(b, loc, op, t, values, fallback);
  return buildElementwise(
      b, loc, x, type, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value pos = findKey(nb, l, t, keyOf(nb, l, a[0], keys));
        Value none =
            arith::CmpIOp::create(nb, l, Pred::slt, pos, i64Const(nb, l, 0));
        Value i =
            arith::SelectOp::create(nb, l, none, i64Const(nb, l, t.size), pos);
        Value index = arith::IndexCastOp::create(nb, l, nb.getIndexType(), i);
        return tensor::ExtractOp::create(nb, l, table, index);
      });
}

} // namespace

Value mlir::onnxc::ml::stringPositions(OpBuilder &b, Location loc,
                                       Operation *anchor, Value x,
                                       ArrayRef<StringRef> keys) {
  Column column;
  column.kind = Column::Strings;
  column.strings.assign(keys.begin(), keys.end());
  Lookup t = buildLookup(b, loc, anchor, column, /*keepLast=*/true);
  auto type = cast<RankedTensorType>(x.getType()).clone(b.getI64Type());
  return buildElementwise(b, loc, x, type,
                          [&](OpBuilder &nb, Location l, ValueRange a) {
                            return findKey(nb, l, t, a[0]);
                          });
}

namespace {

class OneHotEncoderLowering
    : public OpConversionPattern<ONNXMLOneHotEncoderOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLOneHotEncoderOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !xType || type.getRank() != xType.getRank() + 1)
      return rewriter.notifyMatchFailure(op, "ranked input and result");
    Type elem = getONNXElementType(op.getX());
    bool strings = isa<StringType>(elem);
    Column cats;
    cats.kind = strings ? Column::Strings : Column::Ints;
    cats.strings = stringsOf(op.getCatsStringsAttr());
    cats.ints = intsOf(op.getCatsInt64sAttr());
    if (cats.size() == 0)
      return op.emitOpError() << "has no cats_"
                              << (strings ? "strings for its string input"
                                          : "int64s for its numeric input");
    int64_t k = cats.size();
    Lookup t = buildLookup(rewriter, loc, op, cats, /*keepLast=*/true);
    Type i64 = rewriter.getI64Type();
    Value order = arith::ConstantOp::create(
        rewriter, loc,
        DenseIntElementsAttr::get(RankedTensorType::get({t.size}, i64),
                                  t.order));
    // The category of each element, -1 for none.
    Value idx = buildElementwise(
        rewriter, loc, x, xType.clone(i64),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value key = a[0], valid;
          if (isa<FloatType>(elem)) {
            // onnxruntime's cast to int64 (truncation); NaN and values
            // out of range match nothing.
            Value lo = createScalarConstant(b, l, key.getType(), -0x1p63);
            Value hi = createScalarConstant(b, l, key.getType(), 0x1p63);
            valid = arith::AndIOp::create(
                b, l, arith::CmpFOp::create(b, l, FPred::OGE, key, lo),
                arith::CmpFOp::create(b, l, FPred::OLT, key, hi));
            key = arith::FPToSIOp::create(
                b, l, i64,
                arith::SelectOp::create(
                    b, l, valid, key,
                    createScalarConstant(b, l, key.getType(), 0)));
          } else if (key.getType() != i64 && !strings) {
            key = arith::ExtSIOp::create(b, l, i64, key);
          }
          Value pos = findKey(b, l, t, key);
          Value found =
              arith::CmpIOp::create(b, l, Pred::sge, pos, i64Const(b, l, 0));
          if (valid)
            found = arith::AndIOp::create(b, l, found, valid);
          Value at =
              arith::SelectOp::create(b, l, found, pos, i64Const(b, l, 0));
          Value cat =
              tensor::ExtractOp::create(b, l, order,
                                        ValueRange{arith::IndexCastOp::create(
                                            b, l, b.getIndexType(), at)});
          return arith::SelectOp::create(b, l, found, cat, i64Const(b, l, -1));
        });
    int64_t rank = xType.getRank();
    if (op.getZeros() == 0) {
      SmallVector<int64_t> all(rank);
      std::iota(all.begin(), all.end(), 0);
      Value unknown = buildReduction(
          rewriter, loc, idx, all, i64Const(rewriter, loc, 0),
          [&](OpBuilder &b, Location l, Value v, Value acc) -> Value {
            Value none =
                arith::CmpIOp::create(b, l, Pred::slt, v, i64Const(b, l, 0));
            return arith::AddIOp::create(
                b, l, acc, arith::ExtUIOp::create(b, l, i64, none));
          });
      Value n = tensor::ExtractOp::create(rewriter, loc, unknown, ValueRange{});
      emitRuntimeCheck(rewriter, loc, op,
                       arith::CmpIOp::create(rewriter, loc, Pred::ne, n,
                                             i64Const(rewriter, loc, 0)),
                       "{0} input value(s) not among the " + Twine(k) +
                           " categories (zeros = 0)",
                       {n});
    }
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, x);
    sizes.push_back(rewriter.getIndexAttr(k));
    SmallVector<int64_t> shape(xType.getShape());
    shape.push_back(k);
    auto yType = RankedTensorType::get(shape, rewriter.getF32Type());
    AffineMap drop = rewriter.getMultiDimIdentityMap(rank + 1).dropResult(rank);
    Value y = buildIndexedGeneric(
        rewriter, loc, yType, sizes, idx, drop,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          Value c = arith::IndexCastOp::create(b, l, i64, ivs.back());
          Value hit = arith::CmpIOp::create(b, l, Pred::eq, args[0], c);
          return arith::SelectOp::create(
              b, l, hit, createScalarConstant(b, l, b.getF32Type(), 1),
              createScalarConstant(b, l, b.getF32Type(), 0));
        });
    return replaceWithCast(rewriter, op, y, type);
  }
};

class LabelEncoderLowering : public OpConversionPattern<ONNXMLLabelEncoderOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLLabelEncoderOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op);
    if (!type || !isa<RankedTensorType>(adaptor.getX().getType()))
      return rewriter.notifyMatchFailure(op, "ranked input and result");
    std::optional<Column> in = columnFor(getONNXElementType(op.getX()));
    std::optional<Column> out = columnFor(getONNXElementType(op.getY()));
    if (!in || !out)
      return rewriter.notifyMatchFailure(
          op, "string, int64/32/16 or float/double elements");
    FailureOr<Column> keys = columnOf(
        op, *in, "keys", op.getKeysStringsAttr(), op.getKeysInt64sAttr(),
        op.getKeysFloatsAttr(), op.getKeysTensorAttr());
    FailureOr<Column> values = columnOf(
        op, *out, "values", op.getValuesStringsAttr(), op.getValuesInt64sAttr(),
        op.getValuesFloatsAttr(), op.getValuesTensorAttr());
    if (failed(keys) || failed(values))
      return failure();
    if (keys->size() != values->size())
      return op.emitOpError() << "has " << keys->size() << " keys but "
                              << values->size() << " values";
    // default_tensor (one element) or the default_* of the values' kind.
    Column fallback = *out;
    if (ElementsAttr d = op.getDefaultTensorAttr()) {
      if (failed(fillFromTensor(op, fallback, "default_tensor", d)))
        return failure();
      if (fallback.size() != 1)
        return op.emitOpError() << "has a default_tensor of " << fallback.size()
                                << " elements, not 1";
    } else {
      fallback.strings.push_back(op.getDefaultString());
      fallback.ints.push_back(int64_t(op.getDefaultInt64()));
      fallback.floats.push_back(op.getDefaultFloat().convertToFloat());
    }
    // A repeated key: the last one counts (LabelEncoder-4's rule).
    rewriter.replaceOp(op, mapElements(rewriter, op.getLoc(), op,
                                       adaptor.getX(), type, *keys, *values,
                                       fallback, /*keepLast=*/true));
    return success();
  }
};

class CategoryMapperLowering
    : public OpConversionPattern<ONNXMLCategoryMapperOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLCategoryMapperOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op);
    if (!type || !isa<RankedTensorType>(adaptor.getX().getType()))
      return rewriter.notifyMatchFailure(op, "ranked input and result");
    bool fromStrings = isa<StringType>(getONNXElementType(op.getX()));
    if (fromStrings == isa<StringType>(getONNXElementType(op.getY())))
      return op.emitOpError() << "maps strings to int64 or int64 to strings, "
                                 "not "
                              << getONNXElementType(op.getX()) << " to "
                              << getONNXElementType(op.getY());
    Column strings, ints;
    strings.kind = Column::Strings;
    strings.strings = stringsOf(op.getCatsStringsAttr());
    ints.ints = intsOf(op.getCatsInt64sAttr());
    if (strings.size() != ints.size())
      return op.emitOpError()
             << "has " << strings.size() << " cats_strings but " << ints.size()
             << " cats_int64s";
    Column fallback;
    fallback.kind = fromStrings ? Column::Ints : Column::Strings;
    fallback.strings.push_back(op.getDefaultString());
    fallback.ints.push_back(int64_t(op.getDefaultInt64()));
    rewriter.replaceOp(op,
                       mapElements(rewriter, op.getLoc(), op, adaptor.getX(),
                                   type, fromStrings ? strings : ints,
                                   fromStrings ? ints : strings, fallback,
                                   /*keepLast=*/true));
    return success();
  }
};

} // namespace

void mlir::onnxc::ml::populateLookupPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns
      .add<OneHotEncoderLowering, LabelEncoderLowering, CategoryMapperLowering>(
          converter, patterns.getContext());
}
