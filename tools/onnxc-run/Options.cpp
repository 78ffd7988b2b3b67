//===- Options.cpp - onnxc-run's command line -----------------------------===//

#include "Options.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace onnxc::runner {

namespace {

const char *usageText =
    "usage: onnxc-run MODEL.so [options]\n"
    "\n"
    "Inputs (named bindings win over --inputs; generated values fill the "
    "rest):\n"
    "  --input NAME=FILE       bind input NAME to a .npy or TensorProto .pb "
    "file\n"
    "                          (a sequence: a SequenceProto .pb file; an "
    "optional:\n"
    "                          an OptionalProto .pb file; a map: a MapProto "
    ".pb file)\n"
    "  --inputs DIR            bind DIR/input_K.pb to input K (backend-test "
    "layout)\n"
    "  --random-inputs         fill unbound inputs from --seed: floats "
    "uniform in\n"
    "                          [-1,1), integers in [0,4), bools 0/1; a "
    "sequence\n"
    "                          gets 2 tensors, an optional a value; strings "
    "and\n"
    "                          maps are not generated (bind them)\n"
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
    "                          (sequences and optionals: their kind, length "
    "and\n"
    "                          presence, then each tensor; maps: their keys, "
    "then\n"
    "                          each key's value, in any order)\n"
    "  --expected-dir DIR      compare output K with DIR/output_K.pb\n"
    "  --rtol R, --atol A      |actual-expected| <= atol + rtol*|expected| "
    "(1e-3, 1e-7)\n"
    "  --save-outputs DIR      write DIR/output_K.pb (TensorProto, "
    "SequenceProto,\n"
    "                          OptionalProto or MapProto)\n"
    "  --print-outputs N       print the first N values of each output (of "
    "each of\n"
    "                          the first N items of a sequence)\n"
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
    "  --input-memory host|device  device: a CUDA library gets its inputs as\n"
    "                          device memory (copied there once, before the\n"
    "                          runs; onnxc_run_with), its outputs as usual\n"
    "\n"
    "Training (a library compiled with onnxc --train; the inputs are the\n"
    "model's and the labels, the library keeps the rest):\n"
    "  --train-steps N         run N training steps on the inputs, printing "
    "the loss\n"
    "  --load-checkpoint F     start from checkpoint F (onnxc_train_load)\n"
    "  --save-checkpoint F     then write the state to F\n"
    "  --export-onnx OUT --base-model M.onnx\n"
    "                          write M with the trained state as its "
    "initializers\n"
    "  --train-eval DIR        then run the model for inference on the "
    "trained\n"
    "                          state (onnxc_train_eval; the inputs before the "
    "labels)\n"
    "                          and write DIR/output_K.pb\n"
    "\n"
    "Exit status: 0 success, 1 an output differs, 2 usage/load/run error.\n";

} // namespace

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "onnxc-run: error: %s\n", message.c_str());
  std::exit(ExitError);
}

namespace {

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

} // namespace

Options parseOptions(int argc, char **argv) {
  Options o;
  static const char *withValue[] = {
      "--input",           "--inputs",      "--expected",
      "--expected-dir",    "--rtol",        "--atol",
      "--save-outputs",    "--iterations",  "--warmup",
      "--threads",         "--seed",        "--dim",
      "--print-outputs",   "--concurrency", "--device",
      "--input-memory",    "--train-steps", "--load-checkpoint",
      "--save-checkpoint", "--export-onnx", "--base-model",
      "--train-eval"};
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
    else if (arg == "--train-steps")
      o.trainSteps = parseCount(arg, value, 0);
    else if (arg == "--load-checkpoint")
      o.loadCheckpoint = value;
    else if (arg == "--save-checkpoint")
      o.saveCheckpoint = value;
    else if (arg == "--export-onnx")
      o.exportOnnx = value;
    else if (arg == "--base-model")
      o.baseModel = value;
    else if (arg == "--train-eval")
      o.trainEval = value;
    else if (arg == "--device") {
      if (value != "cpu" && value != "cuda")
        usageError("--device takes cpu or cuda, not '" + value + "'");
      o.device = value;
    } else if (arg == "--input-memory") {
      if (value != "host" && value != "device")
        usageError("--input-memory takes host or device, not '" + value + "'");
      o.deviceInputs = value == "device";
    } else if (arg == "--concurrency")
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
  if (!o.exportOnnx.empty() && o.baseModel.empty())
    usageError("--export-onnx needs --base-model (the model compiled with "
               "--train)");
  if (o.concurrency > 1 && o.iterations == 0)
    o.iterations = 1;
  return o;
}

} // namespace onnxc::runner
