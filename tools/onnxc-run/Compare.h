//===- Compare.h - Compare an output with its expected value ----*- C++ -*-===//
//
// The ONNX backend test rule (numpy.testing.assert_allclose): element-wise
// |actual - expected| <= atol + rtol * |expected|, NaN equal to NaN, an
// infinity only equal to itself; integers, bools and strings compared
// exactly; dtype and shape must match. Complex numbers compare their real and
// imaginary parts separately. A sequence or an optional compares its structure
// (kind, presence, number of items), then each of its tensors by that rule.
// Maps compare as sets of key -> value: the same key and value types, the
// same keys, then the value of each key by that rule, in any order.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_COMPARE_H
#define ONNXC_TOOLS_ONNXC_RUN_COMPARE_H

#include "Tensor.h"
#include "Value.h"

#include <string>

namespace onnxc::runner {

struct Comparison {
  bool pass = true;
  /// Set when dtype or shape differ; the numbers below are then unset.
  std::string mismatch;
  double maxAbsError = 0;
  double maxRelError = 0;
  int64_t numElements = 0;
  int64_t numBad = 0;
  int64_t firstBad = -1; // flat index
  double firstActual = 0, firstExpected = 0;
  /// For strings, instead of the numbers above (the errors stay 0).
  std::string firstActualString, firstExpectedString;
  /// For maps, the key of the first bad value (as HostMap::keyString shows
  /// it); numElements counts the keys and firstBad indexes the expected
  /// map's entries.
  std::string firstKey;
};

Comparison compareTensors(const HostTensor &actual, const HostTensor &expected,
                          double rtol, double atol);

/// Compares two maps; `mismatch` is set when their key or value types or
/// their key sets differ ("missing key \"c\", extra key \"z\"").
Comparison compareMaps(const HostMap &actual, const HostMap &expected,
                       double rtol, double atol);

/// "[1,2]": the multi-index of flat `index` in `shape`.
std::string indexString(const std::vector<int64_t> &shape, int64_t index);

/// The comparison of a value with its expected value.
struct ValueComparison {
  bool pass = true;
  /// Set when the kinds, the presence of an optional's value, the number of
  /// items, a tensor's dtype or shape, or a map's types or keys differ ("3
  /// items, expected 2", "item 1: shape [2,3], expected [3,3]", "item 0:
  /// missing key 1"); nothing else is then set.
  std::string mismatch;
  /// Over every tensor compared (NaN when one of them is).
  double maxAbsError = 0, maxRelError = 0;
  /// One per tensor or map: the tensor, the map, or each item of the
  /// sequence in order.
  std::vector<Comparison> items;
};

ValueComparison compareValues(const HostValue &actual,
                              const HostValue &expected, double rtol,
                              double atol);

/// Bitwise equality of dtype, shape and bytes (for strings, of every
/// string's bytes).
bool identical(const HostTensor &a, const onnxc_tensor &b);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_COMPARE_H
