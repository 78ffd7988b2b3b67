// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file --verify-diagnostics %s

// A window larger than its padded input by more than a stride: ONNX's
// output size floor((padded - window) / stride) + 1 is negative, an error
// that says so (the import leaves the negative size dynamic).
func.func @too_large(%x: tensor<1x4x0x0xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x2x?x?xf32> {
  // expected-error @+1 {{'onnx.Conv': the window along spatial dim 0 (kernel 3, dilation 2: 5 positions) is larger than the padded input (0 + pads 0 + 0 = 0): the output size would be -4}}
  %0 = "onnx.Conv"(%x, %w) <{dilations = [2, 2], pads = [0, 2, 0, 0]}> : (tensor<1x4x0x0xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x?x?xf32>
  return %0 : tensor<1x2x?x?xf32>
}

// -----

func.func @pool_too_large(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x?x?xf32> {
  // expected-error @+1 {{'onnx.MaxPool': the window along spatial dim 0 (kernel 5, dilation 1: 5 positions) is larger than the padded input (2 + pads 0 + 0 = 2): the output size would be -2}}
  %0 = "onnx.MaxPool"(%x) <{kernel_shape = [5, 5]}> : (tensor<1x4x2x2xf32>) -> tensor<1x4x?x?xf32>
  return %0 : tensor<1x4x?x?xf32>
}

// -----

// auto_pad VALID, a dynamic batch (its tensor.dim is built and thrown away).
func.func @valid_too_large(%x: tensor<?x4x2x2xf32>, %w: tensor<2x4x5x5xf32>) -> tensor<?x2x?x?xf32> {
  // expected-error @+1 {{'onnx.Conv': the window along spatial dim 0 (kernel 5, dilation 1: 5 positions) is larger than the padded input (2 + pads 0 + 0 = 2): the output size would be -1}}
  %0 = "onnx.Conv"(%x, %w) <{auto_pad = "VALID", strides = [2, 2]}> : (tensor<?x4x2x2xf32>, tensor<2x4x5x5xf32>) -> tensor<?x2x?x?xf32>
  return %0 : tensor<?x2x?x?xf32>
}

// -----

// One position short of the window: an empty output (size 0), which ONNX
// allows; no error.
func.func @empty_output(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x5x5xf32>) -> tensor<1x2x0x0xf32> {
  %0 = "onnx.Conv"(%x, %w) : (tensor<1x4x4x4xf32>, tensor<2x4x5x5xf32>) -> tensor<1x2x0x0xf32>
  return %0 : tensor<1x2x0x0xf32>
}

// -----

// GridSample's cubic mode is defined for 2-D sampling only: a 5-D X has no
// lowering, reported by name.
func.func @grid_cubic_3d(%x: tensor<1x1x4x4x4xf32>, %g: tensor<1x2x3x3x3xf32>) -> tensor<1x1x2x3x3xf32> {
  // expected-error @+1 {{'onnx.GridSample' is not supported by the CPU backend}}
  %0 = "onnx.GridSample"(%x, %g) {mode = "cubic"} : (tensor<1x1x4x4x4xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x1x2x3x3xf32>
  return %0 : tensor<1x1x2x3x3xf32>
}
