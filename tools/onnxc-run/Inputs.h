//===- Inputs.h - Bind a model's inputs -------------------------*- C++ -*-===//
//
// Reads the value files of a signature (the inputs, and the expected values
// of the outputs) and binds every input: from a file, from the backend-test
// folder, or generated (--random-inputs, --ramp-inputs).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_INPUTS_H
#define ONNXC_TOOLS_ONNXC_RUN_INPUTS_H

#include "CompiledModel.h"
#include "Options.h"
#include "Value.h"

#include <string>
#include <vector>

namespace onnxc::runner {

/// Number of consecutive PREFIX_K.pb files (K = 0, 1, ...) in `dir`, and
/// whether any PREFIX_*.pb lies beyond them. Exits when `dir` is not a
/// directory.
int countNumbered(const std::string &dir, const std::string &prefix, bool &gap);

/// Reads the file of a value of signature entry `info` (see readValueFile);
/// exits on failure. ONNX 1.12's backend test data stores bfloat16 values as
/// uint16 tensors of their bits, so uint16 data for a bfloat16 value is
/// taken as bfloat16 (with a note on stderr).
HostValue readValueOrDie(const std::string &path, const ValueInfo &info);

/// The inputs of `model` in signature order; `source` receives where each
/// came from (a file, "--random-inputs" or "--ramp-inputs"). Exits when one
/// has no value or cannot be read or generated.
std::vector<HostValue> bindInputs(const CompiledModel &model,
                                  const Options &options,
                                  std::vector<std::string> &source);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_INPUTS_H
