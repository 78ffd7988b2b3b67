//===- HoistConstants.cpp - Weight-only work runs once, not every run -----===//
//
// The ops of the entry function whose operands all come from constants
// (ConstantOfShape fills, filter transposes, BatchNormalization's scale and
// shift, reshapes of weights) compute the same tensors on every run. They
// move into a function `__onnxc_init` that the runtime calls once, before
// the model's first run; it writes each tensor the entry function still
// needs into a module global, and the entry function reads the globals.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_HOISTCONSTANTS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// Ops that only describe a constant or a view of one: hoisting them alone
/// saves nothing.
bool isFreeOp(Operation *op) {
  return isa<arith::ConstantOp, tensor::EmptyOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, tensor::ExtractSliceOp, tensor::CastOp>(op);
}

/// Whether `use` is written in place by its owner: a destination (the init
/// of a matmul is its accumulator) or a loop-carried value. Such a tensor
/// stays in the entry function: read from a read-only global, it would be
/// copied on every run.
bool isDestinationUse(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(owner))
    if (dps.isDpsInit(&use))
      return true;
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(owner))
    return use.get() == insert.getDest();
  return isa<scf::ForOp, scf::WhileOp, scf::ForallOp>(owner);
}

struct HoistConstantsPass
    : mlir::onnxc::impl::HoistConstantsBase<HoistConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr("llvm.emit_c_interface") && !func.isExternal())
        entry = func;
    if (!entry || !entry.getBody().hasOneBlock())
      return;
    Block &body = entry.getBody().front();

    // The constant ops of the entry block, in order: memory-effect free,
    // operands all from constant ops (so no function argument and nothing
    // defined in a loop).
    llvm::SetVector<Operation *> constant;
    llvm::DenseSet<Operation *> computing; // depends on a non-free op
    auto readsOnlyConstants = [&](Operation &op) {
      bool fromConstants = llvm::all_of(op.getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && constant.contains(def);
      });
      // Values used inside the op's regions must be constants too.
      bool regionsClosed = true;
      op.walk([&](Operation *inner) {
        for (Value v : inner->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (def && def->getBlock() == &body && !constant.contains(def))
            regionsClosed = false;
          if (auto arg = dyn_cast<BlockArgument>(v))
            if (arg.getOwner() == &body)
              regionsClosed = false;
        }
      });
      return fromConstants && regionsClosed;
    };
    for (Operation &op : body) {
      if (op.hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(&op))
        continue;
      if (!readsOnlyConstants(op))
        continue;
      constant.insert(&op);
      bool computes = !isFreeOp(&op);
      for (Value v : op.getOperands())
        computes |= computing.contains(v.getDefiningOp());
      if (computes)
        computing.insert(&op);
    }

    // A constant op whose result another op writes in place (a bias
    // broadcast into a convolution's accumulator) stays in the entry
    // function, computed on every run, and so do such ops before it: what
    // it reads from the other constant ops (a BatchNormalization's shift)
    // is then kept instead; the constant ops that read a staying one stay
    // as well.
    auto writtenInPlaceOutside = [&](Operation *op) {
      for (Value result : op->getResults())
        for (OpOperand &use : result.getUses()) {
          Operation *top = body.findAncestorOpInBlock(*use.getOwner());
          if ((!top || !constant.contains(top)) && isDestinationUse(use))
            return true;
        }
      return false;
    };
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<Operation *> staying;
      for (Operation *op : constant)
        if ((computing.contains(op) && writtenInPlaceOutside(op)) ||
            !readsOnlyConstants(*op))
          staying.push_back(op);
      for (Operation *op : staying) {
        constant.remove(op);
        computing.erase(op);
        changed = true;
      }
    }

    // The values to keep: results of computing ops used by other ops.
    SmallVector<Value> kept;
    for (Operation *op : constant) {
      if (!computing.contains(op))
        continue;
      for (Value result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        bool usedOutside = false, inPlace = false;
        for (OpOperand &use : result.getUses()) {
          Operation *top = body.findAncestorOpInBlock(*use.getOwner());
          if (top && constant.contains(top))
            continue;
          usedOutside = true;
          inPlace |= isDestinationUse(use);
        }
        if (usedOutside && !inPlace && type && type.hasStaticShape())
          kept.push_back(result);
      }
    }
    if (kept.empty())
      return;

    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Location loc = entry.getLoc();
    b.setInsertionPoint(entry);
    auto init = func::FuncOp::create(b, loc, onnxc::kInitFunctionName,
                                     b.getFunctionType({}, {}));
    init.setPrivate();
    Block *initBody = init.addEntryBlock();

    // The globals, written by __onnxc_init.
    SmallVector<memref::GlobalOp> globals;
    for (auto [i, v] : llvm::enumerate(kept)) {
      auto type = cast<RankedTensorType>(v.getType());
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      b.setInsertionPoint(init);
      auto global = memref::GlobalOp::create(
          b, loc, ("__onnxc_constant_" + Twine(i)).str(),
          b.getStringAttr("private"), memrefType, Attribute(),
          /*constant=*/false, b.getI64IntegerAttr(64));
      globals.push_back(global);
    }

    // __onnxc_init computes the constant ops and stores the kept values.
    b.setInsertionPointToStart(initBody);
    IRMapping mapping;
    for (Operation *op : constant)
      b.clone(*op, mapping);
    for (auto [v, global] : llvm::zip(kept, globals)) {
      Value m = memref::GetGlobalOp::create(b, loc, global.getType(),
                                            global.getSymName());
      auto store = bufferization::MaterializeInDestinationOp::create(
          b, loc, TypeRange{}, mapping.lookup(v), m);
      store.setRestrict(true);
      store.setWritable(true);
    }
    func::ReturnOp::create(b, loc);

    // The entry function reads the globals.
    b.setInsertionPointToStart(&body);
    for (auto [v, global] : llvm::zip(kept, globals)) {
      Value m = memref::GetGlobalOp::create(b, v.getLoc(), global.getType(),
                                            global.getSymName());
      auto read = bufferization::ToTensorOp::create(b, v.getLoc(), v.getType(),
                                                    m);
      read.setRestrict(true);
      v.replaceAllUsesWith(read.getResult());
    }
    // What is left of the constant ops is dead.
    for (Operation *op : llvm::reverse(constant))
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
