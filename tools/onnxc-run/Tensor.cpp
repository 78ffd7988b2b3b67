//===- Tensor.cpp - Host tensors and element types for onnxc-run ----------===//

#include "Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace onnxc::runner {

size_t elementSize(int32_t dtype) {
  switch (dtype) {
  case ONNXC_BOOL:
  case ONNXC_INT8:
  case ONNXC_UINT8:
  case ONNXC_FLOAT8E4M3FN:
  case ONNXC_FLOAT8E4M3FNUZ:
  case ONNXC_FLOAT8E5M2:
  case ONNXC_FLOAT8E5M2FNUZ:
  case ONNXC_FLOAT8E8M0:
  case ONNXC_UINT4:
  case ONNXC_INT4:
  case ONNXC_FLOAT4E2M1:
  case ONNXC_UINT2:
  case ONNXC_INT2:
    return 1;
  case ONNXC_INT16:
  case ONNXC_UINT16:
  case ONNXC_FLOAT16:
  case ONNXC_BFLOAT16:
    return 2;
  case ONNXC_INT32:
  case ONNXC_UINT32:
  case ONNXC_FLOAT:
    return 4;
  case ONNXC_INT64:
  case ONNXC_UINT64:
  case ONNXC_DOUBLE:
  case ONNXC_COMPLEX64:
    return 8;
  case ONNXC_COMPLEX128:
    return 16;
  case ONNXC_STRING:
    return sizeof(const char *);
  default:
    return 0;
  }
}

int packedBits(int32_t dtype) {
  switch (dtype) {
  case ONNXC_UINT4:
  case ONNXC_INT4:
  case ONNXC_FLOAT4E2M1:
    return 4;
  case ONNXC_UINT2:
  case ONNXC_INT2:
    return 2;
  default:
    return 0;
  }
}

size_t storageBytes(int32_t dtype, int64_t count) {
  if (count <= 0)
    return 0;
  if (int bits = packedBits(dtype))
    return size_t((count * bits + 7) / 8);
  return size_t(count) * elementSize(dtype);
}

bool isNarrowFloat(int32_t dtype) {
  return (dtype >= ONNXC_FLOAT8E4M3FN && dtype <= ONNXC_FLOAT8E5M2FNUZ) ||
         dtype == ONNXC_FLOAT4E2M1 || dtype == ONNXC_FLOAT8E8M0;
}

std::string dtypeName(int32_t dtype) {
  switch (dtype) {
  case ONNXC_FLOAT8E4M3FN:
    return "float8e4m3fn";
  case ONNXC_FLOAT8E4M3FNUZ:
    return "float8e4m3fnuz";
  case ONNXC_FLOAT8E5M2:
    return "float8e5m2";
  case ONNXC_FLOAT8E5M2FNUZ:
    return "float8e5m2fnuz";
  case ONNXC_UINT4:
    return "uint4";
  case ONNXC_INT4:
    return "int4";
  case ONNXC_FLOAT4E2M1:
    return "float4e2m1";
  case ONNXC_FLOAT8E8M0:
    return "float8e8m0";
  case ONNXC_UINT2:
    return "uint2";
  case ONNXC_INT2:
    return "int2";
  case ONNXC_FLOAT:
    return "float32";
  case ONNXC_UINT8:
    return "uint8";
  case ONNXC_INT8:
    return "int8";
  case ONNXC_UINT16:
    return "uint16";
  case ONNXC_INT16:
    return "int16";
  case ONNXC_INT32:
    return "int32";
  case ONNXC_INT64:
    return "int64";
  case ONNXC_STRING:
    return "string";
  case ONNXC_BOOL:
    return "bool";
  case ONNXC_FLOAT16:
    return "float16";
  case ONNXC_DOUBLE:
    return "float64";
  case ONNXC_UINT32:
    return "uint32";
  case ONNXC_UINT64:
    return "uint64";
  case ONNXC_COMPLEX64:
    return "complex64";
  case ONNXC_COMPLEX128:
    return "complex128";
  case ONNXC_BFLOAT16:
    return "bfloat16";
  default:
    return "dtype(" + std::to_string(dtype) + ")";
  }
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d < 0 ? 0 : d;
  return n;
}

bool isFloatingPoint(int32_t dtype) {
  return dtype == ONNXC_FLOAT || dtype == ONNXC_DOUBLE ||
         dtype == ONNXC_FLOAT16 || dtype == ONNXC_BFLOAT16 ||
         isComplex(dtype) || isNarrowFloat(dtype);
}

bool isComplex(int32_t dtype) {
  return dtype == ONNXC_COMPLEX64 || dtype == ONNXC_COMPLEX128;
}

static uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0) {
    float v = std::ldexp(float(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31)
    return bitsFloat(sign | 0x7f800000u | (mant << 13));
  return bitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t floatToHalf(float value) {
  uint32_t x = floatBits(value);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // inf, nan (keep it a quiet nan)
    return sign | 0x7c00 |
           (absx > 0x7f800000u ? 0x200 | ((absx >> 13) & 0x3ff) : 0);
  if (absx >= 0x477ff000u) // 65520 and above round to inf
    return sign | 0x7c00;
  if (absx < 0x38800000u) { // below 2^-14: a subnormal half, m * 2^-24
    float scaled = bitsFloat(absx) * 16777216.0f;
    return sign | uint16_t(std::nearbyint(scaled));
  }
  uint32_t h = (((absx >> 23) - 127 + 15) << 10) | ((absx & 0x7fffff) >> 13);
  uint32_t rest = absx & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h; // a carry into the exponent is still the right encoding
  return sign | uint16_t(h);
}

float bfloat16ToFloat(uint16_t bits) { return bitsFloat(uint32_t(bits) << 16); }

uint16_t floatToBFloat16(float value) {
  uint32_t x = floatBits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

/// The value of the bits of a float8/float4e2m1 element (ONNX's encodings:
/// E4M3FN and E4M3FNUZ/E5M2FNUZ without infinities, the FNUZ ones with 0x80
/// as their only NaN, float4e2m1 with neither, E8M0 a power of two).
static double narrowFloatValue(int32_t dtype, unsigned bits) {
  double nan = std::nan("");
  if (dtype == ONNXC_FLOAT8E8M0)
    return bits == 0xff ? nan : std::ldexp(1.0, int(bits) - 127);
  int expBits = 4, manBits = 3, bias = 7;
  switch (dtype) {
  case ONNXC_FLOAT8E4M3FNUZ:
    bias = 8;
    break;
  case ONNXC_FLOAT8E5M2:
    expBits = 5, manBits = 2, bias = 15;
    break;
  case ONNXC_FLOAT8E5M2FNUZ:
    expBits = 5, manBits = 2, bias = 16;
    break;
  case ONNXC_FLOAT4E2M1:
    expBits = 2, manBits = 1, bias = 1;
    break;
  default:
    break;
  }
  bool uz = dtype == ONNXC_FLOAT8E4M3FNUZ || dtype == ONNXC_FLOAT8E5M2FNUZ;
  unsigned magBits = unsigned(expBits + manBits);
  unsigned mag = bits & ((1u << magBits) - 1);
  bool negative = (bits >> magBits) & 1;
  if (uz && bits == 0x80)
    return nan;
  if (dtype == ONNXC_FLOAT8E4M3FN && mag == 0x7f)
    return nan;
  unsigned exp = mag >> manBits, man = mag & ((1u << manBits) - 1);
  if (dtype == ONNXC_FLOAT8E5M2 && exp == 31)
    return man ? nan : (negative ? -HUGE_VAL : HUGE_VAL);
  double v = exp == 0 ? std::ldexp(double(man), 1 - bias - manBits)
                      : std::ldexp(1.0 + std::ldexp(double(man), -manBits),
                                   int(exp) - bias);
  return negative ? -v : v;
}

/// Element `index` of a packed buffer, as an unsigned field.
static unsigned packedField(int32_t dtype, const void *data, int64_t index) {
  int bits = packedBits(dtype), perByte = 8 / bits;
  auto byte = static_cast<const unsigned char *>(data)[index / perByte];
  return (byte >> ((index % perByte) * bits)) & ((1u << bits) - 1);
}

template <typename T> static T load(const void *data, int64_t index) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char *>(data) + index * sizeof(T),
              sizeof(T));
  return v;
}

double readAsDouble(int32_t dtype, const void *data, int64_t index) {
  switch (dtype) {
  case ONNXC_FLOAT:
  case ONNXC_COMPLEX64:
    return load<float>(data, index);
  case ONNXC_DOUBLE:
  case ONNXC_COMPLEX128:
    return load<double>(data, index);
  case ONNXC_FLOAT16:
    return halfToFloat(load<uint16_t>(data, index));
  case ONNXC_BFLOAT16:
    return bfloat16ToFloat(load<uint16_t>(data, index));
  case ONNXC_FLOAT4E2M1:
    return narrowFloatValue(dtype, packedField(dtype, data, index));
  default: {
    if (isNarrowFloat(dtype))
      return narrowFloatValue(dtype, load<uint8_t>(data, index));
    bool isUnsigned;
    uint64_t v = readInteger(dtype, data, index, isUnsigned);
    return isUnsigned ? double(v) : double(int64_t(v));
  }
  }
}

uint64_t readInteger(int32_t dtype, const void *data, int64_t index,
                     bool &isUnsigned) {
  isUnsigned = true;
  switch (dtype) {
  case ONNXC_BOOL:
    return load<uint8_t>(data, index) != 0;
  case ONNXC_UINT8:
    return load<uint8_t>(data, index);
  case ONNXC_UINT16:
    return load<uint16_t>(data, index);
  case ONNXC_UINT32:
    return load<uint32_t>(data, index);
  case ONNXC_UINT64:
    return load<uint64_t>(data, index);
  case ONNXC_UINT4:
  case ONNXC_UINT2:
    return packedField(dtype, data, index);
  default:
    break;
  }
  isUnsigned = false;
  switch (dtype) {
  case ONNXC_INT8:
    return uint64_t(int64_t(load<int8_t>(data, index)));
  case ONNXC_INT16:
    return uint64_t(int64_t(load<int16_t>(data, index)));
  case ONNXC_INT32:
    return uint64_t(int64_t(load<int32_t>(data, index)));
  case ONNXC_INT64:
    return uint64_t(load<int64_t>(data, index));
  case ONNXC_INT4:
  case ONNXC_INT2: {
    int bits = packedBits(dtype);
    int64_t v = packedField(dtype, data, index);
    return uint64_t(v >= (int64_t(1) << (bits - 1)) ? v - (int64_t(1) << bits)
                                                     : v);
  }
  default:
    return 0;
  }
}

/// The length of the well-formed UTF-8 sequence of two or more bytes at
/// s[i] (the Unicode Standard's table 3-7), or 0.
static size_t utf8Length(const std::string &s, size_t i) {
  auto in = [&](size_t k, unsigned lo, unsigned hi) {
    unsigned v = k < s.size() ? (unsigned char)s[k] : 0;
    return v >= lo && v <= hi;
  };
  unsigned c = (unsigned char)s[i];
  if (c >= 0xc2 && c <= 0xdf)
    return in(i + 1, 0x80, 0xbf) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef)
    return in(i + 1, c == 0xe0 ? 0xa0 : 0x80, c == 0xed ? 0x9f : 0xbf) &&
                   in(i + 2, 0x80, 0xbf)
               ? 3
               : 0;
  if (c >= 0xf0 && c <= 0xf4)
    return in(i + 1, c == 0xf0 ? 0x90 : 0x80, c == 0xf4 ? 0x8f : 0xbf) &&
                   in(i + 2, 0x80, 0xbf) && in(i + 3, 0x80, 0xbf)
               ? 4
               : 0;
  return 0;
}

std::string quoteString(const std::string &s, size_t maxBytes) {
  std::string q = "\"";
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    size_t len = c >= 0x80 ? utf8Length(s, i) : 0;
    // U+0080..U+009F (C2 80..C2 9F) are control characters too.
    if (len == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0)
      len = 0;
    if (i + std::max<size_t>(len, 1) > maxBytes)
      break;
    if (len) {
      q.append(s, i, len);
      i += len;
      continue;
    }
    switch (c) {
    case '"':
      q += "\\\"";
      break;
    case '\\':
      q += "\\\\";
      break;
    case '\n':
      q += "\\n";
      break;
    case '\t':
      q += "\\t";
      break;
    case '\r':
      q += "\\r";
      break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        q += buf;
      } else {
        q += char(c);
      }
    }
    ++i;
  }
  q += "\"";
  if (i < s.size())
    q += "... (" + std::to_string(s.size()) + " bytes)";
  return q;
}

bool sameString(const std::string &a, const char *b) {
  for (size_t i = 0;; ++i) {
    if (i == a.size())
      return b[i] == '\0';
    if (b[i] == '\0' || b[i] != a[i])
      return false;
  }
}

void HostTensor::Free::operator()(void *p) const { std::free(p); }

HostTensor::HostTensor(int32_t dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  // Sizes from the command line or a model's signature may be absurd: a
  // tensor that cannot be held is an error, never a crash.
  auto tooLarge = [&](const char *why) {
    std::string dims;
    for (int64_t d : shape_)
      dims += (dims.empty() ? "" : ",") + std::to_string(d);
    std::fprintf(stderr, "onnxc-run: error: cannot hold a tensor of shape "
                         "[%s]: %s\n", dims.c_str(), why);
    std::exit(2);
  };
  int64_t n = 1;
  for (int64_t d : shape_)
    if (d > 0 && __builtin_mul_overflow(n, d, &n))
      tooLarge("its element count overflows");
  for (int64_t d : shape_)
    if (d <= 0)
      n = 0;
  if (n > (int64_t(1) << 56))
    tooLarge("too many elements");
  size_ = storageBytes(dtype_, n);
  // Never a null pointer, even for an empty tensor: the library may insist.
  size_t alloc = (size_ + 63) / 64 * 64;
  data_.reset(
      static_cast<unsigned char *>(std::aligned_alloc(64, alloc ? alloc : 64)));
  if (!data_)
    tooLarge(("out of memory for " + std::to_string(alloc) + " bytes").c_str());
  std::memset(data_.get(), 0, alloc ? alloc : 64);
  if (isString()) {
    strings_.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i)
      setString(i, "");
  }
}

HostTensor HostTensor::ofStrings(std::vector<int64_t> shape,
                                 std::vector<std::string> values) {
  HostTensor t(ONNXC_STRING, std::move(shape));
  values.resize(t.strings_.size());
  t.strings_ = std::move(values);
  for (size_t i = 0; i < t.strings_.size(); ++i)
    reinterpret_cast<const char **>(t.data_.get())[i] = t.strings_[i].c_str();
  return t;
}

void HostTensor::setString(int64_t index, std::string value) {
  std::string &s = strings_[size_t(index)];
  s = std::move(value);
  reinterpret_cast<const char **>(data_.get())[index] = s.c_str();
}

int64_t HostTensor::changedStringPointer() const {
  auto *pointers = reinterpret_cast<const char *const *>(data_.get());
  for (size_t i = 0; i < strings_.size(); ++i)
    if (pointers[i] != strings_[i].c_str())
      return int64_t(i);
  return -1;
}

onnxc_tensor HostTensor::view() const {
  static const int64_t noDims[1] = {0};
  onnxc_tensor t;
  t.dtype = dtype_;
  t.rank = int32_t(shape_.size());
  t.shape = shape_.empty() ? noDims : shape_.data();
  t.data = data_.get();
  return t;
}

HostTensor copyTensor(const onnxc_tensor &tensor) {
  std::vector<int64_t> shape;
  for (int32_t i = 0; i < tensor.rank; ++i)
    shape.push_back(tensor.shape[i]);
  HostTensor copy(tensor.dtype, std::move(shape));
  if (copy.isString()) {
    auto *pointers = static_cast<const char *const *>(tensor.data);
    for (int64_t i = 0; pointers && i < copy.numElements(); ++i)
      copy.setString(i, pointers[i] ? pointers[i] : "");
    return copy;
  }
  if (copy.sizeInBytes() && tensor.data)
    std::memcpy(copy.data(), tensor.data, copy.sizeInBytes());
  return copy;
}

void copyElement(const HostTensor &src, int64_t from, HostTensor &dst,
                 int64_t to) {
  if (src.isString()) {
    dst.setString(to, src.strings()[size_t(from)]);
    return;
  }
  if (int bits = packedBits(src.dtype())) {
    int perByte = 8 / bits, shift = int(to % perByte) * bits;
    auto *byte = static_cast<unsigned char *>(dst.data()) + to / perByte;
    unsigned mask = ((1u << bits) - 1) << shift;
    *byte = static_cast<unsigned char>(
        (*byte & ~mask) |
        (packedField(src.dtype(), src.data(), from) << shift));
    return;
  }
  size_t size = elementSize(src.dtype());
  std::memcpy(static_cast<unsigned char *>(dst.data()) + to * size,
              static_cast<const unsigned char *>(src.data()) + from * size,
              size);
}

bool sameElement(const HostTensor &a, int64_t i, const HostTensor &b,
                 int64_t j) {
  if (a.isString())
    return a.strings()[size_t(i)] == b.strings()[size_t(j)];
  if (packedBits(a.dtype()))
    return packedField(a.dtype(), a.data(), i) ==
           packedField(b.dtype(), b.data(), j);
  size_t size = elementSize(a.dtype());
  return std::memcmp(static_cast<const unsigned char *>(a.data()) + i * size,
                     static_cast<const unsigned char *>(b.data()) + j * size,
                     size) == 0;
}

} // namespace onnxc::runner
