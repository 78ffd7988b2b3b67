//===- onnxc-run.cpp - Run an onnxc-compiled model ------------------------===//
//
// onnxc-run MODEL.so [--input NAME=FILE]... [--inputs DIR]
//           [--expected NAME=FILE]... [--expected-dir DIR] [--rtol R]
//           [--atol A] [--save-outputs DIR] [--iterations N] [--warmup N]
//           [--threads T] [--concurrency C] [--random-inputs [--seed S]]
//           [--ramp-inputs]
//           [--dim NAME=VALUE]... [--check-determinism]
//
// Loads a model library with dlopen, binds its inputs (tensors from .npy or
// TensorProto files, tensors of strings from TensorProto files, sequences
// and optionals from SequenceProto and OptionalProto files, maps from
// MapProto files, sequences of maps from SequenceProto files, or generated),
// runs it, prints every output's type and shape, compares outputs with
// expected values by the ONNX backend test rule (strings exactly) and
// optionally times repeated runs from several threads.
//
// Exit status: 0 when the run succeeded and every comparison passed, 1 when
// a comparison failed, 2 for usage, load and run errors.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "CompiledModel.h"
#include "DeviceInputs.h"
#include "Inputs.h"
#include "Options.h"
#include "Outputs.h"
#include "Train.h"
#include "Value.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

using namespace onnxc::runner;
namespace fs = std::filesystem;

namespace {

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

std::string formatMs(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v >= 1 ? "%.3f" : "%.3g", v);
  return buf;
}

/// What the messages call a run: every run goes through onnxc_run_values,
/// which for a model of tensors does what onnxc_run does.
std::string runName(const CompiledModel &model) {
  if (model.hasDeviceInputs())
    return "onnxc_run_with";
  return model.hasNonTensorValues() ? "onnxc_run_values" : "onnxc_run";
}

/// " item 2" when `where` names one ("item 2", "key 3", "item 1 keys"),
/// else "".
std::string itemSuffix(const std::string &where) {
  return where.empty() ? "" : " " + where;
}

/// Runs warmup + iterations from `concurrency` threads and prints the
/// latencies.
/// Returns the exit code of this phase.
int timeRuns(const CompiledModel &model, const std::vector<onnxc_value> &inputs,
             const std::vector<HostValue> &reference, const Options &options) {
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
        std::string where;
        for (size_t o = 0; o < reference.size() && o < outs.size(); ++o)
          if (!identical(reference[o], outs[o], &where)) {
            differences[t] = "thread " + std::to_string(t) + " run " +
                             std::to_string(i) + ": output " +
                             std::to_string(o) + itemSuffix(where) +
                             " differs from the first run";
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
      std::fprintf(stderr, "onnxc-run: error: thread %d: %s failed: %s\n", t,
                   runName(model).c_str(), errors[t].c_str());
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

/// The first difference between the inputs now and before any run, or "":
/// the values the views show, and the `const char *` arrays of the tensors
/// of strings, which must still point at the strings `bound` owns.
std::string changedInput(const CompiledModel &model,
                         const std::vector<onnxc_value> &inputs,
                         const std::vector<HostValue> &bound,
                         const std::vector<HostValue> &pristine) {
  std::string where;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string input =
        "input " + std::to_string(i) + " ('" + model.inputs()[i].name + "')";
    if (!identical(pristine[i], inputs[i], &where))
      return input + itemSuffix(where) + " was modified by the model";
    for (const auto &[label, tensor] : bound[i].labeledTensors()) {
      int64_t changed = tensor->changedStringPointer();
      if (changed >= 0)
        return input + itemSuffix(label) +
               " was modified by the model: the string pointer of element " +
               indexString(tensor->shape(), changed) + " changed";
    }
  }
  return "";
}

/// --check-determinism: the model must give the first run's outputs bit for
/// bit when run again on the same input buffers and from several threads at
/// once, and must never write its inputs. Returns the exit code.
/// Models whose first run took `firstRunMs` or more get fewer concurrent
/// runs (2 threads, one run each) than quick ones (4 threads, two runs
/// each), to keep the conformance sweep's time in bounds.
int checkDeterminism(const CompiledModel &model,
                     const std::vector<onnxc_value> &inputs,
                     const std::vector<HostValue> &bound,
                     const std::vector<HostValue> &pristine,
                     const std::vector<HostValue> &reference,
                     double firstRunMs) {
  bool slow = firstRunMs >= 500;
  const int kThreads = slow ? 2 : 4, kRunsPerThread = slow ? 1 : 2;
  auto report = [](const std::string &what) {
    std::printf("determinism: FAIL: %s\n", what.c_str());
    std::fflush(stdout);
    return ExitMismatch;
  };
  std::string problem = changedInput(model, inputs, bound, pristine);
  if (!problem.empty())
    return report(problem + " (first run)");
  auto runOnce = [&](const std::string &label, std::string &difference) {
    OutputSet outs;
    std::string error;
    onnxc_status status = model.run(inputs, outs, error);
    if (status != ONNXC_OK) {
      difference = label + ": " + runName(model) + " failed (" +
                   statusName(status) + "): " + error;
      return;
    }
    std::string where;
    for (size_t o = 0; o < reference.size() && o < outs.size(); ++o)
      if (!identical(reference[o], outs[o], &where)) {
        difference = label + ": output " + std::to_string(o) + " ('" +
                     model.outputs()[o].name + "')" + itemSuffix(where) +
                     " differs from the first run";
        return;
      }
  };
  runOnce("second run", problem);
  if (problem.empty())
    problem = changedInput(model, inputs, bound, pristine);
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
  problem = changedInput(model, inputs, bound, pristine);
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
    fatal(options.model + " runs on " + device + " (onnxc --target=" + device +
          "), not " + options.device);
  if (device != "cpu") {
    std::printf("device: %s\n", device.c_str());
    std::fflush(stdout);
  }
  if (options.threads > 0 && !model.setNumThreads(options.threads))
    fatal("--threads: " + options.model +
          " does not export onnxc_set_num_threads");

  if (options.trainSteps > 0 || !options.saveCheckpoint.empty() ||
      !options.trainEval.empty() || !options.exportOnnx.empty() ||
      !options.loadCheckpoint.empty())
    return runTraining(model, options);

  std::vector<std::string> sources;
  std::vector<HostValue> inputs = bindInputs(model, options, sources);
  std::vector<onnxc_value> views;
  for (const HostValue &v : inputs)
    views.push_back(v.view());

  // --input-memory device: the inputs copied to the GPU once; every run
  // takes them from there.
  DeviceInputs deviceInputs;
  if (options.deviceInputs) {
    if (device != "cuda")
      fatal("--input-memory device: " + options.model + " runs on " + device +
            " (compiled without --target=cuda); its inputs are host memory");
    if (model.hasNonTensorValues())
      fatal("--input-memory device: the model has inputs or outputs that "
            "are not tensors (onnxc_run_with takes tensors only)");
    std::vector<size_t> bytes;
    for (const HostValue &v : inputs)
      bytes.push_back(v.tensor().sizeInBytes());
    if (!deviceInputs.upload(views, bytes, error))
      fatal("--input-memory device: " + error);
    if (!model.useDeviceInputs(deviceInputs.pointers()))
      fatal("--input-memory device: " + options.model +
            " predates onnxc_run_with (onnxc API version 3)");
  }

  std::vector<HostValue> pristine;
  if (options.checkDeterminism)
    for (size_t i = 0; i < views.size(); ++i)
      pristine.push_back(copyValue(views[i], model.inputs()[i]));

  OutputSet outs;
  auto firstStart = std::chrono::steady_clock::now();
  onnxc_status status = model.run(views, outs, error);
  double firstRunMs = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - firstStart)
                          .count();
  if (status != ONNXC_OK) {
    std::string message =
        runName(model) + " failed (" + statusName(status) + "): " + error;
    if (status != ONNXC_ERROR_RUNTIME && status != ONNXC_ERROR_OUT_OF_MEMORY) {
      // Say what was passed next to what the model wants.
      for (size_t i = 0; i < inputs.size(); ++i)
        message += "\n  input " + std::to_string(i) + " " +
                   model.inputs()[i].describe() + " <- " +
                   valueString(inputs[i]) + " from " + sources[i];
    }
    fatal(message);
  }
  checkOutputs(model, outs);
  std::vector<HostValue> outputs;
  for (size_t i = 0; i < outs.size(); ++i)
    outputs.push_back(copyValue(outs[i], model.outputs()[i]));
  outs.reset();

  bool pass = compareOutputs(model, outputs, options);
  if (!options.saveDir.empty())
    saveOutputs(model, outputs, options.saveDir);
  std::fflush(stdout);

  int code = pass ? ExitOK : ExitMismatch;
  if (options.checkDeterminism)
    code = std::max(code, checkDeterminism(model, views, inputs, pristine,
                                           outputs, firstRunMs));
  if (options.iterations > 0) {
    int timed = timeRuns(model, views, outputs, options);
    code = std::max(code, timed);
  }
  std::fflush(stdout);
  return code;
}
