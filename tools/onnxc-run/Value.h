//===- Value.h - Host values (tensors, sequences, ...) ----------*- C++ -*-===//
//
// A value owned by onnxc-run (an input read from a file or generated, an
// expected value, a copy of an output): a tensor, a sequence of tensors, an
// optional holding either or nothing, a map or a sequence of maps. view()
// gives the onnxc_value tree that onnxc_run_values takes.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_VALUE_H
#define ONNXC_TOOLS_ONNXC_RUN_VALUE_H

#include "Tensor.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace onnxc::runner {

struct ValueInfo;

/// A map: keys[i] maps to values[i]. Both are 1-D tensors of the same
/// length, the keys int64 or strings without duplicates; the order means
/// nothing.
struct HostMap {
  HostTensor keys, values;

  int64_t size() const { return keys.numElements(); }
  /// Key `i` as messages show it: 3, or "a" (quoted and escaped, a long one
  /// cut).
  std::string keyString(int64_t i) const;
  /// The indices of the entries in the order of their keys (numbers
  /// ascending, strings by their bytes).
  std::vector<int64_t> sortedOrder() const;
};

/// Finds keys among the keys of a map.
class KeyIndex {
public:
  explicit KeyIndex(const HostTensor &keys);
  /// The index of key `i` of `keys` (of the same element type as the
  /// indexed ones) among the indexed keys, or -1.
  int64_t find(const HostTensor &keys, int64_t i) const;
  /// The index of the first key that repeats an earlier one, or -1.
  int64_t duplicate() const { return duplicate_; }

private:
  bool strings_;
  std::unordered_map<int64_t, int64_t> ints_;
  std::unordered_map<std::string, int64_t> strs_;
  int64_t duplicate_ = -1;
};

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
  static HostValue ofMap(HostMap map);
  /// A sequence of maps with keys of `keyDtype` and values of `dtype`.
  static HostValue ofSequenceOfMaps(int32_t keyDtype, int32_t dtype,
                                    std::vector<HostMap> maps);

  /// ONNXC_KIND_TENSOR, ONNXC_KIND_SEQUENCE, ONNXC_KIND_OPTIONAL or
  /// ONNXC_KIND_MAP.
  int32_t kind() const { return kind_; }
  bool isOptional() const { return kind_ == ONNXC_KIND_OPTIONAL; }
  /// False only for an optional without a value.
  bool hasValue() const { return present_; }
  /// Whether the value, or what the optional holds, is a sequence (of
  /// tensors or of maps).
  bool holdsSequence() const { return sequence_; }
  /// Whether the value is a map or a sequence of maps.
  bool holdsMaps() const { return mapped_; }
  /// The element type of the tensor, of the sequence's tensors, or of the
  /// maps' values.
  int32_t dtype() const {
    return sequence_ || mapped_ ? dtype_ : tensor_.dtype();
  }
  /// The element type of the maps' keys (-1 when the value holds no maps).
  int32_t keyDtype() const { return keyDtype_; }

  /// The tensor (also the one an optional holds).
  const HostTensor &tensor() const { return tensor_; }
  /// The sequence's tensors (also those of a sequence an optional holds);
  /// none for maps.
  const std::vector<HostTensor> &items() const { return items_; }
  /// The map (one), or the maps of a sequence of maps.
  const std::vector<HostMap> &maps() const { return maps_; }

  /// Reinterprets every tensor (the maps' values), and the sequence's
  /// element type, as another type of the same size.
  void reinterpretAs(int32_t dtype);

  /// Every tensor of the value: the tensor, the sequence's items, or the
  /// keys and values of each map; none for an optional without a value.
  std::vector<HostTensor *> tensors();
  std::vector<const HostTensor *> tensors() const;
  /// tensors(), each with what messages call it within the value: "" (the
  /// tensor), "item 2", "keys", "values", "item 2 keys".
  std::vector<std::pair<std::string, const HostTensor *>>
  labeledTensors() const;

  /// The view passed to onnxc_run_values; valid while this value lives and
  /// until the next call of view() (which rebuilds it: call it before the
  /// value is shared between threads).
  onnxc_value view() const;

private:
  int32_t kind_ = ONNXC_KIND_TENSOR;
  bool sequence_ = false, mapped_ = false;
  bool present_ = true;
  int32_t dtype_ = 0;     // the sequence's, or the maps' values'
  int32_t keyDtype_ = -1; // the maps' keys'
  HostTensor tensor_;
  std::vector<HostTensor> items_;
  std::vector<HostMap> maps_;
  // The arrays the view's `items` point to (heap storage: a moved value
  // keeps them where they were); mapViews_ holds each map's keys and
  // values.
  mutable std::vector<onnxc_value> itemViews_, contentsView_, mapViews_;
};

/// Copies a value returned by the library (whose structure checkValue has
/// accepted, or that identical() has compared); `info` gives what an
/// optional without a value would hold.
HostValue copyValue(const onnxc_value &value, const ValueInfo &info);

/// The problem with `value` as the value of signature entry `info` (its kind,
/// its structure, each tensor's dtype, rank and static dims, its data and,
/// for strings, each string's pointer; a map's key and value types, their
/// lengths and duplicate keys), or "". `what` names the value in the
/// message ("output 0 'Y'").
std::string checkValue(const onnxc_value &value, const ValueInfo &info,
                       const std::string &what);

/// What a value is, with its shapes: "float32[4,3]", "seq(float32[2,3],
/// float32[4,3])" (long sequences abbreviated), "seq(empty, float32)",
/// "optional(float32[4])", "optional(none)", "map(string -> float32, 3
/// keys)", "seq(map(int64 -> float32, 2 keys), ...)".
std::string valueString(const HostValue &value);

/// Bitwise equality of kind, presence, number of items, dtypes, shapes and
/// bytes (of the strings, for strings); maps are equal when they map the same
/// keys to the same values, in any order. When they differ and `where` is
/// given, it receives the item or key that differs ("item 2", "key \"a\"",
/// "item 2 key 0") or "" when it is the value as a whole.
bool identical(const HostValue &a, const onnxc_value &b,
               std::string *where = nullptr);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_VALUE_H
