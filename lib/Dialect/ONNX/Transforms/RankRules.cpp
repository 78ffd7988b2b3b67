//===- RankRules.cpp - onnxc's own result shapes from operand ranks -------===//
//
// See RankRules.h. Each family's rule returns one optional shape per result
// it knows (kDynamic for unknown dims); applyRankRules uses them only for
// results that ONNX's inference left without a rank.
//
//===----------------------------------------------------------------------===//

#include "RankRules.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;
using Shape = SmallVector<int64_t>;
using Shapes = SmallVector<std::optional<Shape>>;

/// The shape of `v` when it is a ranked tensor.
std::optional<Shape> shapeOf(Value v) {
  auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  if (!t)
    return std::nullopt;
  return Shape(t.getShape());
}

std::optional<int64_t> rankOf(Value v) {
  auto s = shapeOf(v);
  return s ? std::optional<int64_t>(int64_t(s->size())) : std::nullopt;
}

Shape dynamicOfRank(int64_t rank) { return Shape(rank, kDyn); }

/// The static length of a 1-D operand (how many values a shape or axes
/// operand holds), when known.
std::optional<int64_t> staticLength(Value v) {
  auto s = shapeOf(v);
  if (!s || s->size() != 1 || ShapedType::isDynamic((*s)[0]))
    return std::nullopt;
  return (*s)[0];
}

/// An operand that is given (not absent, not none).
bool present(Operation *op, unsigned i) {
  return i < op->getNumOperands() && op->getOperand(i) &&
         !isa<NoneType>(op->getOperand(i).getType());
}

int64_t intAttr(Operation *op, StringRef name, int64_t dflt) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  return attr ? attr.getInt() : dflt;
}

/// ONNX's multidirectional broadcast of the given operands' shapes: the
/// largest rank; a dim is the static size > 1 any operand has, 1 when all
/// have 1, else dynamic.
std::optional<Shape> broadcast(ArrayRef<Value> operands) {
  SmallVector<Shape> shapes;
  int64_t rank = 0;
  for (Value v : operands) {
    auto s = shapeOf(v);
    if (!s)
      return std::nullopt;
    rank = std::max<int64_t>(rank, s->size());
    shapes.push_back(*s);
  }
  Shape out(rank, 1);
  for (int64_t i = 0; i < rank; ++i) {
    bool dynamic = false;
    int64_t size = 1;
    for (const Shape &s : shapes) {
      int64_t at = int64_t(s.size()) - rank + i;
      if (at < 0)
        continue;
      int64_t d = s[at];
      if (ShapedType::isDynamic(d))
        dynamic = true;
      else if (d != 1)
        size = size == 1 || size == d ? d : kDyn;
    }
    out[i] = size != 1 ? size : (dynamic ? kDyn : 1);
  }
  return out;
}

// --- The families -----------------------------------------------------------

/// Elementwise and normalising ops whose every listed result has the first
/// operand's shape.
Shapes sameShape(Operation *op, StringRef name) {
  static const llvm::StringSet<> unary = {
      "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil",
      "Cos", "Cosh", "Erf", "Exp", "Floor", "Log", "Neg", "Not",
      "Reciprocal", "Relu", "Round", "Sigmoid", "Sign", "Sin", "Sinh",
      "Sqrt", "Tan", "Tanh", "IsNaN", "IsInf", "Elu", "Selu", "LeakyRelu",
      "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Mish", "Gelu",
      "Celu", "ThresholdedRelu", "Shrink", "Swish", "Identity", "Clip",
      "Softmax", "LogSoftmax", "Hardmax", "LpNormalization", "LRN",
      "MeanVarianceNormalization", "CumSum", "Trilu", "BitwiseNot",
      "Bernoulli", "RandomNormalLike", "RandomUniformLike", "EyeLike",
      "InstanceNormalization", "GroupNormalization", "ScatterElements",
      "ScatterND", "Scatter", "ReverseSequence", "Dropout",
      "BatchNormalization", "LayerNormalization", "RMSNormalization",
      "DynamicQuantizeLinear", "CenterCropPad"};
  if (!unary.contains(name))
    return {};
  std::optional<Shape> in = shapeOf(op->getOperand(0));
  if (!in)
    return {};
  // Operands that do not fit the operator get no type: the lowering or the
  // verifier names what is wrong. An axis must be one of the input's dims;
  // normalizations need a channel dim.
  int64_t rank = in->size();
  if (auto axis = op->getAttrOfType<IntegerAttr>("axis"))
    if (axis.getInt() < -rank || axis.getInt() >= rank)
      return {};
  if ((name == "LayerNormalization" || name == "RMSNormalization") && rank == 0)
    return {};
  if ((name == "BatchNormalization" || name == "InstanceNormalization" ||
       name == "GroupNormalization" || name == "LRN") &&
      rank < 2)
    return {};
  // CenterCropPad changes the sizes of the dims it names.
  if (name == "CenterCropPad")
    return {dynamicOfRank(in->size())};
  if (name == "Dropout") // output and mask
    return {in, in};
  if (name == "DynamicQuantizeLinear") // y, then scalar scale and zero point
    return {in, Shape{}, Shape{}};
  if (name == "BatchNormalization") {
    // Training mode: the running mean and variance are per channel.
    Shape channels{in->size() > 1 ? (*in)[1] : kDyn};
    return {in, channels, channels};
  }
  if (name == "LayerNormalization" || name == "RMSNormalization") {
    // Mean and InvStdDev: X's dims before the axis, 1 from it on.
    std::optional<int64_t> axis = normalizedAxis(intAttr(op, "axis", -1), rank);
    if (!axis)
      return {in};
    Shape stat = *in;
    for (int64_t d = *axis; d < rank; ++d)
      stat[d] = 1;
    return {in, stat, stat};
  }
  return {in};
}

/// Multidirectionally broadcasting ops.
Shapes broadcasting(Operation *op, StringRef name) {
  static const llvm::StringSet<> ops = {
      "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Mod",
      "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And",
      "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
      "PRelu", "Where"};
  if (!ops.contains(name))
    return {};
  SmallVector<Value> operands;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (present(op, i))
      operands.push_back(op->getOperand(i));
  return {broadcast(operands)};
}

/// Convolutions and pooling: the input's rank; N from the input, C from the
/// weight (Conv) or the input (pooling).
Shapes windowed(Operation *op, StringRef name) {
  bool conv = name == "Conv" || name == "ConvInteger" || name == "QLinearConv";
  bool pool = name == "MaxPool" || name == "AveragePool" || name == "LpPool";
  bool global = name.starts_with("Global");
  if (!conv && !pool && !global && name != "ConvTranspose")
    return {};
  std::optional<Shape> in = shapeOf(op->getOperand(0));
  if (!in || in->size() < 2)
    return {};
  Shape out = dynamicOfRank(in->size());
  out[0] = (*in)[0];
  if (pool || global)
    out[1] = (*in)[1];
  if (global)
    std::fill(out.begin() + 2, out.end(), 1);
  if (conv) {
    // QLinearConv's weight is operand 3.
    std::optional<Shape> w =
        shapeOf(op->getOperand(name == "QLinearConv" ? 3 : 1));
    // A weight of another rank is an error the verifier reports.
    if (w && w->size() != in->size())
      return {};
    if (w)
      out[1] = (*w)[0];
  }
  if (name == "ConvTranspose")
    if (auto w = shapeOf(op->getOperand(1)); w && w->size() != in->size())
      return {};
  if (name == "MaxPool") // Indices as well.
    return {out, out};
  return {out};
}

/// Ops whose results keep the first operand's rank, their dims changed in
/// ways only data or attributes decide.
Shapes sameRank(Operation *op, StringRef name) {
  static const llvm::StringSet<> ops = {
      "Resize", "Upsample", "Pad", "Tile", "Slice", "DepthToSpace",
      "SpaceToDepth", "Split", "TopK", "Col2Im", "AffineGrid"};
  if (!ops.contains(name) || op->getNumOperands() == 0)
    return {};
  std::optional<int64_t> rank = rankOf(op->getOperand(0));
  if (!rank || name == "Col2Im" || name == "AffineGrid")
    return {};
  Shapes out(op->getNumResults(), dynamicOfRank(*rank));
  if (name == "Split" && !present(op, 1)) {
    // Without sizes: ceil(dim / parts) each, the last part smaller.
    Shape in = *shapeOf(op->getOperand(0));
    int64_t parts = op->getNumResults();
    std::optional<int64_t> ax = normalizedAxis(intAttr(op, "axis", 0), *rank);
    if (!ax || parts == 0)
      return {};
    int64_t axis = *ax;
    for (int64_t i = 0; i < parts; ++i) {
      Shape shape = in;
      if (!ShapedType::isDynamic(in[axis])) {
        int64_t chunk = (in[axis] + parts - 1) / parts;
        shape[axis] = std::clamp<int64_t>(in[axis] - chunk * i, 0, chunk);
      }
      out[i] = shape;
    }
    return out;
  }
  if (name == "TopK" || name == "Split") {
    // Every dim but the axis keeps its size.
    Shape in = *shapeOf(op->getOperand(0));
    std::optional<int64_t> axis =
        normalizedAxis(intAttr(op, "axis", name == "TopK" ? -1 : 0), *rank);
    if (axis) {
      in[*axis] = kDyn;
      for (auto &s : out)
        s = in;
    }
  }
  return out;
}

/// Shape manipulation: Transpose, Concat, Flatten, Reshape, Expand, Squeeze,
/// Unsqueeze, Shape, Size, Compress, NonZero, Range.
Shapes shapeOps(Operation *op, StringRef name) {
  if (name == "Transpose") {
    std::optional<Shape> in = shapeOf(op->getOperand(0));
    if (!in)
      return {};
    int64_t rank = in->size();
    Shape out;
    if (auto perm = op->getAttrOfType<ArrayAttr>("perm")) {
      for (Attribute a : perm) {
        int64_t p = cast<IntegerAttr>(a).getInt();
        if (p < 0 || p >= rank || int64_t(perm.size()) != rank)
          return {dynamicOfRank(rank)};
        out.push_back((*in)[p]);
      }
    } else {
      out.assign(in->rbegin(), in->rend());
    }
    return {out};
  }
  if (name == "Concat") {
    std::optional<int64_t> rank;
    for (Value v : op->getOperands())
      if ((rank = rankOf(v)))
        break;
    if (!rank)
      return {};
    // An axis out of range: no dim is the concatenated one (-1).
    int64_t axis =
        normalizedAxis(intAttr(op, "axis", 0), *rank).value_or(-1);
    // Dims other than the axis: whichever input knows them.
    Shape out = dynamicOfRank(*rank);
    int64_t total = 0;
    for (Value v : op->getOperands()) {
      std::optional<Shape> s = shapeOf(v);
      if (!s || int64_t(s->size()) != *rank) {
        total = kDyn;
        continue;
      }
      for (int64_t d = 0; d < *rank; ++d)
        if (d != axis && ShapedType::isDynamic(out[d]))
          out[d] = (*s)[d];
      if (axis >= 0 && axis < *rank && !ShapedType::isDynamic(total))
        total = ShapedType::isDynamic((*s)[axis]) ? kDyn : total + (*s)[axis];
    }
    if (axis >= 0 && axis < *rank)
      out[axis] = total;
    return {out};
  }
  if (name == "Flatten")
    return {rankOf(op->getOperand(0)) ? std::optional(Shape{kDyn, kDyn})
                                      : std::nullopt};
  if (name == "Shape")
    return {Shape{kDyn}};
  if (name == "Size")
    return {Shape{}};
  if (name == "NonZero")
    if (auto rank = rankOf(op->getOperand(0)))
      return {Shape{*rank, kDyn}};
  if (name == "Range")
    return {Shape{kDyn}};
  if (name == "Compress") {
    if (!op->getAttr("axis"))
      return {Shape{kDyn}};
    if (auto rank = rankOf(op->getOperand(0)))
      return {dynamicOfRank(*rank)};
    return {};
  }
  // Reshape's and ConstantOfShape's rank is the static length of the shape
  // operand, Expand's the larger of the data's and that length,
  // Squeeze's/Unsqueeze's the data's minus/plus the static number of axes.
  if (name == "Reshape" || name == "ConstantOfShape")
    if (auto n = staticLength(op->getOperand(name == "Reshape" ? 1 : 0)))
      return {dynamicOfRank(*n)};
  if (name == "Expand") {
    std::optional<int64_t> n = staticLength(op->getOperand(1)),
                           r = rankOf(op->getOperand(0));
    if (n && r)
      return {dynamicOfRank(std::max(*n, *r))};
  }
  if (name == "Squeeze" || name == "Unsqueeze") {
    std::optional<Shape> in = shapeOf(op->getOperand(0));
    if (!in)
      return {};
    int64_t r = in->size();
    std::optional<int64_t> n;
    if (present(op, 1))
      n = staticLength(op->getOperand(1));
    else if (auto axes = op->getAttrOfType<ArrayAttr>("axes"))
      n = axes.size();
    if (name == "Unsqueeze")
      return {n ? std::optional(dynamicOfRank(r + *n)) : std::nullopt};
    if (n && *n > 0 && *n <= r)
      return {dynamicOfRank(r - *n)};
    if (!present(op, 1) && !op->getAttr("axes")) {
      // Without axes the unit dims go; a dynamic dim is taken not to be 1
      // (the lowering checks it at run time), as onnx-mlir does.
      Shape out;
      for (int64_t d : *in)
        if (d != 1)
          out.push_back(d);
      return {out};
    }
  }
  return {};
}

/// Indexing: Gather, GatherElements, GatherND, OneHot, ArgMax/ArgMin.
Shapes indexing(Operation *op, StringRef name) {
  if (name == "Gather") {
    std::optional<Shape> data = shapeOf(op->getOperand(0)),
                         idx = shapeOf(op->getOperand(1));
    if (!data || !idx || data->empty())
      return {};
    int64_t r = data->size();
    std::optional<int64_t> ax = normalizedAxis(intAttr(op, "axis", 0), r);
    if (!ax)
      return {};
    int64_t axis = *ax;
    Shape out(data->begin(), data->begin() + axis);
    out.append(*idx);
    out.append(data->begin() + axis + 1, data->end());
    return {out};
  }
  if (name == "GatherElements")
    return {shapeOf(op->getOperand(1))};
  if (name == "GatherND") {
    std::optional<int64_t> r = rankOf(op->getOperand(0));
    std::optional<Shape> idx = shapeOf(op->getOperand(1));
    if (!r || !idx || idx->empty() || ShapedType::isDynamic(idx->back()))
      return {};
    int64_t rank = int64_t(idx->size()) - 1 + *r - idx->back() -
                   intAttr(op, "batch_dims", 0);
    return {rank >= 0 ? std::optional(dynamicOfRank(rank)) : std::nullopt};
  }
  if (name == "OneHot")
    if (auto r = rankOf(op->getOperand(0)))
      return {dynamicOfRank(*r + 1)};
  if (name == "ArgMax" || name == "ArgMin")
    if (auto in = shapeOf(op->getOperand(0))) {
      int64_t r = in->size();
      std::optional<int64_t> ax = normalizedAxis(intAttr(op, "axis", 0), r);
      if (!ax)
        return {};
      int64_t axis = *ax;
      Shape out = *in;
      if (intAttr(op, "keepdims", 1))
        out[axis] = 1;
      else
        out.erase(out.begin() + axis);
      return {out};
    }
  return {};
}

/// Products: MatMul (and its integer forms), Gemm.
Shapes products(Operation *op, StringRef name) {
  if (name == "Gemm") {
    std::optional<Shape> a = shapeOf(op->getOperand(0)),
                         b = shapeOf(op->getOperand(1));
    if ((a && a->size() != 2) || (b && b->size() != 2))
      return {};
    Shape out{kDyn, kDyn};
    if (a && a->size() == 2)
      out[0] = (*a)[intAttr(op, "transA", 0) ? 1 : 0];
    if (b && b->size() == 2)
      out[1] = (*b)[intAttr(op, "transB", 0) ? 0 : 1];
    return {out};
  }
  if (name != "MatMul" && name != "MatMulInteger" && name != "QLinearMatMul")
    return {};
  std::optional<Shape> a = shapeOf(op->getOperand(0)),
                       b = shapeOf(op->getOperand(name == "QLinearMatMul" ? 3
                                                                          : 1));
  if (!a || !b || a->empty() || b->empty())
    return {};
  // 1-D operands get a unit dim, which goes again afterwards.
  bool aVec = a->size() == 1, bVec = b->size() == 1;
  Shape sa = aVec ? Shape{1, (*a)[0]} : *a, sb = bVec ? Shape{(*b)[0], 1} : *b;
  // The batch dims broadcast.
  Shape batchA(sa.begin(), sa.end() - 2), batchB(sb.begin(), sb.end() - 2);
  int64_t rank = std::max(batchA.size(), batchB.size());
  Shape out(rank, 1);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t ia = int64_t(batchA.size()) - rank + i,
            ib = int64_t(batchB.size()) - rank + i;
    int64_t x = ia >= 0 ? batchA[ia] : 1, y = ib >= 0 ? batchB[ib] : 1;
    out[i] = x == 1 ? y : y == 1 ? x : x == y ? x : kDyn;
  }
  if (!aVec)
    out.push_back(sa[sa.size() - 2]);
  if (!bVec)
    out.push_back(sb.back());
  return {out};
}

/// Recurrences: Y [seq, directions, batch, hidden] (or batch first with
/// layout 1), Y_h and Y_c [directions, batch, hidden].
Shapes recurrences(Operation *op, StringRef name) {
  if (name != "LSTM" && name != "GRU" && name != "RNN")
    return {};
  std::optional<Shape> x = shapeOf(op->getOperand(0));
  if (!x || x->size() != 3)
    return {};
  bool batchFirst = intAttr(op, "layout", 0) != 0;
  int64_t seq = (*x)[batchFirst ? 1 : 0], batch = (*x)[batchFirst ? 0 : 1];
  int64_t hidden = intAttr(op, "hidden_size", kDyn);
  auto dir = op->getAttrOfType<StringAttr>("direction");
  int64_t dirs = dir && dir.getValue() == "bidirectional" ? 2 : 1;
  Shape y = batchFirst ? Shape{batch, seq, dirs, hidden}
                       : Shape{seq, dirs, batch, hidden};
  Shape state = batchFirst ? Shape{batch, dirs, hidden}
                           : Shape{dirs, batch, hidden};
  return {y, state, state};
}

/// If: a result whose two branches yield the same rank has it, with the
/// dims both agree on.
Shapes conditionals(Operation *op, StringRef name) {
  if (name != "If" || op->getNumRegions() != 2)
    return {};
  Region &a = op->getRegion(0), &b = op->getRegion(1);
  if (a.empty() || b.empty())
    return {};
  Operation *ya = a.front().getTerminator(), *yb = b.front().getTerminator();
  if (!ya || !yb || ya->getNumOperands() != op->getNumResults() ||
      yb->getNumOperands() != op->getNumResults())
    return {};
  Shapes out;
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    std::optional<Shape> sa = shapeOf(ya->getOperand(i)),
                         sb = shapeOf(yb->getOperand(i));
    if (!sa || !sb || sa->size() != sb->size()) {
      out.push_back(std::nullopt);
      continue;
    }
    Shape s = *sa;
    for (auto [x, y] : llvm::zip(s, *sb))
      if (x != y)
        x = kDyn;
    out.push_back(s);
  }
  return out;
}

/// Reduce* with run-time axes (or none): the rank is fixed by keepdims (the
/// data's) or by the static number of axes.
Shapes reductions(Operation *op, StringRef name) {
  if (!name.starts_with("Reduce"))
    return {};
  std::optional<Shape> data = shapeOf(op->getOperand(0));
  if (!data)
    return {};
  Shape out;
  int64_t rank = data->size();
  if (intAttr(op, "keepdims", 1) != 0) {
    // Each dim is 1 when reduced, else the data's: unit dims stay 1.
    for (int64_t d : *data)
      out.push_back(d == 1 ? 1 : kDyn);
    return {out};
  }
  std::optional<int64_t> numAxes;
  if (present(op, 1))
    numAxes = staticLength(op->getOperand(1));
  else if (auto axes = op->getAttrOfType<ArrayAttr>("axes"))
    numAxes = axes.size();
  else
    numAxes = 0;
  if (!numAxes)
    return {};
  if (*numAxes == 0 && intAttr(op, "noop_with_empty_axes", 0))
    return {*data}; // No reduction.
  if (*numAxes > rank)
    return {};
  // Every axis when there are none, else one dim fewer per axis.
  return {dynamicOfRank(*numAxes == 0 ? 0 : rank - *numAxes)};
}

/// Loop: carried results keep the rank of their initial values, scan
/// outputs have one more dim than what the body yields; the element types
/// are theirs too (the importer may not know the results' yet).
void loops(ONNXLoopOp loop, MutableArrayRef<Type> types) {
  auto dynamicOf = [](Value v, int extra) -> Type {
    auto r = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
    if (!r)
      return nullptr;
    return RankedTensorType::get(dynamicOfRank(r.getRank() + extra),
                                 r.getElementType());
  };
  unsigned numCarried = loop.getVInitial().size();
  Operation *yield = loop.getBody().front().getTerminator();
  for (unsigned i = 0; i < types.size(); ++i) {
    if (isa_and_nonnull<RankedTensorType>(types[i]))
      continue;
    Type t = i < numCarried ? dynamicOf(loop.getVInitial()[i], 0)
             : yield && 1 + i < yield->getNumOperands()
                 ? dynamicOf(yield->getOperand(1 + i), 1)
                 : Type();
    if (t)
      types[i] = t;
  }
}

} // namespace

void mlir::onnxc::inference::applyRankRules(Operation *op,
                                            MutableArrayRef<Type> types,
                                            bool onnxRefused) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("onnx."))
    return;
  // What libonnx refuses mostly does not fit the operator: only the ops
  // whose newer versions libonnx 1.12 checks by an older rule (Split-18's
  // uneven parts, Reduce*-18's axes input, ...) get a type then.
  static const llvm::StringSet<> newerThanLibonnx = {
      "Split", "Slice", "Reshape", "Expand", "Squeeze", "Unsqueeze", "Loop"};
  if (onnxRefused && !newerThanLibonnx.contains(name) &&
      !name.starts_with("Reduce"))
    return;
  if (llvm::all_of(types, [](Type t) { return isa_and_nonnull<RankedTensorType>(t); }))
    return;
  if (auto loop = dyn_cast<ONNXLoopOp>(op))
    return loops(loop, types);
  Shapes shapes;
  for (auto rule : {sameShape, broadcasting, windowed, sameRank, shapeOps,
                    indexing, products, recurrences, conditionals,
                    reductions}) {
    shapes = rule(op, name);
    if (!shapes.empty())
      break;
  }
  for (auto [i, shape] : llvm::enumerate(shapes)) {
    if (i >= types.size() || !shape ||
        isa_and_nonnull<RankedTensorType>(types[i]))
      continue;
    Type like = types[i] ? types[i] : op->getResult(i).getType();
    // Without a result element type (the importer's results before
    // inference), the data's, for the ops that keep it.
    if (!isa<TensorType>(like) && newerThanLibonnx.contains(name) &&
        op->getNumOperands() > 0)
      like = op->getOperand(0).getType();
    auto tensor = dyn_cast<TensorType>(like);
    // Results that are not tensors (sequences, optionals) or whose element
    // type is a container are left alone.
    if (!tensor || isa<TensorType>(tensor.getElementType()))
      continue;
    types[i] = RankedTensorType::get(*shape, tensor.getElementType());
  }
}
