// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file --verify-diagnostics %s

// Static shapes that contradict each other (operands against operands,
// attributes or the declared result) are the model's errors, said on the
// node before any linalg or tensor op is built: a linalg or tensor verifier
// would otherwise refuse the lowered IR (found by utils/zoo/fuzz.py).

func.func @gemm_inner(%a: tensor<1x32xf32>, %b: tensor<4x96xf32>, %c: tensor<4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'onnx.Gemm' op inner dims 32 and 96 differ: A is 'tensor<1x32xf32>', B is 'tensor<4x96xf32>' (transB = 1)}}
  %0 = "onnx.Gemm"(%a, %b, %c) <{alpha = 1.0 : f32, beta = 1.0 : f32, transA = 0 : i64, transB = 1 : i64}> : (tensor<1x32xf32>, tensor<4x96xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @gemm_c(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>, %c: tensor<5xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'onnx.Gemm' op C is 'tensor<5xf32>', which does not broadcast to (M, N) = (?, 4)}}
  %0 = "onnx.Gemm"(%a, %b, %c) : (tensor<?x8xf32>, tensor<8x4xf32>, tensor<5xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @gemm_result(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'onnx.Gemm' op computes its result as 'tensor<2x4xf32>', but the model declares 'tensor<3x4xf32>'}}
  %0 = "onnx.Gemm"(%a, %b) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @matmul_inner(%a: tensor<1x201x26xf32>, %b: tensor<201x40xf32>) -> tensor<?x201x40xf32> {
  // expected-error @+1 {{'onnx.MatMul' op inner dims 26 and 201 differ: A is 'tensor<1x201x26xf32>', B is 'tensor<201x40xf32>'}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<1x201x26xf32>, tensor<201x40xf32>) -> tensor<?x201x40xf32>
  return %0 : tensor<?x201x40xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<?x3x6xf32> {
  // expected-error @+1 {{'onnx.MatMul' op batch dims 2 and 5 do not broadcast: A is 'tensor<2x3x4xf32>', B is 'tensor<5x4x6xf32>'}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<?x3x6xf32>
  return %0 : tensor<?x3x6xf32>
}

// -----

func.func @matmul_result(%a: tensor<3x4xf32>, %b: tensor<4x6xf32>) -> tensor<3x7xf32> {
  // expected-error @+1 {{'onnx.MatMul' op computes its result as 'tensor<3x6xf32>', but the model declares 'tensor<3x7xf32>'}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

func.func @conv_channels(%x: tensor<64x80x1x1xf32>, %w: tensor<16x128x1x1xf32>, %b: tensor<16xf32>) -> tensor<64x16x1x1xf32> {
  // expected-error @+1 {{'onnx.Conv' op X has 80 channels, but W is 'tensor<16x128x1x1xf32>' with 1 group: 128 channels}}
  %0 = "onnx.Conv"(%x, %w, %b) <{kernel_shape = [1, 1]}> : (tensor<64x80x1x1xf32>, tensor<16x128x1x1xf32>, tensor<16xf32>) -> tensor<64x16x1x1xf32>
  return %0 : tensor<64x16x1x1xf32>
}

// -----

func.func @conv_group(%x: tensor<1x8x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'onnx.Conv' op W is 'tensor<6x2x3x3xf32>': its 6 output channels do not split into 4 groups}}
  %0 = "onnx.Conv"(%x, %w) <{group = 4 : i64}> : (tensor<1x8x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<32x3x3x3xf32>, %b: tensor<64xf32>) -> tensor<1x32x6x6xf32> {
  // expected-error @+1 {{'onnx.Conv' op B has 64 values, but W is 'tensor<32x3x3x3xf32>': 32 output channels}}
  %0 = "onnx.Conv"(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<32x3x3x3xf32>, tensor<64xf32>) -> tensor<1x32x6x6xf32>
  return %0 : tensor<1x32x6x6xf32>
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x3x5x5xf32> {
  // expected-error @+1 {{'onnx.ConvTranspose' op B has 4 values, but W is 'tensor<2x3x3x3xf32>' with 1 group: 3 output channels}}
  %0 = "onnx.ConvTranspose"(%x, %w, %b) <{pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

func.func @reduce_keepdims(%x: tensor<?x32x?xf32>, %axes: tensor<1xi64>) -> tensor<?x32xf32> {
  %a = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{'onnx.ReduceMax' op keepdims is 5, but must be 0 (drop the reduced dims) or 1 (keep them)}}
  %0 = "onnx.ReduceMax"(%x, %a) <{keepdims = 5 : i64}> : (tensor<?x32x?xf32>, tensor<1xi64>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

func.func @reduce_result(%x: tensor<?x32x8xf32>) -> tensor<?x32xf32> {
  %a = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{'onnx.ReduceSum' op computes its result as 'tensor<?x32x1xf32>' (keepdims = 1), but the model declares 'tensor<?x32xf32>'}}
  %0 = "onnx.ReduceSum"(%x, %a) <{keepdims = 1 : i64}> : (tensor<?x32x8xf32>, tensor<1xi64>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

func.func @argmax_result(%x: tensor<3x4xf32>) -> tensor<4x1xi64> {
  // expected-error @+1 {{'onnx.ArgMax' op computes its result as 'tensor<3x1xi64>', but the model declares 'tensor<4x1xi64>'}}
  %0 = "onnx.ArgMax"(%x) <{axis = 1 : i64}> : (tensor<3x4xf32>) -> tensor<4x1xi64>
  return %0 : tensor<4x1xi64>
}

// -----

func.func @reshape_count(%x: tensor<1x4000xf32>) -> tensor<1048576x1x3xf32> {
  %s = "onnx.Constant"() <{value = dense<[1048576, 1, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  // expected-error @+1 {{'onnx.Reshape' op declares its result as 'tensor<1048576x1x3xf32>' (3145728 elements), but the input 'tensor<1x4000xf32>' has 4000}}
  %0 = "onnx.Reshape"(%x, %s) <{allowzero = 0 : i64}> : (tensor<1x4000xf32>, tensor<3xi64>) -> tensor<1048576x1x3xf32>
  return %0 : tensor<1048576x1x3xf32>
}

// -----

func.func @reshape_multiple(%x: tensor<2x5xf32>, %s: tensor<2xi64>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'onnx.Reshape' op declares its result as 'tensor<?x3xf32>' (a multiple of 3 elements), but the input 'tensor<2x5xf32>' has 10}}
  %0 = "onnx.Reshape"(%x, %s) <{allowzero = 0 : i64}> : (tensor<2x5xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @expand_broadcast(%x: tensor<?x1x?x10xf32>) -> tensor<?x?x?x?xf32> {
  %s = "onnx.Constant"() <{value = dense<[0, 1048576, 2, 0]> : tensor<4xi64>}> : () -> tensor<4xi64>
  // expected-error @+1 {{'onnx.Expand' op the input 'tensor<?x1x?x10xf32>' has 10 in dim 3, which does not broadcast to the output's 0 (the result is declared 'tensor<?x?x?x?xf32>')}}
  %0 = "onnx.Expand"(%x, %s) : (tensor<?x1x?x10xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// W is a state-shaped tensor: its dims are not [1, 4*16, 3].
func.func @lstm_w(%x: tensor<5x1x3xf32>, %w: tensor<1x1x16xf32>, %r: tensor<1x64x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{'onnx.LSTM' op W is 'tensor<1x1x16xf32>', but must be [num_directions, 4*hidden_size, input_size] = [1, 64, 3]}}
  %y, %yh = "onnx.LSTM"(%x, %w, %r) <{direction = "forward", hidden_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<5x1x3xf32>, tensor<1x1x16xf32>, tensor<1x64x16xf32>) -> (tensor<5x1x1x16xf32>, tensor<1x1x16xf32>)
  return %yh : tensor<1x1x16xf32>
}

// -----

func.func @lstm_initial_h_rank(%x: tensor<?x?x3xf32>, %w: tensor<1x64x3xf32>, %r: tensor<1x64x16xf32>, %h: tensor<?x16xf32>) -> tensor<1x?x16xf32> {
  // expected-error @+1 {{'onnx.LSTM' op initial_h is 'tensor<?x16xf32>', but must be [num_directions, batch_size, hidden_size] = [1, ?, 16]}}
  %y, %yh = "onnx.LSTM"(%x, %w, %r, %h) <{direction = "forward", hidden_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<?x?x3xf32>, tensor<1x64x3xf32>, tensor<1x64x16xf32>, tensor<?x16xf32>) -> (tensor<?x1x?x16xf32>, tensor<1x?x16xf32>)
  return %yh : tensor<1x?x16xf32>
}

// -----

func.func @gru_bias(%x: tensor<5x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %b: tensor<1x12xf32>) -> tensor<1x2x4xf32> {
  // expected-error @+1 {{'onnx.GRU' op B is 'tensor<1x12xf32>', but must be [num_directions, 6*hidden_size] = [1, 24]}}
  %y, %yh = "onnx.GRU"(%x, %w, %r, %b) <{hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>}> : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x12xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %yh : tensor<1x2x4xf32>
}

// -----

func.func @conv_batch(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'onnx.Conv' op declares its result as 'tensor<1x4x6x6xf32>', but X is 'tensor<2x3x8x8xf32>': a batch of 2}}
  %0 = "onnx.Conv"(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @elementwise_result(%x: tensor<1x1x192x6xf32>) -> tensor<1x1x192x192xf32> {
  // expected-error @+1 {{'onnx.Sigmoid' op operand 0 is 'tensor<1x1x192x6xf32>': its dim 3 (6) does not broadcast to the declared result 'tensor<1x1x192x192xf32>'}}
  %0 = "onnx.Sigmoid"(%x) : (tensor<1x1x192x6xf32>) -> tensor<1x1x192x192xf32>
  return %0 : tensor<1x1x192x192xf32>
}

// -----

func.func @elementwise_operands(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'onnx.Add' op operand 1 is 'tensor<5x4xf32>': its dim 0 (5) does not broadcast to the declared result 'tensor<3x4xf32>'}}
  %0 = "onnx.Add"(%a, %b) : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @transpose_result(%x: tensor<1x26x40xf32>) -> tensor<2x40x?xf32> {
  // expected-error @+1 {{'onnx.Transpose' op declares its result as 'tensor<2x40x?xf32>', but dim 0 is the input's dim 0: 1 (the input is 'tensor<1x26x40xf32>')}}
  %0 = "onnx.Transpose"(%x) <{perm = [0, 2, 1]}> : (tensor<1x26x40xf32>) -> tensor<2x40x?xf32>
  return %0 : tensor<2x40x?xf32>
}

// -----

func.func @flatten_result(%x: tensor<1x10x1x1xf32>) -> tensor<3x10xf32> {
  // expected-error @+1 {{'onnx.Flatten' op computes its result as 'tensor<1x10xf32>', but the model declares 'tensor<3x10xf32>'}}
  %0 = "onnx.Flatten"(%x) <{axis = 1 : i64}> : (tensor<1x10x1x1xf32>) -> tensor<3x10xf32>
  return %0 : tensor<3x10xf32>
}
