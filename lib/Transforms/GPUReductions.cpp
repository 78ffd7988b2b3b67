//===- GPUReductions.cpp - Reductions as block-per-output kernels ---------===//
//
// onnxc-gpu-reductions: a linalg.generic that reduces (a sum, a maximum, a
// product, ...) into fewer outputs than a GPU has threads would, mapped one
// thread per output, leave most of the GPU idle while each thread walks its
// whole reduction alone: LayerNorm's means over 768 for 256 rows run as one
// block. Here each output gets a block instead: its threads walk the
// reduction domain in strides of the block size, each folding its share
// into a partial value from the combiner's neutral element, then combine
// the partials pairwise in workgroup memory, and thread 0 folds the result
// into the output's initial value.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "GPUGemmFusion.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_GPUREDUCTIONS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

constexpr int64_t kMaxOutputs = 16384; // more: 64 blocks of threads or more
constexpr int64_t kMinReduction = 32;  // fewer: not worth a block

/// The reduction a generic performs: its combiner (out = combiner(out, c))
/// with the neutral element, and the position of `out` among the
/// combiner's operands.
struct Reduction {
  Operation *combiner = nullptr;
  TypedAttr neutral;
  unsigned outOperand = 0;
};

std::optional<Reduction> matchCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
      op.getNumReductionLoops() == 0)
    return std::nullopt;
  Block *body = op.getBlock();
  BlockArgument out = body->getArguments().back();
  SmallVector<Operation *> combiners;
  if (!matchReduction({out}, 0, combiners) || combiners.size() != 1 ||
      !out.hasOneUse())
    return std::nullopt;
  Operation *combiner = combiners.front();
  if (combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
      combiner->getNumRegions() != 0 ||
      !isa<arith::ArithDialect>(combiner->getDialect()))
    return std::nullopt;
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  if (!neutral)
    return std::nullopt;
  // The combiner's result is what the body yields.
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getValues().front() != combiner->getResult(0))
    return std::nullopt;
  unsigned outOperand = combiner->getOperand(0) == out ? 0 : 1;
  // The output is indexed by parallel dims only.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (AffineExpr e : outMap.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || iterators[d.getPosition()] != utils::IteratorType::parallel)
      return std::nullopt;
  }
  return Reduction{combiner, *neutral, outOperand};
}

/// A generic's static loop domain split into its parallel dims (the
/// outputs) and its reduction dims, each with their sizes and product.
struct Domain {
  SmallVector<unsigned> parallelDims, reducedDims;
  SmallVector<int64_t> parallelSizes, reducedSizes;
  int64_t outputs = 1, reduced = 1;
};

/// The domain of `op`, when a block per output pays: static sizes, few
/// outputs, a long enough reduction.
std::optional<Domain> blockDomain(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  Domain d;
  for (auto [dim, size] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    bool parallel = iterators[dim] == utils::IteratorType::parallel;
    (parallel ? d.parallelDims : d.reducedDims).push_back(dim);
    (parallel ? d.parallelSizes : d.reducedSizes).push_back(size);
    (parallel ? d.outputs : d.reduced) *= size;
  }
  if (d.outputs <= 0 || d.outputs > kMaxOutputs || d.reduced < kMinReduction)
    return std::nullopt;
  return d;
}

/// `combiner` applied to (acc, x), `acc` in the output's operand position.
Value combine(OpBuilder &b, const Reduction &r, Value acc, Value x) {
  IRMapping map;
  map.map(r.combiner->getOperand(r.outOperand), acc);
  map.map(r.combiner->getOperand(1 - r.outOperand), x);
  return b.clone(*r.combiner, map)->getResult(0);
}

/// `fusion`: the op that initialises the output and the elementwise op
/// that reads it (onnxc::GemmFusion), evaluated by thread 0 instead of
/// running as kernels of their own.
void buildBlockReduction(linalg::GenericOp op, const Reduction &r,
                         const Domain &domain, onnxc::GemmFusion fusion,
                         bool hostReference) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t outputs = domain.outputs, reduced = domain.reduced;
  int64_t threads = hostReference    ? 1
                    : reduced >= 256 ? 256
                    : reduced >= 128 ? 128
                                     : 64;
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Type elem = r.combiner->getResult(0).getType();
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto partialsType = MemRefType::get({threads}, elem, AffineMap(), workgroup);
  Value one = cst(1);
  // host-reference: a loop over the outputs whose single "thread" folds the
  // whole reduction and finishes as thread 0 does.
  Value block, tid, partials;
  if (hostReference) {
    auto outer = scf::ForOp::create(b, loc, cst(0), cst(outputs), one);
    b.setInsertionPointToStart(outer.getBody());
    block = outer.getInductionVar();
    tid = cst(0);
  } else {
    auto launch = gpu::LaunchOp::create(b, loc, cst(outputs), one, one,
                                        cst(threads), one, one, nullptr,
                                        nullptr, {}, TypeRange{partialsType});
    partials = launch.getWorkgroupAttributions()[0];
    b.setInsertionPointToEnd(&launch.getBody().front());
    block = launch.getBlockIds().x;
    tid = launch.getThreadIds().x;
  }
  SmallVector<Value> ivs(domain.parallelDims.size() +
                         domain.reducedDims.size());
  for (auto [d, v] :
       llvm::zip(domain.parallelDims,
                 onnxc::delinearize(b, loc, block, domain.parallelSizes)))
    ivs[d] = v;

  // The thread's share: r = tid, tid + threads, ... of the reduction domain.
  Value neutral = arith::ConstantOp::create(b, loc, r.neutral);
  auto loop = scf::ForOp::create(b, loc, tid, cst(reduced), cst(threads),
                                 ValueRange{neutral});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    for (auto [d, v] :
         llvm::zip(domain.reducedDims,
                   onnxc::delinearize(b, loc, loop.getInductionVar(),
                                      domain.reducedSizes)))
      ivs[d] = v;
    IRMapping map;
    Block *body = op.getBlock();
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap m = op.getMatchingIndexingMap(input);
      Value value = input->get();
      Value loaded;
      if (isa<MemRefType>(value.getType())) {
        SmallVector<Value> indices;
        for (unsigned i = 0; i < m.getNumResults(); ++i)
          indices.push_back(
              affine::AffineApplyOp::create(b, loc, m.getSubMap({i}), ivs));
        loaded = memref::LoadOp::create(b, loc, value, indices);
      } else {
        loaded = value; // a scalar operand
      }
      map.map(body->getArgument(input->getOperandNumber()), loaded);
    }
    Value partial = loop.getRegionIterArgs()[0];
    for (Operation &inner : body->without_terminator()) {
      if (&inner == r.combiner) {
        map.map(inner.getResult(0),
                combine(b, r, partial,
                        map.lookup(inner.getOperand(1 - r.outOperand))));
        continue;
      }
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        map.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      b.clone(inner, map);
    }
    scf::YieldOp::create(b, loc, map.lookup(r.combiner->getResult(0)));
  }
  // Thread 0: out = combine(out's initial value, the block's total),
  // through the fused epilogue.
  auto finish = [&](Value total) {
    OpOperand *init = op.getDpsInitOperand(0);
    AffineMap m = op.getMatchingIndexingMap(init);
    SmallVector<Value> indices;
    for (AffineExpr e : m.getResults())
      indices.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
    Value out = init->get();
    Value old = fusion.initialValue(b, loc, out, indices);
    fusion.store(b, loc, out, combine(b, r, old, total), indices);
  };
  Value output = op.getDpsInitOperand(0)->get();
  if (hostReference) {
    finish(loop.getResult(0));
    op.erase();
    fusion.eraseFused(output);
    return;
  }
  memref::StoreOp::create(b, loc, loop.getResult(0), partials, tid);
  gpu::BarrierOp::create(b, loc);
  // Pairwise: partials[t] = combine(partials[t], partials[t + s]).
  for (int64_t s = threads / 2; s > 0; s /= 2) {
    Value active =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, cst(s));
    auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value mine = memref::LoadOp::create(b, loc, partials, tid);
      Value other = memref::LoadOp::create(
          b, loc, partials,
          ValueRange{arith::AddIOp::create(b, loc, tid, cst(s))});
      memref::StoreOp::create(b, loc, combine(b, r, mine, other), partials,
                              tid);
    }
    gpu::BarrierOp::create(b, loc);
  }
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, cst(0));
  auto last = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(last.thenBlock());
    finish(memref::LoadOp::create(b, loc, partials, cst(0)));
  }
  gpu::TerminatorOp::create(b, loc);
  op.erase();
  fusion.eraseFused(output);
}

/// A reduction into several outputs, each computed from the inputs and its
/// own output only (an index check's minimum and maximum), as one generic
/// per output, so that each can become a block reduction. False (nothing
/// changed) otherwise.
bool splitOutputs(linalg::GenericOp op) {
  unsigned numInits = op.getNumDpsInits(), numInputs = op.getNumDpsInputs();
  if (numInits < 2 || !op.hasPureBufferSemantics() ||
      op.getNumReductionLoops() == 0 ||
      op.getBlock()->getNumArguments() != numInputs + numInits)
    return false;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  SmallVector<SetVector<Operation *>> slices(numInits);
  for (unsigned k = 0; k < numInits; ++k) {
    Value root = yield.getValues()[k];
    BackwardSliceOptions options;
    options.filter = [&](Operation *o) { return o->getBlock() == body; };
    if (failed(getBackwardSlice(root, &slices[k], options)))
      return false;
    if (Operation *def = root.getDefiningOp())
      slices[k].insert(def);
    // Only this output's block argument (and the inputs') may feed it.
    auto usesOtherOutput = [&](Value v) {
      auto arg = dyn_cast<BlockArgument>(v);
      return arg && arg.getOwner() == body && arg.getArgNumber() >= numInputs &&
             arg.getArgNumber() != numInputs + k;
    };
    if (usesOtherOutput(root))
      return false;
    for (Operation *o : slices[k])
      if (o->getNumRegions() || llvm::any_of(o->getOperands(), usesOtherOutput))
        return false;
  }
  OpBuilder b(op);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned k = 0; k < numInits; ++k) {
    SmallVector<AffineMap> kMaps(maps.begin(), maps.begin() + numInputs);
    kMaps.push_back(maps[numInputs + k]);
    linalg::GenericOp::create(
        b, op.getLoc(), TypeRange{}, op.getDpsInputs(),
        ValueRange{op.getDpsInits()[k]}, kMaps, iterators,
        [&](OpBuilder &nb, Location loc, ValueRange args) {
          IRMapping map;
          for (unsigned i = 0; i < numInputs; ++i)
            map.map(body->getArgument(i), args[i]);
          map.map(body->getArgument(numInputs + k), args.back());
          for (Operation &o : body->without_terminator())
            if (slices[k].contains(&o))
              nb.clone(o, map);
          linalg::YieldOp::create(nb, loc,
                                  map.lookupOrDefault(yield.getValues()[k]));
        });
  }
  op.erase();
  return true;
}

struct GPUReductionsPass : onnxc::impl::GPUReductionsBase<GPUReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> several;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumDpsInits() > 1 && !op->getParentOfType<gpu::LaunchOp>())
        several.push_back(op);
    });
    for (linalg::GenericOp op : several)
      splitOutputs(op);
    std::vector<std::tuple<linalg::GenericOp, Reduction, Domain>> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      std::optional<Domain> domain = blockDomain(op);
      if (op->getParentOfType<gpu::LaunchOp>() || !domain)
        return;
      // Every operand a memref (or a scalar input).
      if (!llvm::all_of(op.getDpsInits(),
                        [](Value v) { return isa<MemRefType>(v.getType()); }))
        return;
      if (std::optional<Reduction> r = matchCombiner(op))
        candidates.push_back({op, *r, *domain});
    });
    for (auto &[op, r, domain] : candidates) {
      // The output's indices are the iteration's parallel dims in order
      // (the ops around it then index it as they index their own
      // iteration).
      AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
      bool ordered =
          outMap.isProjectedPermutation() &&
          llvm::is_sorted(outMap.getResults(), [](AffineExpr a, AffineExpr b) {
            return cast<AffineDimExpr>(a).getPosition() <
                   cast<AffineDimExpr>(b).getPosition();
          });
      onnxc::GemmFusion fusion;
      if (ordered)
        fusion = onnxc::GemmFusion::find(op, op.getDpsInitOperand(0)->get(),
                                         llvm::to_vector(op.getDpsInputs()));
      buildBlockReduction(op, r, domain, fusion, hostReference);
    }
  }
};

} // namespace
