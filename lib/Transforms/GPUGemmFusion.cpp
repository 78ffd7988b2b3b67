//===- GPUGemmFusion.cpp - Pointwise ops fused into the CUDA GEMM kernels -===//

#include "GPUGemmFusion.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

Value onnxc::rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

Value onnxc::evaluateAt(OpBuilder &b, Location loc, linalg::LinalgOp op,
                        ValueRange ivs, OpOperand *given, Value givenValue,
                        Value outValue) {
  IRMapping map;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!arg || arg.use_empty())
      continue;
    Value v;
    if (&operand == given) {
      v = givenValue;
    } else if (op.isDpsInit(&operand)) {
      assert(outValue && "the body reads its output");
      v = outValue;
    } else if (!isa<MemRefType>(operand.get().getType())) {
      v = operand.get();
    } else {
      AffineMap m = op.getMatchingIndexingMap(&operand);
      SmallVector<Value> indices;
      for (AffineExpr e : m.getResults()) {
        if (auto d = dyn_cast<AffineDimExpr>(e)) {
          indices.push_back(ivs[d.getPosition()]);
          continue;
        }
        indices.push_back(affine::AffineApplyOp::create(
            b, loc, AffineMap::get(m.getNumDims(), m.getNumSymbols(), e), ivs));
      }
      v = memref::LoadOp::create(b, loc, operand.get(), indices);
    }
    map.map(arg, v);
  }
  Block *body = op.getBlock();
  for (Operation &o : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(o)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(o, map);
  }
  return map.lookupOrDefault(body->getTerminator()->getOperand(0));
}

SmallVector<Value> onnxc::delinearize(OpBuilder &b, Location loc, Value linear,
                                      ArrayRef<int64_t> sizes) {
  SmallVector<Value> out(sizes.size());
  Value rest = linear;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    Value size = arith::ConstantIndexOp::create(b, loc, sizes[d]);
    out[d] =
        d > 0 ? arith::RemUIOp::create(b, loc, rest, size).getResult() : rest;
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return out;
}

namespace {

/// Erases `alloc` and its deallocations where nothing else uses it but
/// memref.dims with constant indices, which take its sizes instead (a
/// product's M and N, read before its result went away).
void eraseIfUnused(memref::AllocOp alloc) {
  Value buffer = alloc.getResult();
  if (!llvm::all_of(buffer.getUsers(), [](Operation *user) {
        auto dim = dyn_cast<memref::DimOp>(user);
        return isa<memref::DeallocOp>(user) || (dim && dim.getConstantIndex());
      }))
    return;
  MemRefType type = alloc.getType();
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    if (auto dim = dyn_cast<memref::DimOp>(user)) {
      int64_t i = *dim.getConstantIndex();
      OpBuilder b(dim);
      Value size = type.isDynamicDim(i)
                       ? alloc.getDynamicSizes()[type.getDynamicDimIndex(i)]
                       : arith::ConstantIndexOp::create(b, dim.getLoc(),
                                                        type.getDimSize(i))
                             .getResult();
      dim.replaceAllUsesWith(size);
    }
    user->erase();
  }
  alloc->erase();
}

/// An all-parallel op on buffers over C's shape with one output, written
/// with the identity map, whose body yields one value computed by pure ops
/// without regions.
bool isPointwise(linalg::LinalgOp op, Value C) {
  if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 0)
    return false;
  auto type = dyn_cast<MemRefType>(C.getType());
  if (!type || op.getNumLoops() != op.getNumParallelLoops() ||
      op.getNumLoops() != static_cast<unsigned>(type.getRank()))
    return false;
  if (!op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return false;
  Block *body = op.getBlock();
  if (!body || body->getTerminator()->getNumOperands() != 1)
    return false;
  for (Operation &o : body->without_terminator())
    if (!isa<linalg::IndexOp>(o) &&
        (o.getNumRegions() != 0 || !isMemoryEffectFree(&o)))
      return false;
  return true;
}

/// Ops that touch no existing buffer: constants, dims, views, allocations.
bool isInert(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) || isa<memref::AllocOp>(op));
}

/// The op next to `op` in direction `forward`, past inert ops.
Operation *neighbour(Operation *op, bool forward) {
  Operation *o = forward ? op->getNextNode() : op->getPrevNode();
  while (o && isInert(o))
    o = forward ? o->getNextNode() : o->getPrevNode();
  return o;
}

SmallVector<Value> shapedInputs(linalg::LinalgOp op, OpOperand *except) {
  SmallVector<Value> out;
  for (OpOperand *in : op.getDpsInputOperands())
    if (in != except && isa<MemRefType>(in->get().getType()))
      out.push_back(in->get());
  return out;
}

} // namespace

std::optional<onnxc::PaddedInput> onnxc::PaddedInput::find(Operation *consumer,
                                                           Value input) {
  auto alloc = input.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != consumer->getBlock())
    return std::nullopt;
  PaddedInput p;
  p.alloc = alloc;
  memref::SubViewOp subview;
  for (Operation *user : input.getUsers()) {
    if (user == consumer || isa<memref::DeallocOp>(user))
      continue;
    if (auto s = dyn_cast<memref::SubViewOp>(user)) {
      if (subview)
        return std::nullopt;
      subview = s;
      continue;
    }
    if (p.fill || !isa<linalg::LinalgOp>(user))
      return std::nullopt;
    p.fill = user;
  }
  if (!p.fill || !subview)
    return std::nullopt;
  p.subview = subview;
  // The fill: every element of the buffer one value from outside it.
  auto fill = cast<linalg::LinalgOp>(p.fill);
  if (!isPointwise(fill, input) || fill.getDpsInitOperand(0)->get() != input ||
      fill->getBlock() != consumer->getBlock())
    return std::nullopt;
  Value yielded = fill.getBlock()->getTerminator()->getOperand(0);
  if (auto arg = dyn_cast<BlockArgument>(yielded)) {
    if (arg.getOwner() != fill.getBlock())
      return std::nullopt;
    OpOperand *operand = fill.getMatchingOpOperand(arg);
    if (fill.isDpsInit(operand) || isa<ShapedType>(operand->get().getType()))
      return std::nullopt;
    p.padValue = operand->get();
  } else if (Operation *def = yielded.getDefiningOp();
             def && !fill->isAncestor(def)) {
    p.padValue = yielded;
  } else {
    return std::nullopt;
  }
  // Unit strides; whatever writes the interior comes after the fill.
  Block *block = consumer->getBlock();
  for (Operation *user : subview->getUsers()) {
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top || !p.fill->isBeforeInBlock(top) ||
        !top->isBeforeInBlock(consumer))
      return std::nullopt;
  }
  if (!llvm::all_of(subview.getMixedStrides(),
                    [](OpFoldResult s) { return isConstantIntValue(s, 1); }) ||
      subview.getSourceType().getRank() !=
          cast<MemRefType>(subview.getType()).getRank())
    return std::nullopt;
  p.offsets = subview.getMixedOffsets();
  // The interior as it is when the consumer runs (the fill alone goes) ...
  p.source = subview.getResult();
  if (!subview->hasOneUse())
    return p;
  // ... or, where it is a copy of a source that nothing writes before the
  // consumer, that source (the copy and the buffer go too).
  Operation *copyOp = *subview->getUsers().begin();
  Value source;
  if (auto copy = dyn_cast<memref::CopyOp>(copyOp)) {
    if (copy.getTarget() == subview.getResult())
      source = copy.getSource();
  } else if (auto copy = dyn_cast<linalg::CopyOp>(copyOp)) {
    if (copy.getOutputs()[0] == subview.getResult() &&
        copy.hasPureBufferSemantics())
      source = copy.getInputs()[0];
  }
  if (!source || copyOp->getBlock() != block)
    return p;
  Value root = rootBuffer(source);
  for (Operation *o = copyOp->getNextNode(); o != consumer;
       o = o->getNextNode()) {
    if (isInert(o))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(o);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
        llvm::any_of(linalgOp.getDpsInits(),
                     [&](Value v) { return rootBuffer(v) == root; }))
      return p;
  }
  p.source = source;
  p.copy = copyOp;
  return p;
}

void onnxc::PaddedInput::erase() {
  fill->erase();
  if (!copy)
    return; // the interior is read where it was written
  copy->erase();
  subview->erase();
  eraseIfUnused(cast<memref::AllocOp>(alloc));
}

onnxc::GemmFusion onnxc::GemmFusion::find(linalg::LinalgOp gemm, Value C,
                                          ArrayRef<Value> reads) {
  GemmFusion f;
  Value rootC = rootBuffer(C);
  auto p = dyn_cast_or_null<linalg::LinalgOp>(neighbour(gemm, false));
  if (p && isPointwise(p, C) && p.getDpsInitOperand(0)->get() == C &&
      p.getMatchingBlockArgument(p.getDpsInitOperand(0)).use_empty() &&
      llvm::none_of(shapedInputs(p, nullptr),
                    [&](Value v) { return rootBuffer(v) == rootC; }))
    f.init = p;

  auto e = dyn_cast_or_null<linalg::LinalgOp>(neighbour(gemm, true));
  if (!e)
    return f;
  // The epilogue reads C, or a reshape of it (static shapes, identity
  // layouts: the same elements in the same order), whose only user it is.
  Value viewed = C;
  Operation *reshape = nullptr;
  for (OpOperand *in : e.getDpsInputOperands()) {
    Operation *def = in->get().getDefiningOp();
    if (def && isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def) &&
        def->getOperand(0) == C && def->getResult(0).hasOneUse()) {
      auto from = cast<MemRefType>(C.getType());
      auto to = cast<MemRefType>(def->getResult(0).getType());
      if (from.hasStaticShape() && to.hasStaticShape() &&
          from.getLayout().isIdentity() && to.getLayout().isIdentity()) {
        viewed = def->getResult(0);
        reshape = def;
      }
    }
  }
  if (!isPointwise(e, viewed))
    return f;
  OpOperand *input = nullptr;
  for (OpOperand *in : e.getDpsInputOperands()) {
    if (in->get() != viewed)
      continue;
    if (input)
      return f; // read twice
    input = in;
  }
  if (!input || !e.getMatchingIndexingMap(input).isIdentity())
    return f;
  Value output = e.getDpsInitOperand(0)->get();
  bool inPlace = output == viewed;
  if (!inPlace) {
    // The body may not read the output (it would be read before written),
    // and C must die with the op.
    if (!e.getMatchingBlockArgument(e.getDpsInitOperand(0)).use_empty() ||
        !C.getDefiningOp<memref::AllocOp>())
      return f;
    for (Operation *user : C.getUsers())
      if (user != gemm && user != f.init && user != e && user != reshape &&
          !isa<memref::DeallocOp, memref::DimOp>(user))
        return f;
  }
  // The kernel launched in place of the product reads the epilogue's
  // operands: they must exist before it. Inert ops between the two that
  // define them (an f16 result's allocation) move before the product.
  DominanceInfo dom(gemm->getParentOp());
  SmallVector<Operation *> hoist;
  for (Value v : e->getOperands()) {
    if ((v == C || v == viewed) && !inPlace)
      continue; // not read by the kernel
    if (v == C || dom.properlyDominates(v, gemm))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != gemm->getBlock() || !isInert(def) ||
        !llvm::all_of(def->getOperands(),
                      [&](Value x) { return dom.properlyDominates(x, gemm); }))
      return f;
    hoist.push_back(def);
  }
  // Its blocks write `output` while others still read the operands: no
  // operand may share a buffer with it or with C.
  SmallVector<Value> all(reads.begin(), reads.end());
  if (f.init)
    llvm::append_range(all, shapedInputs(f.init, nullptr));
  llvm::append_range(all, shapedInputs(e, input));
  Value rootOut = rootBuffer(output);
  for (Value v : all) {
    Value r = rootBuffer(v);
    if (r == rootOut || r == rootC)
      return f;
  }
  for (Operation *def : hoist)
    def->moveBefore(gemm);
  f.epilogue = e;
  f.reshape = reshape;
  f.epilogueInput = input;
  f.output = output;
  return f;
}

Value onnxc::GemmFusion::initialValue(OpBuilder &b, Location loc, Value C,
                                      ValueRange indices) const {
  if (init)
    return evaluateAt(b, loc, init, indices, nullptr, {}, {});
  return memref::LoadOp::create(b, loc, C, indices);
}

void onnxc::GemmFusion::store(OpBuilder &b, Location loc, Value C, Value value,
                              ValueRange indices) const {
  if (!epilogue) {
    memref::StoreOp::create(b, loc, value, C, indices);
    return;
  }
  SmallVector<Value> at(indices);
  Value viewed = C;
  if (reshape) {
    // The element's position in C's (row-major) order, then its indices in
    // the reshaped view's shape.
    viewed = reshape->getResult(0);
    Value linear = arith::ConstantIndexOp::create(b, loc, 0);
    for (auto [i, size] :
         llvm::zip(indices, cast<MemRefType>(C.getType()).getShape()))
      linear = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, linear,
                                arith::ConstantIndexOp::create(b, loc, size)),
          i);
    at = delinearize(b, loc, linear,
                     cast<MemRefType>(viewed.getType()).getShape());
  }
  // In place, the body's output argument is the value too.
  Value y = evaluateAt(b, loc, epilogue, at, epilogueInput, value,
                       output == viewed ? value : Value());
  memref::StoreOp::create(b, loc, y, output, at);
}

void onnxc::GemmFusion::eraseFused(Value C) {
  if (epilogue)
    epilogue->erase();
  if (reshape && reshape->use_empty())
    reshape->erase();
  if (init)
    init->erase();
  if (auto alloc = C.getDefiningOp<memref::AllocOp>())
    eraseIfUnused(alloc);
}
