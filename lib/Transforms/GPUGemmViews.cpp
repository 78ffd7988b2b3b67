//===- GPUGemmViews.cpp - Products as the CUDA GEMM kernels see them ------===//

#include "GPUGemmViews.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <array>

using namespace mlir;

namespace {
/// The element type of a product's operands A and B when both are f32,
/// f16 or bf16 and its result C is f32 (f16 and bf16 products accumulate
/// in f32, see the MatMul and Conv lowerings).
Type operandType(linalg::LinalgOp op) {
  auto element = [](Value v) -> Type {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type ? type.getElementType() : Type();
  };
  Type a = element(op.getDpsInputOperand(0)->get());
  Type b = element(op.getDpsInputOperand(1)->get());
  Type c = element(op.getDpsInitOperand(0)->get());
  if (!a || a != b || !c || !c.isF32() ||
      !(a.isF32() || a.isF16() || a.isBF16()))
    return Type();
  return a;
}

} // namespace

/// A matmul or batch matmul on f32 memrefs with the default indexing maps.
std::optional<onnxc::GemmView> onnxc::matmulView(OpBuilder &b,
                                                 linalg::LinalgOp op) {
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
      !op.hasPureBufferSemantics() || !operandType(op))
    return std::nullopt;
  bool batched = isa<linalg::BatchMatmulOp>(op);
  SmallVector<AffineMap> defaults =
      batched ? linalg::BatchMatmulOp::getDefaultIndexingMaps(op->getContext())
              : linalg::MatmulOp::getDefaultIndexingMaps(op->getContext());
  if (op.getIndexingMapsArray() != defaults)
    return std::nullopt;
  Location loc = op.getLoc();
  Value A = op.getDpsInputOperand(0)->get();
  Value B = op.getDpsInputOperand(1)->get();
  Value C = op.getDpsInitOperand(0)->get();
  unsigned d = batched ? 1 : 0;
  GemmView v;
  v.operandType = operandType(op);
  v.M = memref::DimOp::create(b, loc, C, d);
  v.N = memref::DimOp::create(b, loc, C, d + 1);
  v.K = memref::DimOp::create(b, loc, A, d + 1);
  v.batch = batched ? Value(memref::DimOp::create(b, loc, C, 0))
                    : Value(arith::ConstantIndexOp::create(b, loc, 1));
  auto idx = [batched](Value bz, Value i, Value j) {
    return batched ? SmallVector<Value>{bz, i, j} : SmallVector<Value>{i, j};
  };
  v.loadA = [=](OpBuilder &b, Value bz, Value i, Value k) -> Value {
    return memref::LoadOp::create(b, loc, A, idx(bz, i, k));
  };
  v.loadB = [=](OpBuilder &b, Value bz, Value k, Value j) -> Value {
    return memref::LoadOp::create(b, loc, B, idx(bz, k, j));
  };
  v.C = C;
  v.reads = {A, B};
  v.cIndices = [=](OpBuilder &, Value bz, Value i, Value j) {
    return idx(bz, i, j);
  };
  return v;
}

/// A 2-D NCHW convolution as an implicit GEMM per image: M = output
/// channels, N = output pixels, K = C x KH x KW; A is the filter (rows
/// contiguous), B gathers the input window of each pixel (from the padded
/// input's source where GPUGemmFusion.h finds one). A grouped convolution
/// (linalg.conv_2d_ngchw_gfchw: input N x G x C x H x W, filter G x F x C x
/// KH x KW) is one such GEMM per image and group (batch N x G), where each
/// group has at least kMinGroupRows output channels (static): fewer would
/// leave most of the 64-row tiles empty.
static constexpr int64_t kMinGroupRows = 16;

std::optional<onnxc::GemmView> onnxc::convView(OpBuilder &b,
                                               linalg::LinalgOp op) {
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
  auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op.getOperation());
  if ((!conv && !grouped) || !op.hasPureBufferSemantics() || !operandType(op))
    return std::nullopt;
  Location loc = op.getLoc();
  Value I = op.getDpsInputOperand(0)->get();
  Value W = op.getDpsInputOperand(1)->get();
  Value O = op.getDpsInitOperand(0)->get();
  // Dims of the filter and the output after the group's (g = 1 with one).
  const int64_t g = grouped ? 1 : 0;
  if (grouped) {
    auto wType = cast<MemRefType>(W.getType());
    if (wType.isDynamicDim(1) || wType.getDimSize(1) < kMinGroupRows)
      return std::nullopt;
  }
  auto dim = [&](Value m, int64_t i) -> Value {
    return memref::DimOp::create(b, loc, m, i);
  };
  auto cst = [&](int64_t x) -> Value {
    return arith::ConstantIndexOp::create(b, loc, x);
  };
  DenseIntElementsAttr strides =
      grouped ? grouped.getStrides() : conv.getStrides();
  DenseIntElementsAttr dilations =
      grouped ? grouped.getDilations() : conv.getDilations();
  auto attr = [&](DenseIntElementsAttr a, int i) {
    return cst(a.getValues<int64_t>()[i]);
  };
  Value sh = attr(strides, 0), sw = attr(strides, 1);
  Value dh = attr(dilations, 0), dw = attr(dilations, 1);
  Value KH = dim(W, g + 2), KW = dim(W, g + 3), OW = dim(O, g + 3);
  Value window = arith::MulIOp::create(b, loc, KH, KW);
  Value groups = grouped ? dim(O, 1) : cst(1);
  GemmView v;
  v.operandType = operandType(op);
  v.M = dim(O, g + 1);
  v.N = arith::MulIOp::create(b, loc, dim(O, g + 2), OW);
  v.K = arith::MulIOp::create(b, loc, dim(W, g + 1), window);
  v.batch = arith::MulIOp::create(b, loc, dim(O, 0), groups);
  // k -> (c, kh, kw)
  auto split = [=](OpBuilder &b, Value k) {
    Value c = arith::DivUIOp::create(b, loc, k, window);
    Value r = arith::RemUIOp::create(b, loc, k, window);
    Value kh = arith::DivUIOp::create(b, loc, r, KW);
    Value kw = arith::RemUIOp::create(b, loc, r, KW);
    return std::array<Value, 3>{c, kh, kw};
  };
  // The indices of an operand: batch z -> (image, group) where grouped.
  auto withGroup = [=](OpBuilder &b, Value z, Value first,
                       ArrayRef<Value> rest) {
    SmallVector<Value, 5> idx;
    if (first)
      idx.push_back(
          grouped ? arith::DivUIOp::create(b, loc, z, groups).getResult() : z);
    if (grouped)
      idx.push_back(arith::RemUIOp::create(b, loc, z, groups));
    llvm::append_range(idx, rest);
    return idx;
  };
  v.loadA = [=](OpBuilder &b, Value z, Value f, Value k) -> Value {
    auto [c, kh, kw] = split(b, k);
    return memref::LoadOp::create(b, loc, W,
                                  withGroup(b, z, Value(), {f, c, kh, kw}));
  };
  // A padded input: the source where the index, less the pad's offset,
  // falls inside it (checked in the dims whose offset or size differ, as
  // unsigned: below the offset wraps around), else the pad value.
  v.padded = PaddedInput::find(op, I);
  Value source = v.padded ? v.padded->source : I;
  const int64_t rank = cast<MemRefType>(I.getType()).getRank();
  SmallVector<Value, 5> offsets, bounds;
  if (v.padded) {
    auto inType = cast<MemRefType>(I.getType());
    auto srcType = cast<MemRefType>(source.getType());
    for (int64_t d = 0; d < rank; ++d) {
      OpFoldResult off = v.padded->offsets[d];
      bool same = isConstantIntValue(off, 0) && !inType.isDynamicDim(d) &&
                  inType.getDimSize(d) == srcType.getDimSize(d);
      offsets.push_back(same ? Value()
                             : getValueOrCreateConstantIndexOp(b, loc, off));
      bounds.push_back(same ? Value() : dim(source, d));
    }
  }
  Value padValue = v.padded ? v.padded->padValue : Value();
  v.loadB = [=](OpBuilder &b, Value z, Value k, Value j) -> Value {
    auto [c, kh, kw] = split(b, k);
    Value oh = arith::DivUIOp::create(b, loc, j, OW);
    Value ow = arith::RemUIOp::create(b, loc, j, OW);
    auto at = [&](Value o, Value s, Value kk, Value dd) -> Value {
      return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, o, s),
                                   arith::MulIOp::create(b, loc, kk, dd));
    };
    SmallVector<Value, 5> idx =
        withGroup(b, z, z, {c, at(oh, sh, kh, dh), at(ow, sw, kw, dw)});
    if (!padValue)
      return memref::LoadOp::create(b, loc, I, idx);
    Value inside;
    for (int64_t d = 0; d < rank; ++d) {
      if (!offsets[d])
        continue;
      idx[d] = arith::SubIOp::create(b, loc, idx[d], offsets[d]);
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       idx[d], bounds[d]);
      inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
    }
    if (!inside)
      return memref::LoadOp::create(b, loc, source, idx);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{padValue.getType()}, inside,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(
        b, loc, memref::LoadOp::create(b, loc, source, idx).getResult());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, padValue);
    return ifOp.getResult(0);
  };
  v.C = O;
  v.reads = {source, W};
  v.cIndices = [=](OpBuilder &b, Value z, Value f, Value j) {
    Value oh = arith::DivUIOp::create(b, loc, j, OW);
    Value ow = arith::RemUIOp::create(b, loc, j, OW);
    SmallVector<Value> idx;
    llvm::append_range(idx, withGroup(b, z, z, {f, oh, ow}));
    return idx;
  };
  return v;
}
