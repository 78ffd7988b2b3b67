//===- ShapeOptions.h - onnxc --input-shape and --dim -----------*- C++ -*-===//
//
// The options that fix a model's dynamic dims at compile time, parsed into
// ImportOptions (the importer applies them, lib/Importer/ShapeOverrides.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_SHAPEOPTIONS_H
#define ONNXC_TOOLS_ONNXC_SHAPEOPTIONS_H

#include "onnxc/Importer/Importer.h"

#include "llvm/Support/CommandLine.h"

#include <string>

namespace mlir::onnxc {

/// onnxc's option category (--help lists only it and the training one).
llvm::cl::OptionCategory &onnxcOptionCategory();

/// Puts --input-shape and --dim into `options`; false with `error` set when
/// one is malformed (not NAME:D1xD2... / NAME=N, a negative or non-numeric
/// dim, a name given twice).
bool parseShapeOptions(ImportOptions &options, std::string &error);

} // namespace mlir::onnxc

#endif // ONNXC_TOOLS_ONNXC_SHAPEOPTIONS_H
