//===- Train.h - onnxc-run --train-steps ------------------------*- C++ -*-===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_TRAIN_H
#define ONNXC_TOOLS_ONNXC_RUN_TRAIN_H

#include "CompiledModel.h"
#include "Options.h"

namespace onnxc::runner {

/// Runs options.trainSteps steps of the training library `model` on the
/// bound inputs (the first onnxc_train_num_inputs() of its signature),
/// printing the loss, then saves the checkpoint and exports the model the
/// options ask for. Exits on error.
int runTraining(CompiledModel &model, const Options &options);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_TRAIN_H
