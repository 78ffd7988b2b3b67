//===- ProtoConversion.cpp - ONNX protobuf <-> MLIR types/attrs -----------===//

#include "onnxc/Support/ProtoConversion.h"

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using namespace mlir::onnxc;
using onnx::TensorProto;

Type mlir::onnxc::convertONNXElementType(MLIRContext *ctx, int32_t dataType) {
  Builder b(ctx);
  auto uint = [&](unsigned w) {
    return IntegerType::get(ctx, w, IntegerType::Unsigned);
  };
  switch (dataType) {
  case TensorProto::FLOAT:
    return b.getF32Type();
  case TensorProto::UINT8:
    return uint(8);
  case TensorProto::INT8:
    return b.getIntegerType(8);
  case TensorProto::UINT16:
    return uint(16);
  case TensorProto::INT16:
    return b.getIntegerType(16);
  case TensorProto::INT32:
    return b.getIntegerType(32);
  case TensorProto::INT64:
    return b.getIntegerType(64);
  case TensorProto::STRING:
    return StringType::get(ctx);
  case TensorProto::BOOL:
    return b.getI1Type();
  case TensorProto::FLOAT16:
    return b.getF16Type();
  case TensorProto::DOUBLE:
    return b.getF64Type();
  case TensorProto::UINT32:
    return uint(32);
  case TensorProto::UINT64:
    return uint(64);
  case TensorProto::COMPLEX64:
    return ComplexType::get(b.getF32Type());
  case TensorProto::COMPLEX128:
    return ComplexType::get(b.getF64Type());
  case TensorProto::BFLOAT16:
    return b.getBF16Type();
  // Types of ONNX >= 1.13, numbered as in its onnx.proto.
  case 17:
    return Float8E4M3FNType::get(ctx);
  case 18:
    return Float8E4M3FNUZType::get(ctx);
  case 19:
    return Float8E5M2Type::get(ctx);
  case 20:
    return Float8E5M2FNUZType::get(ctx);
  case 21:
    return uint(4);
  case 22:
    return b.getIntegerType(4);
  case 23:
    return Float4E2M1FNType::get(ctx);
  case 24:
    return Float8E8M0FNUType::get(ctx);
  case 25:
    return uint(2);
  case 26:
    return b.getIntegerType(2);
  default:
    return nullptr;
  }
}

int32_t mlir::onnxc::getONNXDataType(Type t) {
  if (t.isF32())
    return TensorProto::FLOAT;
  if (t.isF64())
    return TensorProto::DOUBLE;
  if (t.isF16())
    return TensorProto::FLOAT16;
  if (t.isBF16())
    return TensorProto::BFLOAT16;
  if (isa<StringType>(t))
    return TensorProto::STRING;
  if (auto c = dyn_cast<ComplexType>(t)) {
    if (c.getElementType().isF32())
      return TensorProto::COMPLEX64;
    if (c.getElementType().isF64())
      return TensorProto::COMPLEX128;
    return TensorProto::UNDEFINED;
  }
  if (isa<Float8E4M3FNType>(t))
    return 17;
  if (isa<Float8E4M3FNUZType>(t))
    return 18;
  if (isa<Float8E5M2Type>(t))
    return 19;
  if (isa<Float8E5M2FNUZType>(t))
    return 20;
  if (isa<Float4E2M1FNType>(t))
    return 23;
  if (isa<Float8E8M0FNUType>(t))
    return 24;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 1:
      return TensorProto::BOOL;
    case 2:
      return u ? 25 : 26;
    case 4:
      return u ? 21 : 22;
    case 8:
      return u ? TensorProto::UINT8 : TensorProto::INT8;
    case 16:
      return u ? TensorProto::UINT16 : TensorProto::INT16;
    case 32:
      return u ? TensorProto::UINT32 : TensorProto::INT32;
    case 64:
      return u ? TensorProto::UINT64 : TensorProto::INT64;
    }
  }
  return TensorProto::UNDEFINED;
}

Type mlir::onnxc::convertTypeProto(MLIRContext *ctx,
                                   const onnx::TypeProto &type,
                                   SmallVectorImpl<std::string> *dimParams) {
  switch (type.value_case()) {
  case onnx::TypeProto::kTensorType: {
    const auto &tt = type.tensor_type();
    Type elem = convertONNXElementType(ctx, tt.elem_type());
    if (!elem)
      return nullptr;
    if (!tt.has_shape())
      return UnrankedTensorType::get(elem);
    SmallVector<int64_t> shape;
    for (const auto &dim : tt.shape().dim()) {
      if (dim.has_dim_value() && dim.dim_value() >= 0)
        shape.push_back(dim.dim_value());
      else
        shape.push_back(ShapedType::kDynamic);
      if (dimParams)
        dimParams->push_back(dim.has_dim_param() ? dim.dim_param() : "");
    }
    return RankedTensorType::get(shape, elem);
  }
  case onnx::TypeProto::kSequenceType: {
    Type elem = convertTypeProto(ctx, type.sequence_type().elem_type());
    return elem ? SeqType::get(ctx, elem) : nullptr;
  }
  case onnx::TypeProto::kOptionalType: {
    Type elem = convertTypeProto(ctx, type.optional_type().elem_type());
    return elem ? OptType::get(ctx, elem) : nullptr;
  }
  case onnx::TypeProto::kMapType: {
    Type key = convertONNXElementType(ctx, type.map_type().key_type());
    const onnx::TypeProto &vt = type.map_type().value_type();
    // A map's scalar values are tensors without a shape in the proto.
    Type value = vt.has_tensor_type() && !vt.tensor_type().has_shape()
                     ? convertONNXElementType(ctx, vt.tensor_type().elem_type())
                     : convertTypeProto(ctx, vt);
    return key && value ? MapType::get(ctx, key, value) : nullptr;
  }
  default:
    return nullptr;
  }
}

bool mlir::onnxc::toTypeProto(Type type, onnx::TypeProto &proto) {
  if (auto tensor = dyn_cast<TensorType>(type)) {
    int32_t dt = getONNXDataType(tensor.getElementType());
    if (dt == TensorProto::UNDEFINED)
      return false;
    auto *tt = proto.mutable_tensor_type();
    tt->set_elem_type(dt);
    if (auto ranked = dyn_cast<RankedTensorType>(type)) {
      auto *shape = tt->mutable_shape();
      for (int64_t d : ranked.getShape()) {
        auto *dim = shape->add_dim();
        if (!ShapedType::isDynamic(d))
          dim->set_dim_value(d);
      }
    }
    return true;
  }
  if (auto seq = dyn_cast<SeqType>(type))
    return toTypeProto(seq.getElementType(),
                       *proto.mutable_sequence_type()->mutable_elem_type());
  if (auto opt = dyn_cast<OptType>(type))
    return toTypeProto(opt.getElementType(),
                       *proto.mutable_optional_type()->mutable_elem_type());
  if (auto map = dyn_cast<MapType>(type)) {
    int32_t kt = getONNXDataType(map.getKeyType());
    if (kt == TensorProto::UNDEFINED)
      return false;
    proto.mutable_map_type()->set_key_type(kt);
    auto *vt = proto.mutable_map_type()->mutable_value_type();
    if (isa<TensorType, SeqType, OptType, MapType>(map.getValueType()))
      return toTypeProto(map.getValueType(), *vt);
    int32_t dt = getONNXDataType(map.getValueType());
    vt->mutable_tensor_type()->set_elem_type(dt);
    return dt != TensorProto::UNDEFINED;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

static size_t getByteWidth(Type elem) {
  if (elem.isInteger(1))
    return 1;
  if (auto c = dyn_cast<ComplexType>(elem))
    return 2 * getByteWidth(c.getElementType());
  return (elem.getIntOrFloatBitWidth() + 7) / 8;
}

/// Bits per element of the element types ONNX packs several to a byte
/// (int4, uint4, float4e2m1: 4; int2, uint2: 2), 0 for the others.
static unsigned getPackedBits(Type elem) {
  if (isa<Float4E2M1FNType>(elem))
    return 4;
  if (auto i = dyn_cast<IntegerType>(elem))
    if (i.getWidth() == 4 || i.getWidth() == 2)
      return i.getWidth();
  return 0;
}

/// The elements of `type` from ONNX's packed bytes: element i in bits
/// [i * bits, (i + 1) * bits) of the byte string, counted from the lowest.
static ElementsAttr unpackElements(RankedTensorType type, ArrayRef<char> data,
                                   unsigned bits) {
  int64_t n = type.getNumElements();
  unsigned perByte = 8 / bits;
  auto element = [&](int64_t i) {
    auto byte = static_cast<uint8_t>(data[i / perByte]);
    return APInt(bits, (byte >> ((i % perByte) * bits)) & ((1u << bits) - 1));
  };
  if (auto f = dyn_cast<FloatType>(type.getElementType())) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i)
      values.emplace_back(f.getFloatSemantics(), element(i));
    return DenseElementsAttr::get(type, values);
  }
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(element(i));
  return DenseElementsAttr::get(type, values);
}

/// Appends `values` to `out` as little-endian bytes of `width` each.
template <typename T>
static void appendAs(std::string &out, const T &values, size_t width) {
  for (auto v : values) {
    uint64_t bits;
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, float>) {
      uint32_t b32;
      std::memcpy(&b32, &v, 4);
      bits = b32;
    } else if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) {
      std::memcpy(&bits, &v, 8);
    } else {
      bits = static_cast<uint64_t>(v);
    }
    out.append(reinterpret_cast<const char *>(&bits), width);
  }
}

namespace {
/// Bytes of a tensor and who owns them.
struct TensorBytes {
  ArrayRef<char> data;
  // Exactly one owner is set, or none when `data` points into `owned`.
  std::unique_ptr<std::string> ownedString;
  std::unique_ptr<llvm::MemoryBuffer> mapped;
};
} // namespace

/// Resolves `location` against `baseDir`, refusing anything that leaves it.
static bool resolveExternalPath(StringRef baseDir, StringRef location,
                                std::string &path, std::string &error) {
  if (location.empty() || llvm::sys::path::is_absolute(location)) {
    error = "external data location '" + location.str() +
            "' must be a path relative to the model's folder";
    return false;
  }
  for (auto it = llvm::sys::path::begin(location),
            e = llvm::sys::path::end(location);
       it != e; ++it)
    if (*it == "..") {
      error = "external data location '" + location.str() +
              "' leaves the model's folder";
      return false;
    }
  SmallString<256> joined(baseDir.empty() ? "." : baseDir);
  llvm::sys::path::append(joined, location);
  SmallString<256> realFile, realBase;
  if (llvm::sys::fs::real_path(joined, realFile)) {
    error = "external data file '" + std::string(joined) + "' not found";
    return false;
  }
  if (llvm::sys::fs::real_path(baseDir.empty() ? "." : baseDir, realBase)) {
    error = "cannot resolve the model's folder '" + baseDir.str() + "'";
    return false;
  }
  realBase.push_back('/');
  if (!StringRef(realFile).starts_with(realBase)) {
    error = "external data location '" + location.str() +
            "' resolves outside the model's folder";
    return false;
  }
  path = std::string(realFile);
  return true;
}

static bool readExternalData(const TensorProto &tensor,
                             const TensorDataOptions &options, size_t expected,
                             TensorBytes &bytes, std::string &error) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto &entry : tensor.external_data()) {
    uint64_t value = 0;
    if (entry.key() == "location") {
      location = entry.value();
      continue;
    }
    if (entry.key() != "offset" && entry.key() != "length")
      continue;
    if (StringRef(entry.value()).getAsInteger(10, value)) {
      error = "external data " + entry.key() + " '" + entry.value() +
              "' is not a number";
      return false;
    }
    if (entry.key() == "offset")
      offset = value;
    else
      length = value;
  }
  std::string path;
  if (!resolveExternalPath(options.baseDir, location, path, error))
    return false;
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(path, fileSize)) {
    error = "cannot read external data file '" + path + "'";
    return false;
  }
  uint64_t size = length.value_or(expected);
  if (size != expected) {
    error = "external data length " + std::to_string(size) +
            " does not match the tensor's " + std::to_string(expected) +
            " bytes";
    return false;
  }
  if (offset > fileSize || size > fileSize - offset) {
    error = "external data range [" + std::to_string(offset) + ", " +
            std::to_string(offset + size) + ") is outside '" + path +
            "' of " + std::to_string(fileSize) + " bytes";
    return false;
  }
  if (size == 0)
    return true;
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, size, offset,
                                                 /*IsVolatile=*/false);
  if (!buffer) {
    error = "cannot map external data file '" + path +
            "': " + buffer.getError().message();
    return false;
  }
  bytes.mapped = std::move(*buffer);
  bytes.data = ArrayRef<char>(bytes.mapped->getBufferStart(), size);
  return true;
}

/// Collects the typed repeated fields of `tensor` as raw little-endian bytes.
static bool readTypedFields(const TensorProto &t, Type elem, int64_t n,
                            std::string &out, std::string &error) {
  size_t width = getByteWidth(elem);
  int64_t count = 0;
  switch (t.data_type()) {
  case TensorProto::FLOAT:
  case TensorProto::COMPLEX64:
    appendAs(out, t.float_data(), 4);
    count = t.float_data_size();
    break;
  case TensorProto::DOUBLE:
  case TensorProto::COMPLEX128:
    appendAs(out, t.double_data(), 8);
    count = t.double_data_size();
    break;
  case TensorProto::INT64:
    appendAs(out, t.int64_data(), 8);
    count = t.int64_data_size();
    break;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    appendAs(out, t.uint64_data(), width);
    count = t.uint64_data_size();
    break;
  default:
    appendAs(out, t.int32_data(), width);
    count = t.int32_data_size();
    break;
  }
  if (isa<ComplexType>(elem))
    count /= 2;
  if (count != n) {
    error = "tensor has " + std::to_string(count) + " values for " +
            std::to_string(n) + " elements";
    return false;
  }
  return true;
}

ElementsAttr mlir::onnxc::convertTensorProto(MLIRContext *ctx,
                                             TensorProto &tensor,
                                             const TensorDataOptions &options,
                                             std::string &error) {
  Type elem = convertONNXElementType(ctx, tensor.data_type());
  if (!elem) {
    error = "tensor '" + tensor.name() + "' has unsupported data type " +
            std::to_string(tensor.data_type());
    return nullptr;
  }
  SmallVector<int64_t> shape;
  int64_t n = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0) {
      error = "tensor '" + tensor.name() + "' has a negative dimension";
      return nullptr;
    }
    shape.push_back(d);
    if (d != 0 && n > (int64_t(1) << 40) / d) {
      error = "tensor '" + tensor.name() + "' is too large";
      return nullptr;
    }
    n *= d;
  }
  auto type = RankedTensorType::get(shape, elem);

  if (isa<StringType>(elem)) {
    if (tensor.string_data_size() != n) {
      error = "string tensor '" + tensor.name() + "' has " +
              std::to_string(tensor.string_data_size()) + " values for " +
              std::to_string(n) + " elements";
      return nullptr;
    }
    SmallVector<StringRef> values(tensor.string_data().begin(),
                                  tensor.string_data().end());
    return DenseStringElementsAttr::get(type, values);
  }
  unsigned packedBits = getPackedBits(elem);
  size_t width = getByteWidth(elem);
  size_t expected = packedBits ? (n * packedBits + 7) / 8 : width * n;
  TensorBytes bytes;
  std::string typed;
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    if (!readExternalData(tensor, options, expected, bytes, error)) {
      error = "tensor '" + tensor.name() + "': " + error;
      return nullptr;
    }
  } else if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != expected) {
      error = "tensor '" + tensor.name() + "' has " +
              std::to_string(tensor.raw_data().size()) +
              " bytes of raw data, expected " + std::to_string(expected);
      return nullptr;
    }
    bytes.ownedString.reset(tensor.release_raw_data());
    bytes.data = ArrayRef<char>(bytes.ownedString->data(), expected);
  } else if (packedBits) {
    // int32_data holds the packed bytes, one per entry.
    if (tensor.int32_data_size() != int64_t(expected)) {
      error = "tensor '" + tensor.name() + "' has " +
              std::to_string(tensor.int32_data_size()) +
              " packed values in int32_data, expected " +
              std::to_string(expected);
      return nullptr;
    }
    appendAs(typed, tensor.int32_data(), 1);
    bytes.data = ArrayRef<char>(typed.data(), typed.size());
  } else {
    if (!readTypedFields(tensor, elem, n, typed, error)) {
      error = "tensor '" + tensor.name() + "': " + error;
      return nullptr;
    }
    bytes.data = ArrayRef<char>(typed.data(), typed.size());
  }

  if (n == 0)
    return DenseElementsAttr::get(type, ArrayRef<Attribute>());
  if (packedBits)
    return unpackElements(type, bytes.data, packedBits);
  if (elem.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes.data)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  size_t align = std::min<size_t>(llvm::PowerOf2Ceil(width), 16);
  if (bytes.data.size() >= options.resourceThreshold) {
    bool aligned =
        reinterpret_cast<uintptr_t>(bytes.data.data()) % align == 0;
    AsmResourceBlob blob;
    if (aligned && bytes.ownedString) {
      std::string *owner = bytes.ownedString.release();
      blob = AsmResourceBlob(
          bytes.data, align,
          [owner](void *, size_t, size_t) { delete owner; },
          /*dataIsMutable=*/false);
    } else if (aligned && bytes.mapped) {
      llvm::MemoryBuffer *owner = bytes.mapped.release();
      blob = AsmResourceBlob(
          bytes.data, align,
          [owner](void *, size_t, size_t) { delete owner; },
          /*dataIsMutable=*/false);
    } else {
      blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes.data, align);
    }
    std::string name = tensor.name().empty() ? "tensor" : tensor.name();
    return DenseResourceElementsAttr::get(type, name, std::move(blob));
  }
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, bytes.data, detectedSplat)) {
    error = "tensor '" + tensor.name() + "' has malformed data";
    return nullptr;
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes.data);
}

bool mlir::onnxc::toTensorProto(ElementsAttr attr, TensorProto &proto) {
  ShapedType type = attr.getShapedType();
  Type elem = type.getElementType();
  int32_t dt = getONNXDataType(elem);
  if (dt == TensorProto::UNDEFINED || !type.hasStaticShape())
    return false;
  proto.set_data_type(dt);
  for (int64_t d : type.getShape())
    proto.add_dims(d);
  int64_t n = type.getNumElements();
  if (auto strings = dyn_cast<DenseStringElementsAttr>(attr)) {
    for (StringRef s : strings.getRawStringData())
      proto.add_string_data(s.str());
    if (strings.isSplat())
      for (int64_t i = 1; i < n; ++i)
        proto.add_string_data(proto.string_data(0));
    return true;
  }
  if (getPackedBits(elem))
    return false; // Not needed yet: nothing exports sub-byte constants.
  size_t width = getByteWidth(elem);
  std::string raw;
  raw.reserve(width * n);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (elem.isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        raw.push_back(b ? 1 : 0);
    } else {
      ArrayRef<char> data = dense.getRawData();
      if (dense.isSplat())
        for (int64_t i = 0; i < n; ++i)
          raw.append(data.data(), width);
      else
        raw.assign(data.data(), data.size());
    }
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return false;
    ArrayRef<char> data = blob->getData();
    raw.assign(data.data(), data.size());
  } else {
    return false;
  }
  if (raw.size() != width * n)
    return false;
  proto.set_raw_data(std::move(raw));
  return true;
}

bool mlir::onnxc::toAttributeProto(StringRef name, Attribute attr,
                                   int attrType, onnx::AttributeProto &proto) {
  using onnx::AttributeProto;
  proto.set_name(name.str());
  proto.set_type(static_cast<AttributeProto::AttributeType>(attrType));
  switch (attrType) {
  case AttributeProto::FLOAT:
    if (auto f = dyn_cast<FloatAttr>(attr))
      return proto.set_f(f.getValueAsDouble()), true;
    return false;
  case AttributeProto::INT:
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return proto.set_i(i.getValue().getSExtValue()), true;
    return false;
  case AttributeProto::STRING:
    if (auto s = dyn_cast<StringAttr>(attr))
      return proto.set_s(s.str()), true;
    return false;
  case AttributeProto::TENSOR:
    if (auto e = dyn_cast<ElementsAttr>(attr))
      return toTensorProto(e, *proto.mutable_t());
    return false;
  case AttributeProto::TYPE_PROTO:
    if (auto t = dyn_cast<TypeAttr>(attr))
      return toTypeProto(t.getValue(), *proto.mutable_tp());
    return false;
  case AttributeProto::FLOATS:
  case AttributeProto::INTS:
  case AttributeProto::STRINGS:
  case AttributeProto::TENSORS: {
    auto array = dyn_cast<ArrayAttr>(attr);
    if (!array)
      return false;
    for (Attribute e : array) {
      if (auto f = dyn_cast<FloatAttr>(e); f && attrType == AttributeProto::FLOATS)
        proto.add_floats(f.getValueAsDouble());
      else if (auto i = dyn_cast<IntegerAttr>(e); i && attrType == AttributeProto::INTS)
        proto.add_ints(i.getValue().getSExtValue());
      else if (auto s = dyn_cast<StringAttr>(e); s && attrType == AttributeProto::STRINGS)
        proto.add_strings(s.str());
      else if (auto t = dyn_cast<ElementsAttr>(e); t && attrType == AttributeProto::TENSORS) {
        if (!toTensorProto(t, *proto.add_tensors()))
          return false;
      } else
        return false;
    }
    return true;
  }
  default:
    return false;
  }
}
