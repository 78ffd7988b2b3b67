//===- LowerUkernels.cpp - Marked linalg ops as calls of runtime kernels --===//
//
// After bufferization, a linalg.generic marked onnxc.ukernel (see
// onnxc-conv-nchwc) becomes a call of the runtime's hand-written kernel,
// passed the buffers as memref descriptors (the C interface: pointers to
// {allocated, aligned, offset, sizes, strides}; see onnxc_ukernels.c), so
// that buffer deallocation and planning see their uses, then the conv's
// strides and dilations.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "ConvNCHWc.h"
#include "../Runtime/onnxc_ukernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_LOWERUKERNELS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kConvKernelName = "onnxc_uk_conv2d_nchwc_f32";
constexpr llvm::StringLiteral kPlanarConvKernelName =
    "onnxc_uk_conv2d_nchw_nchwc_f32";
constexpr llvm::StringLiteral kTransposeKernelName =
    "onnxc_uk_transpose_nchwc_f32";
/// How the kernel starts its accumulators (onnxc_ukernels.h).
enum ConvInit : int64_t {
  kAccumulate = ONNXC_CONV_ACCUMULATE,
  kBias = ONNXC_CONV_BIAS,
  kZero = ONNXC_CONV_ZERO
};
using onnxc::nchwc::kBlock;

/// The static strides of `type`, or failure.
FailureOr<SmallVector<int64_t>> staticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return failure();
  return strides;
}

/// Whether static `strides` of an N x C/16 x H x W x 16 buffer keep each
/// position's 16 channels together and positions 16 apart (what the kernel
/// reads and writes).
bool isBlockedLayout(ArrayRef<int64_t> strides) {
  return strides.size() == 5 && strides[4] == 1 && strides[3] == kBlock;
}

/// `buffer` as a memref of dynamic sizes and strides (one kernel signature
/// for every shape; the kernel reads them from the descriptor).
MemRefType dynamicF32Type(MLIRContext *ctx, int64_t rank) {
  auto layout = StridedLayoutAttr::get(
      ctx, ShapedType::kDynamic,
      SmallVector<int64_t>(rank, ShapedType::kDynamic));
  return MemRefType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                         Float32Type::get(ctx), layout);
}

Value dynamicView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return memref::CastOp::create(
      b, loc, dynamicF32Type(b.getContext(), type.getRank()), buffer);
}

/// The last op before `op` in its block that may write memory, skipping
/// allocations and views.
Operation *previousWriter(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<memref::AllocOp, memref::AllocaOp, ViewLikeOpInterface>(prev) ||
        isMemoryEffectFree(prev))
      continue;
    return prev;
  }
  return nullptr;
}

/// The first op after `op` in its block that uses `buffer`.
Operation *nextUser(Operation *op, Value buffer) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (llvm::is_contained(next->getOperands(), buffer))
      return next;
  return nullptr;
}

/// Whether `next` (a loop nest, the vectorised form of an elementwise op
/// whose result bufferization placed in `buffer`) overwrites `buffer`
/// whole without reading it: inside it, `buffer` itself (no view of it) is
/// used once, as the destination of a vector.transfer_write whose indices
/// are induction variables of the loops around it (each once) or 0, and
/// those loops' trip counts times the vector's size are `buffer`'s size.
bool overwritesWhole(Operation *next, Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!isa<scf::ForOp>(next) || !type || !type.hasStaticShape())
    return false;
  SmallVector<Operation *> uses;
  next->walk([&](Operation *inner) {
    if (llvm::is_contained(inner->getOperands(), buffer))
      uses.push_back(inner);
  });
  auto write = uses.size() == 1
                   ? dyn_cast<vector::TransferWriteOp>(uses.front())
                   : vector::TransferWriteOp();
  if (!write || write.getBase() != buffer || write.getValueToStore() == buffer)
    return false;
  int64_t covered = write.getVectorType().getNumElements();
  llvm::SmallDenseSet<Value> ivs;
  for (Operation *p = write->getParentOp();; p = p->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      return false;
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      return false;
    covered *= trips->getSExtValue();
    ivs.insert(loop.getInductionVar());
    if (p == next)
      break;
  }
  llvm::SmallDenseSet<Value> used;
  for (Value index : write.getIndices())
    if (!isConstantIntValue(index, 0) &&
        (!ivs.contains(index) || !used.insert(index).second))
      return false;
  return covered == type.getNumElements();
}

/// Whether `buffer`'s contents after `epilogue` are not read: its uses
/// after `op` are `epilogue` and then, first, an op that overwrites it
/// whole (a fill or broadcast, or an elementwise op's loops: bufferization
/// reuses a conv's buffer).
bool deadAfter(Value buffer, Operation *op, Operation *epilogue) {
  Operation *next = nullptr;
  for (Operation *use : buffer.getUsers()) {
    // A use inside a loop counts at the loop.
    Operation *user = op->getBlock()->findAncestorOpInBlock(*use);
    if (!user)
      return false;
    if (user == op || user == epilogue || user->isBeforeInBlock(op) ||
        isa<memref::DeallocOp>(user))
      continue;
    if (user->isBeforeInBlock(epilogue))
      return false;
    if (!next || user->isBeforeInBlock(next))
      next = user;
  }
  if (!next)
    return true;
  if (auto fill = dyn_cast<linalg::FillOp>(next))
    return fill.getOutputs()[0] == buffer;
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(next))
    return broadcast.getInit() == buffer;
  return overwritesWhole(next, buffer);
}

/// The buffer `v` is a view of (or `v`).
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether an op strictly between `first` and `last` (same block) uses a
/// view of one of `buffers`.
bool touchesBetween(Operation *first, Operation *last, ValueRange buffers) {
  llvm::SmallPtrSet<Value, 4> roots;
  for (Value v : buffers)
    if (v)
      roots.insert(rootBuffer(v));
  for (Operation *op = first->getNextNode(); op && op != last;
       op = op->getNextNode()) {
    WalkResult r = op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (isa<MemRefType>(operand.getType()) &&
            roots.contains(rootBuffer(operand)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return true;
  }
  return false;
}

/// Whether `target` is a view of the same buffer as one of `read` (the
/// kernel would overwrite what it still reads: bufferization may give a
/// Relu's result the buffer of an earlier result that this conv reads).
bool readsBuffer(Value target, ValueRange read) {
  Value root = rootBuffer(target);
  return llvm::any_of(read, [&](Value v) { return v && rootBuffer(v) == root; });
}

LogicalResult lowerConv(OpBuilder &b, func::FuncOp kernel,
                        linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return failure();
  Value in = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        out = op.getDpsInits()[0];
  auto inType = dyn_cast<MemRefType>(in.getType());
  auto wType = dyn_cast<MemRefType>(w.getType());
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!inType || !wType || !outType || !inType.hasStaticShape() ||
      !wType.hasStaticShape() || !outType.hasStaticShape())
    return failure();
  // A blocked input has 16 channels per position, a planar (NCHW) one its
  // positions 1 apart.
  bool planar = inType.getRank() == 4;
  auto inStrides = staticStrides(inType), outStrides = staticStrides(outType);
  if (failed(inStrides) || failed(outStrides) ||
      (planar ? (*inStrides)[3] != 1 : !isBlockedLayout(*inStrides)) ||
      !isBlockedLayout(*outStrides) || !wType.getLayout().isIdentity())
    return failure();
  auto strides = op->getAttrOfType<DenseI64ArrayAttr>("strides");
  auto dilations = op->getAttrOfType<DenseI64ArrayAttr>("dilations");
  if (!strides || !dilations || strides.size() != 2 || dilations.size() != 2)
    return failure();

  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  // A bias broadcast or a zero fill of the output just before: the kernel
  // starts from it instead.
  int64_t init = kAccumulate;
  Value bias;
  Operation *writer = previousWriter(op);
  if (auto broadcast = dyn_cast_or_null<linalg::BroadcastOp>(writer);
      broadcast && broadcast.getInit() == out &&
      broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3}) {
    auto biasType = dyn_cast<MemRefType>(broadcast.getInput().getType());
    if (biasType && biasType.getLayout().isIdentity()) {
      bias = broadcast.getInput();
      init = kBias;
    }
  } else if (auto fill = dyn_cast_or_null<linalg::FillOp>(writer);
             fill && fill.getOutputs()[0] == out &&
             matchPattern(fill.getInputs()[0], m_PosZeroFloat())) {
    init = kZero;
  }

  // A Relu or Clip reading only the conv's output: the kernel applies it
  // and writes its buffer instead, in its place (the conv's own
  // buffer is then dead), or clamps in place when the Relu does. The ops in between (a pad's border fills) must
  // not touch the conv's buffers.
  int64_t clamp = 0;
  FloatAttr lo = b.getF32FloatAttr(0.0f), hi = lo;
  Operation *fusedEpilogue = nullptr;
  if (init != kAccumulate) {
    auto epilogue = dyn_cast_or_null<linalg::GenericOp>(nextUser(op, out));
    if (epilogue && epilogue->hasAttr(onnxc::kUkernelEpilogueAttrName) &&
        epilogue->getAttrOfType<FloatAttr>("lo") &&
        epilogue->getAttrOfType<FloatAttr>("hi") &&
        epilogue.getNumDpsInputs() == 1 &&
        epilogue.getDpsInputs()[0] == out &&
        (epilogue.getDpsInits()[0] == out || deadAfter(out, op, epilogue)) &&
        !touchesBetween(op, epilogue, {in, w, bias, out}) &&
        !readsBuffer(epilogue.getDpsInits()[0], {in, w, bias})) {
      Value target = epilogue.getDpsInits()[0];
      auto targetType = dyn_cast<MemRefType>(target.getType());
      FailureOr<SmallVector<int64_t>> targetStrides = failure();
      if (targetType)
        targetStrides = staticStrides(targetType);
      if (succeeded(targetStrides) && isBlockedLayout(*targetStrides) &&
          targetType.getShape() == outType.getShape()) {
        out = target;
        clamp = 1;
        lo = epilogue->getAttrOfType<FloatAttr>("lo");
        hi = epilogue->getAttrOfType<FloatAttr>("hi");
        fusedEpilogue = epilogue;
        b.setInsertionPoint(epilogue);
      }
    }
  }
  if (!bias) {
    // No bias read: any 2-D buffer stands in.
    bias = memref::AllocaOp::create(
        b, loc, MemRefType::get({1, kBlock}, b.getF32Type()));
  }
  SmallVector<Value> args{dynamicView(b, loc, in), dynamicView(b, loc, w),
                          dynamicView(b, loc, bias), dynamicView(b, loc, out)};
  for (int64_t v : {strides[0], strides[1], dilations[0], dilations[1], init,
                    clamp})
    args.push_back(arith::ConstantIntOp::create(b, loc, v, 64));
  for (FloatAttr bound : {lo, hi})
    args.push_back(arith::ConstantOp::create(b, loc, bound));
  func::CallOp::create(b, loc, kernel, args);
  if (init != kAccumulate)
    writer->erase();
  if (fusedEpilogue)
    fusedEpilogue->erase();
  op->erase();
  return success();
}

/// The declaration of kernel `name` (buffers as descriptors of dynamic
/// memrefs of `ranks`, then `scalars` i64 and `floats` f32 values),
/// created on first use.
func::FuncOp declareKernel(ModuleOp module, StringRef name,
                           ArrayRef<int64_t> ranks, unsigned scalars,
                           unsigned floats = 0) {
  if (auto kernel = module.lookupSymbol<func::FuncOp>(name))
    return kernel;
  OpBuilder b(module.getContext());
  b.setInsertionPointToStart(module.getBody());
  SmallVector<Type> argTypes;
  for (int64_t rank : ranks)
    argTypes.push_back(dynamicF32Type(module.getContext(), rank));
  argTypes.append(scalars, b.getI64Type());
  argTypes.append(floats, b.getF32Type());
  auto kernel = func::FuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType(argTypes, {}));
  kernel.setPrivate();
  kernel->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return kernel;
}

/// A marked NCHW <-> NCHWc transpose as a call of the layout kernel.
void lowerTranspose(OpBuilder &b, func::FuncOp kernel,
                    linalg::TransposeOp op, bool blocked) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  func::CallOp::create(
      b, loc, kernel,
      ValueRange{dynamicView(b, loc, op.getInput()),
                 dynamicView(b, loc, op.getInit()),
                 arith::ConstantIntOp::create(b, loc, blocked ? 1 : 0, 64)});
  op->erase();
}

struct LowerUkernelsPass
    : mlir::onnxc::impl::LowerUkernelsBase<LowerUkernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::GenericOp> convs, planarConvs;
    SmallVector<linalg::TransposeOp> transposes;
    module.walk([&](Operation *op) {
      auto name = op->getAttrOfType<StringAttr>(onnxc::kUkernelAttrName);
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!name || !linalgOp || !linalgOp.hasPureBufferSemantics())
        return;
      if (auto generic = dyn_cast<linalg::GenericOp>(op);
          generic && name.getValue() == onnxc::kConvNCHWcUkernel)
        convs.push_back(generic);
      if (auto generic = dyn_cast<linalg::GenericOp>(op);
          generic && name.getValue() == onnxc::kConvNCHWToNCHWcUkernel)
        planarConvs.push_back(generic);
      // The layout kernel moves f32s: a layout change of other data (the
      // i32 accumulators a quantized block dequantizes) stays a loop nest.
      if (auto transpose = dyn_cast<linalg::TransposeOp>(op);
          transpose &&
          (name.getValue() == onnxc::kPackNCHWcUkernel ||
           name.getValue() == onnxc::kUnpackNCHWcUkernel) &&
          transpose.getInput().getType().getElementType().isF32())
        transposes.push_back(transpose);
    });
    OpBuilder b(&getContext());
    // Buffers as descriptors (the C interface: pointers to {allocated,
    // aligned, offset, sizes, strides}), then strides, dilations, how the
    // accumulators start, whether to clamp the result, and the bounds.
    if (!convs.empty()) {
      func::FuncOp kernel =
          declareKernel(module, kConvKernelName, {5, 6, 2, 5}, 6, 2);
      for (linalg::GenericOp op : convs)
        // Left alone (strided operands), the generic stays a loop nest.
        (void)lowerConv(b, kernel, op);
    }
    if (!planarConvs.empty()) {
      func::FuncOp kernel =
          declareKernel(module, kPlanarConvKernelName, {4, 5, 2, 5}, 6, 2);
      for (linalg::GenericOp op : planarConvs)
        (void)lowerConv(b, kernel, op);
    }
    // After the convs: their checks look at their neighbours as
    // linalg ops.
    if (!transposes.empty()) {
      func::FuncOp kernel =
          declareKernel(module, kTransposeKernelName, {5, 5}, 1);
      for (linalg::TransposeOp op : transposes)
        lowerTranspose(b, kernel, op,
                       op->getAttrOfType<StringAttr>(onnxc::kUkernelAttrName)
                               .getValue() == onnxc::kPackNCHWcUkernel);
    }
  }
};

} // namespace
