//===- FunctionExpansions.cpp - Operators imported as ONNX functions ------===//

#include "FunctionExpansions.h"
#include "NodeAdapters.h"

#include "mlir/IR/BuiltinTypes.h"

#include <onnx/defs/function.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

bool hasInput(const onnx::NodeProto &node, int i) {
  return i < node.input_size() && !node.input(i).empty();
}

bool wantsOutput(const onnx::NodeProto &node, int i) {
  return i < node.output_size() && !node.output(i).empty();
}

/// `name = Identity(value)` as a node text.
std::string identity(StringRef name, StringRef value) {
  return (name + " = Identity(" + value + ")").str();
}

/// Attention-23/24/25 (ONNX 1.23.1): scaled dot-product attention over 4-D
/// (batch, heads, sequence, head size) or 3-D (batch, sequence, hidden)
/// inputs, with grouped-query heads, a past key/value cache, a boolean or
/// additive mask, bottom-right causal masking, softcap, softmax precision
/// and the four qk_matmul_output modes. Fully masked rows give zeros, not
/// NaN: the softmax's NaNs are replaced by 0 where a mask or causal masking
/// applies.
LogicalResult buildAttention(const onnx::NodeProto &node,
                             const std::function<Type(StringRef)> &typeOf,
                             onnx::FunctionProto &body, std::string &reason) {
  for (const char *in : {"Q", "K", "V", "attn_mask", "past_key", "past_value",
                         "nonpad_kv_seqlen"})
    body.add_input(in);
  for (const char *out :
       {"Y", "present_key", "present_value", "qk_matmul_output"})
    body.add_output(out);
  bool nonpad = hasInput(node, 6);
  if (nonpad && hasInput(node, 4)) {
    reason = "has both 'nonpad_kv_seqlen' and a past key/value";
    return failure();
  }
  // Attention-25's local windows.
  for (const char *window : {"left_window_size", "right_window_size"})
    if (const auto *a = findNodeAttr(node, window); a && a->i() != -1) {
      reason = std::string("uses attribute '") + window +
               "' = " + std::to_string(a->i());
      return failure();
    }
  if (hasInput(node, 4) != hasInput(node, 5)) {
    reason = "has only one of 'past_key' and 'past_value'";
    return failure();
  }
  auto rankOf = [&](int i) -> int64_t {
    auto t = hasInput(node, i)
                 ? dyn_cast_or_null<RankedTensorType>(typeOf(node.input(i)))
                 : RankedTensorType();
    return t ? t.getRank() : -1;
  };
  int64_t rank = rankOf(0);
  if ((rank != 3 && rank != 4) || rankOf(1) != rank || rankOf(2) != rank) {
    reason = "needs Q, K and V all of rank 3 or all of rank 4";
    return failure();
  }
  auto intAttr = [&](StringRef name, int64_t dflt) {
    const auto *a = findNodeAttr(node, name);
    return a ? a->i() : dflt;
  };
  int64_t qHeads, kvHeads;
  if (rank == 3) {
    qHeads = intAttr("q_num_heads", 0);
    kvHeads = intAttr("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0) {
      reason = "has 3-D inputs without q_num_heads and kv_num_heads";
      return failure();
    }
  } else {
    qHeads = cast<RankedTensorType>(typeOf(node.input(0))).getDimSize(1);
    kvHeads = cast<RankedTensorType>(typeOf(node.input(1))).getDimSize(1);
    if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads)) {
      reason = "has head counts only known at run time";
      return failure();
    }
  }
  if (kvHeads <= 0 || qHeads % kvHeads != 0) {
    reason = "has q_num_heads not a multiple of kv_num_heads";
    return failure();
  }
  int64_t mode = intAttr("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) {
    reason = "has qk_matmul_output_mode " + std::to_string(mode);
    return failure();
  }
  bool wantsQK = wantsOutput(node, 3);
  bool causal = intAttr("is_causal", 0) != 0;
  bool masked = causal || nonpad || hasInput(node, 3);
  // A mask shorter than the keys (the cache) is padded to their length
  // with -inf (false), as the reference does; its rank must be known.
  if (hasInput(node, 3)) {
    auto mask = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(3)));
    if (!mask || mask.getRank() == 0) {
      reason = "has an attn_mask of unknown or zero rank";
      return failure();
    }
  }

  // The static (batch, heads, sequence, size) shape of input `i` after the
  // reshape to heads and the cache's concat, when every dim is known: the
  // body then uses constant shapes, so that the import infers static types.
  auto staticShape =
      [&](int i, int64_t heads) -> std::optional<SmallVector<int64_t, 4>> {
    auto t = cast<RankedTensorType>(typeOf(node.input(i)));
    if (!t.hasStaticShape())
      return std::nullopt;
    SmallVector<int64_t, 4> shape(t.getShape());
    if (rank == 3) {
      if (shape[2] % heads != 0)
        return std::nullopt;
      shape = {shape[0], heads, shape[1], shape[2] / heads};
    }
    if (i != 0 && hasInput(node, 4)) {
      auto past = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(i + 3)));
      if (!past || past.getRank() != 4 || past.isDynamicDim(2))
        return std::nullopt;
      shape[2] += past.getDimSize(2);
    }
    return shape;
  };
  auto qShape = staticShape(0, qHeads);
  auto kShape = staticShape(1, kvHeads);
  // The sequence length (dim 2) of such a shape, when known.
  auto seqLen = [](const auto &shape) {
    return shape ? std::optional<int64_t>((*shape)[2]) : std::nullopt;
  };

  onnx::FunctionBuilder b(body);
  b.Const1D("ax0", int64_t(0))
      .Const1D("ax1", int64_t(1))
      .Const1D("ax2", int64_t(2))
      .Const("zero_f", 0.0f)
      .Const("one_f", 1.0f)
      .Const("neginf_f", -INFINITY)
      .Add("zeros = CastLike(zero_f, Q)")
      .Add("one = CastLike(one_f, Q)")
      .Add("negs = CastLike(neginf_f, Q)");
  // 3-D inputs: (batch, sequence, heads * size) -> (batch, heads, sequence,
  // size).
  std::string q = "Q", k = "K", v = "V";
  if (rank == 3) {
    b.Const("q_shape", std::vector<int64_t>{0, 0, qHeads, -1})
        .Const("kv_shape", std::vector<int64_t>{0, 0, kvHeads, -1})
        .Add("Q_r = Reshape(Q, q_shape)")
        .Add("Q4 = Transpose <perm = [0, 2, 1, 3]> (Q_r)")
        .Add("K_r = Reshape(K, kv_shape)")
        .Add("K4 = Transpose <perm = [0, 2, 1, 3]> (K_r)")
        .Add("V_r = Reshape(V, kv_shape)")
        .Add("V4 = Transpose <perm = [0, 2, 1, 3]> (V_r)");
    q = "Q4", k = "K4", v = "V4";
  }
  // The cache: past and new keys/values along the sequence.
  if (hasInput(node, 4)) {
    b.Add(("K_all = Concat <axis = 2> (past_key, " + k + ")").c_str())
        .Add(("V_all = Concat <axis = 2> (past_value, " + v + ")").c_str());
    k = "K_all", v = "V_all";
  }
  if (wantsOutput(node, 1))
    b.Add(identity("present_key", k).c_str());
  if (wantsOutput(node, 2))
    b.Add(identity("present_value", v).c_str());
  // Grouped-query attention: each key/value head serves qHeads / kvHeads
  // consecutive query heads.
  if (qHeads != kvHeads) {
    b.Const1D("groups", qHeads / kvHeads).Const1D("q_heads", qHeads);
    for (auto [x, input] : {std::pair{&k, 1}, {&v, 2}}) {
      std::string n = *x;
      if (auto shape = staticShape(input, kvHeads)) {
        const auto &d = *shape;
        b.Const(n + "_xs",
                std::vector<int64_t>{d[0], d[1], qHeads / kvHeads, d[2], d[3]})
            .Const(n + "_gs", std::vector<int64_t>{d[0], qHeads, d[2], d[3]})
            .Add((n + "_u = Unsqueeze(" + n + ", ax2)").c_str())
            .Add((n + "_x = Expand(" + n + "_u, " + n + "_xs)").c_str())
            .Add((n + "_g = Reshape(" + n + "_x, " + n + "_gs)").c_str());
        *x = n + "_g";
        continue;
      }
      b.Add((n + "_u = Unsqueeze(" + n + ", ax2)").c_str())
          .Add((n + "_s01 = Shape <start = 0, end = 2> (" + n + ")").c_str())
          .Add((n + "_s0 = Shape <start = 0, end = 1> (" + n + ")").c_str())
          .Add((n + "_s23 = Shape <start = 2, end = 4> (" + n + ")").c_str())
          .Add((n + "_xs = Concat <axis = 0> (" + n + "_s01, groups, " + n +
                "_s23)")
                   .c_str())
          .Add((n + "_x = Expand(" + n + "_u, " + n + "_xs)").c_str())
          .Add((n + "_gs = Concat <axis = 0> (" + n + "_s0, q_heads, " + n +
                "_s23)")
                   .c_str())
          .Add((n + "_g = Reshape(" + n + "_x, " + n + "_gs)").c_str());
      *x = n + "_g";
    }
  }
  // Q K^T scaled, Q and K each by sqrt(scale) (default 1 / sqrt(head size)).
  if (const auto *s = findNodeAttr(node, "scale")) {
    b.Const("scale_f", s->f()).Add("scale = CastLike(scale_f, Q)");
  } else {
    b.Add(("head_size = Shape <start = -1> (" + q + ")").c_str())
        .Add("head_size_f = CastLike(head_size, Q)")
        .Add("root_size = Sqrt(head_size_f)")
        .Add("scale = Div(one, root_size)");
  }
  b.Add("root_scale = Sqrt(scale)")
      .Add(("Q_s = Mul(" + q + ", root_scale)").c_str())
      .Add(("K_s = Mul(" + k + ", root_scale)").c_str())
      .Add("K_t = Transpose <perm = [0, 1, 3, 2]> (K_s)")
      .Add("qk = MatMul(Q_s, K_t)");
  std::string scores = "qk";
  if (wantsQK && mode == 0)
    b.Add(identity("qk_matmul_output", scores).c_str());
  if (const auto *cap = findNodeAttr(node, "softcap"); cap && cap->f() > 0) {
    b.Const("softcap_f", cap->f())
        .Add("softcap = CastLike(softcap_f, Q)")
        .Add("qk_d = Div(qk, softcap)")
        .Add("qk_t = Tanh(qk_d)")
        .Add("qk_c = Mul(qk_t, softcap)");
    scores = "qk_c";
  }
  if (wantsQK && mode == 1)
    b.Add(identity("qk_matmul_output", scores).c_str());
  if (hasInput(node, 3)) {
    auto maskType = dyn_cast_or_null<ShapedType>(typeOf(node.input(3)));
    if (maskType && maskType.getElementType().isInteger(1))
      b.Add("mask_bias = Where(attn_mask, zeros, negs)");
    else
      b.Add("mask_bias = CastLike(attn_mask, Q)");
    // Padded to the keys' length with -inf where it is shorter: by a
    // constant where both lengths are static, else computed at run time.
    auto maskRanked = cast<RankedTensorType>(typeOf(node.input(3)));
    int64_t maskLen = maskRanked.getDimSize(maskRanked.getRank() - 1);
    std::optional<int64_t> keyLen = seqLen(kShape);
    std::string bias = "mask_bias";
    if (keyLen && !ShapedType::isDynamic(maskLen)) {
      if (maskLen < *keyLen) {
        b.Const("mask_pads", std::vector<int64_t>{0, *keyLen - maskLen})
            .Const1D("ax_last", int64_t(-1))
            .Add("mask_bias_p = Pad(mask_bias, mask_pads, negs, ax_last)");
        bias = "mask_bias_p";
      }
    } else {
      b.Const1D("ax_last", int64_t(-1))
          .Const1D("zero_1", int64_t(0))
          .Add(("mask_keys = Shape <start = 2, end = 3> (" + k + ")").c_str())
          .Add("mask_len = Shape <start = -1> (mask_bias)")
          .Add("mask_short = Sub(mask_keys, mask_len)")
          .Add("mask_pad = Max(mask_short, zero_1)")
          .Add("mask_pads = Concat <axis = 0> (zero_1, mask_pad)")
          .Add("mask_bias_p = Pad(mask_bias, mask_pads, negs, ax_last)");
      bias = "mask_bias_p";
    }
    b.Add(("qk_m = Add(" + scores + ", " + bias + ")").c_str());
    scores = "qk_m";
  }
  // `name` = 0, 1, ..., n - 1: a constant where n is static, else a Range
  // to the run-time scalar `length`.
  auto positions = [&](const char *name, const std::optional<int64_t> &n,
                       const std::string &length) {
    if (n) {
      std::vector<int64_t> values(*n);
      std::iota(values.begin(), values.end(), int64_t(0));
      b.Const(name, values);
    } else {
      b.Add((std::string(name) + " = Range(zero_i, " + length + ", one_i)")
                .c_str());
    }
  };
  if (causal || nonpad) {
    b.Const("zero_i", int64_t(0)).Const("one_i", int64_t(1));
    if (qShape)
      b.Const("q_len", (*qShape)[2]);
    else
      b.Add(("q_len1 = Shape <start = 2, end = 3> (" + q + ")").c_str())
          .Add("q_len = Squeeze(q_len1, ax0)");
    if (!kShape)
      b.Add(("kv_len1 = Shape <start = 2, end = 3> (" + k + ")").c_str())
          .Add("kv_len = Squeeze(kv_len1, ax0)");
    positions("cols", seqLen(kShape), "kv_len");
  }
  // nonpad_kv_seqlen (batch): keys from each sample's count on are padding.
  if (nonpad) {
    b.Const("batch_shape", std::vector<int64_t>{-1, 1, 1, 1})
        .Add("nonpad_b = Reshape(nonpad_kv_seqlen, batch_shape)")
        .Add("padding = Less(cols, nonpad_b)")
        .Add("pad_bias = Where(padding, zeros, negs)")
        .Add(("qk_pad = Add(" + scores + ", pad_bias)").c_str());
    scores = "qk_pad";
  }
  // Causal, bottom-right aligned: query i sees key j iff j <= i + offset,
  // offset = the past sequence length, or per sample nonpad_kv_seqlen minus
  // the query length.
  if (causal) {
    std::string offset = "zero_i";
    if (hasInput(node, 4)) {
      b.Add("past_len1 = Shape <start = 2, end = 3> (past_key)")
          .Add("past_len = Squeeze(past_len1, ax0)");
      offset = "past_len";
    } else if (nonpad) {
      b.Add("offset_b = Sub(nonpad_b, q_len)");
      offset = "offset_b";
    }
    positions("rows", seqLen(qShape), "q_len");
    b.Add("rows_c = Unsqueeze(rows, ax1)")
        .Add(("rows_o = Add(rows_c, " + offset + ")").c_str())
        .Add("disallowed = Greater(cols, rows_o)")
        .Add("causal_bias = Where(disallowed, negs, zeros)")
        .Add(("qk_causal = Add(" + scores + ", causal_bias)").c_str());
    scores = "qk_causal";
  }
  if (wantsQK && mode == 2)
    b.Add(identity("qk_matmul_output", scores).c_str());
  if (const auto *p = findNodeAttr(node, "softmax_precision")) {
    b.Add(("qk_p = Cast(" + scores + ")").c_str(),
          onnx::MakeAttribute("to", p->i()))
        .Add("probs_p = Softmax <axis = -1> (qk_p)")
        .Add("probs_raw = CastLike(probs_p, Q)");
  } else {
    b.Add(("probs_raw = Softmax <axis = -1> (" + scores + ")").c_str());
  }
  std::string probs = "probs_raw";
  if (masked) {
    b.Add("probs_nan = IsNaN(probs_raw)")
        .Add("probs = Where(probs_nan, zeros, probs_raw)");
    probs = "probs";
  }
  if (wantsQK && mode == 3)
    b.Add(identity("qk_matmul_output", probs).c_str());
  b.Add(("Y4 = MatMul(" + probs + ", " + v + ")").c_str());
  if (rank == 3)
    b.Const("y_shape", std::vector<int64_t>{0, 0, -1})
        .Add("Y_t = Transpose <perm = [0, 2, 1, 3]> (Y4)")
        .Add("Y = Reshape(Y_t, y_shape)");
  else
    b.Add("Y = Identity(Y4)");
  return success();
}

/// RotaryEmbedding-23: rotates the first rotary_embedding_dim values of each
/// head by the position's angles (halves, or interleaved pairs), taking
/// cos/sin from the caches directly or at position_ids.
LogicalResult buildRotaryEmbedding(const onnx::NodeProto &node,
                                   const std::function<Type(StringRef)> &typeOf,
                                   onnx::FunctionProto &body,
                                   std::string &reason) {
  for (const char *in : {"X", "cos_cache", "sin_cache", "position_ids"})
    body.add_input(in);
  body.add_output("Y");
  auto x = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(0)));
  if (!x || (x.getRank() != 3 && x.getRank() != 4)) {
    reason = "needs an input of rank 3 or 4";
    return failure();
  }
  auto intAttr = [&](StringRef name, int64_t dflt) {
    const auto *a = findNodeAttr(node, name);
    return a ? a->i() : dflt;
  };
  int64_t heads = x.getRank() == 4 ? x.getDimSize(1) : intAttr("num_heads", 0);
  int64_t last = x.getDimSize(x.getRank() - 1);
  if (ShapedType::isDynamic(last) || heads <= 0 ||
      ShapedType::isDynamic(heads) || last % heads != 0) {
    reason = x.getRank() == 3 ? "needs num_heads and a static hidden size"
                              : "needs a static head size";
    return failure();
  }
  int64_t headSize = x.getRank() == 4 ? last : last / heads;
  int64_t rotary = intAttr("rotary_embedding_dim", 0);
  if (rotary == 0)
    rotary = headSize;
  if (rotary < 0 || rotary > headSize || rotary % 2 != 0) {
    reason = "has rotary_embedding_dim " + std::to_string(rotary) +
             " for heads of size " + std::to_string(headSize);
    return failure();
  }
  bool interleaved = intAttr("interleaved", 0) != 0;
  int64_t half = rotary / 2;

  onnx::FunctionBuilder b(body);
  b.Const("ax2", std::vector<int64_t>{2})
      .Const("ax3", std::vector<int64_t>{3})
      .Const("ax_last", std::vector<int64_t>{-1})
      .Const("at0", std::vector<int64_t>{0})
      .Const("at1", std::vector<int64_t>{1})
      .Const("at_half", std::vector<int64_t>{half})
      .Const("at_rotary", std::vector<int64_t>{rotary})
      .Const("at_head", std::vector<int64_t>{headSize})
      .Const("step2", std::vector<int64_t>{2});
  // (batch, sequence, heads, head size).
  if (x.getRank() == 4)
    b.Add("X_h = Transpose <perm = [0, 2, 1, 3]> (X)");
  else
    b.Const("heads_shape", std::vector<int64_t>{0, 0, heads, -1})
        .Add("X_h = Reshape(X, heads_shape)");
  b.Add("X_rot = Slice(X_h, at0, at_rotary, ax3)");
  if (hasInput(node, 3))
    b.Add("cos_g = Gather <axis = 0> (cos_cache, position_ids)")
        .Add("sin_g = Gather <axis = 0> (sin_cache, position_ids)");
  else
    b.Add("cos_g = Identity(cos_cache)").Add("sin_g = Identity(sin_cache)");
  b.Add("cos_b = Unsqueeze(cos_g, ax2)").Add("sin_b = Unsqueeze(sin_g, ax2)");
  if (interleaved)
    b.Add("x1 = Slice(X_rot, at0, at_rotary, ax3, step2)")
        .Add("x2 = Slice(X_rot, at1, at_rotary, ax3, step2)");
  else
    b.Add("x1 = Slice(X_rot, at0, at_half, ax3)")
        .Add("x2 = Slice(X_rot, at_half, at_rotary, ax3)");
  b.Add("cx1 = Mul(cos_b, x1)")
      .Add("sx2 = Mul(sin_b, x2)")
      .Add("real = Sub(cx1, sx2)")
      .Add("sx1 = Mul(sin_b, x1)")
      .Add("cx2 = Mul(cos_b, x2)")
      .Add("imag = Add(sx1, cx2)");
  if (interleaved)
    b.Const("rot_shape", std::vector<int64_t>{0, 0, 0, rotary})
        .Add("real_u = Unsqueeze(real, ax_last)")
        .Add("imag_u = Unsqueeze(imag, ax_last)")
        .Add("pairs = Concat <axis = -1> (real_u, imag_u)")
        .Add("rotated = Reshape(pairs, rot_shape)");
  else
    b.Add("rotated = Concat <axis = -1> (real, imag)");
  if (rotary < headSize)
    b.Add("X_keep = Slice(X_h, at_rotary, at_head, ax3)")
        .Add("out = Concat <axis = -1> (rotated, X_keep)");
  else
    b.Add("out = Identity(rotated)");
  if (x.getRank() == 4)
    b.Add("Y = Transpose <perm = [0, 2, 1, 3]> (out)");
  else
    b.Const("y_shape", std::vector<int64_t>{0, 0, -1})
        .Add("Y = Reshape(out, y_shape)");
  return success();
}

/// CausalConvWithState-27: a depthwise causal 1-D convolution over
/// concat(past_state or zeros, input) along time (k - 1 positions before
/// the input), with an optional bias and SiLU; present_state is the last
/// k - 1 positions of that concatenation. float16/bfloat16 are convolved in
/// float32, as ONNX's reference does.
LogicalResult
buildCausalConvWithState(const onnx::NodeProto &node,
                         const std::function<Type(StringRef)> &typeOf,
                         onnx::FunctionProto &body, std::string &reason) {
  for (const char *in : {"input", "weight", "bias", "past_state"})
    body.add_input(in);
  body.add_output("output");
  body.add_output("present_state");
  auto x = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(0)));
  auto w = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(1)));
  if (!x || !w || x.getRank() != 3 || w.getRank() != 3 ||
      ShapedType::isDynamic(w.getDimSize(0))) {
    reason = "needs a rank-3 input and weight with a static channel count";
    return failure();
  }
  const auto *act = findNodeAttr(node, "activation");
  std::string activation = act ? act->s() : "none";
  if (activation != "none" && activation != "silu" && activation != "swish") {
    reason = "has activation '" + activation + "' (none, silu or swish)";
    return failure();
  }
  bool narrow = !x.getElementType().isF32() && !x.getElementType().isF64();
  std::string group = std::to_string(w.getDimSize(0));
  onnx::FunctionBuilder b(body);
  b.Const("one", std::vector<int64_t>{1})
      .Const("ax2", std::vector<int64_t>{2})
      .Add("k = Shape <start = 2, end = 3> (weight)")
      .Add("k1 = Sub(k, one)");
  if (hasInput(node, 3)) {
    b.Add("padded = Concat <axis = 2> (past_state, input)");
  } else {
    b.Add("bc = Shape <start = 0, end = 2> (input)")
        .Add("zeros_shape = Concat <axis = 0> (bc, k1)")
        .Add("zeros_f = ConstantOfShape(zeros_shape)")
        .Add("zeros = CastLike(zeros_f, input)")
        .Add("padded = Concat <axis = 2> (zeros, input)");
  }
  std::string xs = "padded", ws = "weight", bs = "bias";
  if (narrow) {
    b.Add("padded_f = Cast <to = 1> (padded)")
        .Add("weight_f = Cast <to = 1> (weight)");
    xs = "padded_f";
    ws = "weight_f";
    if (hasInput(node, 2)) {
      b.Add("bias_f = Cast <to = 1> (bias)");
      bs = "bias_f";
    }
  }
  std::string conv = "conv = Conv <group = " + group + "> (" + xs + ", " + ws +
                     (hasInput(node, 2) ? ", " + bs : std::string()) + ")";
  b.Add(conv.c_str());
  if (activation == "none")
    b.Add("act = Identity(conv)");
  else
    b.Add("gate = Sigmoid(conv)").Add("act = Mul(conv, gate)");
  if (narrow)
    b.Add("output = CastLike(act, input)");
  else
    b.Add("output = Identity(act)");
  b.Add("len = Shape <start = 2, end = 3> (padded)")
      .Add("start = Sub(len, k1)")
      .Add("present_state = Slice(padded, start, len, ax2)");
  return success();
}

/// SwiGLU-28: Y = A * sigmoid(alpha * A) * B.
LogicalResult buildSwiGLU(const onnx::NodeProto &node,
                          onnx::FunctionProto &body) {
  body.add_input("A");
  body.add_input("B");
  body.add_output("Y");
  const auto *alpha = findNodeAttr(node, "alpha");
  onnx::FunctionBuilder b(body);
  b.Const("alpha_f", alpha ? alpha->f() : 1.0f)
      .Add("alpha = CastLike(alpha_f, A)")
      .Add("scaled = Mul(alpha, A)")
      .Add("gate = Sigmoid(scaled)")
      .Add("swish = Mul(A, gate)")
      .Add("Y = Mul(swish, B)");
  return success();
}

/// GroupNormalization-18/21: mean and variance per sample and group of
/// channels, then scale and bias per group (18) or per channel (21); stage
/// one in float32 when stash_type is 1 (21).
LogicalResult
buildGroupNormalization(const onnx::NodeProto &node, int version,
                        const std::function<Type(StringRef)> &typeOf,
                        onnx::FunctionProto &body, std::string &reason) {
  for (const char *in : {"X", "scale", "bias"})
    body.add_input(in);
  body.add_output("Y");
  auto x = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(0)));
  const auto *groupsAttr = findNodeAttr(node, "num_groups");
  int64_t groups = groupsAttr ? groupsAttr->i() : 0;
  if (!x || x.getRank() < 2 || groups <= 0) {
    reason = "needs an input of known rank >= 2 and num_groups";
    return failure();
  }
  int64_t channels = x.getDimSize(1);
  if (version < 21 &&
      (ShapedType::isDynamic(channels) || channels % groups != 0)) {
    reason = "has per-group scale and bias but no static channel count "
             "divisible by num_groups";
    return failure();
  }
  const auto *eps = findNodeAttr(node, "epsilon");
  const auto *stash = findNodeAttr(node, "stash_type");
  bool toFloat = version >= 21 && (!stash || stash->i() == 1);
  onnx::FunctionBuilder b(body);
  b.Const("eps_f", eps ? eps->f() : 1e-5f)
      .Const("group_shape", std::vector<int64_t>{0, groups, -1});
  if (toFloat)
    b.Add("X_s = Cast <to = 1> (X)");
  else
    b.Add("X_s = Identity(X)");
  b.Add("eps = CastLike(eps_f, X_s)")
      .Add("x_shape = Shape(X)")
      .Add("X_g = Reshape(X_s, group_shape)")
      .Add("mean = ReduceMean <axes = [2]> (X_g)")
      .Add("centered = Sub(X_g, mean)")
      .Add("squares = Mul(centered, centered)")
      .Add("var = ReduceMean <axes = [2]> (squares)")
      .Add("var_eps = Add(var, eps)")
      .Add("std = Sqrt(var_eps)")
      .Add("normal_g = Div(centered, std)")
      .Add("normal_s = Reshape(normal_g, x_shape)")
      .Add("normal = CastLike(normal_s, X)");
  // Per-channel scale and bias as (C, 1, ..., 1) against (N, C, D1, ...).
  std::vector<int64_t> channelShape(x.getRank() - 1, 1);
  channelShape[0] = -1;
  b.Const("channel_shape", channelShape);
  if (version < 21) {
    // Each group's scale and bias repeated over its channels.
    b.Const("per_group", std::vector<int64_t>{groups, 1})
        .Const("repeat", std::vector<int64_t>{groups, channels / groups})
        .Const("flat", std::vector<int64_t>{-1})
        .Add("scale_g = Reshape(scale, per_group)")
        .Add("scale_r = Expand(scale_g, repeat)")
        .Add("scale_c = Reshape(scale_r, flat)")
        .Add("bias_g = Reshape(bias, per_group)")
        .Add("bias_r = Expand(bias_g, repeat)")
        .Add("bias_c = Reshape(bias_r, flat)");
  } else {
    b.Add("scale_c = Identity(scale)").Add("bias_c = Identity(bias)");
  }
  b.Add("scale_b = Reshape(scale_c, channel_shape)")
      .Add("bias_b = Reshape(bias_c, channel_shape)")
      .Add("scaled = Mul(normal, scale_b)")
      .Add("Y = Add(scaled, bias_b)");
  return success();
}

/// CenterCropPad-18: along each of `axes` (every dim by default) pad with
/// zeros to `shape` (floor(half) before, the rest after), then crop the
/// centre window of `shape` (starting at floor(half) of the excess).
LogicalResult buildCenterCropPad(const onnx::NodeProto &node,
                                 const std::function<Type(StringRef)> &typeOf,
                                 onnx::FunctionProto &body,
                                 std::string &reason) {
  body.add_input("input_data");
  body.add_input("shape");
  body.add_output("output_data");
  auto x = dyn_cast_or_null<RankedTensorType>(typeOf(node.input(0)));
  if (!x) {
    reason = "needs an input of known rank";
    return failure();
  }
  int64_t rank = x.getRank();
  std::vector<int64_t> axes;
  if (const auto *attr = findNodeAttr(node, "axes")) {
    for (int64_t a : attr->ints()) {
      if (a < -rank || a >= rank) {
        reason = "has an axis outside [-rank, rank)";
        return failure();
      }
      axes.push_back(a < 0 ? a + rank : a);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  onnx::FunctionBuilder b(body);
  b.Const("axes", axes)
      .Const("zero", std::vector<int64_t>{0})
      .Const("two", std::vector<int64_t>{2})
      .Add("x_shape = Shape(input_data)")
      .Add("x_dims = Gather(x_shape, axes)")
      .Add("grow = Sub(shape, x_dims)")
      .Add("pad_total = Max(grow, zero)")
      .Add("pad_before = Div(pad_total, two)")
      .Add("pad_after = Sub(pad_total, pad_before)");
  // Pad-13's pads for every dim: the named ones' amounts, 0 elsewhere.
  std::string befores, afters;
  for (int64_t d = 0; d < rank; ++d) {
    auto it = std::find(axes.begin(), axes.end(), d);
    std::string pb = "zero", pa = "zero";
    if (it != axes.end()) {
      int64_t i = it - axes.begin();
      std::string at = "at_" + std::to_string(d);
      std::string next = "next_" + std::to_string(d);
      pb = "before_" + std::to_string(d);
      pa = "after_" + std::to_string(d);
      b.Const(at, std::vector<int64_t>{i})
          .Const(next, std::vector<int64_t>{i + 1})
          .Add((pb + " = Slice(pad_before, " + at + ", " + next + ")").c_str())
          .Add((pa + " = Slice(pad_after, " + at + ", " + next + ")").c_str());
    }
    befores += (d ? ", " : "") + pb;
    afters += ", " + pa;
  }
  b.Add(("pads = Concat <axis = 0> (" + befores + afters + ")").c_str())
      .Add("padded = Pad(input_data, pads)")
      .Add("shrink = Sub(x_dims, shape)")
      .Add("crop_total = Max(shrink, zero)")
      .Add("starts = Div(crop_total, two)")
      .Add("ends = Add(starts, shape)")
      .Add("output_data = Slice(padded, starts, ends, axes)");
  return success();
}

} // namespace

bool mlir::onnxc::hasFunctionExpansion(StringRef opType, int version) {
  return (opType == "CenterCropPad" && version == 18) ||
         (opType == "Attention" && version >= 23 && version <= 25) ||
         (opType == "RotaryEmbedding" && version == 23) ||
         (opType == "SwiGLU" && version == 28) ||
         (opType == "CausalConvWithState" && version == 27) ||
         (opType == "GroupNormalization" && (version == 18 || version == 21));
}

LogicalResult mlir::onnxc::buildFunctionExpansion(
    const onnx::NodeProto &node, int version,
    const std::function<Type(StringRef name)> &typeOf,
    onnx::FunctionProto &body, std::string &reason) {
  try {
    if (!hasFunctionExpansion(node.op_type(), version)) {
      reason = "has no function expansion";
      return failure();
    }
    // The inputs the schemas require (ONNX 1.23): the builders read them.
    static const std::pair<const char *, const char *> kRequired[] = {
        {"Attention", "Q, K, V"},
        {"RotaryEmbedding", "X, cos_cache, sin_cache"},
        {"SwiGLU", "A, B"},
        {"CausalConvWithState", "input, weight"},
        {"CenterCropPad", "input_data, shape"},
        {"GroupNormalization", "X, scale, bias"}};
    for (const auto &[op, names] : kRequired) {
      if (node.op_type() != op)
        continue;
      int count = 1 + int(StringRef(names).count(','));
      for (int i = 0; i < count; ++i)
        if (!hasInput(node, i)) {
          reason = "needs its first " + std::to_string(count) + " inputs (" +
                   names + ")";
          return failure();
        }
    }
    if (node.op_type() == "Attention")
      return buildAttention(node, typeOf, body, reason);
    if (node.op_type() == "RotaryEmbedding")
      return buildRotaryEmbedding(node, typeOf, body, reason);
    if (node.op_type() == "SwiGLU")
      return buildSwiGLU(node, body);
    if (node.op_type() == "CausalConvWithState")
      return buildCausalConvWithState(node, typeOf, body, reason);
    if (node.op_type() == "CenterCropPad")
      return buildCenterCropPad(node, typeOf, body, reason);
    if (node.op_type() == "GroupNormalization")
      return buildGroupNormalization(node, version, typeOf, body, reason);
  } catch (const std::exception &e) {
    reason = std::string("cannot build its function body: ") + e.what();
    return failure();
  }
  reason = "has no function expansion";
  return failure();
}
