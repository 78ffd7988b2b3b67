//===- RuntimeChecks.cpp - Checks the compiled code makes at run time -----===//
//
// See include/onnxc/Conversion/RuntimeChecks.h.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::onnxc;

/// The ONNX node name in `loc` (a NameLoc, maybe inside fused or call-site
/// locations), or "".
static std::string findNodeName(Location loc) {
  return TypeSwitch<Location, std::string>(loc)
      .Case([](NameLoc l) { return l.getName().str(); })
      .Case([](FusedLoc l) {
        for (Location inner : l.getLocations()) {
          std::string name = findNodeName(inner);
          if (!name.empty())
            return name;
        }
        return std::string();
      })
      .Case([](CallSiteLoc l) { return findNodeName(l.getCallee()); })
      .Default([](Location) { return std::string(); });
}

std::string mlir::onnxc::describeNode(Operation *op) {
  std::string name = findNodeName(op->getLoc());
  std::string type = op->getName().stripDialect().str();
  if (name.empty())
    return "node (" + type + ")";
  return "node '" + name + "' (" + type + ")";
}

std::string mlir::onnxc::describeNode(Location loc) {
  std::string name = findNodeName(loc);
  return name.empty() ? std::string("a node") : "node '" + name + "'";
}

void mlir::onnxc::declareRuntimeFailFn(ModuleOp module) {
  if (module.lookupSymbol(kRuntimeFailFnName))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  auto type = b.getFunctionType({i32, i64, i64, i64, i64}, {});
  auto fn = func::FuncOp::create(b, module.getLoc(), kRuntimeFailFnName, type);
  fn.setPrivate();
}

/// The index of `message` in the module's message table (added if new).
static int32_t internMessage(ModuleOp module, StringRef message) {
  SmallVector<Attribute> list;
  if (auto old = module->getAttrOfType<ArrayAttr>(kRuntimeMessagesAttrName))
    list.assign(old.begin(), old.end());
  for (auto [i, a] : llvm::enumerate(list))
    if (cast<StringAttr>(a).getValue() == message)
      return int32_t(i);
  Builder b(module.getContext());
  list.push_back(b.getStringAttr(message));
  module->setAttr(kRuntimeMessagesAttrName, b.getArrayAttr(list));
  return int32_t(list.size() - 1);
}

static Value toI64(OpBuilder &b, Location loc, Value v) {
  Type i64 = b.getI64Type();
  if (v.getType() == i64)
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  if (v.getType().getIntOrFloatBitWidth() == 1)
    return arith::ExtUIOp::create(b, loc, i64, v);
  if (v.getType().getIntOrFloatBitWidth() < 64)
    return arith::ExtSIOp::create(b, loc, i64, v);
  return arith::TruncIOp::create(b, loc, i64, v);
}

void mlir::onnxc::emitRuntimeCheck(OpBuilder &b, Location loc, Operation *op,
                                   Value failed, const Twine &message,
                                   ValueRange values) {
  assert(values.size() <= 4 && "at most 4 values in a run-time message");
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto module = isa<ModuleOp>(parent) ? cast<ModuleOp>(parent)
                                      : parent->getParentOfType<ModuleOp>();
  std::string node = op ? describeNode(op) : describeNode(loc);
  int32_t id = internMessage(module, (node + ": " + message).str());
  auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  SmallVector<Value> args;
  args.push_back(arith::ConstantIntOp::create(b, loc, id, 32));
  for (Value v : values)
    args.push_back(toI64(b, loc, v));
  while (args.size() < 5)
    args.push_back(arith::ConstantIntOp::create(b, loc, 0, 64));
  func::CallOp::create(b, loc, kRuntimeFailFnName, TypeRange{}, args);
}

void mlir::onnxc::emitIndexRangeCheck(OpBuilder &b, Location loc,
                                      Operation *op, Value indices,
                                      Value bound, bool allowNegative,
                                      const Twine &what) {
  auto type = cast<RankedTensorType>(indices.getType());
  // Constant indices with a constant bound are checked here, once.
  DenseIntElementsAttr constant;
  std::optional<int64_t> staticBound = getConstantIntValue(bound);
  if (staticBound && matchPattern(indices, m_Constant(&constant))) {
    int64_t lowest = allowNegative ? -*staticBound : 0;
    bool inRange = llvm::all_of(constant.getValues<APInt>(), [&](APInt v) {
      int64_t x = v.getSExtValue();
      return x >= lowest && x < *staticBound;
    });
    if (inRange)
      return;
  }
  Type i64 = b.getI64Type();
  auto scalar = RankedTensorType::get({}, i64);
  auto init = [&](int64_t v) {
    Value c = arith::ConstantIntOp::create(b, loc, v, 64);
    Value empty = tensor::EmptyOp::create(b, loc, scalar, ValueRange{});
    return linalg::FillOp::create(b, loc, c, empty).getResult(0);
  };
  Value minInit = init(std::numeric_limits<int64_t>::max());
  Value maxInit = init(std::numeric_limits<int64_t>::min());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, ctx),
                                 AffineMap::get(rank, 0, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{scalar, scalar}, ValueRange{indices},
      ValueRange{minInit, maxInit}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = toI64(nb, nloc, args[0]);
        Value lo = arith::MinSIOp::create(nb, nloc, args[1], v);
        Value hi = arith::MaxSIOp::create(nb, nloc, args[2], v);
        linalg::YieldOp::create(nb, nloc, ValueRange{lo, hi});
      });
  Value lo = tensor::ExtractOp::create(b, loc, generic.getResult(0));
  Value hi = tensor::ExtractOp::create(b, loc, generic.getResult(1));
  Value upper = toI64(b, loc, bound);
  Value lower = allowNegative
                    ? arith::SubIOp::create(
                          b, loc, arith::ConstantIntOp::create(b, loc, 0, 64),
                          upper)
                          .getResult()
                    : arith::ConstantIntOp::create(b, loc, 0, 64).getResult();
  Value tooHigh = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, hi,
                                        upper);
  Value tooLow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lo,
                                       lower);
  Value failed = arith::OrIOp::create(b, loc, tooHigh, tooLow);
  Value bad = arith::SelectOp::create(b, loc, tooHigh, hi, lo);
  emitRuntimeCheck(b, loc, op, failed,
                   "index {0} out of range [{1}, {2}) " + what,
                   {bad, lower, upper});
}

void mlir::onnxc::emitStaticDimsCheck(OpBuilder &b, Location loc,
                                      Operation *op, Value value,
                                      ArrayRef<int64_t> staticShape,
                                      const Twine &what) {
  auto type = cast<RankedTensorType>(value.getType());
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i) || ShapedType::isDynamic(staticShape[i]))
      continue;
    Value actual = tensor::DimOp::create(b, loc, value, i);
    Value expected = arith::ConstantIndexOp::create(b, loc, staticShape[i]);
    Value failed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                         actual, expected);
    emitRuntimeCheck(b, loc, op, failed,
                     what + " has size {0} in dim " + Twine(i) +
                         ", the model's inferred shape says {1}",
                     {actual, expected});
  }
}

void mlir::onnxc::emitComputedSizesCheck(OpBuilder &b, Location loc,
                                         Operation *op,
                                         ArrayRef<OpFoldResult> sizes,
                                         RankedTensorType type,
                                         const Twine &what) {
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d) || getConstantIntValue(sizes[d]))
      continue;
    Value actual = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
    Value expected = arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
    Value failed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                         actual, expected);
    emitRuntimeCheck(b, loc, op, failed,
                     what + " size {0} in dim " + Twine(d) +
                         ", the model's inferred shape says {1}",
                     {actual, expected});
  }
}

void mlir::onnxc::emitBroadcastCheck(OpBuilder &b, Location loc, Operation *op,
                                     ValueRange operands,
                                     ArrayRef<OpFoldResult> sizes) {
  int64_t rank = sizes.size();
  for (auto [k, v] : llvm::enumerate(operands)) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      continue;
    int64_t offset = rank - t.getRank();
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t s = t.getDimSize(i);
      std::optional<int64_t> out = getConstantIntValue(sizes[i + offset]);
      if (s == 1 || (!ShapedType::isDynamic(s) && out))
        continue;
      Value actual = tensor::DimOp::create(b, loc, v, i);
      Value size = getValueOrCreateConstantIndexOp(b, loc, sizes[i + offset]);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value notOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           actual, one);
      Value differs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            actual, size);
      Value failed = arith::AndIOp::create(b, loc, notOne, differs);
      emitRuntimeCheck(b, loc, op, failed,
                       "operand " + Twine(k) + " has size {0} in dim " +
                           Twine(i) + ", which does not broadcast to the "
                                      "result's {1}",
                       {actual, size});
    }
  }
}

Value mlir::onnxc::emitCheckedSizes(OpBuilder &b, Location loc, Operation *op,
                                    ArrayRef<Value> sizes, const Twine &what) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value product = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [i, s] : llvm::enumerate(sizes)) {
    emitRuntimeCheck(
        b, loc, op,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, s, zero),
        what + " has the negative size {0} in dim " + Twine(i), {s});
    // product * s overflows when s != 0 and (product * s) / s != product.
    Value next = arith::MulIOp::create(b, loc, product, s);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value safeS = arith::MaxSIOp::create(b, loc, s, one);
    Value back = arith::DivSIOp::create(b, loc, next, safeS);
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, zero);
    Value wrapped = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          back, product);
    Value overflow = arith::AndIOp::create(
        b, loc, wrapped,
        arith::XOrIOp::create(b, loc, isZero,
                              arith::ConstantIntOp::create(b, loc, 1, 1)));
    emitRuntimeCheck(b, loc, op, overflow,
                     what + " has more than 2^63 elements (dim " + Twine(i) +
                         " = {0})",
                     {s});
    product = next;
  }
  // Byte sizes (up to 16 bytes an element) must not overflow either.
  Value limit = arith::ConstantIndexOp::create(b, loc, int64_t(1) << 56);
  emitRuntimeCheck(
      b, loc, op,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, product, limit),
      what + " would have {0} elements (at most 2^56)", {product});
  return product;
}

Value mlir::onnxc::emitCheckedSizes(OpBuilder &b, Location loc, Operation *op,
                                    ArrayRef<OpFoldResult> sizes,
                                    const Twine &what) {
  SmallVector<Value> values;
  for (OpFoldResult s : sizes)
    values.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
  return emitCheckedSizes(b, loc, op, ArrayRef<Value>(values), what);
}
