//===- onnxc-run.cpp - Run an onnxc-compiled model ------------------------===//
//
// onnxc-run MODEL.so [--input NAME=FILE]... [--inputs DIR]
//           [--expected NAME=FILE]... [--expected-dir DIR] [--rtol R]
//           [--atol A] [--save-outputs DIR] [--iterations N] [--warmup N]
//           [--threads T] [--concurrency C] [--random-inputs [--seed S]]
//           [--ramp-inputs]
//           [--dim NAME=VALUE]... [--check-determinism]
//
// Loads a model library with dlopen, binds its inputs (from .npy or
// TensorProto files, or generated), runs it, prints every output's dtype and
// shape, compares outputs with expected values by the ONNX backend test rule
// and optionally times repeated runs from several threads.
//
// Exit status: 0 when the run succeeded and every comparison passed, 1 when
// a comparison failed, 2 for usage, load and run errors.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "CompiledModel.h"
#include "TensorFile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

using namespace onnxc::runner;
namespace fs = std::filesystem;

namespace {

enum ExitCode { ExitOK = 0, ExitMismatch = 1, ExitError = 2 };

const char *usageText =
    "usage: onnxc-run MODEL.so [options]\n"
    "\n"
    "Inputs (named bindings win over --inputs; generated values fill the "
    "rest):\n"
    "  --input NAME=FILE       bind input NAME to a .npy or TensorProto .pb "
    "file\n"
    "  --inputs DIR            bind DIR/input_K.pb to input K (backend-test "
    "layout)\n"
    "  --random-inputs         fill unbound inputs from --seed: floats "
    "uniform in\n"
    "                          [-1,1), integers in [0,4), bools 0/1\n"
    "  --seed S                seed of --random-inputs (default 0)\n"
    "  --ramp-inputs           fill unbound float inputs with i/n (element i "
    "of n),\n"
    "                          the ONNX backend runner's input for light "
    "models\n"
    "  --dim NAME=VALUE        value of symbolic dim NAME for generated "
    "inputs\n"
    "                          (unnamed dynamic dims are 1)\n"
    "Checking:\n"
    "  --expected NAME=FILE    compare output NAME with a .npy or .pb file\n"
    "  --expected-dir DIR      compare output K with DIR/output_K.pb\n"
    "  --rtol R, --atol A      |actual-expected| <= atol + rtol*|expected| "
    "(1e-3, 1e-7)\n"
    "  --save-outputs DIR      write DIR/output_K.pb\n"
    "  --print-outputs N       print the first N values of each output\n"
    "  --check-determinism     run again on the same input buffers, then "
    "from\n"
    "                          4 threads at once (2 when a run takes 0.5 s or "
    "more):\n"
    "                          every output must equal "
    "the\n"
    "                          first run's bit for bit and no input may "
    "change\n"
    "                          (prints 'determinism: OK' or 'determinism: "
    "FAIL')\n"
    "Timing:\n"
    "  --iterations N          time N more runs (after --warmup runs)\n"
    "  --warmup N              untimed runs before the timed ones (default "
    "0)\n"
    "  --threads T             intra-op threads of the model (its\n"
    "                          onnxc_set_num_threads; default: the library's,\n"
    "                          ONNXC_NUM_THREADS or the available cores)\n"
    "  --concurrency C         run the iterations from C threads at once; "
    "each\n"
    "                          caller's outputs must equal the first run's\n"
    "Device:\n"
    "  --device cpu|cuda       require the library to run there (onnxc "
    "--target);\n"
    "                          a CUDA library runs on CUDA either way, its "
    "inputs\n"
    "                          and outputs in host memory\n"
    "\n"
    "Exit status: 0 success, 1 an output differs, 2 usage/load/run error.\n";

struct Options {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs, expected;
  std::string inputsDir, expectedDir, saveDir;
  double rtol = 1e-3, atol = 1e-7;
  int iterations = 0, warmup = 0, concurrency = 1;
  int threads = 0; // intra-op; 0: the library's default
  std::string device; // --device: what the library must run on ("" any)
  bool randomInputs = false, rampInputs = false, checkDeterminism = false;
  int printValues = 0;
  uint64_t seed = 0;
  std::map<std::string, int64_t> dims;
};

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "onnxc-run: error: %s\n", message.c_str());
  std::exit(ExitError);
}

[[noreturn]] void usageError(const std::string &message) {
  std::fprintf(stderr,
               "onnxc-run: error: %s\nusage: onnxc-run MODEL.so [options] "
               "(--help lists them)\n",
               message.c_str());
  std::exit(ExitError);
}

bool parseInt(const std::string &s, int64_t &value) {
  if (s.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end)
    return false;
  value = v;
  return true;
}

int parseCount(const std::string &option, const std::string &s, int min) {
  int64_t v;
  if (!parseInt(s, v) || v < min || v > 1000000000)
    usageError(option + " needs an integer >= " + std::to_string(min) +
               ", got '" + s + "'");
  return int(v);
}

double parseTolerance(const std::string &option, const std::string &s) {
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !(v >= 0))
    usageError(option + " needs a non-negative number, got '" + s + "'");
  return v;
}

std::pair<std::string, std::string> parseBinding(const std::string &option,
                                                 const std::string &s) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    usageError(option + " needs NAME=VALUE, got '" + s + "'");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

Options parseOptions(int argc, char **argv) {
  Options o;
  static const char *withValue[] = {
      "--input",  "--inputs",  "--expected",     "--expected-dir",
      "--rtol",   "--atol",    "--save-outputs", "--iterations",
      "--warmup", "--threads", "--seed",         "--dim",
      "--print-outputs", "--concurrency", "--device"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(usageText, stdout);
      std::exit(ExitOK);
    }
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      if (arg == "--" && i + 1 < argc)
        arg = argv[++i];
      if (!o.model.empty())
        usageError("more than one model given ('" + o.model + "' and '" + arg +
                   "')");
      o.model = arg;
      continue;
    }
    if (arg == "--random-inputs") {
      o.randomInputs = true;
      continue;
    }
    if (arg == "--ramp-inputs") {
      o.rampInputs = true;
      continue;
    }
    if (arg == "--check-determinism") {
      o.checkDeterminism = true;
      continue;
    }
    std::string value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    if (std::find_if(std::begin(withValue), std::end(withValue),
                     [&](const char *s) { return arg == s; }) ==
        std::end(withValue))
      usageError("unknown option '" + arg + "'");
    if (eq == std::string::npos) {
      if (i + 1 >= argc)
        usageError(arg + " needs a value");
      value = argv[++i];
    }
    if (arg == "--input")
      o.inputs.push_back(parseBinding(arg, value));
    else if (arg == "--expected")
      o.expected.push_back(parseBinding(arg, value));
    else if (arg == "--inputs")
      o.inputsDir = value;
    else if (arg == "--expected-dir")
      o.expectedDir = value;
    else if (arg == "--save-outputs")
      o.saveDir = value;
    else if (arg == "--rtol")
      o.rtol = parseTolerance(arg, value);
    else if (arg == "--atol")
      o.atol = parseTolerance(arg, value);
    else if (arg == "--iterations")
      o.iterations = parseCount(arg, value, 0);
    else if (arg == "--warmup")
      o.warmup = parseCount(arg, value, 0);
    else if (arg == "--print-outputs")
      o.printValues = parseCount(arg, value, 0);
    else if (arg == "--threads")
      o.threads = parseCount(arg, value, 1);
    else if (arg == "--device") {
      if (value != "cpu" && value != "cuda")
        usageError("--device takes cpu or cuda, not '" + value + "'");
      o.device = value;
    }
    else if (arg == "--concurrency")
      o.concurrency = parseCount(arg, value, 1);
    else if (arg == "--seed") {
      char *end = nullptr;
      errno = 0;
      o.seed = std::strtoull(value.c_str(), &end, 0);
      if (value.empty() || *end || errno)
        usageError("--seed needs a non-negative integer, got '" + value + "'");
    } else if (arg == "--dim") {
      auto [name, text] = parseBinding(arg, value);
      int64_t v;
      if (!parseInt(text, v) || v < 0)
        usageError("--dim " + name + " needs a non-negative integer, got '" +
                   text + "'");
      o.dims[name] = v;
    }
  }
  if (o.model.empty())
    usageError("no model library given");
  if (o.randomInputs && o.rampInputs)
    usageError("--random-inputs and --ramp-inputs exclude each other");
  if (o.concurrency > 1 && o.iterations == 0)
    o.iterations = 1;
  return o;
}

const char *statusName(onnxc_status status) {
  switch (status) {
  case ONNXC_OK:
    return "ONNXC_OK";
  case ONNXC_ERROR_INVALID_ARGUMENT:
    return "ONNXC_ERROR_INVALID_ARGUMENT";
  case ONNXC_ERROR_DTYPE:
    return "ONNXC_ERROR_DTYPE";
  case ONNXC_ERROR_RANK:
    return "ONNXC_ERROR_RANK";
  case ONNXC_ERROR_SHAPE:
    return "ONNXC_ERROR_SHAPE";
  case ONNXC_ERROR_OUT_OF_MEMORY:
    return "ONNXC_ERROR_OUT_OF_MEMORY";
  case ONNXC_ERROR_RUNTIME:
    return "ONNXC_ERROR_RUNTIME";
  case ONNXC_ERROR_DEVICE:
    return "ONNXC_ERROR_DEVICE";
  }
  return "unknown status";
}

std::string listValues(const std::vector<ValueInfo> &values) {
  std::string s;
  for (const ValueInfo &v : values)
    s += (s.empty() ? "" : ", ") + v.describe();
  return s.empty() ? "none" : s;
}

int findByName(const std::vector<ValueInfo> &values, const std::string &name) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name)
      return int(i);
  return -1;
}

/// Number of consecutive PREFIX_K.pb files (K = 0, 1, ...) in `dir`, and
/// whether any PREFIX_*.pb lies beyond them.
int countNumbered(const std::string &dir, const std::string &prefix,
                  bool &gap) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    fatal(dir + ": not a directory");
  int total = 0;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix + "_", 0) == 0 && n.size() > 3 &&
        n.compare(n.size() - 3, 3, ".pb") == 0)
      ++total;
  }
  int k = 0;
  while (fs::exists(dir + "/" + prefix + "_" + std::to_string(k) + ".pb"))
    ++k;
  gap = k != total;
  return k;
}

/// Reads a tensor file for a value of type `want`. ONNX 1.12's backend test
/// data stores bfloat16 values as uint16 tensors of their bits, so a uint16
/// tensor for a bfloat16 value is taken as bfloat16.
HostTensor readOrDie(const std::string &path, int32_t want) {
  HostTensor t;
  std::string name, error;
  if (!readTensorFile(path, t, name, error))
    fatal(error);
  if (want == ONNXC_BFLOAT16 && t.dtype() == ONNXC_UINT16) {
    std::fprintf(stderr,
                 "onnxc-run: note: %s: uint16 data taken as bfloat16 bits\n",
                 path.c_str());
    t.reinterpretAs(ONNXC_BFLOAT16);
  }
  return t;
}

/// SplitMix64: a tiny generator whose stream is the same everywhere.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; } // [0,1)
};

void storeFloat(HostTensor &t, int64_t i, double v) {
  void *p = t.data();
  switch (t.dtype()) {
  case ONNXC_FLOAT:
  case ONNXC_COMPLEX64:
    static_cast<float *>(p)[i] = float(v);
    break;
  case ONNXC_DOUBLE:
  case ONNXC_COMPLEX128:
    static_cast<double *>(p)[i] = v;
    break;
  case ONNXC_FLOAT16:
    static_cast<uint16_t *>(p)[i] = floatToHalf(float(v));
    break;
  case ONNXC_BFLOAT16:
    static_cast<uint16_t *>(p)[i] = floatToBFloat16(float(v));
    break;
  }
}

void storeInteger(HostTensor &t, int64_t i, uint64_t v) {
  std::memcpy(static_cast<unsigned char *>(t.data()) +
                  i * elementSize(t.dtype()),
              &v, elementSize(t.dtype())); // little-endian: the low bytes
}

/// The shape of a generated input: static dims as they are, named dynamic
/// dims from --dim, unnamed ones 1 (`namedDefault` >= 0: named ones too).
std::vector<int64_t> generatedShape(const ValueInfo &info,
                                    const Options &options,
                                    int64_t namedDefault) {
  std::vector<int64_t> shape;
  for (size_t a = 0; a < info.dims.size(); ++a) {
    if (info.dims[a] >= 0) {
      shape.push_back(info.dims[a]);
      continue;
    }
    const std::string &dimName = info.dimNames[a];
    auto it = options.dims.find(dimName);
    if (!dimName.empty() && it != options.dims.end())
      shape.push_back(it->second);
    else if (dimName.empty())
      shape.push_back(1);
    else if (namedDefault >= 0)
      shape.push_back(namedDefault);
    else
      fatal("input '" + info.name + "' (" + info.describe() +
            ") has the symbolic dim '" + dimName +
            "': give its value with --dim " + dimName + "=VALUE");
  }
  return shape;
}

HostTensor randomInput(const ValueInfo &info, const Options &options,
                       Random &rng) {
  if (!elementSize(info.dtype))
    fatal("cannot generate input '" + info.name + "' of type " +
          dtypeName(info.dtype));
  HostTensor t(info.dtype, generatedShape(info, options, -1));
  if (isNarrowFloat(info.dtype) || packedBits(info.dtype)) {
    // Random bits (NaNs of the float8 types included).
    auto *bytes = static_cast<unsigned char *>(t.data());
    for (size_t i = 0; i < t.sizeInBytes(); ++i)
      bytes[i] = static_cast<unsigned char>(rng.next() >> 56);
    return t;
  }
  int64_t n = t.numElements() * (isComplex(info.dtype) ? 2 : 1);
  for (int64_t i = 0; i < n; ++i) {
    if (isFloatingPoint(info.dtype))
      storeFloat(t, i, 2 * rng.uniform() - 1);
    else if (info.dtype == ONNXC_BOOL)
      storeInteger(t, i, rng.next() >> 63);
    else
      storeInteger(t, i, rng.next() >> 62); // 0..3
  }
  return t;
}

/// The ONNX backend runner's generate_dummy_data(random=False): element i of
/// n is float32(i / n), every dynamic dim 1 unless --dim says otherwise.
HostTensor rampInput(const ValueInfo &info, const Options &options) {
  if (!isFloatingPoint(info.dtype) || isComplex(info.dtype) ||
      isNarrowFloat(info.dtype))
    fatal("--ramp-inputs fills float inputs only; input '" + info.name +
          "' is " + dtypeName(info.dtype) + ": bind it with --input");
  HostTensor t(info.dtype, generatedShape(info, options, 1));
  int64_t n = t.numElements();
  for (int64_t i = 0; i < n; ++i)
    storeFloat(t, i,
               info.dtype == ONNXC_DOUBLE
                   ? double(i) / double(n)
                   : double(float(double(i) / double(n))));
  return t;
}

std::vector<HostTensor> bindInputs(const CompiledModel &model,
                                   const Options &options,
                                   std::vector<std::string> &source) {
  const std::vector<ValueInfo> &sig = model.inputs();
  std::vector<std::optional<HostTensor>> bound(sig.size());
  source.assign(sig.size(), "");

  if (!options.inputsDir.empty()) {
    bool gap;
    int count = countNumbered(options.inputsDir, "input", gap);
    if (count == 0 && !sig.empty())
      fatal(options.inputsDir + ": no input_0.pb");
    if (gap)
      fatal(options.inputsDir + ": input_K.pb files are not numbered 0, 1, "
                                "... without gaps");
    if (size_t(count) > sig.size())
      fatal(options.inputsDir + " has " + std::to_string(count) +
            " input files but the model has " + std::to_string(sig.size()) +
            " inputs (" + listValues(sig) + ")");
    for (int k = 0; k < count; ++k) {
      std::string path =
          options.inputsDir + "/input_" + std::to_string(k) + ".pb";
      bound[k] = readOrDie(path, sig[k].dtype);
      source[k] = path;
    }
  }
  for (const auto &[name, file] : options.inputs) {
    int i = findByName(sig, name);
    if (i < 0)
      fatal("the model has no input '" + name + "'; its inputs are " +
            listValues(sig));
    bound[i] = readOrDie(file, sig[i].dtype);
    source[i] = file;
  }
  Random rng{options.seed};
  for (size_t i = 0; i < sig.size(); ++i) {
    if (bound[i])
      continue;
    if (options.randomInputs) {
      bound[i] = randomInput(sig[i], options, rng);
      source[i] = "--random-inputs";
    } else if (options.rampInputs) {
      bound[i] = rampInput(sig[i], options);
      source[i] = "--ramp-inputs";
    } else
      fatal("input '" + sig[i].name + "' (" + sig[i].describe() +
            ") has no value: use --input " + sig[i].name +
            "=FILE, --inputs DIR, --random-inputs or --ramp-inputs");
  }
  for (const auto &[name, value] : options.dims) {
    bool used = false;
    for (const ValueInfo &v : sig)
      used |= std::find(v.dimNames.begin(), v.dimNames.end(), name) !=
              v.dimNames.end();
    if (!used)
      std::fprintf(stderr,
                   "onnxc-run: warning: --dim %s: no input has that dim\n",
                   name.c_str());
  }
  std::vector<HostTensor> result;
  for (auto &t : bound)
    result.push_back(std::move(*t));
  return result;
}

/// Checks that the library's outputs match its own signature.
void checkOutputs(const CompiledModel &model, const OutputSet &outs) {
  const std::vector<ValueInfo> &sig = model.outputs();
  if (outs.size() != sig.size())
    fatal("onnxc_run returned " + std::to_string(outs.size()) +
          " outputs; the signature has " + std::to_string(sig.size()));
  for (size_t i = 0; i < sig.size(); ++i) {
    const onnxc_tensor &t = outs[i];
    std::string what = "output " + std::to_string(i) + " '" + sig[i].name + "'";
    if (t.dtype != sig[i].dtype)
      fatal(what + " has dtype " + dtypeName(t.dtype) +
            "; the signature says " + dtypeName(sig[i].dtype));
    if (t.rank != int32_t(sig[i].dims.size()))
      fatal(what + " has rank " + std::to_string(t.rank) +
            "; the signature says " + std::to_string(sig[i].dims.size()));
    for (int32_t a = 0; a < t.rank; ++a)
      if (t.shape[a] < 0 ||
          (sig[i].dims[a] >= 0 && t.shape[a] != sig[i].dims[a]))
        fatal(what + " has dim " + std::to_string(a) + " = " +
              std::to_string(t.shape[a]) + "; the signature says " +
              sig[i].describe());
    if (!elementSize(t.dtype))
      fatal(what + " has dtype " + dtypeName(t.dtype) +
            ", which onnxc-run cannot read");
    if (!t.data && numElements(std::vector<int64_t>(t.shape, t.shape + t.rank)))
      fatal(what + " has no data");
  }
}

std::string formatMs(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v >= 1 ? "%.3f" : "%.3g", v);
  return buf;
}

std::string formatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// Compares every output that has an expected value; returns whether all
/// passed (and the counts match).
bool compareOutputs(const CompiledModel &model,
                    const std::vector<HostTensor> &outputs,
                    const Options &options) {
  const std::vector<ValueInfo> &sig = model.outputs();
  std::vector<std::optional<HostTensor>> expected(sig.size());
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
      expected[k] = readOrDie(options.expectedDir + "/output_" +
                                  std::to_string(k) + ".pb",
                              sig[k].dtype);
    any = count > 0;
  }
  for (const auto &[name, file] : options.expected) {
    int i = findByName(sig, name);
    if (i < 0)
      fatal("the model has no output '" + name + "'; its outputs are " +
            listValues(sig));
    expected[i] = readOrDie(file, sig[i].dtype);
    any = true;
  }

  int compared = 0, failed = 0;
  for (size_t i = 0; i < sig.size(); ++i) {
    const HostTensor &out = outputs[i];
    std::printf("output %zu '%s' %s%s", i, sig[i].name.c_str(),
                dtypeName(out.dtype()).c_str(),
                shapeString(out.shape()).c_str());
    if (options.printValues > 0) {
      int64_t n = std::min<int64_t>(options.printValues,
                                    numElements(out.shape()));
      std::printf(" = [");
      for (int64_t k = 0; k < n; ++k)
        std::printf("%s%.6g", k ? ", " : "",
                    readAsDouble(out.dtype(), out.data(), k));
      std::printf("%s]", n < numElements(out.shape()) ? ", ..." : "");
    }
    if (!expected[i]) {
      std::printf("\n");
      continue;
    }
    ++compared;
    Comparison c =
        compareTensors(out, *expected[i], options.rtol, options.atol);
    failed += !c.pass;
    if (!c.mismatch.empty()) {
      std::printf(": FAIL: %s\n", c.mismatch.c_str());
      continue;
    }
    std::printf(": max abs error %s, max rel error %s: %s\n",
                formatNumber(c.maxAbsError).c_str(),
                formatNumber(c.maxRelError).c_str(), c.pass ? "PASS" : "FAIL");
    if (!c.pass)
      std::printf("  %" PRId64 " of %" PRId64
                  " elements differ (rtol %g, atol %g); first at %s: %s, "
                  "expected %s\n",
                  c.numBad, c.numElements, options.rtol, options.atol,
                  indexString(out.shape(), c.firstBad).c_str(),
                  formatNumber(c.firstActual).c_str(),
                  formatNumber(c.firstExpected).c_str());
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
                 const std::vector<HostTensor> &outputs,
                 const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    fatal(dir + ": cannot create directory: " + ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string error;
    if (!writeTensorProto(dir + "/output_" + std::to_string(i) + ".pb",
                          model.outputs()[i].name, outputs[i], error))
      fatal(error);
  }
}

/// Runs warmup + iterations from `concurrency` threads and prints the
/// latencies.
/// Returns the exit code of this phase.
int timeRuns(const CompiledModel &model,
             const std::vector<onnxc_tensor> &inputs,
             const std::vector<HostTensor> &reference, const Options &options) {
  int threads = options.concurrency;
  std::vector<std::vector<double>> latencies(threads);
  std::vector<std::string> errors(threads), differences(threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};

  auto worker = [&](int t) {
    ready.fetch_add(1);
    while (!go.load())
      std::this_thread::yield();
    OutputSet outs;
    for (int i = 0; i < options.warmup + options.iterations; ++i) {
      auto start = std::chrono::steady_clock::now();
      std::string error;
      onnxc_status status = model.run(inputs, outs, error);
      auto stop = std::chrono::steady_clock::now();
      if (status != ONNXC_OK) {
        errors[t] = std::string(statusName(status)) + ": " + error;
        return;
      }
      if (i >= options.warmup)
        latencies[t].push_back(
            std::chrono::duration<double, std::milli>(stop - start).count());
      // With several threads, every run must reproduce the first one.
      if (threads > 1 && differences[t].empty()) {
        for (size_t o = 0; o < reference.size() && o < outs.size(); ++o)
          if (!identical(reference[o], outs[o])) {
            differences[t] = "thread " + std::to_string(t) + " run " +
                             std::to_string(i) + ": output " +
                             std::to_string(o) + " differs from the first run";
            break;
          }
      }
      outs.reset();
    }
  };

  if (threads == 1) {
    go = true;
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back(worker, t);
    while (ready.load() < threads)
      std::this_thread::yield();
    go = true;
    for (std::thread &th : pool)
      th.join();
  }

  int code = ExitOK;
  for (int t = 0; t < threads; ++t)
    if (!errors[t].empty()) {
      std::fprintf(stderr,
                   "onnxc-run: error: thread %d: onnxc_run failed: %s\n", t,
                   errors[t].c_str());
      code = ExitError;
    }
  for (int t = 0; t < threads; ++t)
    if (!differences[t].empty()) {
      std::printf("FAIL: %s\n", differences[t].c_str());
      if (code == ExitOK)
        code = ExitMismatch;
    }
  std::vector<double> all;
  for (auto &l : latencies)
    all.insert(all.end(), l.begin(), l.end());
  if (all.empty())
    return code;
  std::sort(all.begin(), all.end());
  size_t n = all.size();
  double median = n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
  double mean = 0;
  for (double v : all)
    mean += v;
  mean /= double(n);
  std::printf("latency: min %s ms, median %s ms\n",
              formatMs(all.front()).c_str(), formatMs(median).c_str());
  std::printf("mean %s ms, max %s ms over %zu runs (%d caller%s x %d "
              "iterations, %d warmup)\n",
              formatMs(mean).c_str(), formatMs(all.back()).c_str(), n, threads,
              threads == 1 ? "" : "s", options.iterations, options.warmup);
  return code;
}

/// The first difference between the inputs now and before any run, or "".
std::string changedInput(const CompiledModel &model,
                         const std::vector<onnxc_tensor> &inputs,
                         const std::vector<HostTensor> &pristine) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!identical(pristine[i], inputs[i]))
      return "input " + std::to_string(i) + " ('" + model.inputs()[i].name +
             "') was modified by the model";
  return "";
}

/// --check-determinism: the model must give the first run's outputs bit for
/// bit when run again on the same input buffers and from several threads at
/// once, and must never write its inputs. Returns the exit code.
/// Models whose first run took `firstRunMs` or more get fewer concurrent
/// runs (2 threads, one run each) than quick ones (4 threads, two runs
/// each), to keep the conformance sweep's time in bounds.
int checkDeterminism(const CompiledModel &model,
                     const std::vector<onnxc_tensor> &inputs,
                     const std::vector<HostTensor> &pristine,
                     const std::vector<HostTensor> &reference,
                     double firstRunMs) {
  bool slow = firstRunMs >= 500;
  const int kThreads = slow ? 2 : 4, kRunsPerThread = slow ? 1 : 2;
  auto report = [](const std::string &what) {
    std::printf("determinism: FAIL: %s\n", what.c_str());
    std::fflush(stdout);
    return ExitMismatch;
  };
  std::string problem = changedInput(model, inputs, pristine);
  if (!problem.empty())
    return report(problem + " (first run)");
  auto runOnce = [&](const std::string &label, std::string &difference) {
    OutputSet outs;
    std::string error;
    onnxc_status status = model.run(inputs, outs, error);
    if (status != ONNXC_OK) {
      difference = label + ": onnxc_run failed (" + statusName(status) +
                   "): " + error;
      return;
    }
    for (size_t o = 0; o < reference.size() && o < outs.size(); ++o)
      if (!identical(reference[o], outs[o])) {
        difference = label + ": output " + std::to_string(o) + " ('" +
                     model.outputs()[o].name + "') differs from the first run";
        return;
      }
  };
  runOnce("second run", problem);
  if (problem.empty())
    problem = changedInput(model, inputs, pristine);
  if (!problem.empty())
    return report(problem);
  std::vector<std::string> differences(kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < kRunsPerThread && differences[t].empty(); ++i)
        runOnce("thread " + std::to_string(t) + " run " + std::to_string(i),
                differences[t]);
    });
  for (std::thread &th : pool)
    th.join();
  for (const std::string &d : differences)
    if (!d.empty())
      return report(d);
  problem = changedInput(model, inputs, pristine);
  if (!problem.empty())
    return report(problem + " (concurrent runs)");
  std::printf("determinism: OK (%d runs on the same inputs, %d of them from "
              "%d threads at once)\n",
              1 + kThreads * kRunsPerThread + 1, kThreads * kRunsPerThread,
              kThreads);
  return ExitOK;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);

  CompiledModel model;
  std::string error;
  {
    std::error_code ec;
    if (!fs::exists(options.model, ec))
      fatal(options.model + ": no such file");
  }
  if (!model.load(options.model, error))
    fatal("cannot load " + options.model + ": " + error);
  std::string device = model.device();
  if (!options.device.empty() && options.device != device)
    fatal(options.model + " runs on " + device + " (onnxc --target=" +
          device + "), not " + options.device);
  if (device != "cpu") {
    std::printf("device: %s\n", device.c_str());
    std::fflush(stdout);
  }
  if (options.threads > 0 && !model.setNumThreads(options.threads))
    fatal("--threads: " + options.model +
          " does not export onnxc_set_num_threads");

  std::vector<std::string> sources;
  std::vector<HostTensor> inputs = bindInputs(model, options, sources);
  std::vector<onnxc_tensor> views;
  for (const HostTensor &t : inputs)
    views.push_back(t.view());

  std::vector<HostTensor> pristine;
  if (options.checkDeterminism)
    for (const onnxc_tensor &v : views)
      pristine.push_back(copyTensor(v));

  OutputSet outs;
  auto firstStart = std::chrono::steady_clock::now();
  onnxc_status status = model.run(views, outs, error);
  double firstRunMs = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - firstStart)
                          .count();
  if (status != ONNXC_OK) {
    std::string message =
        std::string("onnxc_run failed (") + statusName(status) + "): " + error;
    if (status != ONNXC_ERROR_RUNTIME && status != ONNXC_ERROR_OUT_OF_MEMORY) {
      // Say what was passed next to what the model wants.
      for (size_t i = 0; i < inputs.size(); ++i)
        message += "\n  input " + std::to_string(i) + " " +
                   model.inputs()[i].describe() + " <- " +
                   dtypeName(inputs[i].dtype()) +
                   shapeString(inputs[i].shape()) + " from " + sources[i];
    }
    fatal(message);
  }
  checkOutputs(model, outs);
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < outs.size(); ++i)
    outputs.push_back(copyTensor(outs[i]));
  outs.reset();

  bool pass = compareOutputs(model, outputs, options);
  if (!options.saveDir.empty())
    saveOutputs(model, outputs, options.saveDir);
  std::fflush(stdout);

  int code = pass ? ExitOK : ExitMismatch;
  if (options.checkDeterminism)
    code = std::max(code, checkDeterminism(model, views, pristine, outputs,
                                               firstRunMs));
  if (options.iterations > 0) {
    int timed = timeRuns(model, views, outputs, options);
    code = std::max(code, timed);
  }
  std::fflush(stdout);
  return code;
}
