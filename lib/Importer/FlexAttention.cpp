//===- FlexAttention.cpp - ai.onnx.preview FlexAttention as a function ----===//
//
// FlexAttention-1 (ai.onnx.preview) as the computation its specification
// gives: Q, K, V cast to softmax_precision (float32, or double for double
// inputs), K/V heads repeated for grouped-query attention, scores = Q K^T *
// scale (1/sqrt(head_size) by default), score_mod, Softmax over the keys,
// prob_mod, Y = probs V cast back. The modifier subgraphs are spliced into
// the body with their values renamed apart; their initializers become
// Constants.
//
//===----------------------------------------------------------------------===//

#include "FunctionExpansions.h"
#include "NodeAdapters.h"

#include "mlir/IR/BuiltinTypes.h"

#include <onnx/defs/function.h>

#include <set>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

onnx::NodeProto *addNode(onnx::FunctionProto &body, const char *opType,
                         std::initializer_list<std::string> inputs,
                         const std::string &output) {
  onnx::NodeProto *n = body.add_node();
  n->set_op_type(opType);
  for (const std::string &in : inputs)
    n->add_input(in);
  n->add_output(output);
  return n;
}

/// Appends the one-input, one-output graph `g` to `body`, reading `in` and
/// defining `out`; its names get the prefix `tag`/.
LogicalResult spliceModifier(const onnx::GraphProto &g, const std::string &in,
                             const std::string &out, const std::string &tag,
                             onnx::FunctionProto &body, std::string &reason) {
  if (g.input_size() != 1 || g.output_size() != 1) {
    reason = "has a " + tag + " graph without exactly one input and output";
    return failure();
  }
  if (g.sparse_initializer_size()) {
    reason = "has a " + tag + " graph with sparse initializers";
    return failure();
  }
  auto renamed = [&](const std::string &name) {
    return name.empty() ? name : tag + "/" + name;
  };
  std::set<std::string> defined{g.input(0).name()};
  addNode(body, "Identity", {in}, renamed(g.input(0).name()));
  for (const onnx::TensorProto &t : g.initializer()) {
    onnx::NodeProto *c = addNode(body, "Constant", {}, renamed(t.name()));
    onnx::AttributeProto *value = c->add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    *value->mutable_t() = t;
    value->mutable_t()->clear_name();
    defined.insert(t.name());
  }
  for (const onnx::NodeProto &n : g.node()) {
    onnx::NodeProto copy = n;
    for (const onnx::AttributeProto &a : copy.attribute())
      if (a.has_g() || a.graphs_size()) {
        reason = "has a " + tag + " graph with nested subgraphs";
        return failure();
      }
    for (std::string &name : *copy.mutable_input()) {
      if (!name.empty() && !defined.count(name)) {
        reason =
            "has a " + tag + " graph that reads '" + name + "' from outside it";
        return failure();
      }
      name = renamed(name);
    }
    for (std::string &name : *copy.mutable_output()) {
      defined.insert(name);
      name = renamed(name);
    }
    if (!copy.name().empty())
      copy.set_name(renamed(copy.name()));
    *body.add_node() = copy;
  }
  if (!defined.count(g.output(0).name())) {
    reason = "has a " + tag + " graph whose output is not computed";
    return failure();
  }
  addNode(body, "Identity", {renamed(g.output(0).name())}, out);
  return success();
}

} // namespace

static LogicalResult
buildFlexAttentionBody(const onnx::NodeProto &node,
                       const std::function<Type(StringRef)> &typeOf,
                       onnx::FunctionProto &body, std::string &reason);

bool mlir::onnxc::hasPreviewFunctionExpansion(StringRef opType, int version) {
  return opType == "FlexAttention" && version == 1;
}

LogicalResult mlir::onnxc::buildFlexAttention(
    const onnx::NodeProto &node, const std::function<Type(StringRef)> &typeOf,
    onnx::FunctionProto &body, std::string &reason) {
  for (const char *in : {"Q", "K", "V"})
    body.add_input(in);
  body.add_output("Y");
  try {
    return buildFlexAttentionBody(node, typeOf, body, reason);
  } catch (const std::exception &e) {
    reason = std::string("cannot build its function body: ") + e.what();
    return failure();
  }
}

static LogicalResult
buildFlexAttentionBody(const onnx::NodeProto &node,
                       const std::function<Type(StringRef)> &typeOf,
                       onnx::FunctionProto &body, std::string &reason) {
  if (node.input_size() < 3) {
    reason = "needs Q, K and V";
    return failure();
  }
  auto q = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(0)));
  auto k = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(1)));
  if (!q || !k || q.getRank() != 4 || k.getRank() != 4) {
    reason = "needs rank-4 Q, K and V";
    return failure();
  }
  int64_t hq = q.getDimSize(1), hkv = k.getDimSize(1);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) || hkv <= 0 ||
      hq % hkv != 0) {
    reason = "needs static head counts, q_num_heads a multiple of "
             "kv_num_heads";
    return failure();
  }
  const auto *precisionAttr = findNodeAttr(node, "softmax_precision");
  int64_t precision = precisionAttr                ? precisionAttr->i()
                      : q.getElementType().isF64() ? onnx::TensorProto::DOUBLE
                                                   : onnx::TensorProto::FLOAT;
  if (precision != onnx::TensorProto::FLOAT &&
      precision != onnx::TensorProto::DOUBLE &&
      precision != onnx::TensorProto::FLOAT16 &&
      precision != onnx::TensorProto::BFLOAT16) {
    reason = "has softmax_precision " + std::to_string(precision) +
             " (not a float type)";
    return failure();
  }
  std::string to = "<to = " + std::to_string(precision) + ">";
  onnx::FunctionBuilder b(body);
  b.Add(("Qc = Cast " + to + " (Q)").c_str())
      .Add(("Kc = Cast " + to + " (K)").c_str())
      .Add(("Vc = Cast " + to + " (V)").c_str());
  if (hq != hkv) {
    // Query head h reads K/V head h / (hq / hkv): each K/V head repeated
    // in place.
    b.Const("ax2", std::vector<int64_t>{2})
        .Const("groups", std::vector<int64_t>{hq / hkv})
        .Const("heads", std::vector<int64_t>{hq});
    for (const char *x : {"K", "V"}) {
      std::string c = std::string(x) + "c", s = std::string(x);
      b.Add((s + "_lead = Shape <start = 0, end = 2> (" + c + ")").c_str())
          .Add((s + "_tail = Shape <start = 2, end = 4> (" + c + ")").c_str())
          .Add((s + "_batch = Shape <start = 0, end = 1> (" + c + ")").c_str())
          .Add((s + "_u = Unsqueeze(" + c + ", ax2)").c_str())
          .Add((s + "_eshape = Concat <axis = 0> (" + s + "_lead, groups, " +
                s + "_tail)")
                   .c_str())
          .Add((s + "_e = Expand(" + s + "_u, " + s + "_eshape)").c_str())
          .Add((s + "_rshape = Concat <axis = 0> (" + s + "_batch, heads, " +
                s + "_tail)")
                   .c_str())
          .Add((s + "x = Reshape(" + s + "_e, " + s + "_rshape)").c_str());
    }
  } else {
    b.Add("Kx = Identity(Kc)").Add("Vx = Identity(Vc)");
  }
  if (const auto *scale = findNodeAttr(node, "scale")) {
    b.Const("scale_f", scale->f()).Add("scale = CastLike(scale_f, Qc)");
  } else {
    b.Add("head_size = Shape <start = 3, end = 4> (Q)")
        .Add(("head_size_c = Cast " + to + " (head_size)").c_str())
        .Add("root = Sqrt(head_size_c)")
        .Add("scale = Reciprocal(root)");
  }
  b.Add("Kt = Transpose <perm = [0, 1, 3, 2]> (Kx)")
      .Add("qk = MatMul(Qc, Kt)")
      .Add("scores = Mul(qk, scale)");
  std::string scores = "scores", probs = "probs";
  if (const auto *mod = findNodeAttr(node, "score_mod")) {
    if (failed(spliceModifier(mod->g(), "scores", "scores_mod", "score_mod",
                              body, reason)))
      return failure();
    scores = "scores_mod";
  }
  b.Add(("probs = Softmax <axis = -1> (" + scores + ")").c_str());
  if (const auto *mod = findNodeAttr(node, "prob_mod")) {
    if (failed(spliceModifier(mod->g(), "probs", "probs_mod", "prob_mod", body,
                              reason)))
      return failure();
    probs = "probs_mod";
  }
  b.Add(("Yc = MatMul(" + probs + ", Vx)").c_str()).Add("Y = CastLike(Yc, Q)");
  return success();
}
