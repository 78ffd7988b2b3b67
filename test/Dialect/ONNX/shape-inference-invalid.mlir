// RUN: onnx-mlir-opt %s --split-input-file --verify-diagnostics --onnx-shape-inference

// A declared type the operator cannot give (a fuzzed BERT whose Tanh reads a
// rank-3 tensor but declares a rank-2 result): an error naming the op,
// instead of code generated for either type.
func.func @declared_rank(%x: tensor<1x16x128xf32>) -> tensor<1x128xf32> {
  // expected-error @+1 {{the model declares result 0 as 'tensor<1x128xf32>', but the operator gives 'tensor<1x16x128xf32>' for these inputs}}
  %0 = "onnx.Tanh"(%x) : (tensor<1x16x128xf32>) -> tensor<1x128xf32>
  return %0 : tensor<1x128xf32>
}

// -----

// A static dim that contradicts the inputs' (a Gemm declared 1x3 on a 4-wide
// weight).
func.func @declared_dim(%a: tensor<1x8xf32>, %b: tensor<8x4xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{the model declares result 0 as 'tensor<1x3xf32>', but the operator gives 'tensor<1x4xf32>' for these inputs}}
  %0 = "onnx.Gemm"(%a, %b) : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
