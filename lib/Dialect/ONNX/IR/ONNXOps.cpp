//===- ONNXOps.cpp - Hand-written behaviour of the onnx ops ---------------===//
//
// Verifiers and folders that the generated ODS declares (EXTRAS in
// utils/gen_onnx_ops.py), and the type-variable check of every ONNX op.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::onnxc;

/// The part of a type that an ONNX type variable binds: the element type of
/// a tensor, recursively inside sequences and optionals.
static Type getTypeVarKey(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  if (auto seq = dyn_cast<SeqType>(type))
    return SeqType::get(type.getContext(), getTypeVarKey(seq.getElementType()));
  if (auto opt = dyn_cast<OptType>(type))
    return OptType::get(type.getContext(), getTypeVarKey(opt.getElementType()));
  return type;
}

LogicalResult mlir::onnxc::verifyONNXOp(Operation *op) {
  const ONNXOpInfo *info = lookupONNXOpInfo(op->getName().getStringRef());
  if (!info)
    return success();
  llvm::StringMap<std::pair<Type, StringRef>> bound;
  auto check = [&](ArrayRef<ONNXParamInfo> params,
                   ArrayRef<SmallVector<Value, 1>> groups) -> LogicalResult {
    for (auto [param, group] : llvm::zip(params, groups)) {
      if (!*param.typeVar || !param.homogeneous)
        continue;
      for (Value value : group) {
        Type key = getTypeVarKey(value.getType());
        auto [it, inserted] =
            bound.try_emplace(param.typeVar, key, StringRef(param.name));
        if (!inserted && it->second.first != key)
          return op->emitOpError()
                 << "type variable '" << param.typeVar << "' is bound to "
                 << it->second.first << " by '" << it->second.second
                 << "' but to " << key << " by '" << param.name << "'";
      }
    }
    return success();
  };
  if (failed(check(info->inputs, getONNXInputGroups(op, *info))))
    return failure();
  return check(info->outputs, getONNXOutputGroups(op, *info));
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ONNXConstantOp::verify() {
  int count = 0;
  for (StringRef name :
       {"sparse_value", "value", "value_float", "value_floats", "value_int",
        "value_ints", "value_string", "value_strings"})
    count += (*this)->getInherentAttr(name).value_or(Attribute()) != nullptr;
  if (count != 1)
    return emitOpError("needs exactly one of the value attributes, has ")
           << count;
  if (ElementsAttr value = getValueAttr()) {
    auto resultType = dyn_cast<ShapedType>(getType());
    if (resultType && resultType.hasStaticShape() &&
        value.getShapedType() != resultType)
      return emitOpError("value of type ")
             << value.getShapedType() << " does not match the result type "
             << resultType;
  }
  return success();
}

OpFoldResult ONNXConstantOp::fold(FoldAdaptor) {
  if (ElementsAttr value = getValueAttr())
    if (value.getShapedType() == getType())
      return value;
  return {};
}

SmallVector<int64_t> mlir::onnxc::getTransposePermutation(ONNXTransposeOp op,
                                                         int64_t rank) {
  SmallVector<int64_t> perm;
  if (ArrayAttr attr = op.getPermAttr()) {
    for (Attribute a : attr)
      perm.push_back(cast<IntegerAttr>(a).getInt());
  } else {
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  }
  return perm;
}
