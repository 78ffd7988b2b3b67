//===- ShapeOptions.cpp - onnxc --input-shape and --dim -------------------===//

#include "ShapeOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

using namespace mlir::onnxc;

llvm::cl::OptionCategory &mlir::onnxc::onnxcOptionCategory() {
  static llvm::cl::OptionCategory category("onnxc options");
  return category;
}

namespace {

llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc(
        "Compile for this shape of a graph input, NAME:D1xD2x... ('?' keeps "
        "a dim dynamic, NAME: alone is a scalar); only dims the model leaves "
        "dynamic can be given, and a named dim takes the value everywhere. "
        "Repeatable"),
    llvm::cl::value_desc("NAME:D1xD2..."), llvm::cl::ZeroOrMore,
    llvm::cl::cat(onnxcOptionCategory()));
llvm::cl::list<std::string> dimValues(
    "dim",
    llvm::cl::desc("Compile with the symbolic dim NAME (a dim_param of a "
                   "graph input) fixed at N. Repeatable"),
    llvm::cl::value_desc("NAME=N"), llvm::cl::ZeroOrMore,
    llvm::cl::cat(onnxcOptionCategory()));

bool parseDim(llvm::StringRef text, int64_t &value) {
  unsigned long long v;
  if (text.getAsInteger(10, v) || v > (1ull << 40))
    return false;
  value = int64_t(v);
  return true;
}

} // namespace

bool mlir::onnxc::parseShapeOptions(ImportOptions &options,
                                    std::string &error) {
  for (const std::string &arg : inputShapes) {
    llvm::StringRef text(arg);
    // The dims follow the last ':' (an input name may hold one).
    size_t colon = text.rfind(':');
    if (colon == llvm::StringRef::npos || colon == 0) {
      error = "--input-shape " + arg + ": expected NAME:D1xD2...";
      return false;
    }
    std::string name = text.take_front(colon).str();
    llvm::StringRef dimsText = text.drop_front(colon + 1).trim();
    std::vector<int64_t> dims;
    if (!dimsText.empty()) {
      llvm::SmallVector<llvm::StringRef> parts;
      dimsText.split(parts, 'x');
      for (llvm::StringRef part : parts) {
        part = part.trim();
        int64_t d;
        if (part == "?") {
          d = ImportOptions::kDynamicDim;
        } else if (!parseDim(part, d)) {
          error = "--input-shape " + arg + ": '" + part.str() +
                  "' is not a dim (a non-negative integer or '?')";
          return false;
        }
        dims.push_back(d);
      }
    }
    if (!options.inputShapes.emplace(name, dims).second) {
      error = "--input-shape gives input '" + name + "' twice";
      return false;
    }
  }
  for (const std::string &arg : dimValues) {
    auto [name, valueText] = llvm::StringRef(arg).rsplit('=');
    int64_t value;
    if (name.empty() || valueText.empty() || name.size() == arg.size() ||
        !parseDim(valueText.trim(), value)) {
      error = "--dim " + arg + ": expected NAME=N, N a non-negative integer";
      return false;
    }
    if (!options.dimValues.emplace(name.str(), value).second) {
      error = "--dim gives '" + name.str() + "' twice";
      return false;
    }
  }
  return true;
}
