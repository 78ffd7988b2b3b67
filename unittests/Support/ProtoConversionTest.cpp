//===- ProtoConversionTest.cpp - ONNX protobuf <-> MLIR conversions -------===//

#include "onnxc/Support/ProtoConversion.h"

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mlir;
using namespace mlir::onnxc;
using onnx::TensorProto;

namespace {

class ProtoConversionTest : public ::testing::Test {
protected:
  ProtoConversionTest() { ctx.loadDialect<ONNXDialect>(); }

  /// Converts `tensor` with everything inline (no resource blobs).
  ElementsAttr convert(TensorProto tensor, size_t threshold = SIZE_MAX) {
    TensorDataOptions options;
    options.resourceThreshold = threshold;
    error.clear();
    return convertTensorProto(&ctx, tensor, options, error);
  }

  static std::string typeString(Type type) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << type;
    return s;
  }

  MLIRContext ctx;
  std::string error;
};

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

TEST_F(ProtoConversionTest, ElementTypesMapToMLIR) {
  struct Case {
    int32_t dataType;
    const char *mlir;
  } cases[] = {
      {TensorProto::FLOAT, "f32"},         {TensorProto::UINT8, "ui8"},
      {TensorProto::INT8, "i8"},           {TensorProto::UINT16, "ui16"},
      {TensorProto::INT16, "i16"},         {TensorProto::INT32, "i32"},
      {TensorProto::INT64, "i64"},         {TensorProto::STRING, "!onnx.string"},
      {TensorProto::BOOL, "i1"},           {TensorProto::FLOAT16, "f16"},
      {TensorProto::DOUBLE, "f64"},        {TensorProto::UINT32, "ui32"},
      {TensorProto::UINT64, "ui64"},       {TensorProto::COMPLEX64, "complex<f32>"},
      {TensorProto::COMPLEX128, "complex<f64>"},
      {TensorProto::BFLOAT16, "bf16"},
      // Types of ONNX >= 1.13, by number.
      {17, "f8E4M3FN"},                    {18, "f8E4M3FNUZ"},
      {19, "f8E5M2"},                      {20, "f8E5M2FNUZ"},
      {21, "ui4"},                         {22, "i4"},
      {23, "f4E2M1FN"},                    {24, "f8E8M0FNU"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.dataType);
    Type type = convertONNXElementType(&ctx, c.dataType);
    ASSERT_TRUE(type);
    EXPECT_EQ(typeString(type), c.mlir);
    // And back.
    EXPECT_EQ(getONNXDataType(type), c.dataType);
  }
}

TEST_F(ProtoConversionTest, UnsupportedElementTypes) {
  EXPECT_FALSE(convertONNXElementType(&ctx, TensorProto::UNDEFINED));
  EXPECT_FALSE(convertONNXElementType(&ctx, 999));
  Builder b(&ctx);
  EXPECT_EQ(getONNXDataType(b.getIndexType()), TensorProto::UNDEFINED);
  EXPECT_EQ(getONNXDataType(b.getIntegerType(32, /*isSigned=*/true)),
            TensorProto::INT32)
      << "signed integers are ONNX's signed types";
  EXPECT_EQ(getONNXDataType(b.getIntegerType(7)), TensorProto::UNDEFINED);
  EXPECT_EQ(getONNXDataType(ComplexType::get(b.getF16Type())),
            TensorProto::UNDEFINED);
}

//===----------------------------------------------------------------------===//
// TypeProto
//===----------------------------------------------------------------------===//

static onnx::TypeProto tensorTypeProto(int32_t elemType,
                                       std::vector<std::string> dims) {
  onnx::TypeProto proto;
  auto *tt = proto.mutable_tensor_type();
  tt->set_elem_type(elemType);
  auto *shape = tt->mutable_shape();
  for (const std::string &d : dims) {
    auto *dim = shape->add_dim();
    if (d.empty())
      continue; // Unknown: neither value nor param.
    if (std::isdigit(d[0]))
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
  return proto;
}

TEST_F(ProtoConversionTest, TensorTypeWithSymbolicAndUnknownDims) {
  onnx::TypeProto proto =
      tensorTypeProto(TensorProto::FLOAT, {"batch", "3", "", "0"});
  SmallVector<std::string> dimParams;
  Type type = convertTypeProto(&ctx, proto, &dimParams);
  ASSERT_TRUE(type);
  EXPECT_EQ(typeString(type), "tensor<?x3x?x0xf32>");
  ASSERT_EQ(dimParams.size(), 4u);
  EXPECT_EQ(dimParams[0], "batch");
  EXPECT_EQ(dimParams[1], "");
  EXPECT_EQ(dimParams[2], "");
  EXPECT_EQ(dimParams[3], "");

  // Back: dynamic dims have neither value nor param.
  onnx::TypeProto back;
  ASSERT_TRUE(toTypeProto(type, back));
  ASSERT_TRUE(back.has_tensor_type());
  EXPECT_EQ(back.tensor_type().elem_type(), TensorProto::FLOAT);
  const auto &shape = back.tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 4);
  EXPECT_FALSE(shape.dim(0).has_dim_value());
  EXPECT_FALSE(shape.dim(0).has_dim_param());
  EXPECT_EQ(shape.dim(1).dim_value(), 3);
  EXPECT_FALSE(shape.dim(2).has_dim_value());
  EXPECT_TRUE(shape.dim(3).has_dim_value());
  EXPECT_EQ(shape.dim(3).dim_value(), 0);
}

TEST_F(ProtoConversionTest, TensorTypeWithoutShapeIsUnranked) {
  onnx::TypeProto proto;
  proto.mutable_tensor_type()->set_elem_type(TensorProto::INT64);
  Type type = convertTypeProto(&ctx, proto);
  ASSERT_TRUE(type);
  EXPECT_EQ(typeString(type), "tensor<*xi64>");
  onnx::TypeProto back;
  ASSERT_TRUE(toTypeProto(type, back));
  EXPECT_EQ(back.tensor_type().elem_type(), TensorProto::INT64);
  EXPECT_FALSE(back.tensor_type().has_shape());

  // A scalar has a shape with no dims, which is not the same.
  proto.mutable_tensor_type()->mutable_shape();
  EXPECT_EQ(typeString(convertTypeProto(&ctx, proto)), "tensor<i64>");
}

TEST_F(ProtoConversionTest, TypeProtoWithoutEnoughInformation) {
  onnx::TypeProto empty;
  EXPECT_FALSE(convertTypeProto(&ctx, empty));
  onnx::TypeProto noElemType;
  noElemType.mutable_tensor_type();
  EXPECT_FALSE(convertTypeProto(&ctx, noElemType));
  onnx::TypeProto seqOfNothing;
  seqOfNothing.mutable_sequence_type()->mutable_elem_type();
  EXPECT_FALSE(convertTypeProto(&ctx, seqOfNothing));
  onnx::TypeProto badMapKey;
  badMapKey.mutable_map_type()->set_key_type(TensorProto::UNDEFINED);
  badMapKey.mutable_map_type()->mutable_value_type()->mutable_tensor_type()
      ->set_elem_type(TensorProto::FLOAT);
  EXPECT_FALSE(convertTypeProto(&ctx, badMapKey));
}

TEST_F(ProtoConversionTest, SequenceOptionalMapTypesRoundTrip) {
  onnx::TypeProto seq;
  *seq.mutable_sequence_type()->mutable_elem_type() =
      tensorTypeProto(TensorProto::FLOAT, {"", "4"});

  onnx::TypeProto optSeq;
  *optSeq.mutable_optional_type()->mutable_elem_type() = seq;

  // ZipMap's output: a sequence of maps with scalar (shapeless) values.
  onnx::TypeProto map;
  map.mutable_map_type()->set_key_type(TensorProto::INT64);
  map.mutable_map_type()->mutable_value_type()->mutable_tensor_type()
      ->set_elem_type(TensorProto::FLOAT);
  onnx::TypeProto seqMap;
  *seqMap.mutable_sequence_type()->mutable_elem_type() = map;

  // A map with tensor values keeps them as tensors.
  onnx::TypeProto mapOfSeq;
  mapOfSeq.mutable_map_type()->set_key_type(TensorProto::STRING);
  *mapOfSeq.mutable_map_type()->mutable_value_type() = seq;

  struct Case {
    const onnx::TypeProto *proto;
    const char *mlir;
  } cases[] = {
      {&seq, "!onnx.seq<tensor<?x4xf32>>"},
      {&optSeq, "!onnx.opt<!onnx.seq<tensor<?x4xf32>>>"},
      {&map, "!onnx.map<i64, f32>"},
      {&seqMap, "!onnx.seq<!onnx.map<i64, f32>>"},
      {&mapOfSeq, "!onnx.map<!onnx.string, !onnx.seq<tensor<?x4xf32>>>"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.mlir);
    Type type = convertTypeProto(&ctx, *c.proto);
    ASSERT_TRUE(type);
    EXPECT_EQ(typeString(type), c.mlir);
    onnx::TypeProto back;
    ASSERT_TRUE(toTypeProto(type, back));
    EXPECT_EQ(back.SerializeAsString(), c.proto->SerializeAsString())
        << back.DebugString() << "\nvs\n"
        << c.proto->DebugString();
  }
}

TEST_F(ProtoConversionTest, TypesWithoutONNXForm) {
  Builder b(&ctx);
  onnx::TypeProto proto;
  EXPECT_FALSE(toTypeProto(b.getF32Type(), proto));
  EXPECT_FALSE(toTypeProto(RankedTensorType::get({2}, b.getIndexType()), proto));
  EXPECT_FALSE(toTypeProto(MapType::get(&ctx, b.getF32Type(), b.getIndexType()),
                           proto));
}

//===----------------------------------------------------------------------===//
// TensorProto -> ElementsAttr
//===----------------------------------------------------------------------===//

static TensorProto makeTensor(int32_t dataType, std::vector<int64_t> dims,
                              const std::string &name = "t") {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(dataType);
  for (int64_t d : dims)
    t.add_dims(d);
  return t;
}

template <typename T>
static std::string rawBytes(std::initializer_list<T> values) {
  std::string raw;
  for (T v : values)
    raw.append(reinterpret_cast<const char *>(&v), sizeof(T));
  return raw;
}

TEST_F(ProtoConversionTest, RawFloatData) {
  TensorProto t = makeTensor(TensorProto::FLOAT, {2, 2});
  t.set_raw_data(rawBytes<float>({1.0f, -2.5f, 3.0f, 0.5f}));
  auto attr = dyn_cast_or_null<DenseElementsAttr>(convert(t));
  ASSERT_TRUE(attr) << error;
  EXPECT_EQ(typeString(attr.getType()), "tensor<2x2xf32>");
  auto values = llvm::to_vector(attr.getValues<float>());
  EXPECT_EQ(values, (SmallVector<float>{1.0f, -2.5f, 3.0f, 0.5f}));
}

TEST_F(ProtoConversionTest, TypedInt64AndDoubleData) {
  TensorProto i = makeTensor(TensorProto::INT64, {3});
  for (int64_t v : {int64_t(1) << 40, int64_t(-7), int64_t(0)})
    i.add_int64_data(v);
  auto ia = dyn_cast_or_null<DenseElementsAttr>(convert(i));
  ASSERT_TRUE(ia) << error;
  EXPECT_EQ(llvm::to_vector(ia.getValues<int64_t>()),
            (SmallVector<int64_t>{int64_t(1) << 40, -7, 0}));

  TensorProto d = makeTensor(TensorProto::DOUBLE, {2});
  d.add_double_data(0.25);
  d.add_double_data(-1e300);
  auto da = dyn_cast_or_null<DenseElementsAttr>(convert(d));
  ASSERT_TRUE(da) << error;
  EXPECT_EQ(llvm::to_vector(da.getValues<double>()),
            (SmallVector<double>{0.25, -1e300}));
}

TEST_F(ProtoConversionTest, NarrowIntegersComeFromInt32Data) {
  TensorProto t = makeTensor(TensorProto::INT8, {3});
  for (int v : {-128, 5, 127})
    t.add_int32_data(v);
  auto attr = dyn_cast_or_null<DenseElementsAttr>(convert(t));
  ASSERT_TRUE(attr) << error;
  EXPECT_EQ(typeString(attr.getType()), "tensor<3xi8>");
  EXPECT_EQ(llvm::to_vector(attr.getValues<int8_t>()),
            (SmallVector<int8_t>{-128, 5, 127}));

  TensorProto u = makeTensor(TensorProto::UINT16, {2});
  u.add_int32_data(65535);
  u.add_int32_data(1);
  auto ua = dyn_cast_or_null<DenseElementsAttr>(convert(u));
  ASSERT_TRUE(ua) << error;
  EXPECT_EQ(llvm::to_vector(ua.getValues<uint16_t>()),
            (SmallVector<uint16_t>{65535, 1}));
}

TEST_F(ProtoConversionTest, UInt32ComesFromUInt64Data) {
  TensorProto t = makeTensor(TensorProto::UINT32, {2});
  t.add_uint64_data(4000000000u);
  t.add_uint64_data(3);
  auto attr = dyn_cast_or_null<DenseElementsAttr>(convert(t));
  ASSERT_TRUE(attr) << error;
  EXPECT_EQ(llvm::to_vector(attr.getValues<uint32_t>()),
            (SmallVector<uint32_t>{4000000000u, 3}));
}

TEST_F(ProtoConversionTest, BoolTypedAndRaw) {
  TensorProto typed = makeTensor(TensorProto::BOOL, {4});
  for (int v : {1, 0, 0, 1})
    typed.add_int32_data(v);
  auto ta = dyn_cast_or_null<DenseElementsAttr>(convert(typed));
  ASSERT_TRUE(ta) << error;
  EXPECT_EQ(typeString(ta.getType()), "tensor<4xi1>");
  EXPECT_EQ(llvm::to_vector(ta.getValues<bool>()),
            (SmallVector<bool>{true, false, false, true}));

  TensorProto raw = makeTensor(TensorProto::BOOL, {2, 2});
  raw.set_raw_data(std::string("\x00\x01\x01\x00", 4));
  auto ra = dyn_cast_or_null<DenseElementsAttr>(convert(raw));
  ASSERT_TRUE(ra) << error;
  EXPECT_EQ(llvm::to_vector(ra.getValues<bool>()),
            (SmallVector<bool>{false, true, true, false}));

  // Back: one byte per element.
  TensorProto back;
  ASSERT_TRUE(toTensorProto(ra, back));
  EXPECT_EQ(back.data_type(), TensorProto::BOOL);
  EXPECT_EQ(back.raw_data(), std::string("\x00\x01\x01\x00", 4));
}

TEST_F(ProtoConversionTest, Float16TypedAndRaw) {
  // 1.0 = 0x3C00, -2.0 = 0xC000, 0.5 = 0x3800 in IEEE half.
  TensorProto typed = makeTensor(TensorProto::FLOAT16, {3});
  for (int bits : {0x3C00, 0xC000, 0x3800})
    typed.add_int32_data(bits);
  auto ta = dyn_cast_or_null<DenseElementsAttr>(convert(typed));
  ASSERT_TRUE(ta) << error;
  EXPECT_EQ(typeString(ta.getType()), "tensor<3xf16>");
  SmallVector<double> values;
  for (APFloat v : ta.getValues<APFloat>())
    values.push_back(v.convertToFloat());
  EXPECT_EQ(values, (SmallVector<double>{1.0, -2.0, 0.5}));

  TensorProto raw = makeTensor(TensorProto::FLOAT16, {3});
  raw.set_raw_data(rawBytes<uint16_t>({0x3C00, 0xC000, 0x3800}));
  auto ra = dyn_cast_or_null<DenseElementsAttr>(convert(raw));
  ASSERT_TRUE(ra) << error;
  EXPECT_EQ(ra, ta);

  TensorProto back;
  ASSERT_TRUE(toTensorProto(ta, back));
  EXPECT_EQ(back.data_type(), TensorProto::FLOAT16);
  EXPECT_EQ(back.raw_data(), rawBytes<uint16_t>({0x3C00, 0xC000, 0x3800}));
}

TEST_F(ProtoConversionTest, Complex64FromFloatData) {
  TensorProto t = makeTensor(TensorProto::COMPLEX64, {2});
  for (float v : {1.0f, 2.0f, -3.0f, 4.0f})
    t.add_float_data(v);
  auto attr = dyn_cast_or_null<DenseElementsAttr>(convert(t));
  ASSERT_TRUE(attr) << error;
  EXPECT_EQ(typeString(attr.getType()), "tensor<2xcomplex<f32>>");
  auto values = llvm::to_vector(attr.getValues<std::complex<float>>());
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], std::complex<float>(1.0f, 2.0f));
  EXPECT_EQ(values[1], std::complex<float>(-3.0f, 4.0f));
}

TEST_F(ProtoConversionTest, StringTensorRoundTrip) {
  TensorProto t = makeTensor(TensorProto::STRING, {3});
  for (const char *s : {"a", "", "hello world"})
    t.add_string_data(s);
  auto attr = dyn_cast_or_null<DenseStringElementsAttr>(convert(t));
  ASSERT_TRUE(attr) << error;
  EXPECT_EQ(typeString(attr.getType()), "tensor<3x!onnx.string>");
  auto values = llvm::to_vector(attr.getValues<StringRef>());
  EXPECT_EQ(values, (SmallVector<StringRef>{"a", "", "hello world"}));

  TensorProto back;
  ASSERT_TRUE(toTensorProto(attr, back));
  EXPECT_EQ(back.data_type(), TensorProto::STRING);
  ASSERT_EQ(back.string_data_size(), 3);
  EXPECT_EQ(back.string_data(2), "hello world");
  EXPECT_FALSE(back.has_raw_data());
}

TEST_F(ProtoConversionTest, SplatStringTensorBackToProto) {
  auto type = RankedTensorType::get({3}, StringType::get(&ctx));
  auto splat = DenseStringElementsAttr::get(type, {StringRef("x")});
  ASSERT_TRUE(splat.isSplat());
  TensorProto back;
  ASSERT_TRUE(toTensorProto(splat, back));
  ASSERT_EQ(back.string_data_size(), 3);
  EXPECT_EQ(back.string_data(1), "x");
}

TEST_F(ProtoConversionTest, SplatBackToProtoExpandsToEveryElement) {
  Builder b(&ctx);
  auto type = RankedTensorType::get({2, 3}, b.getI32Type());
  auto splat = DenseElementsAttr::get(type, b.getI32IntegerAttr(7).getValue());
  ASSERT_TRUE(splat.isSplat());
  TensorProto back;
  ASSERT_TRUE(toTensorProto(splat, back));
  EXPECT_EQ(back.data_type(), TensorProto::INT32);
  EXPECT_EQ(SmallVector<int64_t>(back.dims().begin(), back.dims().end()),
            (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(back.raw_data(), rawBytes<int32_t>({7, 7, 7, 7, 7, 7}));
}

TEST_F(ProtoConversionTest, RawRoundTripOfEveryNumericType) {
  for (int32_t dt :
       {TensorProto::FLOAT, TensorProto::UINT8, TensorProto::INT8,
        TensorProto::UINT16, TensorProto::INT16, TensorProto::INT32,
        TensorProto::INT64, TensorProto::FLOAT16, TensorProto::DOUBLE,
        TensorProto::UINT32, TensorProto::UINT64, TensorProto::COMPLEX64,
        TensorProto::COMPLEX128, TensorProto::BFLOAT16}) {
    SCOPED_TRACE(dt);
    Type elem = convertONNXElementType(&ctx, dt);
    size_t width = isa<ComplexType>(elem)
                       ? 2 * cast<ComplexType>(elem)
                                 .getElementType()
                                 .getIntOrFloatBitWidth() /
                             8
                       : elem.getIntOrFloatBitWidth() / 8;
    std::string raw;
    for (size_t i = 0; i < 3 * width; ++i)
      raw.push_back(char(i * 7 + 1)); // Distinct bytes, not a splat.
    TensorProto t = makeTensor(dt, {3});
    t.set_raw_data(raw);
    ElementsAttr attr = convert(t);
    ASSERT_TRUE(attr) << error;
    TensorProto back;
    ASSERT_TRUE(toTensorProto(attr, back));
    EXPECT_EQ(back.data_type(), dt);
    EXPECT_EQ(back.raw_data(), raw);
  }
}

TEST_F(ProtoConversionTest, EmptyAndScalarTensors) {
  TensorProto empty = makeTensor(TensorProto::FLOAT, {0, 3});
  auto ea = dyn_cast_or_null<DenseElementsAttr>(convert(empty));
  ASSERT_TRUE(ea) << error;
  EXPECT_EQ(typeString(ea.getType()), "tensor<0x3xf32>");
  EXPECT_EQ(ea.getNumElements(), 0);

  TensorProto scalar = makeTensor(TensorProto::INT64, {});
  scalar.add_int64_data(42);
  auto sa = dyn_cast_or_null<DenseElementsAttr>(convert(scalar));
  ASSERT_TRUE(sa) << error;
  EXPECT_EQ(typeString(sa.getType()), "tensor<i64>");
  EXPECT_EQ(*sa.getValues<int64_t>().begin(), 42);
}

TEST_F(ProtoConversionTest, LargeTensorsBecomeResources) {
  TensorProto t = makeTensor(TensorProto::FLOAT, {4}, "weights");
  t.set_raw_data(rawBytes<float>({1, 2, 3, 4}));
  ElementsAttr inline_ = convert(t, /*threshold=*/17);
  ASSERT_TRUE(inline_) << error;
  EXPECT_TRUE(isa<DenseElementsAttr>(inline_));

  ElementsAttr resource = convert(t, /*threshold=*/16);
  ASSERT_TRUE(resource) << error;
  auto blobAttr = dyn_cast<DenseResourceElementsAttr>(resource);
  ASSERT_TRUE(blobAttr);
  EXPECT_EQ(blobAttr.getRawHandle().getKey().str().find("weights"), 0u);
  AsmResourceBlob *blob = blobAttr.getRawHandle().getBlob();
  ASSERT_TRUE(blob);
  EXPECT_EQ(std::string(blob->getData().data(), blob->getData().size()),
            rawBytes<float>({1, 2, 3, 4}));

  // And back: the blob's bytes become raw_data.
  TensorProto back;
  ASSERT_TRUE(toTensorProto(resource, back));
  EXPECT_EQ(back.raw_data(), rawBytes<float>({1, 2, 3, 4}));
}

TEST_F(ProtoConversionTest, MalformedTensors) {
  TensorProto shortRaw = makeTensor(TensorProto::FLOAT, {4}, "short");
  shortRaw.set_raw_data(rawBytes<float>({1, 2, 3}));
  EXPECT_FALSE(convert(shortRaw));
  EXPECT_EQ(error,
            "tensor 'short' has 12 bytes of raw data, expected 16");

  TensorProto fewValues = makeTensor(TensorProto::INT64, {3}, "few");
  fewValues.add_int64_data(1);
  EXPECT_FALSE(convert(fewValues));
  EXPECT_EQ(error, "tensor 'few': tensor has 1 values for 3 elements");

  TensorProto strings = makeTensor(TensorProto::STRING, {2}, "s");
  strings.add_string_data("only one");
  EXPECT_FALSE(convert(strings));
  EXPECT_EQ(error, "string tensor 's' has 1 values for 2 elements");

  TensorProto negative = makeTensor(TensorProto::FLOAT, {-1}, "neg");
  EXPECT_FALSE(convert(negative));
  EXPECT_EQ(error, "tensor 'neg' has a negative dimension");

  TensorProto unknown = makeTensor(999, {1}, "u");
  EXPECT_FALSE(convert(unknown));
  EXPECT_EQ(error, "tensor 'u' has unsupported data type 999");

  TensorProto huge = makeTensor(TensorProto::FLOAT,
                                {int64_t(1) << 30, int64_t(1) << 30}, "huge");
  EXPECT_FALSE(convert(huge));
  EXPECT_EQ(error, "tensor 'huge' is too large");
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

class ExternalDataTest : public ProtoConversionTest {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("onnxc-extdata", dir));
    SmallString<128> data(dir);
    llvm::sys::path::append(data, "weights.bin");
    std::error_code ec;
    llvm::raw_fd_ostream os(data, ec);
    ASSERT_FALSE(ec);
    os << "PAD!" << rawBytes<float>({1.5f, 2.5f, 3.5f});
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  ElementsAttr convertExternal(StringRef location, StringRef offset,
                               StringRef length) {
    TensorProto t = makeTensor(TensorProto::FLOAT, {3}, "w");
    t.set_data_location(TensorProto::EXTERNAL);
    auto add = [&](const char *key, StringRef value) {
      if (value.empty())
        return;
      auto *entry = t.add_external_data();
      entry->set_key(key);
      entry->set_value(value.str());
    };
    add("location", location);
    add("offset", offset);
    add("length", length);
    TensorDataOptions options;
    options.baseDir = std::string(dir);
    options.resourceThreshold = SIZE_MAX;
    error.clear();
    return convertTensorProto(&ctx, t, options, error);
  }

  SmallString<128> dir;
};

TEST_F(ExternalDataTest, ReadsRangeRelativeToModel) {
  auto attr = dyn_cast_or_null<DenseElementsAttr>(
      convertExternal("weights.bin", "4", "12"));
  ASSERT_TRUE(attr) << error;
  EXPECT_EQ(llvm::to_vector(attr.getValues<float>()),
            (SmallVector<float>{1.5f, 2.5f, 3.5f}));
  // Without a length, the tensor's size is read.
  EXPECT_TRUE(convertExternal("weights.bin", "4", "")) << error;
}

TEST_F(ExternalDataTest, RefusesPathsLeavingTheModelFolder) {
  EXPECT_FALSE(convertExternal("/etc/passwd", "", ""));
  EXPECT_EQ(error, "tensor 'w': external data location '/etc/passwd' must be "
                   "a path relative to the model's folder");
  EXPECT_FALSE(convertExternal("../weights.bin", "", ""));
  EXPECT_EQ(error, "tensor 'w': external data location '../weights.bin' "
                   "leaves the model's folder");
  EXPECT_FALSE(convertExternal("sub/../../weights.bin", "", ""));
  EXPECT_NE(error.find("leaves the model's folder"), std::string::npos);
  EXPECT_FALSE(convertExternal("", "", ""));
  EXPECT_NE(error.find("must be a path relative"), std::string::npos);
}

TEST_F(ExternalDataTest, RefusesSymlinkOutOfTheModelFolder) {
  // A file outside the folder, reached through a link inside it.
  SmallString<128> outside;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("onnxc-outside", "bin", outside));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(outside, ec);
    ASSERT_FALSE(ec);
    os << rawBytes<float>({1, 2, 3});
  }
  SmallString<128> link(dir);
  llvm::sys::path::append(link, "escape.bin");
  ASSERT_FALSE(llvm::sys::fs::create_link(outside, link));
  EXPECT_FALSE(convertExternal("escape.bin", "", ""));
  EXPECT_EQ(error, "tensor 'w': external data location 'escape.bin' resolves "
                   "outside the model's folder");
  llvm::sys::fs::remove(outside);
}

TEST_F(ExternalDataTest, MissingOrShortData) {
  EXPECT_FALSE(convertExternal("missing.bin", "", ""));
  EXPECT_NE(error.find("external data file '"), std::string::npos) << error;
  EXPECT_NE(error.find("missing.bin' not found"), std::string::npos) << error;

  // 16 bytes in the file: 12 from offset 8 run past its end.
  EXPECT_FALSE(convertExternal("weights.bin", "8", "12"));
  EXPECT_NE(error.find("external data range [8, 20) is outside"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("of 16 bytes"), std::string::npos) << error;

  EXPECT_FALSE(convertExternal("weights.bin", "0", "8"));
  EXPECT_EQ(error, "tensor 'w': external data length 8 does not match the "
                   "tensor's 12 bytes");

  EXPECT_FALSE(convertExternal("weights.bin", "four", ""));
  EXPECT_EQ(error, "tensor 'w': external data offset 'four' is not a number");
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

TEST_F(ProtoConversionTest, AttributesToProto) {
  using onnx::AttributeProto;
  Builder b(&ctx);
  AttributeProto proto;
  ASSERT_TRUE(toAttributeProto("alpha", b.getF32FloatAttr(0.5f),
                               AttributeProto::FLOAT, proto));
  EXPECT_EQ(proto.name(), "alpha");
  EXPECT_EQ(proto.type(), AttributeProto::FLOAT);
  EXPECT_EQ(proto.f(), 0.5f);

  proto.Clear();
  ASSERT_TRUE(toAttributeProto("perm", b.getI64ArrayAttr({2, 0, 1}),
                               AttributeProto::INTS, proto));
  EXPECT_EQ(SmallVector<int64_t>(proto.ints().begin(), proto.ints().end()),
            (SmallVector<int64_t>{2, 0, 1}));

  proto.Clear();
  ASSERT_TRUE(toAttributeProto("mode", b.getStringAttr("linear"),
                               AttributeProto::STRING, proto));
  EXPECT_EQ(proto.s(), "linear");

  proto.Clear();
  ASSERT_TRUE(toAttributeProto("acts", b.getStrArrayAttr({"Relu", "Tanh"}),
                               AttributeProto::STRINGS, proto));
  ASSERT_EQ(proto.strings_size(), 2);
  EXPECT_EQ(proto.strings(1), "Tanh");

  proto.Clear();
  auto tensor = DenseElementsAttr::get(
      RankedTensorType::get({2}, b.getI64Type()), ArrayRef<int64_t>{3, 4});
  ASSERT_TRUE(
      toAttributeProto("value", tensor, AttributeProto::TENSOR, proto));
  EXPECT_EQ(proto.t().data_type(), TensorProto::INT64);
  EXPECT_EQ(proto.t().raw_data(), rawBytes<int64_t>({3, 4}));

  proto.Clear();
  ASSERT_TRUE(toAttributeProto(
      "type", TypeAttr::get(RankedTensorType::get({2}, b.getF32Type())),
      AttributeProto::TYPE_PROTO, proto));
  EXPECT_EQ(proto.tp().tensor_type().elem_type(), TensorProto::FLOAT);

  // Kinds that do not match the ONNX attribute type are refused.
  proto.Clear();
  EXPECT_FALSE(toAttributeProto("perm", b.getF32ArrayAttr({1.0f}),
                                AttributeProto::INTS, proto));
  EXPECT_FALSE(toAttributeProto("alpha", b.getStringAttr("x"),
                                AttributeProto::FLOAT, proto));
  EXPECT_FALSE(toAttributeProto("g", b.getUnitAttr(), AttributeProto::GRAPH,
                                proto));
}

} // namespace
