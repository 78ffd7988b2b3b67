//===- Inputs.cpp - Bind a model's inputs ---------------------------------===//

#include "Inputs.h"

#include "ValueFile.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace onnxc::runner {

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

HostValue readValueOrDie(const std::string &path, const ValueInfo &info) {
  HostValue value;
  std::string error;
  if (!readValueFile(path, info, value, error))
    fatal(error);
  if (info.dtype == ONNXC_BFLOAT16 && value.dtype() == ONNXC_UINT16) {
    std::fprintf(stderr,
                 "onnxc-run: note: %s: uint16 data taken as bfloat16 bits\n",
                 path.c_str());
    value.reinterpretAs(ONNXC_BFLOAT16);
  }
  return value;
}

namespace {

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

/// A generated value of signature entry `info`: a tensor, a sequence of 2
/// tensors, or an optional holding either.
HostValue generatedValue(const ValueInfo &info, const Options &options,
                         Random &rng) {
  auto tensor = [&] {
    return options.randomInputs ? randomInput(info, options, rng)
                                : rampInput(info, options);
  };
  if (info.hasMaps())
    fatal("input '" + info.name + "' (" + info.describe() + ") is " +
          (info.isSequence() ? "a sequence of maps" : "a map") + ", which " +
          (options.randomInputs ? "--random-inputs" : "--ramp-inputs") +
          " cannot generate: bind it with --input " + info.name +
          "=FILE or --inputs DIR");
  if (info.dtype == ONNXC_STRING)
    fatal("input '" + info.name + "' (" + info.describe() +
          ") holds strings, which " +
          (options.randomInputs ? "--random-inputs" : "--ramp-inputs") +
          " cannot generate: bind it with --input " + info.name +
          "=FILE or --inputs DIR");
  HostValue value;
  if (!info.isSequence()) {
    value = HostValue::ofTensor(tensor());
  } else {
    if (!info.rankKnown)
      fatal("input '" + info.name + "' (" + info.describe() +
            ") is a sequence of tensors of unknown rank, which " +
            (options.randomInputs ? "--random-inputs" : "--ramp-inputs") +
            " cannot generate: bind it with --input " + info.name + "=FILE");
    std::vector<HostTensor> items;
    for (int k = 0; k < 2; ++k)
      items.push_back(tensor());
    value = HostValue::ofSequence(info.dtype, std::move(items));
  }
  if (info.isOptional())
    return HostValue::some(std::move(value));
  return value;
}

} // namespace

std::vector<HostValue> bindInputs(const CompiledModel &model,
                                  const Options &options,
                                  std::vector<std::string> &source) {
  const std::vector<ValueInfo> &sig = model.inputs();
  std::vector<std::optional<HostValue>> bound(sig.size());
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
      bound[k] = readValueOrDie(path, sig[k]);
      source[k] = path;
    }
  }
  for (const auto &[name, file] : options.inputs) {
    int i = findByName(sig, name);
    if (i < 0)
      fatal("the model has no input '" + name + "'; its inputs are " +
            listValues(sig));
    bound[i] = readValueOrDie(file, sig[i]);
    source[i] = file;
  }
  Random rng{options.seed};
  for (size_t i = 0; i < sig.size(); ++i) {
    if (bound[i])
      continue;
    if (options.randomInputs || options.rampInputs) {
      bound[i] = generatedValue(sig[i], options, rng);
      source[i] = options.randomInputs ? "--random-inputs" : "--ramp-inputs";
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
  std::vector<HostValue> result;
  for (auto &v : bound)
    result.push_back(std::move(*v));
  return result;
}

} // namespace onnxc::runner
