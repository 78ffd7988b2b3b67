//===- MLLookup.cpp - ai.onnx.ml look-ups -> linalg, runtime calls --------===//
//
// LabelEncoder (ai.onnx.ml 2), CategoryMapper and OneHotEncoder: the keys
// are sorted here into private globals and searched, per element, by
// onnxc_rt_ml_find_string (strcmp) or onnxc_rt_ml_find_i64
// (lib/Runtime/onnxc_ml.c; float keys by their bits, as the spec says),
// inside a linalg.generic:
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
// Repeated keys: LabelEncoder keeps the first (onnxruntime's emplace),
// CategoryMapper and OneHotEncoder the last (its assignment).
//
//===----------------------------------------------------------------------===//

#include "ML.h"

#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <numeric>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::ml;

namespace {

/// One list of an op's keys or values: strings, int64s or floats.
struct Column {
  enum Kind { Strings, Ints, Floats } kind = Ints;
  SmallVector<StringRef> strings;
  SmallVector<int64_t> ints;
  SmallVector<float> floats;
  size_t size() const {
    return kind == Strings ? strings.size()
           : kind == Ints  ? ints.size()
                           : floats.size();
  }
};

/// The column kind of ONNX element type `t` (string, int64, float).
std::optional<Column::Kind> kindOf(Type t) {
  if (isa<StringType>(t))
    return Column::Strings;
  if (t.isInteger(64))
    return Column::Ints;
  if (t.isF32())
    return Column::Floats;
  return std::nullopt;
}

/// The `kind` list of an op's `<what>_{strings,int64s,floats}` attributes;
/// an error when only a list of another kind is given.
FailureOr<Column> columnOf(Operation *op, Column::Kind kind, StringRef what,
                           ArrayAttr strings, ArrayAttr ints,
                           ArrayAttr floats) {
  Column c;
  c.kind = kind;
  c.strings = stringsOf(strings);
  c.ints = intsOf(ints);
  c.floats = floatsOf(floats);
  const char *names[] = {"strings", "int64s", "floats"};
  ArrayAttr lists[] = {strings, ints, floats};
  if (c.size() == 0)
    for (int k = 0; k < 3; ++k)
      if (lists[k] && !lists[k].empty())
        return op->emitOpError()
               << "has " << what << "_" << names[k] << ", but its "
               << (what == "keys" ? "input" : "output") << " holds "
               << names[kind];
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

/// The i64 a float key is searched by: its bits.
int64_t floatKey(float f) { return int64_t(llvm::bit_cast<uint32_t>(f)); }

Lookup buildLookup(OpBuilder &b, Location loc, Operation *anchor,
                   const Column &keys, bool keepLast) {
  Lookup t;
  t.strings = keys.kind == Column::Strings;
  SmallVector<int64_t> ints;
  if (keys.kind == Column::Ints)
    ints = keys.ints;
  for (float f : keys.floats)
    ints.push_back(floatKey(f));
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

/// An element as the i64 a key column is searched by.
Value keyOf(OpBuilder &b, Location loc, Value x, Column::Kind kind) {
  if (kind != Column::Floats)
    return x;
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), bits);
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
    SmallVector<int64_t> v;
    for (int64_t k : t.order)
      v.push_back(values.ints[k]);
    v.push_back(fallback.ints[0]);
    return arith::ConstantOp::create(
        b, loc, DenseIntElementsAttr::get(type(b.getI64Type()), v));
  }
  case Column::Floats: {
    SmallVector<float> v;
    for (int64_t k : t.order)
      v.push_back(values.floats[k]);
    v.push_back(fallback.floats[0]);
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type(b.getF32Type()), ArrayRef(v)));
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
        Value pos = findKey(nb, l, t, keyOf(nb, l, a[0], keys.kind));
        Value none =
            arith::CmpIOp::create(nb, l, Pred::slt, pos, i64Const(nb, l, 0));
        Value i =
            arith::SelectOp::create(nb, l, none, i64Const(nb, l, t.size), pos);
        Value index = arith::IndexCastOp::create(nb, l, nb.getIndexType(), i);
        return tensor::ExtractOp::create(nb, l, table, index);
      });
}

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
    std::optional<Column::Kind> in = kindOf(getONNXElementType(op.getX()));
    std::optional<Column::Kind> out = kindOf(getONNXElementType(op.getY()));
    if (!in || !out)
      return rewriter.notifyMatchFailure(op, "string, int64 or float elements");
    FailureOr<Column> keys =
        columnOf(op, *in, "keys", op.getKeysStringsAttr(),
                 op.getKeysInt64sAttr(), op.getKeysFloatsAttr());
    FailureOr<Column> values =
        columnOf(op, *out, "values", op.getValuesStringsAttr(),
                 op.getValuesInt64sAttr(), op.getValuesFloatsAttr());
    if (failed(keys) || failed(values))
      return failure();
    if (keys->size() != values->size())
      return op.emitOpError() << "has " << keys->size() << " keys but "
                              << values->size() << " values";
    Column fallback;
    fallback.kind = *out;
    fallback.strings.push_back(op.getDefaultString());
    fallback.ints.push_back(int64_t(op.getDefaultInt64()));
    fallback.floats.push_back(op.getDefaultFloat().convertToFloat());
    rewriter.replaceOp(op, mapElements(rewriter, op.getLoc(), op,
                                       adaptor.getX(), type, *keys, *values,
                                       fallback, /*keepLast=*/false));
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
