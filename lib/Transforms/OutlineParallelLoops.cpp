//===- OutlineParallelLoops.cpp - Tile loops onto the runtime's threads ---===//
//
// onnxc-outline-parallel-loops (memrefs, before SCF to CF): the outermost
// scf.for marked onnxc.parallel whose body cannot call the runtime (no
// allocation, no deallocation, no call: no run-time check) becomes a
// function
//   __onnxc_parallel_N(begin, end, captured values...)
// running iterations [begin, end) of the loop, and the loop a call of it
// over [0, trip count).
//
// onnxc-dispatch-parallel-calls (LLVM dialect, at the end): each such call
// stores its captured values (by then memref descriptors are their fields)
// into a stack struct and calls
//   onnxc_rt_parallel_for(__onnxc_parallel_N_task, &struct, trip count)
// whose task loads them back and calls __onnxc_parallel_N on a chunk.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Codegen/Common/Target.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#define GEN_PASS_DEF_DISPATCHPARALLELCALLS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

/// The alignment of a task's context struct, its stack slot and the loads
/// and stores of it.
constexpr unsigned kContextAlign = 16;

namespace {

constexpr llvm::StringLiteral kOutlinedPrefix = "__onnxc_parallel_";
constexpr llvm::StringLiteral kParallelForName = "onnxc_rt_parallel_for";
constexpr llvm::StringLiteral kLoopAnnotationName = "llvm.loop_annotation";

/// Whether the body of `loop` may run on a worker thread: nothing in it
/// allocates, frees or calls (the runtime's checks and allocations need the
/// run's context, which only the calling thread has).
bool runsWithoutRuntime(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return false;
  WalkResult result = loop.getBody()->walk([](Operation *op) {
    if (isa<CallOpInterface, memref::AllocOp, memref::ReallocOp,
            memref::DeallocOp, bufferization::DeallocOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// What a copy counts as in estimateWork: a quarter of its elements (it
/// is bound by memory bandwidth, not by its vector operations).
int64_t copyWork(memref::CopyOp copy) {
  auto type = cast<MemRefType>(copy.getSource().getType());
  return type.hasStaticShape() ? type.getNumElements() / 4 : 0;
}

/// What a loop whose trip count is known only at run time counts as: the
/// dynamic dims of the models are sequence lengths and batch x sequence
/// (a dynamic BERT's 2 x 128).
constexpr int64_t kAssumedTrips = 128;

/// What an operation counts as: one, or for vector operations the number
/// of the target's vector registers (`vectorBits` wide) their widest
/// vector fills (on AVX-512, a Relu's vector<64xf32> rows are four
/// instructions each, a vector<64xindex> eight).
int64_t opWork(Operation &op, int64_t vectorBits) {
  int64_t bits = 0;
  auto widen = [&](Type t) {
    if (auto v = dyn_cast<VectorType>(t))
      if (v.getElementType().isIntOrIndexOrFloat())
        bits = std::max<int64_t>(
            bits, v.getNumElements() *
                      std::max<int64_t>(
                          v.getElementType().isIndex()
                              ? 64
                              : v.getElementType().getIntOrFloatBitWidth(),
                          8));
  };
  for (Type t : op.getResultTypes())
    widen(t);
  for (Type t : op.getOperandTypes())
    widen(t);
  return std::max<int64_t>(1, bits / vectorBits);
}

/// Roughly how many operations a run of `block` executes: nested loops
/// count their trip count times (kAssumedTrips when unknown).
int64_t estimateWork(Block &block, int64_t vectorBits) {
  int64_t work = 0;
  for (Operation &op : block) {
    int64_t inner = 0;
    for (Region &region : op.getRegions())
      for (Block &b : region)
        inner += estimateWork(b, vectorBits);
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<APInt> trips = loop.getStaticTripCount();
      inner *= trips ? trips->getSExtValue() : kAssumedTrips;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      inner += copyWork(copy);
    work = std::min<int64_t>(work + opWork(op, vectorBits) + inner,
                             int64_t(1) << 40);
  }
  return work;
}

/// Values that can be rebuilt inside the outlined function instead of
/// passed to it.
bool isRematerializable(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         isMemoryEffectFree(def) && def->getNumResults() == 1;
}

/// The leading dims of a split copy give at least this many pieces.
constexpr int64_t kCopyPieces = 16;

/// The body of a split copy: `copy`'s piece at `offsets` (of `sizes`) in
/// `loop`, which is marked parallel; `copy` goes.
void copyPieces(OpBuilder &b, Location loc, memref::CopyOp copy,
                scf::ForOp loop, ArrayRef<OpFoldResult> offsets,
                ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> strides) {
  Value from = memref::SubViewOp::create(b, loc, copy.getSource(), offsets,
                                         sizes, strides);
  Value to = memref::SubViewOp::create(b, loc, copy.getTarget(), offsets,
                                       sizes, strides);
  memref::CopyOp::create(b, loc, from, to);
  loop->setAttr(onnxc::kParallelAttrName, b.getUnitAttr());
  copy.erase();
}

/// A copy whose leading dim alone is dynamic and that counts as min-work
/// with kAssumedTrips rows (a dynamic BERT's ? x 768 activations) becomes
/// a loop over its rows, marked parallel.
void splitDynamicCopy(memref::CopyOp copy, MemRefType type, int64_t minWork) {
  ArrayRef<int64_t> shape = type.getShape();
  if (type.getRank() < 2 || !ShapedType::isDynamic(shape[0]) ||
      llvm::any_of(shape.drop_front(), ShapedType::isDynamic))
    return;
  int64_t row = 1;
  for (int64_t d : shape.drop_front())
    row *= d;
  if (row / 4 * kAssumedTrips < minWork)
    return;
  Location loc = copy.getLoc();
  OpBuilder b(copy);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value rows = memref::DimOp::create(b, loc, copy.getSource(), 0);
  auto loop = scf::ForOp::create(b, loc, cst(0), rows, cst(1));
  b.setInsertionPointToStart(loop.getBody());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  offsets[0] = loop.getInductionVar();
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d : shape.drop_front())
    sizes.push_back(b.getIndexAttr(d));
  copyPieces(b, loc, copy, loop, offsets, sizes, strides);
}

/// A large copy at the top level of a function (a pad's interior, a
/// concat's part, a conv's input laid out for its blocks) becomes a loop
/// over pieces of its leading dims, marked parallel: otherwise the other
/// threads wait while the calling thread copies.
void splitLargeCopy(memref::CopyOp copy, int64_t minWork) {
  auto srcType = dyn_cast<MemRefType>(copy.getSource().getType());
  auto dstType = dyn_cast<MemRefType>(copy.getTarget().getType());
  if (srcType && dstType && !srcType.hasStaticShape()) {
    splitDynamicCopy(copy, srcType, minWork);
    return;
  }
  if (!srcType || !dstType || !srcType.hasStaticShape() ||
      copyWork(copy) < minWork || srcType.getRank() < 2)
    return;
  ArrayRef<int64_t> shape = srcType.getShape();
  // The fewest leading dims with kCopyPieces pieces, but not the last.
  int64_t rank = srcType.getRank(), lead = 0, pieces = 1;
  while (lead < rank - 1 && pieces < kCopyPieces)
    pieces *= shape[lead++];
  if (pieces < 2)
    return;
  Location loc = copy.getLoc();
  OpBuilder b(copy);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto loop = scf::ForOp::create(b, loc, cst(0), cst(pieces), cst(1));
  b.setInsertionPointToStart(loop.getBody());
  // Piece i: index (i / inner_d) % shape[d] in each leading dim d.
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  int64_t inner = pieces;
  for (int64_t d = 0; d < rank; ++d) {
    if (d >= lead) {
      sizes.push_back(b.getIndexAttr(shape[d]));
      continue;
    }
    inner /= shape[d];
    Value at = loop.getInductionVar();
    if (inner > 1)
      at = arith::DivUIOp::create(b, loc, at, cst(inner));
    if (d > 0)
      at = arith::RemUIOp::create(b, loc, at, cst(shape[d]));
    offsets[d] = at;
    sizes.push_back(b.getIndexAttr(1));
  }
  copyPieces(b, loc, copy, loop, offsets, sizes, strides);
}

/// A hash of `f`'s type and body that equal bodies share (locations and
/// SSA names left out).
llvm::hash_code bodyHash(func::FuncOp f) {
  llvm::hash_code hash = hash_value(f.getFunctionType());
  f.getBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(
                  op, OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Outlined functions of the same type and body (the loops of a network's
/// repeated blocks: same shapes, same constants) become one: the calls of
/// the others call the first. Swin-T's 1260 outlined functions and tasks
/// hold about a third of the module's code twice or more.
void mergeIdenticalOutlined(ModuleOp module) {
  llvm::MapVector<llvm::hash_code, SmallVector<func::FuncOp>> groups;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.getSymName().starts_with(kOutlinedPrefix))
      groups[bodyHash(f)].push_back(f);
  // Callee names to replace, then one walk over the calls.
  llvm::DenseMap<StringAttr, FlatSymbolRefAttr> replacement;
  SmallVector<func::FuncOp> merged;
  for (auto &[hash, funcs] : groups) {
    SmallVector<func::FuncOp> kept;
    for (func::FuncOp f : funcs) {
      auto same = llvm::find_if(kept, [&](func::FuncOp k) {
        return k.getFunctionType() == f.getFunctionType() &&
               OperationEquivalence::isRegionEquivalentTo(
                   &k.getBody(), &f.getBody(),
                   OperationEquivalence::IgnoreLocations);
      });
      if (same == kept.end()) {
        kept.push_back(f);
        continue;
      }
      replacement[f.getSymNameAttr()] =
          FlatSymbolRefAttr::get(same->getSymNameAttr());
      merged.push_back(f);
    }
  }
  if (merged.empty())
    return;
  module.walk([&](func::CallOp call) {
    auto it = replacement.find(call.getCalleeAttr().getAttr());
    if (it != replacement.end())
      call.setCalleeAttr(it->second);
  });
  for (func::FuncOp f : merged)
    f.erase();
}

struct OutlineParallelLoopsPass
    : mlir::onnxc::impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  using OutlineParallelLoopsBase::OutlineParallelLoopsBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const int64_t vectorBits = onnxc::CPUTarget::of(module).vectorBits;
    SmallVector<memref::CopyOp> copies;
    module.walk([&](memref::CopyOp copy) {
      if (isa<func::FuncOp>(copy->getParentOp()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies)
      splitLargeCopy(copy, minWork);
    // Outermost candidates first: a loop inside an outlined one stays.
    SmallVector<scf::ForOp> candidates;
    module.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(onnxc::kParallelAttrName))
        return WalkResult::advance();
      std::optional<int64_t> trips = loop.getStaticTripCount()
                                         ? std::optional<int64_t>(
                                               loop.getStaticTripCount()
                                                   ->getSExtValue())
                                         : std::nullopt;
      if ((trips && *trips < 2) || !runsWithoutRuntime(loop))
        return WalkResult::advance(); // an inner loop may still qualify
      // Too little work to pay for waking the other threads.
      if (estimateWork(*loop.getBody(), vectorBits) *
              (trips ? *trips : kAssumedTrips) <
          minWork)
        return WalkResult::skip();
      candidates.push_back(loop);
      return WalkResult::skip();
    });
    unsigned counter = 0;
    for (scf::ForOp loop : candidates)
      outline(loop, counter++);
    mergeIdenticalOutlined(module);
    // Marks on loops that stay serial have no further use.
    module.walk([](scf::ForOp loop) {
      loop->removeAttr(onnxc::kParallelAttrName);
    });
    // Fills (a pad's borders: its left and right columns, one element per
    // row, and its top and bottom rows) stay plain loops: LLVM vectorised
    // the columns' strided stores into scatters and unrolled both, tens of
    // thousands of instructions in all (DenseNet-121's main_graph: 4600
    // scatter calls, 46.6 K lines of LLVM IR) for stores that take
    // microseconds.
    MLIRContext *ctx = &getContext();
    BoolAttr disable = BoolAttr::get(ctx, true);
    auto ann = LLVM::LoopAnnotationAttr::get(
        ctx, /*disableNonforced=*/{},
        LLVM::LoopVectorizeAttr::get(ctx, disable, {}, {}, {}, {}, {}, {}),
        /*interleave=*/{},
        LLVM::LoopUnrollAttr::get(ctx, disable, {}, {}, {}, {}, {}, {}), {},
        {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
    module.walk([&](scf::ForOp loop) {
      if (isFillLoop(loop))
        loop->setAttr(kLoopAnnotationName, ann);
    });
  }

  /// A loop nest whose body only stores values defined outside it (scalars
  /// or vectors: the border rows of a pad are vector stores) and computes
  /// indices.
  static bool isFillLoop(scf::ForOp loop) {
    bool stores = false;
    WalkResult result = loop.getBody()->walk([&](Operation *op) {
      Value stored;
      if (auto store = dyn_cast<memref::StoreOp>(op))
        stored = store.getValue();
      else if (auto store = dyn_cast<vector::StoreOp>(op))
        stored = store.getValueToStore();
      if (stored) {
        stores = true;
        return loop.isDefinedOutsideOfLoop(stored) ? WalkResult::advance()
                                                   : WalkResult::interrupt();
      }
      if (isa<scf::ForOp, scf::YieldOp>(op) ||
          (isMemoryEffectFree(op) && op->getNumRegions() == 0 &&
           llvm::all_of(op->getResultTypes(),
                        [](Type t) { return t.isIntOrIndex(); })))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    return stores && !result.wasInterrupted();
  }

  void outline(scf::ForOp loop, unsigned index) {
    auto func = loop->getParentOfType<func::FuncOp>();
    ModuleOp module = getOperation();
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    b.setInsertionPoint(func);

    // Captured values: defined above the loop's body and used in it,
    // constants apart (rebuilt inside); the bounds and step too.
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(loop.getRegion(), above);
    SmallVector<Value> captured;
    SmallVector<Value> rebuilt;
    for (Value v : above)
      (isRematerializable(v) ? rebuilt : captured).push_back(v);
    for (Value v : {loop.getLowerBound(), loop.getStep()})
      if (!llvm::is_contained(captured, v) && !isRematerializable(v))
        captured.push_back(v);

    SmallVector<Type> argTypes{b.getIndexType(), b.getIndexType()};
    for (Value v : captured)
      argTypes.push_back(v.getType());
    std::string name = (kOutlinedPrefix + Twine(index)).str();
    auto outlined =
        func::FuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
    outlined.setPrivate();
    Block *entry = outlined.addEntryBlock();
    OpBuilder ib = OpBuilder::atBlockBegin(entry);
    IRMapping mapping;
    for (Value v : rebuilt)
      mapping.map(v, ib.clone(*v.getDefiningOp())->getResult(0));
    for (Value v : {loop.getLowerBound(), loop.getStep()})
      if (isRematerializable(v) && !mapping.contains(v))
        mapping.map(v, ib.clone(*v.getDefiningOp())->getResult(0));
    for (auto [v, arg] : llvm::zip(captured, entry->getArguments().drop_front(2)))
      mapping.map(v, arg);
    // for i in [begin, end): iv = lb + i * step
    Value lb = mapping.lookup(loop.getLowerBound());
    Value step = mapping.lookup(loop.getStep());
    Value one = arith::ConstantIndexOp::create(ib, loc, 1);
    auto inner = scf::ForOp::create(ib, loc, entry->getArgument(0),
                                    entry->getArgument(1), one);
    {
      OpBuilder lb2 = OpBuilder::atBlockBegin(inner.getBody());
      Value iv = arith::AddIOp::create(
          lb2, loc, lb,
          arith::MulIOp::create(lb2, loc, inner.getInductionVar(), step));
      mapping.map(loop.getInductionVar(), iv);
      for (Operation &op : loop.getBody()->without_terminator())
        lb2.clone(op, mapping);
    }
    func::ReturnOp::create(ib, loc);

    // The loop becomes a call over [0, trip count).
    b.setInsertionPoint(loop);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(),
                                       loop.getLowerBound());
    Value trips = arith::CeilDivSIOp::create(b, loc, span, loop.getStep());
    trips = arith::MaxSIOp::create(b, loc, trips, zero);
    SmallVector<Value> args{zero, trips};
    llvm::append_range(args, captured);
    func::CallOp::create(b, loc, outlined, args);
    loop.erase();
    (void)module;
  }
};

struct DispatchParallelCallsPass
    : mlir::onnxc::impl::DispatchParallelCallsBase<DispatchParallelCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The loop annotations of scf.for reach the loops' back edges as a
    // discardable attribute, which translation to LLVM IR ignores: they
    // become the branches' own loop_annotation.
    module.walk([](Operation *op) {
      auto ann = op->getAttrOfType<LLVM::LoopAnnotationAttr>(
          kLoopAnnotationName);
      if (!ann)
        return;
      op->removeAttr(kLoopAnnotationName);
      if (auto br = dyn_cast<LLVM::BrOp>(op))
        br.setLoopAnnotationAttr(ann);
      else if (auto condBr = dyn_cast<LLVM::CondBrOp>(op))
        condBr.setLoopAnnotationAttr(ann);
    });
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && callee->starts_with(kOutlinedPrefix))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    b.setInsertionPointToStart(module.getBody());
    auto parallelFor = module.lookupSymbol<LLVM::LLVMFuncOp>(kParallelForName);
    if (!parallelFor)
      parallelFor = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kParallelForName,
          LLVM::LLVMFunctionType::get(voidType, {ptr, ptr, i64}));

    llvm::StringMap<LLVM::LLVMFuncOp> tasks;
    for (LLVM::CallOp call : calls) {
      StringRef callee = *call.getCallee();
      auto target = module.lookupSymbol<LLVM::LLVMFuncOp>(callee);
      if (!target || call.getNumOperands() < 2) {
        call.emitError("malformed parallel call");
        return signalPassFailure();
      }
      target.setLinkage(LLVM::Linkage::Internal);
      Location loc = call.getLoc();
      SmallVector<Type> fieldTypes;
      for (Value v : call.getOperands().drop_front(2))
        fieldTypes.push_back(v.getType());
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);

      // The task: void task(ptr ctx, i64 begin, i64 end).
      LLVM::LLVMFuncOp &task = tasks[callee];
      if (!task) {
        b.setInsertionPointAfter(target);
        task = LLVM::LLVMFuncOp::create(
            b, loc, (callee + "_task").str(),
            LLVM::LLVMFunctionType::get(voidType, {ptr, i64, i64}),
            LLVM::Linkage::Internal);
        Block *entry = task.addEntryBlock(b);
        OpBuilder tb = OpBuilder::atBlockBegin(entry);
        // The struct is as aligned as its stack slot (kContextAlign): a
        // load at the type's own alignment (256 bytes for a captured
        // vector<36xf32>) became aligned vector moves into a 16-byte
        // aligned slot, and crashed where the stack was not that aligned.
        Value fields = LLVM::LoadOp::create(tb, loc, structType,
                                            entry->getArgument(0),
                                            kContextAlign);
        SmallVector<Value> args{entry->getArgument(1), entry->getArgument(2)};
        for (unsigned i = 0; i < fieldTypes.size(); ++i)
          args.push_back(LLVM::ExtractValueOp::create(tb, loc, fields, i));
        LLVM::CallOp::create(tb, loc, target, args);
        LLVM::ReturnOp::create(tb, loc, ValueRange{});
      }

      // At the call: the struct on the stack (allocated once, at the
      // function's entry), then the dispatch.
      auto func = call->getParentOfType<LLVM::LLVMFuncOp>();
      b.setInsertionPointToStart(&func.getBody().front());
      Value count = LLVM::ConstantOp::create(b, loc, i64, 1);
      Value slot = LLVM::AllocaOp::create(b, loc, ptr, structType, count,
                                          kContextAlign);
      b.setInsertionPoint(call);
      Value fields = LLVM::UndefOp::create(b, loc, structType);
      for (auto [i, v] : llvm::enumerate(call.getOperands().drop_front(2)))
        fields = LLVM::InsertValueOp::create(b, loc, fields, v, i);
      LLVM::StoreOp::create(b, loc, fields, slot, kContextAlign);
      Value fn = LLVM::AddressOfOp::create(b, loc, ptr, task.getSymName());
      Value trips = call.getOperand(1);
      LLVM::CallOp::create(b, loc, parallelFor,
                           ValueRange{fn, slot, trips});
      call.erase();
    }
  }
};

} // namespace
