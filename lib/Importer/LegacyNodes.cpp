//===- LegacyNodes.cpp - Old-opset nodes libonnx's converter cannot take --===//
//
// libonnx 1.12's version converter asserts on some valid old nodes: the
// Softmax/LogSoftmax/Hardmax 12 -> 13 adapter needs the input's shape
// (PaddlePaddle's opset 9-11 exports often have none), the broadcast
// adapter of opset-6 arithmetic ignores `axis`, and BatchNormalization's
// spatial = 0 and Scan-8's batch dim have no adapter. Before conversion such
// nodes of the main graph are taken out of it: their outputs become extra graph
// inputs and their inputs extra graph outputs, so the converter sees neither
// the node nor a dangling name (it looks adapters up by op name whatever the
// domain, so a private domain alone does not hide a node). After conversion the
// extra inputs and outputs go and each node is put back, in the private
// domain "onnxc.legacy", before the first node that reads it; the importer
// then expands it at its old semantics in opset-17 operators, with the
// input types known by then. Nodes inside subgraphs are left to the
// converter.
//
//===----------------------------------------------------------------------===//

#include "FunctionExpansions.h"
#include "NodeAdapters.h"

#include "mlir/IR/BuiltinTypes.h"

#include <onnx/defs/function.h>

#include <map>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

constexpr const char *kLegacyDomain = "onnxc.legacy";

bool isCoercingSoftmax(StringRef op) {
  return op == "Softmax" || op == "LogSoftmax" || op == "Hardmax";
}

/// Opset-1..6 elementwise ops with `broadcast` and `axis` attributes.
bool isAxisBroadcastOp(StringRef op) {
  return llvm::is_contained({"Add", "Sub", "Mul", "Div", "Pow", "And", "Or",
                             "Xor", "Equal", "Greater", "Less"},
                            op);
}

bool needsLegacyImport(const onnx::NodeProto &node, int opset) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return false;
  StringRef op = node.op_type();
  if (isCoercingSoftmax(op))
    return opset < 13;
  if (isAxisBroadcastOp(op) && opset < 7) {
    const auto *b = findNodeAttr(node, "broadcast");
    return b && b->i() != 0 && findNodeAttr(node, "axis");
  }
  // Scan-8 ran the body per batch element (dim 0 of every input); the
  // converter's 8 -> 9 adapter drops only sequence_lens.
  if (op == "Scan" && opset < 9)
    return true;
  if (op == "BatchNormalization" && opset < 9) {
    const auto *spatial = findNodeAttr(node, "spatial");
    return spatial && spatial->i() == 0;
  }
  return false;
}

} // namespace

std::vector<onnx::NodeProto>
mlir::onnxc::takeOutLegacyNodes(onnx::GraphProto &graph, int opset) {
  std::vector<onnx::NodeProto> taken;
  std::map<std::string, onnx::TypeProto> types;
  for (const auto *infos :
       {&graph.value_info(), &graph.input(), &graph.output()})
    for (const onnx::ValueInfoProto &vi : *infos)
      types[vi.name()] = vi.type();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    if (!needsLegacyImport(node, opset)) {
      *kept.Add() = node;
      continue;
    }
    for (const std::string &out : node.output()) {
      if (out.empty())
        continue;
      onnx::ValueInfoProto *vi = graph.add_input();
      vi->set_name(out);
      auto it = types.find(out);
      if (it != types.end() && it->second.has_tensor_type())
        *vi->mutable_type() = it->second;
      else
        vi->mutable_type()->mutable_tensor_type()->set_elem_type(
            onnx::TensorProto::FLOAT);
    }
    for (const std::string &in : node.input()) {
      if (in.empty())
        continue;
      onnx::ValueInfoProto *vi = graph.add_output();
      vi->set_name(in);
      auto it = types.find(in);
      if (it != types.end() && it->second.has_tensor_type())
        *vi->mutable_type() = it->second;
    }
    node.set_domain(kLegacyDomain);
    taken.push_back(node);
  }
  graph.mutable_node()->Swap(&kept);
  return taken;
}

void mlir::onnxc::putBackLegacyNodes(onnx::GraphProto &graph,
                                     const std::vector<onnx::NodeProto> &taken,
                                     int originalInputs, int originalOutputs) {
  if (taken.empty())
    return;
  while (graph.input_size() > originalInputs)
    graph.mutable_input()->RemoveLast();
  while (graph.output_size() > originalOutputs)
    graph.mutable_output()->RemoveLast();
  // Each node goes before the first node reading one of its outputs (after
  // the others put back before it).
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  std::vector<bool> placed(taken.size(), false);
  auto reads = [](const onnx::NodeProto &node, const onnx::NodeProto &from) {
    for (const std::string &in : node.input())
      for (const std::string &out : from.output())
        if (!in.empty() && in == out)
          return true;
    return false;
  };
  for (const onnx::NodeProto &node : graph.node()) {
    for (size_t i = 0; i < taken.size(); ++i)
      if (!placed[i] && reads(node, taken[i])) {
        // Legacy nodes that feed this one go first.
        for (size_t j = 0; j < i; ++j)
          if (!placed[j]) {
            *nodes.Add() = taken[j];
            placed[j] = true;
          }
        *nodes.Add() = taken[i];
        placed[i] = true;
      }
    *nodes.Add() = node;
  }
  for (size_t i = 0; i < taken.size(); ++i)
    if (!placed[i])
      *nodes.Add() = taken[i];
  graph.mutable_node()->Swap(&nodes);
}

bool mlir::onnxc::isLegacyDomain(StringRef domain) {
  return domain == kLegacyDomain;
}

LogicalResult mlir::onnxc::buildLegacyExpansion(
    const onnx::NodeProto &node,
    const std::function<Type(StringRef name)> &typeOf,
    onnx::FunctionProto &body, std::string &reason) {
  StringRef op = node.op_type();
  auto intAttr = [&](StringRef name, int64_t dflt) {
    const auto *a = findNodeAttr(node, name);
    return a ? a->i() : dflt;
  };
  try {
    onnx::FunctionBuilder b(body);
    if (isCoercingSoftmax(op)) {
      // Versions 1 and 11: the input coerced to 2-D at `axis` (default 1),
      // the operator over the second dim, reshaped back.
      body.add_input("input");
      body.add_output("output");
      std::string axis = std::to_string(intAttr("axis", 1));
      b.Add(("flat = Flatten <axis = " + axis + "> (input)").c_str())
          .Add(("flat_out = " + op.str() + " <axis = -1> (flat)").c_str())
          .Add("shape = Shape(input)")
          .Add("output = Reshape(flat_out, shape)");
      return success();
    }
    if (isAxisBroadcastOp(op)) {
      // B (rank rb) aligns with A's dims axis .. axis + rb - 1: trailing 1s
      // make numpy broadcasting do the same.
      body.add_input("A");
      body.add_input("B");
      body.add_output("C");
      auto a = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(0)));
      auto bt = node.input_size() > 1
                    ? dyn_cast_or_null<RankedTensorType>(typeOf(node.input(1)))
                    : nullptr;
      if (!a || !bt) {
        reason = "broadcasts along `axis` between inputs of unknown rank";
        return failure();
      }
      int64_t axis = intAttr("axis", 0);
      if (axis < 0)
        axis += a.getRank();
      int64_t trailing = a.getRank() - axis - bt.getRank();
      if (axis < 0 || trailing < 0) {
        reason = "has broadcast axis " + std::to_string(intAttr("axis", 0)) +
                 " for inputs of ranks " + std::to_string(a.getRank()) +
                 " and " + std::to_string(bt.getRank());
        return failure();
      }
      std::vector<int64_t> axes;
      for (int64_t i = 0; i < trailing; ++i)
        axes.push_back(bt.getRank() + i);
      if (axes.empty()) {
        b.Add(("C = " + op.str() + "(A, B)").c_str());
      } else {
        b.Const("axes", axes)
            .Add("B_aligned = Unsqueeze(B, axes)")
            .Add(("C = " + op.str() + "(A, B_aligned)").c_str());
      }
      return success();
    }
    if (op == "Scan") {
      // Scan-8: a Loop over the batch; iteration b runs a Scan-9 with the
      // original body on element b of every state and scan input, and the
      // Loop stacks its results along a new dim 0.
      if (!node.input(0).empty()) {
        reason = "(version 8) has sequence_lens, which is not supported";
        return failure();
      }
      const auto *bodyAttr = findNodeAttr(node, "body");
      int64_t numScans = intAttr("num_scan_inputs", 0);
      int numStates = node.input_size() - 1 - int(numScans);
      if (!bodyAttr || !bodyAttr->has_g() || numScans < 1 || numStates < 0) {
        reason = "(version 8) has no body or no scan inputs";
        return failure();
      }
      body.add_input("sequence_lens");
      std::vector<std::string> ins, outs;
      for (int i = 1; i < node.input_size(); ++i) {
        ins.push_back("in" + std::to_string(i));
        body.add_input(ins.back());
      }
      for (int i = 0; i < node.output_size(); ++i) {
        outs.push_back("out" + std::to_string(i));
        body.add_output(outs.back());
      }
      b.Add(("batch_1d = Shape <start = 0, end = 1> (" + ins[0] + ")").c_str())
          .Add("batch = Squeeze(batch_1d)");
      onnx::GraphProto loopBody;
      loopBody.set_name("scan8_batch");
      auto *iter = loopBody.add_input();
      iter->set_name("b");
      iter->mutable_type()->mutable_tensor_type()->set_elem_type(
          onnx::TensorProto::INT64);
      iter->mutable_type()->mutable_tensor_type()->mutable_shape();
      auto *cond = loopBody.add_input();
      cond->set_name("cond");
      cond->mutable_type()->mutable_tensor_type()->set_elem_type(
          onnx::TensorProto::BOOL);
      cond->mutable_type()->mutable_tensor_type()->mutable_shape();
      auto addGraphNode = [&](const char *type, std::vector<std::string> inputs,
                              std::vector<std::string> outputs) {
        onnx::NodeProto *n = loopBody.add_node();
        n->set_op_type(type);
        for (const std::string &x : inputs)
          n->add_input(x);
        for (const std::string &x : outputs)
          n->add_output(x);
        return n;
      };
      addGraphNode("Identity", {"cond"}, {"cond_out"});
      loopBody.add_output()->set_name("cond_out");
      std::vector<std::string> sliced;
      for (const std::string &x : ins) {
        sliced.push_back(x + "_b");
        onnx::NodeProto *g = addGraphNode("Gather", {x, "b"}, {sliced.back()});
        onnx::AttributeProto *axis = g->add_attribute();
        axis->set_name("axis");
        axis->set_type(onnx::AttributeProto::INT);
        axis->set_i(0);
      }
      std::vector<std::string> results;
      for (const std::string &x : outs)
        results.push_back(x + "_b");
      onnx::NodeProto *scan = addGraphNode("Scan", sliced, results);
      for (const onnx::AttributeProto &a : node.attribute()) {
        if (a.name() == "directions") {
          onnx::AttributeProto copy = a;
          copy.set_name("scan_input_directions");
          *scan->add_attribute() = copy;
        } else if (a.name() == "body" || a.name() == "num_scan_inputs") {
          *scan->add_attribute() = a;
        }
      }
      for (const std::string &x : results)
        loopBody.add_output()->set_name(x);
      onnx::NodeProto *loop = body.add_node();
      loop->set_op_type("Loop");
      loop->add_input("batch");
      loop->add_input("");
      for (const std::string &x : outs)
        loop->add_output(x);
      onnx::AttributeProto *g = loop->add_attribute();
      g->set_name("body");
      g->set_type(onnx::AttributeProto::GRAPH);
      *g->mutable_g() = loopBody;
      return success();
    }
    if (op == "BatchNormalization") {
      // spatial = 0: statistics per (C, D1, ...), shaped like one sample,
      // which numpy broadcasting aligns with X's trailing dims.
      for (const char *in : {"X", "scale", "B", "mean", "var"})
        body.add_input(in);
      body.add_output("Y");
      for (int i = 1; i < node.output_size(); ++i)
        if (!node.output(i).empty()) {
          reason = "with spatial = 0 is imported for inference only (its "
                   "training outputs are used)";
          return failure();
        }
      const auto *eps = findNodeAttr(node, "epsilon");
      b.Const("eps_f", eps ? eps->f() : 1e-5f)
          .Add("eps = CastLike(eps_f, var)")
          .Add("var_eps = Add(var, eps)")
          .Add("std = Sqrt(var_eps)")
          .Add("centered = Sub(X, mean)")
          .Add("normed = Div(centered, std)")
          .Add("scaled = Mul(normed, scale)")
          .Add("Y = Add(scaled, B)");
      return success();
    }
  } catch (const std::exception &e) {
    reason = std::string("cannot build its expansion: ") + e.what();
    return failure();
  }
  reason = "has no legacy expansion";
  return failure();
}
