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

/// "[v0, v1, ...]": the first `count` values of `t`.
std::string tensorValues(const HostTensor &t, int64_t count) {
  int64_t n = std::min<int64_t>(count, t.numElements());
  std::string s = "[";
  for (int64_t k = 0; k < n; ++k)
    s += (k ? ", " : "") + formatNumber(readAsDouble(t.dtype(), t.data(), k));
  return s + (n < t.numElements() ? ", ...]" : "]");
}

/// --print-outputs: " = [...]" for a tensor, " = [[...], [...]]" for the
/// first `count` items of a sequence, "" for an optional without a value.
std::string printedValues(const HostValue &value, int64_t count) {
  if (!value.hasValue())
    return "";
  if (!value.holdsSequence())
    return " = " + tensorValues(value.tensor(), count);
  const std::vector<HostTensor> &items = value.items();
  size_t n = std::min<size_t>(size_t(count), items.size());
  std::string s = " = [";
  for (size_t k = 0; k < n; ++k)
    s += (k ? ", " : "") + tensorValues(items[k], count);
  return s + (n < items.size() ? ", ...]" : "]");
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
    std::printf(": max abs error %s, max rel error %s: %s\n",
                formatNumber(c.maxAbsError).c_str(),
                formatNumber(c.maxRelError).c_str(), c.pass ? "PASS" : "FAIL");
    std::vector<const HostTensor *> tensors = out.tensors();
    for (size_t k = 0; k < c.items.size(); ++k) {
      const Comparison &item = c.items[k];
      if (item.pass)
        continue;
      std::string label =
          out.holdsSequence() ? "item " + std::to_string(k) + ": " : "";
      std::printf("  %s%" PRId64 " of %" PRId64
                  " elements differ (rtol %g, atol %g); first at %s: %s, "
                  "expected %s\n",
                  label.c_str(), item.numBad, item.numElements, options.rtol,
                  options.atol,
                  indexString(tensors[k]->shape(), item.firstBad).c_str(),
                  formatNumber(item.firstActual).c_str(),
                  formatNumber(item.firstExpected).c_str());
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
