//===- Outputs.cpp - Check, compare, print and save the outputs -----------===//

#include "Outputs.h"

#include "Compare.h"
#include "Inputs.h"
#include "ValueFile.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace onnxc::runner {

void checkOutputs(const CompiledModel &model, const OutputSet &outs) {
  const std::vector<ValueInfo> &sig = model.outputs();
  if (outs.size() != sig.size())
    fatal("onnxc_run returned " + std::to_string(outs.size()) +
          " outputs; the signature has " + std::to_string(sig.size()));
  for (size_t i = 0; i < sig.size(); ++i) {
    std::string problem =
        checkValue(outs[i], sig[i],
                   "output " + std::to_string(i) + " '" + sig[i].name + "'");
    if (!problem.empty())
      fatal(problem);
  }
}

namespace {

std::string formatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// How much of a string --print-outputs shows, and a failed comparison.
const size_t kPrintedBytes = 32, kComparedBytes = 64;

/// Element `k` of `t` as printed (a string quoted, a long one cut).
std::string elementString(const HostTensor &t, int64_t k) {
  return t.isString() ? quoteString(t.strings()[size_t(k)], kPrintedBytes)
                      : formatNumber(readAsDouble(t.dtype(), t.data(), k));
}

/// "[v0, v1, ...]": the first `count` values of `t` (strings quoted).
std::string tensorValues(const HostTensor &t, int64_t count) {
  int64_t n = std::min<int64_t>(count, t.numElements());
  std::string s = "[";
  for (int64_t k = 0; k < n; ++k)
    s += (k ? ", " : "") + elementString(t, k);
  return s + (n < t.numElements() ? ", ...]" : "]");
}

/// "{"a": 2, "b": 4, ...}": the first `count` entries of `m` in the order
/// of their keys.
std::string mapValues(const HostMap &m, int64_t count) {
  std::vector<int64_t> order = m.sortedOrder();
  size_t n = std::min<size_t>(size_t(count), order.size());
  std::string s = "{";
  for (size_t k = 0; k < n; ++k)
    s += (k ? ", " : "") + m.keyString(order[k]) + ": " +
         elementString(m.values, order[k]);
  return s + (n < order.size() ? ", ...}" : "}");
}

/// The first differing values of a failed comparison: "1.25, expected 9",
/// or for strings "\"AB\", expected \"AC\"" (with the byte where they first
/// differ when a string is too long to be shown whole).
std::string firstDifference(const Comparison &c, bool strings) {
  if (!strings)
    return formatNumber(c.firstActual) + ", expected " +
           formatNumber(c.firstExpected);
  const std::string &a = c.firstActualString, &e = c.firstExpectedString;
  std::string s = quoteString(a, kComparedBytes) + ", expected " +
                  quoteString(e, kComparedBytes);
  if (std::max(a.size(), e.size()) > kComparedBytes) {
    size_t at =
        std::mismatch(a.begin(), a.begin() + std::min(a.size(), e.size()),
                      e.begin())
            .first -
        a.begin();
    s += " (they differ from byte " + std::to_string(at) + ")";
  }
  return s;
}

/// --print-outputs: " = [...]" for a tensor, " = {...}" for a map, " =
/// [[...], [...]]" or " = [{...}, {...}]" for the first `count` items of a
/// sequence, "" for an optional without a value.
std::string printedValues(const HostValue &value, int64_t count) {
  if (!value.hasValue())
    return "";
  bool maps = value.holdsMaps();
  if (!value.holdsSequence())
    return " = " + (maps ? mapValues(value.maps()[0], count)
                         : tensorValues(value.tensor(), count));
  size_t items = maps ? value.maps().size() : value.items().size();
  size_t n = std::min<size_t>(size_t(count), items);
  std::string s = " = [";
  for (size_t k = 0; k < n; ++k)
    s += (k ? ", " : "") + (maps ? mapValues(value.maps()[k], count)
                                 : tensorValues(value.items()[k], count));
  return s + (n < items ? ", ...]" : "]");
}

} // namespace

bool compareOutputs(const CompiledModel &model,
                    const std::vector<HostValue> &outputs,
                    const Options &options) {
  const std::vector<ValueInfo> &sig = model.outputs();
  std::vector<std::optional<HostValue>> expected(sig.size());
  std::string countMismatch;
  bool any = false;
  if (!options.expectedDir.empty()) {
    bool gap;
    int count = countNumbered(options.expectedDir, "output", gap);
    if (count == 0)
      fatal(options.expectedDir + ": no output_0.pb");
    if (gap)
      fatal(options.expectedDir + ": output_K.pb files are not numbered 0, 1, "
                                  "... without gaps");
    if (size_t(count) != sig.size())
      countMismatch = options.expectedDir + " has " + std::to_string(count) +
                      " expected outputs; the model has " +
                      std::to_string(sig.size());
    for (int k = 0; k < count && size_t(k) < sig.size(); ++k)
      expected[k] = readValueOrDie(
          options.expectedDir + "/output_" + std::to_string(k) + ".pb", sig[k]);
    any = count > 0;
  }
  for (const auto &[name, file] : options.expected) {
    int i = findByName(sig, name);
    if (i < 0)
      fatal("the model has no output '" + name + "'; its outputs are " +
            listValues(sig));
    expected[i] = readValueOrDie(file, sig[i]);
    any = true;
  }

  int compared = 0, failed = 0;
  for (size_t i = 0; i < sig.size(); ++i) {
    const HostValue &out = outputs[i];
    std::printf("output %zu '%s' %s", i, sig[i].name.c_str(),
                valueString(out).c_str());
    if (options.printValues > 0)
      std::printf("%s", printedValues(out, options.printValues).c_str());
    if (!expected[i]) {
      std::printf("\n");
      continue;
    }
    ++compared;
    ValueComparison c =
        compareValues(out, *expected[i], options.rtol, options.atol);
    failed += !c.pass;
    if (!c.mismatch.empty()) {
      std::printf(": FAIL: %s\n", c.mismatch.c_str());
      continue;
    }
    if (!out.hasValue()) {
      std::printf(": no value, as expected: PASS\n");
      continue;
    }
    bool strings = out.dtype() == ONNXC_STRING;
    if (strings)
      std::printf(": %s\n",
                  c.pass ? "strings equal: PASS" : "strings differ: FAIL");
    else
      std::printf(": max abs error %s, max rel error %s: %s\n",
                  formatNumber(c.maxAbsError).c_str(),
                  formatNumber(c.maxRelError).c_str(),
                  c.pass ? "PASS" : "FAIL");
    std::vector<const HostTensor *> tensors = out.tensors();
    for (size_t k = 0; k < c.items.size(); ++k) {
      const Comparison &item = c.items[k];
      if (item.pass)
        continue;
      std::string label =
          out.holdsSequence() ? "item " + std::to_string(k) + ": " : "";
      std::string tolerance = strings ? ""
                                      : " (rtol " + formatNumber(options.rtol) +
                                            ", atol " +
                                            formatNumber(options.atol) + ")";
      std::string at = out.holdsMaps()
                           ? "key " + item.firstKey
                           : indexString(tensors[k]->shape(), item.firstBad);
      std::printf("  %s%" PRId64 " of %" PRId64 " %s differ%s; first at %s: "
                  "%s\n",
                  label.c_str(), item.numBad, item.numElements,
                  out.holdsMaps() ? "values" : "elements", tolerance.c_str(),
                  at.c_str(), firstDifference(item, strings).c_str());
    }
  }
  if (!any)
    return true;
  if (!countMismatch.empty())
    std::printf("result: FAIL (%s)\n", countMismatch.c_str());
  else if (failed)
    std::printf("result: FAIL (%d of %d compared outputs differ)\n", failed,
                compared);
  else
    std::printf("result: PASS (%d output%s compared)\n", compared,
                compared == 1 ? "" : "s");
  return countMismatch.empty() && failed == 0;
}

void saveOutputs(const CompiledModel &model,
                 const std::vector<HostValue> &outputs,
                 const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    fatal(dir + ": cannot create directory: " + ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string error;
    if (!writeValueFile(dir + "/output_" + std::to_string(i) + ".pb",
                        model.outputs()[i].name, outputs[i], error))
      fatal(error);
  }
}

} // namespace onnxc::runner
