//===- Compare.cpp - Compare an output with its expected value ------------===//

#include "Compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace onnxc::runner {

std::string indexString(const std::vector<int64_t> &shape, int64_t index) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    int64_t d = shape[i] > 0 ? shape[i] : 1;
    idx[i] = index % d;
    index /= d;
  }
  return shapeString(idx);
}

Comparison compareTensors(const HostTensor &actual, const HostTensor &expected,
                          double rtol, double atol) {
  Comparison c;
  if (actual.dtype() != expected.dtype()) {
    c.pass = false;
    c.mismatch = "dtype " + dtypeName(actual.dtype()) + ", expected " +
                 dtypeName(expected.dtype());
    return c;
  }
  if (actual.shape() != expected.shape()) {
    c.pass = false;
    c.mismatch = "shape " + shapeString(actual.shape()) + ", expected " +
                 shapeString(expected.shape());
    return c;
  }
  int32_t dtype = actual.dtype();
  int64_t n = actual.numElements();
  c.numElements = n;
  const double inf = std::numeric_limits<double>::infinity();
  auto bad = [&](int64_t i, double a, double e) {
    if (c.numBad++ == 0) {
      c.firstBad = i;
      c.firstActual = a;
      c.firstExpected = e;
    }
  };
  auto track = [&](double a, double e) {
    double diff = std::fabs(a - e);
    double rel = e != 0 ? diff / std::fabs(e) : (diff > 0 ? inf : 0);
    c.maxAbsError = std::max(c.maxAbsError, diff);
    c.maxRelError = std::max(c.maxRelError, rel);
    return diff;
  };

  bool nanMismatch = false;
  if (actual.isString()) {
    for (int64_t i = 0; i < n; ++i) {
      const std::string &a = actual.strings()[i], &e = expected.strings()[i];
      if (a != e && c.numBad++ == 0) {
        c.firstBad = i;
        c.firstActualString = a;
        c.firstExpectedString = e;
      }
    }
  } else if (isFloatingPoint(dtype)) {
    int64_t parts = isComplex(dtype) ? 2 : 1;
    for (int64_t i = 0; i < n * parts; ++i) {
      double a = readAsDouble(dtype, actual.data(), i);
      double e = readAsDouble(dtype, expected.data(), i);
      if (std::isnan(a) || std::isnan(e)) {
        if (!(std::isnan(a) && std::isnan(e))) {
          nanMismatch = true;
          bad(i / parts, a, e);
        }
        continue;
      }
      if (std::isinf(a) || std::isinf(e)) {
        if (a != e) {
          c.maxAbsError = inf;
          c.maxRelError = inf;
          bad(i / parts, a, e);
        }
        continue;
      }
      double diff = track(a, e);
      if (!(diff <= atol + rtol * std::fabs(e)))
        bad(i / parts, a, e);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      bool aUnsigned, eUnsigned;
      uint64_t a = readInteger(dtype, actual.data(), i, aUnsigned);
      uint64_t e = readInteger(dtype, expected.data(), i, eUnsigned);
      double ad = aUnsigned ? double(a) : double(int64_t(a));
      double ed = eUnsigned ? double(e) : double(int64_t(e));
      track(ad, ed);
      if (a != e)
        bad(i, ad, ed);
    }
  }
  // As numpy reports it: a NaN against a number is a NaN difference.
  if (nanMismatch)
    c.maxAbsError = c.maxRelError = std::numeric_limits<double>::quiet_NaN();
  c.pass = c.numBad == 0;
  return c;
}

/// "keys \"c\", 2, ... (7 in all)": the first few of `which` keys.
static std::string someKeys(const HostMap &map,
                            const std::vector<int64_t> &which) {
  const size_t kShown = 3;
  std::string s = which.size() == 1 ? "key " : "keys ";
  for (size_t k = 0; k < which.size() && k < kShown; ++k)
    s += (k ? ", " : "") + map.keyString(which[k]);
  if (which.size() > kShown)
    s += ", ... (" + std::to_string(which.size()) + " in all)";
  return s;
}

Comparison compareMaps(const HostMap &actual, const HostMap &expected,
                       double rtol, double atol) {
  Comparison c;
  auto mismatch = [&](const std::string &what) {
    c.pass = false;
    c.mismatch = what;
    return c;
  };
  if (actual.keys.dtype() != expected.keys.dtype())
    return mismatch("keys " + dtypeName(actual.keys.dtype()) + ", expected " +
                    dtypeName(expected.keys.dtype()));
  if (actual.values.dtype() != expected.values.dtype())
    return mismatch("values " + dtypeName(actual.values.dtype()) +
                    ", expected " + dtypeName(expected.values.dtype()));
  // Both maps' keys are distinct: equal sets when none is missing or extra.
  KeyIndex actualKeys(actual.keys), expectedKeys(expected.keys);
  std::vector<int64_t> missing, extra, where;
  for (int64_t i = 0; i < expected.size(); ++i) {
    int64_t j = actualKeys.find(expected.keys, i);
    if (j < 0)
      missing.push_back(i);
    where.push_back(j);
  }
  for (int64_t j = 0; j < actual.size(); ++j)
    if (expectedKeys.find(actual.keys, j) < 0)
      extra.push_back(j);
  if (!missing.empty() || !extra.empty()) {
    std::string what;
    if (!missing.empty())
      what = "missing " + someKeys(expected, missing);
    if (!extra.empty())
      what += (what.empty() ? "extra " : ", extra ") + someKeys(actual, extra);
    return mismatch(what);
  }
  // The actual values in the expected map's order.
  HostTensor aligned(expected.values.dtype(), expected.values.shape());
  for (int64_t i = 0; i < expected.size(); ++i)
    copyElement(actual.values, where[size_t(i)], aligned, i);
  c = compareTensors(aligned, expected.values, rtol, atol);
  if (c.numBad)
    c.firstKey = expected.keyString(c.firstBad);
  return c;
}

/// "tensor", "seq", "optional(tensor)", "optional(seq)", "map", "seq(map)".
static std::string kindString(const HostValue &v) {
  std::string s = v.holdsMaps() ? "map" : "tensor";
  if (v.holdsSequence())
    s = v.holdsMaps() ? "seq(map)" : "seq";
  return v.isOptional() ? "optional(" + s + ")" : s;
}

static double maxOrNaN(double a, double b) {
  return std::isnan(a) || std::isnan(b)
             ? std::numeric_limits<double>::quiet_NaN()
             : std::max(a, b);
}

ValueComparison compareValues(const HostValue &actual,
                              const HostValue &expected, double rtol,
                              double atol) {
  ValueComparison c;
  auto mismatch = [&](const std::string &what) {
    c.pass = false;
    c.mismatch = what;
    return c;
  };
  if (actual.kind() != expected.kind() ||
      actual.holdsSequence() != expected.holdsSequence() ||
      actual.holdsMaps() != expected.holdsMaps())
    return mismatch("kind " + kindString(actual) + ", expected " +
                    kindString(expected));
  if (actual.hasValue() != expected.hasValue())
    return mismatch(actual.hasValue() ? "a value, expected none"
                                      : "no value, expected one");
  if (!actual.hasValue())
    return c;
  // The tensor, the map, or each item of the sequence.
  bool maps = actual.holdsMaps();
  std::vector<const HostTensor *> a = actual.tensors(), e = expected.tensors();
  size_t numActual = maps ? actual.maps().size() : a.size();
  size_t numExpected = maps ? expected.maps().size() : e.size();
  if (actual.holdsSequence() && numActual != numExpected)
    return mismatch(std::to_string(numActual) + " item" +
                    (numActual == 1 ? "" : "s") + ", expected " +
                    std::to_string(numExpected));
  for (size_t i = 0; i < numActual; ++i) {
    Comparison item =
        maps ? compareMaps(actual.maps()[i], expected.maps()[i], rtol, atol)
             : compareTensors(*a[i], *e[i], rtol, atol);
    if (!item.mismatch.empty())
      return mismatch(actual.holdsSequence()
                          ? "item " + std::to_string(i) + ": " + item.mismatch
                          : item.mismatch);
    c.pass &= item.pass;
    c.maxAbsError = maxOrNaN(c.maxAbsError, item.maxAbsError);
    c.maxRelError = maxOrNaN(c.maxRelError, item.maxRelError);
    c.items.push_back(item);
  }
  return c;
}

bool identical(const HostTensor &a, const onnxc_tensor &b) {
  if (a.dtype() != b.dtype || int32_t(a.shape().size()) != b.rank)
    return false;
  if ((b.rank > 0 && !b.shape) || (a.sizeInBytes() && !b.data))
    return false;
  for (int32_t i = 0; i < b.rank; ++i)
    if (a.shape()[i] != b.shape[i])
      return false;
  if (a.isString()) {
    auto *pointers = static_cast<const char *const *>(b.data);
    for (size_t i = 0; i < a.strings().size(); ++i)
      if (!pointers[i] || !sameString(a.strings()[i], pointers[i]))
        return false;
    return true;
  }
  return a.sizeInBytes() == 0 ||
         std::memcmp(a.data(), b.data, a.sizeInBytes()) == 0;
}

} // namespace onnxc::runner
