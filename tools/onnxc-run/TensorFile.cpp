//===- TensorFile.cpp - .npy and TensorProto files for onnxc-run ----------===//

#include "TensorFile.h"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace onnxc::runner {

bool readFile(const std::string &path, std::string &contents,
              std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open file: " + std::strerror(errno);
    return false;
  }
  contents.assign(std::istreambuf_iterator<char>(in),
                  std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = path + ": read error";
    return false;
  }
  return true;
}

static bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &name, std::string &error) {
  name.clear();
  if (endsWith(path, ".npy"))
    return readNpy(path, tensor, error);
  return readTensorProto(path, tensor, name, error);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {
/// The Python dict literal of an .npy header, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class NpyHeader {
public:
  explicit NpyHeader(const std::string &text) : text(text) {}

  /// The text after `'key':`, with leading blanks skipped, or npos.
  size_t valueOf(const std::string &key) const {
    for (const char *quote : {"'", "\""}) {
      size_t k = text.find(quote + key + quote);
      if (k == std::string::npos)
        continue;
      size_t colon = text.find(':', k);
      if (colon == std::string::npos)
        return colon;
      size_t v = colon + 1;
      while (v < text.size() && std::isspace((unsigned char)text[v]))
        ++v;
      return v;
    }
    return std::string::npos;
  }

  bool stringValue(const std::string &key, std::string &value) const {
    size_t v = valueOf(key);
    if (v == std::string::npos || v >= text.size() ||
        (text[v] != '\'' && text[v] != '"'))
      return false;
    size_t end = text.find(text[v], v + 1);
    if (end == std::string::npos)
      return false;
    value = text.substr(v + 1, end - v - 1);
    return true;
  }

  bool boolValue(const std::string &key, bool &value) const {
    size_t v = valueOf(key);
    if (v == std::string::npos)
      return false;
    if (text.compare(v, 4, "True") == 0)
      value = true;
    else if (text.compare(v, 5, "False") == 0)
      value = false;
    else
      return false;
    return true;
  }

  bool tupleValue(const std::string &key, std::vector<int64_t> &dims) const {
    size_t v = valueOf(key);
    if (v == std::string::npos || v >= text.size() || text[v] != '(')
      return false;
    size_t end = text.find(')', v);
    if (end == std::string::npos)
      return false;
    std::string inner = text.substr(v + 1, end - v - 1);
    dims.clear();
    size_t i = 0;
    while (i < inner.size()) {
      while (i < inner.size() &&
             (std::isspace((unsigned char)inner[i]) || inner[i] == ','))
        ++i;
      if (i == inner.size())
        break;
      if (!std::isdigit((unsigned char)inner[i]))
        return false;
      int64_t d = 0;
      while (i < inner.size() && std::isdigit((unsigned char)inner[i]))
        d = d * 10 + (inner[i++] - '0');
      // Python 2 wrote longs as 3L.
      if (i < inner.size() && inner[i] == 'L')
        ++i;
      dims.push_back(d);
    }
    return true;
  }

private:
  std::string text;
};
} // namespace

/// ONNX element type of a numpy descr such as "<f4" or "|b1"; 0 if unknown.
static int32_t dtypeOfDescr(const std::string &descr, std::string &error) {
  if (descr.size() >= 2 && std::strchr("USOa", descr[1])) {
    error = "a .npy file of strings (dtype '" + descr +
            "') cannot be read: write string tensors as an onnx.TensorProto "
            "with string_data (onnx.numpy_helper.from_array)";
    return 0;
  }
  if (descr.size() < 3) {
    error = "unknown dtype '" + descr + "'";
    return 0;
  }
  char order = descr[0];
  std::string kind = descr.substr(1);
  struct Entry {
    const char *kind;
    int32_t dtype;
  };
  static const Entry table[] = {
      {"f4", ONNXC_FLOAT},     {"f8", ONNXC_DOUBLE},     {"f2", ONNXC_FLOAT16},
      {"i1", ONNXC_INT8},      {"i2", ONNXC_INT16},      {"i4", ONNXC_INT32},
      {"i8", ONNXC_INT64},     {"u1", ONNXC_UINT8},      {"u2", ONNXC_UINT16},
      {"u4", ONNXC_UINT32},    {"u8", ONNXC_UINT64},     {"b1", ONNXC_BOOL},
      {"c8", ONNXC_COMPLEX64}, {"c16", ONNXC_COMPLEX128}};
  for (const Entry &e : table) {
    if (kind != e.kind)
      continue;
    if (order == '>' && elementSize(e.dtype) > 1) {
      error = "big-endian dtype '" + descr + "' is not supported";
      return 0;
    }
    if (order != '<' && order != '|' && order != '=' && order != '>') {
      error = "unknown dtype '" + descr + "'";
      return 0;
    }
    return e.dtype;
  }
  error = "unsupported dtype '" + descr +
          "' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 c8 c16)";
  return 0;
}

bool readNpy(const std::string &path, HostTensor &tensor, std::string &error) {
  std::string bytes;
  if (!readFile(path, bytes, error))
    return false;
  auto fail = [&](const std::string &msg) {
    error = path + ": " + msg;
    return false;
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return fail("not a numpy .npy file (bad magic)");
  unsigned major = (unsigned char)bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = (unsigned char)bytes[8] | (unsigned char)bytes[9] << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated .npy header");
    headerLen = size_t((unsigned char)bytes[8]) |
                size_t((unsigned char)bytes[9]) << 8 |
                size_t((unsigned char)bytes[10]) << 16 |
                size_t((unsigned char)bytes[11]) << 24;
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated .npy header");
  NpyHeader header(bytes.substr(headerStart, headerLen));
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!header.stringValue("descr", descr))
    return fail("no 'descr' in the .npy header (structured dtypes are not "
                "supported)");
  if (!header.boolValue("fortran_order", fortran))
    return fail("no 'fortran_order' in the .npy header");
  if (!header.tupleValue("shape", shape))
    return fail("no 'shape' in the .npy header");
  std::string dtypeError;
  int32_t dtype = dtypeOfDescr(descr, dtypeError);
  if (!dtype)
    return fail(dtypeError);
  // Fortran order is the same bytes as C order for rank <= 1.
  int nonUnit = 0;
  for (int64_t d : shape)
    nonUnit += d > 1;
  if (fortran && nonUnit > 1)
    return fail("Fortran-ordered arrays are not supported (save with "
                "np.ascontiguousarray)");
  HostTensor t(dtype, shape);
  size_t dataStart = headerStart + headerLen;
  if (bytes.size() - dataStart < t.sizeInBytes())
    return fail("truncated data: " + std::to_string(bytes.size() - dataStart) +
                " bytes for " + std::to_string(t.numElements()) + " x " +
                descr);
  if (t.sizeInBytes())
    std::memcpy(t.data(), bytes.data() + dataStart, t.sizeInBytes());
  tensor = std::move(t);
  return true;
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

template <typename Dst, typename Field>
static void copyField(const Field &field, HostTensor &t) {
  Dst *out = static_cast<Dst *>(t.data());
  for (int i = 0; i < field.size(); ++i)
    out[i] = Dst(field.Get(i));
}

/// A tensor of strings from string_data (ONNX never stores strings in
/// raw_data). The C API passes NUL-terminated strings: one with a NUL byte
/// cannot be passed, nor compared with one the library returns.
static bool stringsFromProto(const onnx::TensorProto &proto,
                             const std::vector<int64_t> &shape,
                             HostTensor &tensor, std::string &error) {
  int64_t n = numElements(shape);
  if (proto.has_raw_data()) {
    error = "a string tensor with raw_data (ONNX stores strings in "
            "string_data)";
    return false;
  }
  if (proto.string_data_size() != n) {
    error = "string_data has " + std::to_string(proto.string_data_size()) +
            " values; string" + shapeString(shape) + " needs " +
            std::to_string(n);
    return false;
  }
  std::vector<std::string> values(proto.string_data().begin(),
                                  proto.string_data().end());
  for (size_t i = 0; i < values.size(); ++i) {
    size_t nul = values[i].find('\0');
    if (nul != std::string::npos) {
      error = "string_data[" + std::to_string(i) +
              "] has a NUL byte at offset " + std::to_string(nul) +
              " (the C API takes NUL-terminated strings)";
      return false;
    }
  }
  tensor = HostTensor::ofStrings(shape, std::move(values));
  return true;
}

bool readTensorProto(const std::string &path, HostTensor &tensor,
                     std::string &name, std::string &error) {
  std::string bytes;
  if (!readFile(path, bytes, error))
    return false;
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    error = path + ": not a serialized onnx.TensorProto";
    return false;
  }
  if (!tensorFromProto(proto, tensor, error)) {
    error = path + ": " + error;
    return false;
  }
  name = proto.name();
  return true;
}

bool tensorFromProto(const onnx::TensorProto &proto, HostTensor &tensor,
                     std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = msg;
    return false;
  };
  // A SequenceProto, OptionalProto or MapProto often parses as a TensorProto
  // without data_type.
  if (!proto.has_data_type() || proto.data_type() == 0)
    return fail("not a TensorProto with a data_type (sequence, optional and "
                "map values are not supported)");
  int32_t dtype = proto.data_type();
  if (!elementSize(dtype))
    return fail("element type " + dtypeName(dtype) + " is not supported");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail("external data is not supported");
  if (proto.has_segment())
    return fail("segmented tensors are not supported");
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      return fail("negative dim in " + shapeString(shape));
  if (dtype == ONNXC_STRING)
    return stringsFromProto(proto, shape, tensor, error);
  HostTensor t(dtype, shape);
  int64_t n = t.numElements();
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != t.sizeInBytes())
      return fail("raw_data has " + std::to_string(proto.raw_data().size()) +
                  " bytes; " + dtypeName(dtype) + shapeString(shape) +
                  " needs " + std::to_string(t.sizeInBytes()));
    if (t.sizeInBytes())
      std::memcpy(t.data(), proto.raw_data().data(), t.sizeInBytes());
    tensor = std::move(t);
    return true;
  }
  auto checkCount = [&](int count, const char *field) {
    int64_t want = isComplex(dtype) ? 2 * n : n;
    if (count == want)
      return true;
    error = std::string(field) + " has " + std::to_string(count) + " values; " +
            dtypeName(dtype) + shapeString(shape) + " needs " +
            std::to_string(want);
    return false;
  };
  switch (dtype) {
  case ONNXC_FLOAT:
  case ONNXC_COMPLEX64:
    if (!checkCount(proto.float_data_size(), "float_data"))
      return false;
    copyField<float>(proto.float_data(), t);
    break;
  case ONNXC_DOUBLE:
  case ONNXC_COMPLEX128:
    if (!checkCount(proto.double_data_size(), "double_data"))
      return false;
    copyField<double>(proto.double_data(), t);
    break;
  case ONNXC_INT64:
    if (!checkCount(proto.int64_data_size(), "int64_data"))
      return false;
    copyField<int64_t>(proto.int64_data(), t);
    break;
  case ONNXC_UINT32:
  case ONNXC_UINT64:
    if (!checkCount(proto.uint64_data_size(), "uint64_data"))
      return false;
    if (dtype == ONNXC_UINT32)
      copyField<uint32_t>(proto.uint64_data(), t);
    else
      copyField<uint64_t>(proto.uint64_data(), t);
    break;
  default: // the types stored in int32_data (f16/bf16 as their bits)
    if (packedBits(dtype)) {
      // One packed byte per entry.
      if (proto.int32_data_size() != int64_t(t.sizeInBytes()))
        return fail("int32_data has " +
                    std::to_string(proto.int32_data_size()) + " values; " +
                    dtypeName(dtype) + shapeString(shape) + " needs " +
                    std::to_string(t.sizeInBytes()) + " packed bytes");
      copyField<uint8_t>(proto.int32_data(), t);
      break;
    }
    if (!checkCount(proto.int32_data_size(), "int32_data"))
      return false;
    switch (elementSize(dtype)) {
    case 1:
      if (dtype == ONNXC_BOOL) {
        for (int64_t i = 0; i < n; ++i)
          static_cast<uint8_t *>(t.data())[i] = proto.int32_data(i) != 0;
      } else {
        copyField<uint8_t>(proto.int32_data(), t);
      }
      break;
    case 2:
      copyField<uint16_t>(proto.int32_data(), t);
      break;
    default:
      copyField<int32_t>(proto.int32_data(), t);
      break;
    }
  }
  tensor = std::move(t);
  return true;
}

void tensorToProto(const HostTensor &tensor, onnx::TensorProto &proto) {
  proto.set_data_type(tensor.dtype());
  for (int64_t d : tensor.shape())
    proto.add_dims(d);
  if (tensor.isString()) {
    for (const std::string &s : tensor.strings())
      proto.add_string_data(s);
    return;
  }
  proto.set_raw_data(static_cast<const char *>(tensor.data()),
                     tensor.sizeInBytes());
}

bool writeTensorProto(const std::string &path, const std::string &name,
                      const HostTensor &tensor, std::string &error) {
  onnx::TensorProto proto;
  proto.set_name(name);
  tensorToProto(tensor, proto);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = path + ": cannot create file: " + std::strerror(errno);
    return false;
  }
  if (!proto.SerializeToOstream(&out) || !out.flush()) {
    error = path + ": write error";
    return false;
  }
  return true;
}

} // namespace onnxc::runner
