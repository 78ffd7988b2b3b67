//===- Tensor.h - Host tensors and element types for onnxc-run --*- C++ -*-===//
//
// A dense row-major tensor owned by onnxc-run (inputs read from files,
// expected values, copies of outputs), and what onnxc-run knows about each
// ONNX element type: its size, its name and how to read an element as a
// number. A tensor of strings (ONNXC_STRING) owns its strings and the array
// of `const char *` that the C API takes as its data.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_TENSOR_H
#define ONNXC_TOOLS_ONNXC_RUN_TENSOR_H

#include "onnxc/Runtime/onnxc_runtime.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace onnxc::runner {

/// Bytes per element of an ONNX element type in the C API's buffers; 0 for
/// types onnxc-run cannot hold (unknown numbers). 1 for the sub-byte types,
/// which are packed (see storageBytes); a pointer's size for strings (the C
/// API's array of `const char *`).
size_t elementSize(int32_t dtype);

/// Bits per element of the types ONNX packs several to a byte (int4, uint4,
/// float4e2m1: 4; int2, uint2: 2), 0 for the others.
int packedBits(int32_t dtype);

/// Bytes of `count` elements: packed for the sub-byte types, as the C API
/// and ONNX's raw_data hold them.
size_t storageBytes(int32_t dtype, int64_t count);

/// The float8 types and float4e2m1, read through their own decoding.
bool isNarrowFloat(int32_t dtype);

/// numpy-style name of an element type ("float32", "int64", "bool", ...), or
/// "dtype(N)" for one onnxc-run does not know.
std::string dtypeName(int32_t dtype);

/// "[2,3]" ("[]" for a scalar).
std::string shapeString(const std::vector<int64_t> &shape);

/// Number of elements of a shape (1 for a scalar). Negative dims count as 0.
int64_t numElements(const std::vector<int64_t> &shape);

bool isFloatingPoint(int32_t dtype);
bool isComplex(int32_t dtype);

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);

/// Element `index` of a buffer of `dtype` as a double (integers beyond 2^53
/// lose precision; use readInteger to compare them exactly). For complex
/// types `index` counts the real and imaginary parts separately.
double readAsDouble(int32_t dtype, const void *data, int64_t index);

/// Element `index` of an integer or bool buffer; `isUnsigned` says how to
/// read the result.
uint64_t readInteger(int32_t dtype, const void *data, int64_t index,
                     bool &isUnsigned);

/// `s` in double quotes, with backslash, the quote, control bytes and bytes
/// that are not well-formed UTF-8 escaped (\n, \t, \", \\, \xNN); a
/// string longer than `maxBytes` is cut there (at a character boundary) and
/// followed by `... (N bytes)`.
std::string quoteString(const std::string &s, size_t maxBytes = SIZE_MAX);

/// Whether `a` equals the NUL-terminated string `b` (read no further than
/// its NUL or the first difference).
bool sameString(const std::string &a, const char *b);

/// A dense row-major tensor with a 64-byte aligned buffer.
class HostTensor {
public:
  HostTensor() = default;
  /// Zeros, or empty strings for ONNXC_STRING.
  HostTensor(int32_t dtype, std::vector<int64_t> shape);
  /// A tensor of strings; `values` has one string per element, row-major.
  static HostTensor ofStrings(std::vector<int64_t> shape,
                              std::vector<std::string> values);

  int32_t dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t numElements() const { return runner::numElements(shape_); }
  /// The bytes of the C API's buffer (for strings, of the pointer array).
  size_t sizeInBytes() const { return size_; }
  /// The C API's buffer: the elements, or the strings' `const char *` array
  /// (write strings with setString only).
  void *data() { return data_.get(); }
  const void *data() const { return data_.get(); }

  bool isString() const { return dtype_ == ONNXC_STRING; }
  /// The strings of a tensor of strings (one per element).
  const std::vector<std::string> &strings() const { return strings_; }
  /// Sets element `index` of a tensor of strings.
  void setString(int64_t index, std::string value);
  /// The first element whose `const char *` in the buffer no longer points
  /// at this tensor's own string (the library wrote the array), or -1.
  int64_t changedStringPointer() const;

  /// Reinterprets the elements as another type of the same size (neither
  /// of them strings).
  void reinterpretAs(int32_t dtype) { dtype_ = dtype; }

  /// The view passed to onnxc_run; valid while this tensor lives.
  onnxc_tensor view() const;

private:
  struct Free {
    void operator()(void *p) const;
  };
  int32_t dtype_ = 0;
  std::vector<int64_t> shape_;
  size_t size_ = 0;
  std::unique_ptr<unsigned char, Free> data_;
  // The strings the pointer array in data_ points to (a vector's elements
  // stay where they are when it is moved).
  std::vector<std::string> strings_;
};

/// Copies a tensor returned by the library into a HostTensor (the strings
/// of a tensor of strings; a null pointer among them reads as "").
HostTensor copyTensor(const onnxc_tensor &tensor);

/// Copies element `from` of `src` to element `to` of `dst`, a tensor of the
/// same element type (the string, for strings; the bits, for packed types).
void copyElement(const HostTensor &src, int64_t from, HostTensor &dst,
                 int64_t to);

/// Whether element `i` of `a` and element `j` of `b`, of the same element
/// type, have the same bits (the same bytes, for strings).
bool sameElement(const HostTensor &a, int64_t i, const HostTensor &b,
                 int64_t j);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_TENSOR_H
