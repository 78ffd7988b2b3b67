//===- ONNXDialect.cpp - The onnx dialect and its types -------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::onnxc;

#include "onnxc/Dialect/ONNX/IR/ONNXOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "onnxc/Dialect/ONNX/IR/ONNXOpsTypes.cpp.inc"

namespace mlir::onnxc {
void registerONNXDialectOperations(ONNXDialect *dialect);
} // namespace mlir::onnxc

void ONNXDialect::initialize() {
  registerONNXDialectOperations(this);
  addTypes<
#define GET_TYPEDEF_LIST
#include "onnxc/Dialect/ONNX/IR/ONNXOpsTypes.cpp.inc"
      >();
}

Operation *ONNXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ONNXConstantOp::create(builder, loc, type, /*sparse_value=*/nullptr,
                                elements, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr);
}
