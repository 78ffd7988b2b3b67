//===- Outputs.h - Check, compare, print and save the outputs ---*- C++ -*-===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_OUTPUTS_H
#define ONNXC_TOOLS_ONNXC_RUN_OUTPUTS_H

#include "CompiledModel.h"
#include "Options.h"
#include "Value.h"

#include <vector>

namespace onnxc::runner {

/// Checks that the library's outputs match its own signature (their number,
/// kinds, element types, ranks and static dims); exits when they do not.
void checkOutputs(const CompiledModel &model, const OutputSet &outs);

/// Prints every output ("output 0 'Y' float32[4,3]", with --print-outputs
/// its first values) and compares each that has an expected value
/// (--expected, --expected-dir) by the backend test rule; returns whether
/// all passed (and the counts match).
bool compareOutputs(const CompiledModel &model,
                    const std::vector<HostValue> &outputs,
                    const Options &options);

/// --save-outputs: writes DIR/output_K.pb for every output.
void saveOutputs(const CompiledModel &model,
                 const std::vector<HostValue> &outputs, const std::string &dir);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_OUTPUTS_H
