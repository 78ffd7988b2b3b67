//===- ShapeOverrides.cpp - Input shapes given at compile time ------------===//

#include "ShapeOverrides.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir::onnxc;

namespace {

std::string joinNames(const std::set<std::string> &names) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(names, os, [&](const std::string &n) { os << "'" << n << "'"; }, ", ");
  return out.empty() ? "none" : out;
}

std::string shapeString(const std::vector<int64_t> &dims) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(
      dims, os,
      [&](int64_t d) {
        if (d == ImportOptions::kDynamicDim)
          os << "?";
        else
          os << d;
      },
      "x");
  return out.empty() ? "a scalar" : out;
}

/// Records `name` = `value`; an error when `name` has another value already.
std::string bindDim(std::map<std::string, int64_t> &values,
                    const std::string &name, int64_t value,
                    const std::string &where) {
  auto [it, inserted] = values.emplace(name, value);
  if (inserted || it->second == value)
    return "";
  return "dim '" + name + "' is " + std::to_string(it->second) +
         " and, through " + where + ", " + std::to_string(value);
}

} // namespace

std::string mlir::onnxc::applyShapeOverrides(onnx::ModelProto &model,
                                             const ImportOptions &options) {
  if (options.inputShapes.empty() && options.dimValues.empty())
    return "";
  onnx::GraphProto &graph = *model.mutable_graph();
  std::set<std::string> initialized;
  for (const onnx::TensorProto &t : graph.initializer())
    initialized.insert(t.name());
  std::set<std::string> inputNames, inputDimParams;
  for (const onnx::ValueInfoProto &vi : graph.input()) {
    if (initialized.count(vi.name()))
      continue;
    inputNames.insert(vi.name());
    if (vi.type().has_tensor_type())
      for (const auto &d : vi.type().tensor_type().shape().dim())
        if (d.has_dim_param())
          inputDimParams.insert(d.dim_param());
  }

  std::map<std::string, int64_t> dimValues;
  for (const auto &[name, value] : options.dimValues) {
    if (!inputDimParams.count(name))
      return "--dim " + name + "=" + std::to_string(value) +
             ": no graph input has a dim named '" + name +
             "' (the inputs' named dims: " + joinNames(inputDimParams) + ")";
    dimValues[name] = value;
  }

  for (const auto &entry : options.inputShapes) {
    const std::string &name = entry.first;
    const std::vector<int64_t> &dims = entry.second;
    std::string what = "--input-shape " + name + ":" + shapeString(dims);
    auto it = llvm::find_if(graph.input(), [&](const onnx::ValueInfoProto &vi) {
      return vi.name() == name && !initialized.count(name);
    });
    if (it == graph.input().end())
      return what + ": the model has no graph input named '" + name +
             "' (its inputs: " + joinNames(inputNames) + ")";
    onnx::ValueInfoProto &input =
        graph.mutable_input()->at(it - graph.input().begin());
    if (!input.type().has_tensor_type())
      return what + ": input '" + name + "' is not a tensor";
    onnx::TensorShapeProto *shape =
        input.mutable_type()->mutable_tensor_type()->mutable_shape();
    bool ranked = input.type().tensor_type().has_shape();
    if (!ranked) {
      // An input of unknown rank takes the rank given.
      for (size_t i = 0; i < dims.size(); ++i)
        shape->add_dim();
    } else if (shape->dim_size() != int64_t(dims.size())) {
      return what + ": input '" + name + "' has rank " +
             std::to_string(shape->dim_size()) + " in the model, not " +
             std::to_string(dims.size());
    }
    for (auto [i, value] : llvm::enumerate(dims)) {
      if (value == ImportOptions::kDynamicDim)
        continue;
      onnx::TensorShapeProto::Dimension *dim = shape->mutable_dim(int(i));
      if (dim->has_dim_value() && dim->dim_value() != value)
        return what + ": dim " + std::to_string(i) + " of input '" + name +
               "' is " + std::to_string(dim->dim_value()) +
               " in the model; only its dynamic dims can be given";
      if (dim->has_dim_param()) {
        std::string error = bindDim(dimValues, dim->dim_param(), value, what);
        if (!error.empty())
          return error;
      }
      dim->set_dim_value(value);
    }
  }

  // Every dim with a given name takes its value.
  auto apply = [&](google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>
                       &infos) {
    for (onnx::ValueInfoProto &vi : infos) {
      if (!vi.type().has_tensor_type() ||
          !vi.type().tensor_type().has_shape())
        continue;
      for (auto &d : *vi.mutable_type()->mutable_tensor_type()->mutable_shape()
                          ->mutable_dim()) {
        if (!d.has_dim_param())
          continue;
        auto v = dimValues.find(d.dim_param());
        if (v != dimValues.end())
          d.set_dim_value(v->second);
      }
    }
  };
  apply(*graph.mutable_input());
  apply(*graph.mutable_output());
  apply(*graph.mutable_value_info());
  return "";
}
