//===- Passes.td - Passes over the onnx dialect ------------*- tablegen -*-===//
#ifndef ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
#define ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ONNXShapeInference : Pass<"onnx-shape-inference", "func::FuncOp"> {
  let summary = "Infer the result types of onnx ops from the ONNX schemas";
  let description = [{
    Refines the result types of every onnx op, in program order and inside
    subgraph regions, by running the type-and-shape inference function that
    the ONNX schema registry defines for the operator. Operands that are
    constants (onnx.Constant) are passed as data, so shapes computed from
    tensors (Reshape, Expand, ConstantOfShape, Slice, ...) become static.
    Dimensions that stay unknown become dynamic (`?`); results are only ever
    refined, never made less precise. The function's signature is updated
    when a returned value got a more precise type.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
