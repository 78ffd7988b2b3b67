//===- Value.h - Host values (tensors, sequences, optionals) ----*- C++ -*-===//
//
// A value owned by onnxc-run (an input read from a file or generated, an
// expected value, a copy of an output): a tensor, a sequence of tensors, or
// an optional holding either or nothing. view() gives the onnxc_value tree
// that onnxc_run_values takes.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_VALUE_H
#define ONNXC_TOOLS_ONNXC_RUN_VALUE_H

#include "Tensor.h"

#include <string>
#include <vector>

namespace onnxc::runner {

struct ValueInfo;

class HostValue {
public:
  /// An empty tensor of no type.
  HostValue() = default;
  static HostValue ofTensor(HostTensor tensor);
  /// A sequence of tensors of element type `dtype`.
  static HostValue ofSequence(int32_t dtype, std::vector<HostTensor> items);
  /// An optional holding `contents` (a tensor or a sequence).
  static HostValue some(HostValue contents);
  /// An optional without a value, of a tensor or a sequence of `dtype`.
  static HostValue none(bool ofSequence, int32_t dtype);

  /// ONNXC_KIND_TENSOR, ONNXC_KIND_SEQUENCE or ONNXC_KIND_OPTIONAL.
  int32_t kind() const { return kind_; }
  bool isOptional() const { return kind_ == ONNXC_KIND_OPTIONAL; }
  /// False only for an optional without a value.
  bool hasValue() const { return present_; }
  /// Whether the value, or what the optional holds, is a sequence.
  bool holdsSequence() const { return sequence_; }
  /// The element type of the tensor, or of the sequence's tensors.
  int32_t dtype() const { return sequence_ ? dtype_ : tensor_.dtype(); }

  /// The tensor (also the one an optional holds).
  const HostTensor &tensor() const { return tensor_; }
  /// The sequence's tensors (also those of a sequence an optional holds).
  const std::vector<HostTensor> &items() const { return items_; }

  /// Reinterprets every tensor, and the sequence's element type, as another
  /// type of the same size.
  void reinterpretAs(int32_t dtype);

  /// Every tensor of the value: the tensor, or the sequence's items; none
  /// for an optional without a value.
  std::vector<HostTensor *> tensors();
  std::vector<const HostTensor *> tensors() const;

  /// The view passed to onnxc_run_values; valid while this value lives and
  /// until the next call of view() (which rebuilds it: call it before the
  /// value is shared between threads).
  onnxc_value view() const;

private:
  int32_t kind_ = ONNXC_KIND_TENSOR;
  bool sequence_ = false;
  bool present_ = true;
  int32_t dtype_ = 0; // the sequence's
  HostTensor tensor_;
  std::vector<HostTensor> items_;
  // The arrays the view's `items` point to (heap storage: a moved value
  // keeps them where they were).
  mutable std::vector<onnxc_value> itemViews_, contentsView_;
};

/// Copies a value returned by the library (whose structure checkValue has
/// accepted, or that identical() has compared); `info` gives what an
/// optional without a value would hold.
HostValue copyValue(const onnxc_value &value, const ValueInfo &info);

/// The problem with `value` as the value of signature entry `info` (its kind,
/// its structure, each tensor's dtype, rank and static dims, its data and,
/// for strings, each string's pointer), or "". `what` names the value in
/// the message ("output 0 'Y'").
std::string checkValue(const onnxc_value &value, const ValueInfo &info,
                       const std::string &what);

/// What a value is, with its shapes: "float32[4,3]", "seq(float32[2,3],
/// float32[4,3])" (long sequences abbreviated), "seq(empty, float32)",
/// "optional(float32[4])", "optional(none)".
std::string valueString(const HostValue &value);

/// Bitwise equality of kind, presence, number of items, dtypes, shapes and
/// bytes (of the strings, for strings). When they differ and `where` is given,
/// it receives the item that differs ("item 2") or "" when it is the value as a
/// whole.
bool identical(const HostValue &a, const onnxc_value &b,
               std::string *where = nullptr);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_VALUE_H
