//===- Options.h - onnxc-run's command line ---------------------*- C++ -*-===//
//
// The options of onnxc-run, their parsing, and how it reports a fatal error
// and exits.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_OPTIONS_H
#define ONNXC_TOOLS_ONNXC_RUN_OPTIONS_H

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace onnxc::runner {

enum ExitCode { ExitOK = 0, ExitMismatch = 1, ExitError = 2 };

struct Options {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs, expected;
  std::string inputsDir, expectedDir, saveDir;
  double rtol = 1e-3, atol = 1e-7;
  int iterations = 0, warmup = 0, concurrency = 1;
  int threads = 0;    // intra-op; 0: the library's default
  std::string device; // --device: what the library must run on ("" any)
  bool deviceInputs = false; // --input-memory device
  bool randomInputs = false, rampInputs = false, checkDeterminism = false;
  int printValues = 0;
  uint64_t seed = 0;
  std::map<std::string, int64_t> dims;
  /// Training (a library compiled with onnxc --train): steps to run, the
  /// checkpoints to load before and save after, and the ONNX model to write
  /// with the trained state as its initializers (from --base-model).
  /// --train-eval: where to write the outputs of the model run for
  /// inference on the trained state (onnxc_train_eval).
  int trainSteps = 0;
  std::string loadCheckpoint, saveCheckpoint, exportOnnx, baseModel, trainEval;
};

/// Parses the command line; prints the usage and exits for --help, reports
/// a usage error and exits with ExitError for a bad one.
Options parseOptions(int argc, char **argv);

/// Prints "onnxc-run: error: MESSAGE" and exits with ExitError.
[[noreturn]] void fatal(const std::string &message);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_OPTIONS_H
