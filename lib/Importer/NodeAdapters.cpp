//===- NodeAdapters.cpp - Older operator versions -> the dialect's --------===//

#include "NodeAdapters.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::onnxc;

const onnx::AttributeProto *
mlir::onnxc::findNodeAttr(const onnx::NodeProto &node, StringRef name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

namespace {

void removeAttr(onnx::NodeProto &node, StringRef name) {
  auto *attrs = node.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
}

std::string strAttr(const onnx::NodeProto &node, StringRef name,
                    StringRef dflt) {
  const auto *a = findNodeAttr(node, name);
  return a ? a->s() : dflt.str();
}

/// Drops trailing empty input names and then `count` inputs from `from` on.
void truncateInputs(onnx::NodeProto &node, int size) {
  while (node.input_size() > size)
    node.mutable_input()->RemoveLast();
  while (node.input_size() && node.input(node.input_size() - 1).empty())
    node.mutable_input()->RemoveLast();
}

// Reduce* before 18 (ReduceSum before 13): the `axes` attribute becomes the
// `axes` input, a constant; without it the op reduced every axis, which is
// also what an absent input with noop_with_empty_axes = 0 means.
LogicalResult upgradeReduce(onnx::NodeProto &node, AdapterContext &ctx) {
  const auto *axes = findNodeAttr(node, "axes");
  if (!axes)
    return success();
  SmallVector<int64_t> values(axes->ints().begin(), axes->ints().end());
  removeAttr(node, "axes");
  // An empty list reduced every axis too.
  if (!values.empty()) {
    truncateInputs(node, 1);
    node.add_input(ctx.makeInt64Constant(values));
  }
  return success();
}

bool isAxesAttrReduce(StringRef opType) {
  return llvm::is_contained(
      {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
       "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceSum"},
      opType);
}

} // namespace

LogicalResult mlir::onnxc::upgradeNode(onnx::NodeProto &node, int version,
                                       int dialectVersion, AdapterContext &ctx,
                                       std::string &reason) {
  StringRef op = node.op_type();
  if (isAxesAttrReduce(op)) {
    // ReduceSum took `axes` as an input from version 13, the others from 18;
    // later versions (ReduceMax/Min-20) only grew type constraints.
    int axesInput = op == "ReduceSum" ? 13 : 18;
    if (version < axesInput && dialectVersion >= axesInput)
      return upgradeReduce(node, ctx);
    return success();
  }
  // Split-18 only added num_outputs: without it, or the `split` input, the
  // parts are equal as before. Range-27 only added stash_type, whose default
  // (f32 for f16/bf16) is a more precise computation of the same values.
  if (op == "Split" || op == "Range")
    return success();
  // Cast/CastLike-19..28 added saturate and round_mode, which only affect
  // the float8 results older versions cannot have; Quantize/
  // DequantizeLinear-19..28 added saturate (float8 only), block_size (0: per
  // tensor or axis), output_dtype (0: as before) and precision (0: as
  // before). Every default is the older versions' behaviour.
  if (op == "Cast" || op == "CastLike" || op == "QuantizeLinear" ||
      op == "DequantizeLinear")
    return success();
  // Resize-18/19 added antialias (0), axes (all), keep_aspect_ratio_policy
  // ("stretch") and the half_pixel_symmetric mode: the defaults are
  // Resize-13's behaviour.
  if (op == "Resize")
    return success();
  // Pad-18 added the optional `axes` input (absent: every dim) and Pad-19
  // the 'wrap' mode.
  if (op == "Pad")
    return success();
  // AveragePool-19 / LpPool-18 added dilations (default 1) and LpPool-18
  // ceil_mode (default 0).
  if (op == "AveragePool" || op == "LpPool")
    return success();
  // ScatterElements/ScatterND-18 only added the reductions 'max' and 'min'.
  if (op == "ScatterElements" || op == "ScatterND")
    return success();
  // OptionalHasElement-18 only accepts more: no input, plain tensors.
  if (op == "OptionalHasElement")
    return success();
  // Mod-28 defined fmod = 0 for floats, which Mod-13 required to be 1.
  if (op == "Mod")
    return success();
  // DFT-20 took the axis attribute (default 1) as an optional input (a
  // scalar whose default, -2, differs): the attribute's value becomes a
  // constant input.
  if (op == "DFT") {
    if (version < 20 && dialectVersion >= 20) {
      const auto *axis = findNodeAttr(node, "axis");
      int64_t value = axis ? axis->i() : 1;
      removeAttr(node, "axis");
      while (node.input_size() < 2)
        node.add_input("");
      truncateInputs(node, 2);
      while (node.input_size() < 2)
        node.add_input("");
      node.add_input(ctx.makeInt64Constant({value}));
    }
    return success();
  }
  // GridSample-20 renamed the modes (bilinear -> linear, bicubic -> cubic;
  // the default is the same mode) and allowed N-D grids.
  if (op == "GridSample") {
    std::string mode = strAttr(node, "mode", "linear");
    std::string renamed = llvm::StringSwitch<std::string>(mode)
                              .Case("bilinear", "linear")
                              .Case("bicubic", "cubic")
                              .Default(mode);
    if (renamed != mode) {
      removeAttr(node, "mode");
      auto *a = node.add_attribute();
      a->set_name("mode");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(renamed);
    }
    return success();
  }
  reason = "version " + std::to_string(version) +
           " has no upgrade to the dialect's version " +
           std::to_string(dialectVersion);
  return failure();
}

// LabelEncoder-1 (ai.onnx.ml 1): classes_strings maps a string to its index
// (default_int64 where absent) or an int64 index to its string
// (default_string out of range), by the input's type; as LabelEncoder-2+
// that is keys_strings -> values_int64s [0, n) or keys_int64s [0, n) ->
// values_strings. A repeated class counts at its last index, as the
// lowering takes the last of repeated keys.
LogicalResult mlir::onnxc::upgradeLabelEncoder1(onnx::NodeProto &node,
                                                AdapterContext &ctx,
                                                std::string &reason) {
  const auto *classes = findNodeAttr(node, "classes_strings");
  Type input = node.input_size()
                   ? getElementTypeOrSelf(ctx.typeOf(node.input(0)))
                   : Type();
  bool fromStrings = input && isa<StringType>(input);
  if (!input || (!fromStrings && !input.isInteger(64))) {
    reason = "LabelEncoder-1 maps strings to int64 or int64 to strings, by "
             "its input's type, which is not known here";
    return failure();
  }
  std::vector<std::string> names;
  if (classes)
    names.assign(classes->strings().begin(), classes->strings().end());
  removeAttr(node, "classes_strings");
  auto *strings = node.add_attribute();
  strings->set_name(fromStrings ? "keys_strings" : "values_strings");
  strings->set_type(onnx::AttributeProto::STRINGS);
  auto *ints = node.add_attribute();
  ints->set_name(fromStrings ? "values_int64s" : "keys_int64s");
  ints->set_type(onnx::AttributeProto::INTS);
  for (size_t i = 0; i < names.size(); ++i) {
    strings->add_strings(names[i]);
    ints->add_ints(int64_t(i));
  }
  return success();
}
