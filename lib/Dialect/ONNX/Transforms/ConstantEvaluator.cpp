//===- ConstantEvaluator.cpp - Compile-time evaluation of onnx ops --------===//
//
// Data movement (Gather, Slice, Concat, Transpose, Expand, Reshape, ...) is
// expressed once, as the flat index each result element is read from, and
// applied to integer and float tensors alike (`take`). Elementwise ops
// broadcast their operands the same way and combine the elements.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/Transforms/ConstantEvaluator.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::onnxc;

using KT = KnownTensor;
using Shape = SmallVector<int64_t>;

static int64_t product(ArrayRef<int64_t> shape);

int64_t KnownTensor::numElements() const { return product(shape); }

std::optional<KT> KnownTensor::fromAttr(ElementsAttr attr,
                                        int64_t maxElements) {
  auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr);
  if (!dense || dense.getNumElements() > maxElements)
    return std::nullopt;
  KT t;
  t.shape.assign(dense.getType().getShape().begin(),
                 dense.getType().getShape().end());
  Type et = dense.getElementType();
  if (isa<FloatType>(et)) {
    t.isFloat = true;
    for (const APFloat &v : dense.getValues<APFloat>()) {
      bool lost;
      APFloat d = v;
      d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      t.floats.push_back(d.convertToDouble());
    }
    return t;
  }
  if (et.isInteger(1)) {
    for (bool v : dense.getValues<bool>())
      t.ints.push_back(v);
    return t;
  }
  if (!et.isIntOrIndex() || et.getIntOrFloatBitWidth() > 64)
    return std::nullopt;
  bool isUnsigned = et.isUnsignedInteger();
  for (const APInt &v : dense.getValues<APInt>())
    t.ints.push_back(isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue());
  return t;
}

DenseElementsAttr KnownTensor::toAttr(Type elementType) const {
  if (partial)
    return nullptr;
  auto type = RankedTensorType::get(shape, elementType);
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> values;
    values.reserve(size());
    for (int64_t i = 0, e = size(); i < e; ++i) {
      APFloat v(isFloat ? floats[i] : double(ints[i]));
      bool lost;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    return DenseElementsAttr::get(type, values);
  }
  if (isFloat || !elementType.isIntOrIndex())
    return nullptr;
  unsigned width = elementType.isIndex() ? 64 : elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  values.reserve(size());
  for (int64_t v : ints)
    values.push_back(width == 1 ? APInt(1, v != 0)
                                : APInt(width, uint64_t(v), /*isSigned=*/true,
                                        /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, values);
}

/// The element count of `shape`; INT64_MAX when a dim is negative or the
/// count overflows (shapes read from constants may be anything), so every
/// size check rejects it.
static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return INT64_MAX;
  return n;
}

namespace {

Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls fn(multi-index) for every element of `shape`, in row-major order.
template <typename Fn> void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = product(shape);
  Shape idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(ArrayRef<int64_t>(idx));
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// The result whose element i is `from`'s element src[i].
KT take(const KT &from, ArrayRef<int64_t> src, ArrayRef<int64_t> shape) {
  KT r;
  r.shape.assign(shape.begin(), shape.end());
  r.isFloat = from.isFloat;
  for (int64_t i : src) {
    if (from.isFloat) {
      r.floats.push_back(from.floats[i]);
    } else {
      r.ints.push_back(from.ints[i]);
      r.partial |= from.ints[i] == KT::kUnknown;
    }
  }
  return r;
}

/// Same elements, another shape.
KT reshaped(const KT &from, ArrayRef<int64_t> shape) {
  KT r = from;
  r.shape.assign(shape.begin(), shape.end());
  return r;
}

/// The numpy-style broadcast of `shapes`, nullopt when they do not agree.
std::optional<Shape> broadcastShapes(ArrayRef<Shape> shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = s[i];
    }
  return out;
}

/// For each element of `to`, the flat index of `from` it broadcasts from.
Shape broadcastIndices(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  Shape strides = stridesOf(from);
  size_t offset = to.size() - from.size();
  Shape src;
  src.reserve(product(to));
  forEachIndex(to, [&](ArrayRef<int64_t> idx) {
    int64_t s = 0;
    for (size_t d = 0; d < from.size(); ++d)
      if (from[d] != 1)
        s += idx[offset + d] * strides[d];
    src.push_back(s);
  });
  return src;
}

int64_t intAttr(Operation *op, StringRef name, int64_t dflt) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getValue().getSExtValue();
  return dflt;
}

/// The complete integer values of `t` (no unknown element), or nullopt.
std::optional<ArrayRef<int64_t>> intsOf(const KT *t) {
  if (!t || t->isFloat || t->partial)
    return std::nullopt;
  return ArrayRef<int64_t>(t->ints);
}

/// `axis` in [-rank, rank) made non-negative; nullopt when out of range.
std::optional<int64_t> normAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<KT> evalShape(ONNXShapeOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!type)
    return std::nullopt;
  int64_t rank = type.getRank();
  auto clamp = [&](int64_t x) {
    if (x < 0)
      x += rank;
    return std::min(std::max<int64_t>(x, 0), rank);
  };
  int64_t start = clamp(intAttr(op, "start", 0));
  int64_t end = clamp(intAttr(op, "end", rank));
  KT r;
  for (int64_t i = start; i < end; ++i) {
    int64_t d = type.getDimSize(i);
    r.ints.push_back(ShapedType::isDynamic(d) ? KT::kUnknown : d);
    r.partial |= ShapedType::isDynamic(d);
  }
  r.shape = {int64_t(r.ints.size())};
  return r;
}

std::optional<KT> evalGather(Operation *op, const KT &data, const KT *indices) {
  auto idx = intsOf(indices);
  std::optional<int64_t> axis =
      normAxis(intAttr(op, "axis", 0), data.shape.size());
  if (!idx || !axis)
    return std::nullopt;
  int64_t dim = data.shape[*axis];
  int64_t inner = product(ArrayRef<int64_t>(data.shape).drop_front(*axis + 1));
  int64_t outer = product(ArrayRef<int64_t>(data.shape).take_front(*axis));
  Shape shape(data.shape.begin(), data.shape.begin() + *axis);
  shape.append(indices->shape.begin(), indices->shape.end());
  shape.append(data.shape.begin() + *axis + 1, data.shape.end());
  Shape src;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : *idx) {
      if (k < -dim || k >= dim)
        return std::nullopt; // a run-time error, not a fold
      k = k < 0 ? k + dim : k;
      for (int64_t i = 0; i < inner; ++i)
        src.push_back((o * dim + k) * inner + i);
    }
  return take(data, src, shape);
}

std::optional<KT> evalSlice(ONNXSliceOp op, const KT &data, KnownLookup known) {
  auto starts = intsOf(known(op.getStarts()));
  auto ends = intsOf(known(op.getEnds()));
  if (!starts || !ends || starts->size() != ends->size())
    return std::nullopt;
  int64_t rank = data.shape.size();
  Shape axes, steps(starts->size(), 1);
  if (Value a = op.getAxes()) {
    auto v = intsOf(known(a));
    if (!v)
      return std::nullopt;
    axes.assign(v->begin(), v->end());
  } else {
    for (size_t i = 0; i < starts->size(); ++i)
      axes.push_back(i);
  }
  if (Value s = op.getSteps()) {
    auto v = intsOf(known(s));
    if (!v)
      return std::nullopt;
    steps.assign(v->begin(), v->end());
  }
  if (axes.size() != starts->size() || steps.size() != starts->size())
    return std::nullopt;
  Shape begin(rank, 0), step(rank, 1), shape(data.shape);
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<int64_t> axis = normAxis(axes[i], rank);
    if (!axis || steps[i] == 0)
      return std::nullopt;
    int64_t dim = data.shape[*axis], st = steps[i];
    auto norm = [&](int64_t x, int64_t lo, int64_t hi) {
      if (x < 0)
        x += dim;
      return std::min(std::max(x, lo), hi);
    };
    int64_t b = st > 0 ? norm((*starts)[i], 0, dim) : norm((*starts)[i], -1, dim - 1);
    int64_t e = st > 0 ? norm((*ends)[i], 0, dim) : norm((*ends)[i], -1, dim - 1);
    int64_t n = st > 0 ? (e - b + st - 1) / st : (b - e - st - 1) / -st;
    begin[*axis] = b;
    step[*axis] = st;
    shape[*axis] = std::max<int64_t>(n, 0);
  }
  Shape strides = stridesOf(data.shape), src;
  forEachIndex(shape, [&](ArrayRef<int64_t> idx) {
    int64_t s = 0;
    for (int64_t d = 0; d < rank; ++d)
      s += (begin[d] + idx[d] * step[d]) * strides[d];
    src.push_back(s);
  });
  return take(data, src, shape);
}

std::optional<KT> evalConcat(Operation *op, ArrayRef<const KT *> inputs) {
  if (inputs.empty())
    return std::nullopt;
  int64_t rank = inputs[0]->shape.size();
  std::optional<int64_t> axis = normAxis(intAttr(op, "axis", 0), rank);
  if (!axis)
    return std::nullopt;
  KT r;
  r.isFloat = inputs[0]->isFloat;
  r.shape = inputs[0]->shape;
  r.shape[*axis] = 0;
  for (const KT *in : inputs) {
    if (in->isFloat != r.isFloat || int64_t(in->shape.size()) != rank)
      return std::nullopt;
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && in->shape[d] != r.shape[d])
        return std::nullopt;
    r.shape[*axis] += in->shape[*axis];
  }
  int64_t outer = product(ArrayRef<int64_t>(r.shape).take_front(*axis));
  for (int64_t o = 0; o < outer; ++o)
    for (const KT *in : inputs) {
      int64_t chunk = product(ArrayRef<int64_t>(in->shape).drop_front(*axis));
      for (int64_t i = o * chunk, e = i + chunk; i < e; ++i) {
        if (r.isFloat)
          r.floats.push_back(in->floats[i]);
        else
          r.ints.push_back(in->ints[i]);
      }
      r.partial |= in->partial;
    }
  return r;
}

std::optional<KT> evalTranspose(ONNXTransposeOp op, const KT &data) {
  int64_t rank = data.shape.size();
  Shape perm = getTransposePermutation(op, rank);
  if (int64_t(perm.size()) != rank)
    return std::nullopt;
  Shape shape, strides = stridesOf(data.shape), src;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank)
      return std::nullopt;
    shape.push_back(data.shape[p]);
  }
  forEachIndex(shape, [&](ArrayRef<int64_t> idx) {
    int64_t s = 0;
    for (int64_t d = 0; d < rank; ++d)
      s += idx[d] * strides[perm[d]];
    src.push_back(s);
  });
  return take(data, src, shape);
}

/// Reshape's target shape: 0 copies the input's dim (unless allowzero), -1
/// takes what is left.
std::optional<Shape> reshapeTarget(ArrayRef<int64_t> in, ArrayRef<int64_t> spec,
                                   bool allowZero) {
  Shape shape;
  int64_t inferred = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return std::nullopt;
      d = in[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return std::nullopt;
      inferred = i;
    } else if (d < 0) {
      return std::nullopt;
    } else if (llvm::MulOverflow(known, d, known)) {
      return std::nullopt;
    }
    shape.push_back(d);
  }
  int64_t n = product(in);
  if (inferred >= 0) {
    if (known == 0 || n % known != 0)
      return std::nullopt;
    shape[inferred] = n / known;
  }
  if (product(shape) != n)
    return std::nullopt;
  return shape;
}

/// Mod is the integer remainder with the divisor's sign (fmod = 0, as
/// Python's %); FMod the one with the dividend's sign (fmod = 1, as C's fmod).
enum class Kind {
  Add, Sub, Mul, Div, Mod, FMod, Max, Min, Eq, Lt, Gt, Le, Ge, And, Or
};

std::optional<Kind> binaryKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case([](ONNXAddOp) { return Kind::Add; })
      .Case([](ONNXSubOp) { return Kind::Sub; })
      .Case([](ONNXMulOp) { return Kind::Mul; })
      .Case([](ONNXDivOp) { return Kind::Div; })
      .Case([](ONNXModOp mod) {
        return mod.getFmod() != 0 ? Kind::FMod : Kind::Mod;
      })
      .Case([](ONNXMaxOp) { return Kind::Max; })
      .Case([](ONNXMinOp) { return Kind::Min; })
      .Case([](ONNXEqualOp) { return Kind::Eq; })
      .Case([](ONNXLessOp) { return Kind::Lt; })
      .Case([](ONNXGreaterOp) { return Kind::Gt; })
      .Case([](ONNXLessOrEqualOp) { return Kind::Le; })
      .Case([](ONNXGreaterOrEqualOp) { return Kind::Ge; })
      .Case([](ONNXAndOp) { return Kind::And; })
      .Case([](ONNXOrOp) { return Kind::Or; })
      .Default([](Operation *) { return std::nullopt; });
}

bool isComparison(Kind k) {
  return k == Kind::Eq || k == Kind::Lt || k == Kind::Gt || k == Kind::Le ||
         k == Kind::Ge;
}

template <typename T> std::optional<T> combine(Kind k, T a, T b) {
  switch (k) {
  case Kind::Add: return a + b;
  case Kind::Sub: return a - b;
  case Kind::Mul: return a * b;
  case Kind::Div:
    if constexpr (std::is_integral_v<T>) {
      if (b == 0 || (a == INT64_MIN && b == -1))
        return std::nullopt; // left to the run time
    }
    return a / b;
  case Kind::Mod:
  case Kind::FMod:
    if constexpr (std::is_integral_v<T>) {
      if (b == 0)
        return std::nullopt; // left to the run time
      if (b == -1)
        return T(0); // also INT64_MIN % -1, which C leaves undefined
      T r = a % b;
      if (k == Kind::Mod && r != 0 && ((r < 0) != (b < 0)))
        r += b;
      return r;
    } else {
      if (k == Kind::Mod)
        return std::nullopt; // fmod = 0 is for integers only
      return std::fmod(a, b);
    }
  case Kind::Max: return std::max(a, b);
  case Kind::Min: return std::min(a, b);
  case Kind::Eq: return T(a == b);
  case Kind::Lt: return T(a < b);
  case Kind::Gt: return T(a > b);
  case Kind::Le: return T(a <= b);
  case Kind::Ge: return T(a >= b);
  case Kind::And: return T(a && b);
  case Kind::Or: return T(a || b);
  }
  return std::nullopt;
}

/// A binary (or variadic Max/Min, folded pairwise) elementwise op.
std::optional<KT> evalBinary(Kind kind, ArrayRef<const KT *> inputs,
                             int64_t maxElements) {
  KT acc = *inputs[0];
  for (const KT *rhs : inputs.drop_front()) {
    if (rhs->isFloat != acc.isFloat)
      return std::nullopt;
    auto shape = broadcastShapes({acc.shape, rhs->shape});
    if (!shape || product(*shape) > maxElements)
      return std::nullopt;
    Shape ia = broadcastIndices(acc.shape, *shape);
    Shape ib = broadcastIndices(rhs->shape, *shape);
    KT r;
    r.shape = *shape;
    r.isFloat = acc.isFloat && !isComparison(kind);
    for (size_t i = 0; i < ia.size(); ++i) {
      if (acc.isFloat) {
        double a = acc.floats[ia[i]], b = rhs->floats[ib[i]];
        auto v = combine<double>(kind, a, b);
        if (!v)
          return std::nullopt;
        if (r.isFloat)
          r.floats.push_back(*v);
        else
          r.ints.push_back(int64_t(*v));
        continue;
      }
      int64_t a = acc.ints[ia[i]], b = rhs->ints[ib[i]];
      if (a == KT::kUnknown || b == KT::kUnknown) {
        r.ints.push_back(KT::kUnknown);
        r.partial = true;
        continue;
      }
      // Wrapping arithmetic, as the integer ops do at run time.
      std::optional<int64_t> v;
      if (kind == Kind::Add || kind == Kind::Sub || kind == Kind::Mul) {
        uint64_t ua = a, ub = b;
        v = int64_t(kind == Kind::Add ? ua + ub
                    : kind == Kind::Sub ? ua - ub : ua * ub);
      } else {
        v = combine<int64_t>(kind, a, b);
      }
      if (!v)
        return std::nullopt;
      r.ints.push_back(*v);
    }
    acc = std::move(r);
  }
  return acc;
}

std::optional<KT> evalUnary(Operation *op, const KT &x) {
  KT r = x;
  if (isa<ONNXNotOp>(op)) {
    if (x.isFloat || x.partial)
      return std::nullopt;
    for (int64_t &v : r.ints)
      v = !v;
    return r;
  }
  if (isa<ONNXNegOp, ONNXAbsOp>(op)) {
    bool neg = isa<ONNXNegOp>(op);
    for (double &v : r.floats)
      v = neg ? -v : std::fabs(v);
    for (int64_t &v : r.ints)
      if (v != KT::kUnknown)
        v = neg ? int64_t(0 - uint64_t(v)) : (v < 0 ? int64_t(0 - uint64_t(v)) : v);
    return r;
  }
  if (!x.isFloat)
    return std::nullopt;
  for (double &v : r.floats) {
    if (isa<ONNXSqrtOp>(op))
      v = std::sqrt(v);
    else if (isa<ONNXReciprocalOp>(op))
      v = 1.0 / v;
    else if (isa<ONNXFloorOp>(op))
      v = std::floor(v);
    else if (isa<ONNXCeilOp>(op))
      v = std::ceil(v);
    else
      return std::nullopt;
  }
  return r;
}

std::optional<KT> evalCast(const KT &x, Type to) {
  bool toFloat = isa<FloatType>(to);
  if (x.isFloat && toFloat)
    return x; // rounded to the target's precision by toAttr
  KT r;
  r.shape = x.shape;
  if (!x.isFloat) {
    if (!toFloat) {
      r = x; // wrapped to the target's width by toAttr
      if (to.isInteger(1))
        for (int64_t &v : r.ints)
          if (v != KT::kUnknown)
            v = v != 0;
      return r;
    }
    if (x.partial)
      return std::nullopt;
    r.isFloat = true;
    for (int64_t v : x.ints)
      r.floats.push_back(double(v));
    return r;
  }
  for (double v : x.floats) {
    if (to.isInteger(1)) {
      r.ints.push_back(v != 0.0);
      continue;
    }
    // Out of range or NaN is undefined in ONNX: left to the run time.
    if (!std::isfinite(v) || std::fabs(v) >= 9.2e18)
      return std::nullopt;
    r.ints.push_back(int64_t(v)); // toward zero, as fptosi
  }
  return r;
}

std::optional<KT> evalRange(const KT *start, const KT *limit, const KT *delta,
                            int64_t maxElements) {
  if (!start || !limit || !delta || start->partial || limit->partial ||
      delta->partial || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1)
    return std::nullopt;
  KT r;
  r.isFloat = start->isFloat;
  if (r.isFloat) {
    double s = start->floats[0], l = limit->floats[0], d = delta->floats[0];
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l))
      return std::nullopt;
    double n = std::max(std::ceil((l - s) / d), 0.0);
    if (n > maxElements)
      return std::nullopt;
    for (int64_t i = 0; i < int64_t(n); ++i)
      r.floats.push_back(s + i * d);
  } else {
    int64_t s = start->ints[0], l = limit->ints[0], d = delta->ints[0];
    if (d == 0)
      return std::nullopt;
    double n = std::max(std::ceil((double(l) - double(s)) / double(d)), 0.0);
    if (n > maxElements)
      return std::nullopt;
    for (int64_t i = 0; i < int64_t(n); ++i)
      r.ints.push_back(int64_t(uint64_t(s) + uint64_t(i) * uint64_t(d)));
  }
  r.shape = {r.size()};
  return r;
}

} // namespace

std::optional<KT> mlir::onnxc::evaluateONNXOp(Operation *op, KnownLookup known,
                                              int64_t maxElements) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto resultType = dyn_cast<TensorType>(op->getResult(0).getType());
  if (!resultType)
    return std::nullopt;
  Type resultElement = resultType.getElementType();
  if (!resultElement.isIntOrIndexOrFloat())
    return std::nullopt;

  if (auto shape = dyn_cast<ONNXShapeOp>(op))
    return evalShape(shape);
  if (auto size = dyn_cast<ONNXSizeOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(size.getData().getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    KT r;
    r.ints = {type.getNumElements()};
    return r;
  }

  SmallVector<const KT *> in;
  for (Value v : op->getOperands()) {
    const KT *t = known(v);
    if (!t)
      return std::nullopt;
    in.push_back(t);
  }
  if (in.empty())
    return std::nullopt;
  const KT &x = *in[0];

  std::optional<KT> result;
  if (auto kind = binaryKind(op)) {
    result = evalBinary(*kind, in, maxElements);
  } else if (isa<ONNXNegOp, ONNXAbsOp, ONNXNotOp, ONNXSqrtOp, ONNXReciprocalOp,
                 ONNXFloorOp, ONNXCeilOp>(op)) {
    result = evalUnary(op, x);
  } else if (isa<ONNXIdentityOp>(op)) {
    result = x;
  } else if (isa<ONNXCastOp>(op)) {
    result = evalCast(x, resultElement);
  } else if (isa<ONNXGatherOp>(op)) {
    result = evalGather(op, x, in[1]);
  } else if (auto slice = dyn_cast<ONNXSliceOp>(op)) {
    result = evalSlice(slice, x, known);
  } else if (isa<ONNXConcatOp>(op)) {
    result = evalConcat(op, in);
  } else if (auto transpose = dyn_cast<ONNXTransposeOp>(op)) {
    result = evalTranspose(transpose, x);
  } else if (auto reshape = dyn_cast<ONNXReshapeOp>(op)) {
    auto spec = intsOf(in[1]);
    if (!spec)
      return std::nullopt;
    auto shape = reshapeTarget(x.shape, *spec, reshape.getAllowzero() != 0);
    if (shape)
      result = reshaped(x, *shape);
  } else if (isa<ONNXFlattenOp>(op)) {
    std::optional<int64_t> axis =
        normAxis(intAttr(op, "axis", 1), x.shape.size() + 1);
    if (axis) {
      ArrayRef<int64_t> s(x.shape);
      result = reshaped(x, {product(s.take_front(*axis)),
                            product(s.drop_front(*axis))});
    }
  } else if (isa<ONNXSqueezeOp, ONNXUnsqueezeOp>(op)) {
    bool squeeze = isa<ONNXSqueezeOp>(op);
    std::optional<ArrayRef<int64_t>> axes;
    if (in.size() > 1) {
      axes = intsOf(in[1]);
      if (!axes)
        return std::nullopt;
    } else if (!squeeze) {
      return std::nullopt;
    }
    int64_t rank = x.shape.size() + (squeeze ? 0 : (axes ? axes->size() : 0));
    SmallVector<bool> marked(rank, false);
    if (axes) {
      for (int64_t a : *axes) {
        std::optional<int64_t> axis = normAxis(a, rank);
        if (!axis || marked[*axis])
          return std::nullopt;
        marked[*axis] = true;
      }
    }
    Shape shape;
    if (squeeze) {
      for (int64_t d = 0; d < rank; ++d) {
        bool drop = axes ? marked[d] : x.shape[d] == 1;
        if (drop && x.shape[d] != 1)
          return std::nullopt;
        if (!drop)
          shape.push_back(x.shape[d]);
      }
    } else {
      for (int64_t d = 0, s = 0; d < rank; ++d)
        shape.push_back(marked[d] ? 1 : x.shape[s++]);
    }
    result = reshaped(x, shape);
  } else if (isa<ONNXExpandOp>(op)) {
    auto spec = intsOf(in[1]);
    if (!spec)
      return std::nullopt;
    auto shape = broadcastShapes({x.shape, Shape(spec->begin(), spec->end())});
    if (shape && product(*shape) <= maxElements)
      result = take(x, broadcastIndices(x.shape, *shape), *shape);
  } else if (isa<ONNXWhereOp>(op)) {
    const KT &c = *in[0], &a = *in[1], &b = *in[2];
    auto shape = broadcastShapes({c.shape, a.shape, b.shape});
    if (!shape || c.isFloat || c.partial || a.isFloat != b.isFloat ||
        product(*shape) > maxElements)
      return std::nullopt;
    Shape ic = broadcastIndices(c.shape, *shape);
    Shape ia = broadcastIndices(a.shape, *shape);
    Shape ib = broadcastIndices(b.shape, *shape);
    KT r;
    r.shape = *shape;
    r.isFloat = a.isFloat;
    for (size_t i = 0; i < ic.size(); ++i) {
      const KT &from = c.ints[ic[i]] ? a : b;
      int64_t j = c.ints[ic[i]] ? ia[i] : ib[i];
      if (r.isFloat)
        r.floats.push_back(from.floats[j]);
      else
        r.ints.push_back(from.ints[j]);
      r.partial |= !r.isFloat && r.ints.back() == KT::kUnknown;
    }
    result = std::move(r);
  } else if (auto cos = dyn_cast<ONNXConstantOfShapeOp>(op)) {
    auto spec = intsOf(in[0]);
    if (!spec || product(*spec) > maxElements ||
        llvm::any_of(*spec, [](int64_t d) { return d < 0; }))
      return std::nullopt;
    KT value;
    if (auto v = cos.getValueAttr()) {
      auto t = KT::fromAttr(v, 1);
      if (!t || t->size() != 1)
        return std::nullopt;
      value = *t;
    } else {
      value.isFloat = true;
      value.floats = {0.0};
    }
    result = take(value, Shape(product(*spec), 0), *spec);
  } else if (isa<ONNXRangeOp>(op)) {
    result = evalRange(in[0], in[1], in[2], maxElements);
  }
  if (!result || result->numElements() > maxElements)
    return std::nullopt;
  return result;
}
