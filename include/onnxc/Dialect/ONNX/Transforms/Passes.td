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

def ONNXFoldBatchNorm : Pass<"onnx-fold-batch-norm", "func::FuncOp"> {
  let summary = "Fold inference-mode BatchNormalization into the Conv before it";
  let description = [{
    A BatchNormalization (training_mode 0) whose input is the result of a
    Conv that has no other user, and whose scale, B, mean and var are
    weights (they depend on no function argument), is an affine map per
    output channel: Y = conv * a + (B - mean * a) with
    a = scale / sqrt(var + epsilon). The pass replaces the pair by one Conv
    whose filter is W with each output channel f scaled by a[f] and whose
    bias is (bias - mean) * a + B (B - mean * a without a bias). The new
    weights are onnx ops on the old ones (Add, Sqrt, Div, Reshape, Mul,
    Sub or Neg), which depend on weights only: the compiler computes them
    once per process (onnxc-hoist-constants), and no weight is copied at
    compile time.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
