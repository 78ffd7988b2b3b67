//===- OrderGlobals.cpp - Bufferization's constants in one order ----------===//
//
// onnxc-order-globals: the constant globals that one-shot bufferization
// made are put in the order of their first use and renamed in that order,
// so that a model compiles to the same library every time.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ORDERGLOBALS
#include "onnxc/Codegen/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kPrefix = "__constant_";

/// `__constant_4x16xf32_3` -> `__constant_4x16xf32` (the counter that
/// SymbolTable::insert appends to a taken name).
StringRef baseName(StringRef name) {
  auto [head, tail] = name.rsplit('_');
  if (!tail.empty() && llvm::all_of(tail, llvm::isDigit) &&
      head.size() > kPrefix.size())
    return head;
  return name;
}

struct OrderGlobalsPass
    : mlir::onnxc::impl::OrderGlobalsBase<OrderGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::GlobalOp> globals;
    llvm::StringSet<> others;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      if (global.isPrivate() && global.getSymName().starts_with(kPrefix))
        globals.push_back(global);
      else
        others.insert(global.getSymName());
    }
    if (globals.empty())
      return;
    // First uses, in the order of the module's ops.
    DenseMap<StringAttr, size_t> firstUse;
    SmallVector<memref::GetGlobalOp> uses;
    module.walk([&](memref::GetGlobalOp use) {
      uses.push_back(use);
      firstUse.try_emplace(use.getNameAttr().getAttr(), firstUse.size());
    });
    std::stable_sort(globals.begin(), globals.end(),
                     [&](memref::GlobalOp a, memref::GlobalOp b) {
                       auto ia = firstUse.find(a.getSymNameAttr());
                       auto ib = firstUse.find(b.getSymNameAttr());
                       size_t ka = ia == firstUse.end() ? SIZE_MAX : ia->second;
                       size_t kb = ib == firstUse.end() ? SIZE_MAX : ib->second;
                       return ka < kb;
                     });
    // New names in that order; the other symbols of the module stay taken.
    llvm::StringSet<> taken = others;
    for (Operation &op : *module.getBody())
      if (auto sym = op.getAttrOfType<StringAttr>(
              SymbolTable::getSymbolAttrName());
          sym && !isa<memref::GlobalOp>(op))
        taken.insert(sym.getValue());
    DenseMap<StringAttr, StringAttr> renamed;
    llvm::StringMap<unsigned> counters;
    Block *body = module.getBody();
    // After the last global that stays where it is (or at the start).
    Operation *anchor = nullptr;
    for (auto global : module.getOps<memref::GlobalOp>())
      if (others.contains(global.getSymName()))
        anchor = global;
    for (memref::GlobalOp global : globals) {
      StringRef base = baseName(global.getSymName());
      std::string name = base.str();
      unsigned &counter = counters[base];
      while (taken.contains(name))
        name = (base + "_" + Twine(++counter)).str();
      taken.insert(name);
      renamed[global.getSymNameAttr()] =
          StringAttr::get(module.getContext(), name);
      if (anchor)
        global->moveAfter(anchor);
      else
        global->moveBefore(body, body->begin());
      anchor = global;
    }
    for (memref::GlobalOp global : globals)
      global.setSymName(renamed[global.getSymNameAttr()].getValue());
    for (memref::GetGlobalOp use : uses)
      if (StringAttr to = renamed.lookup(use.getNameAttr().getAttr()))
        use.setName(to.getValue());
  }
};

} // namespace
