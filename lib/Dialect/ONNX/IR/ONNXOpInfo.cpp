//===- ONNXOpInfo.cpp - Schema metadata of the onnx ops -------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::onnxc;

#include "ONNXOpInfo.gen.inc"

ArrayRef<ONNXOpInfo> mlir::onnxc::getAllONNXOpInfos() {
  return ArrayRef<ONNXOpInfo>(kGeneratedOpInfos);
}

namespace {
struct OpInfoIndex {
  llvm::StringMap<const ONNXOpInfo *> byKey;  // "domain|opType"
  llvm::StringMap<const ONNXOpInfo *> byName; // "onnx.<mnemonic>"
  OpInfoIndex() {
    for (const ONNXOpInfo &info : getAllONNXOpInfos()) {
      byKey[(llvm::Twine(info.domain) + "|" + info.onnxName).str()] = &info;
      byName[(llvm::Twine("onnx.") + info.mnemonic).str()] = &info;
    }
  }
};
const OpInfoIndex &getIndex() {
  static const OpInfoIndex index;
  return index;
}
} // namespace

const ONNXOpInfo *mlir::onnxc::lookupONNXOpInfo(StringRef domain,
                                                StringRef opType) {
  if (domain == "ai.onnx")
    domain = "";
  auto it = getIndex().byKey.find((domain + "|" + opType).str());
  return it == getIndex().byKey.end() ? nullptr : it->second;
}

const ONNXOpInfo *mlir::onnxc::lookupONNXOpInfo(StringRef operationName) {
  auto it = getIndex().byName.find(operationName);
  return it == getIndex().byName.end() ? nullptr : it->second;
}

SmallVector<StringRef> ONNXOpInfo::getRegionNames() const {
  SmallVector<StringRef> names;
  for (const ONNXAttrInfo &attr : attrs)
    if (attr.isGraph())
      names.push_back(attr.name);
  return names;
}

const ONNXAttrInfo *ONNXOpInfo::findAttr(StringRef name) const {
  for (const ONNXAttrInfo &attr : attrs)
    if (name == attr.name)
      return &attr;
  return nullptr;
}

std::string mlir::onnxc::getODSAttrName(OperationName opName,
                                        StringRef onnxName) {
  auto has = [&](StringRef name) {
    return llvm::any_of(opName.getAttributeNames(),
                        [&](StringAttr n) { return n.getValue() == name; });
  };
  std::string renamed = (onnxName + "_").str();
  return !has(onnxName) && has(renamed) ? renamed : onnxName.str();
}

/// Splits `values` over `params` the way ODS does: by the segment sizes when
/// the op has them, otherwise the single optional/variadic group takes what
/// the fixed parameters leave.
static SmallVector<SmallVector<Value, 1>>
splitGroups(ValueRange values, ArrayRef<ONNXParamInfo> params,
            DenseI32ArrayAttr segments) {
  SmallVector<SmallVector<Value, 1>> groups(params.size());
  SmallVector<int32_t> sizes;
  if (segments) {
    sizes.assign(segments.asArrayRef().begin(), segments.asArrayRef().end());
  } else {
    int64_t fixed = 0;
    for (const ONNXParamInfo &p : params)
      fixed += p.getOption() == ONNXParamOption::Single;
    for (const ONNXParamInfo &p : params)
      sizes.push_back(p.getOption() == ONNXParamOption::Single
                          ? 1
                          : std::max<int64_t>(0, values.size() - fixed));
  }
  unsigned pos = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (i >= groups.size())
      break;
    for (int32_t k = 0; k < size && pos < values.size(); ++k)
      groups[i].push_back(values[pos++]);
  }
  return groups;
}

SmallVector<SmallVector<Value, 1>>
mlir::onnxc::getONNXInputGroups(Operation *op, const ONNXOpInfo &info) {
  DenseI32ArrayAttr segments;
  if (info.attrSizedOperands)
    segments = dyn_cast_or_null<DenseI32ArrayAttr>(
        op->getInherentAttr("operandSegmentSizes").value_or(Attribute()));
  return splitGroups(op->getOperands(), info.inputs, segments);
}

SmallVector<SmallVector<Value, 1>>
mlir::onnxc::getONNXOutputGroups(Operation *op, const ONNXOpInfo &info) {
  DenseI32ArrayAttr segments;
  if (info.attrSizedResults)
    segments = dyn_cast_or_null<DenseI32ArrayAttr>(
        op->getInherentAttr("resultSegmentSizes").value_or(Attribute()));
  return splitGroups(op->getResults(), info.outputs, segments);
}
