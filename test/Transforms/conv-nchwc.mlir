// RUN: onnx-mlir-opt %s --split-input-file --onnxc-conv-nchwc --canonicalize | FileCheck %s

// A 3 x 3 conv with a bias, its Relu and a strided 1 x 1 conv: the input is
// packed (reshape + transpose) and then padded; the filters and the bias are
// packed (constants here, so they fold); both convs are kernel generics on
// N x C/16 x H x W x 16 tensors; the Relu runs on the blocked tensor, marked
// as the first kernel's epilogue, and feeds the second conv with no unpack in
// between; only the result is unpacked.
// CHECK-DAG: #[[IN1:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[IN2:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7, d8)>
// CHECK-LABEL: func.func @chain
// CHECK-DAG: %[[W2:.*]] = arith.constant dense<2.000000e+00> : tensor<2x2x1x1x16x16xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<5.000000e-01> : tensor<2x16xf32>
// CHECK-DAG: %[[W1:.*]] = arith.constant dense<1.000000e+00> : tensor<2x2x3x3x16x16xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 16, 8, 8]
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<1x2x16x8x8xf32>) outs(%{{.*}} : tensor<1x2x8x8x16xf32>) permutation = [0, 1, 3, 4, 2]
// CHECK: %[[P:.*]] = tensor.pad %[[T]] low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK: %[[BB:.*]] = linalg.broadcast ins(%[[B]] : tensor<2x16xf32>) outs(%{{.*}} : tensor<1x2x8x8x16xf32>) dimensions = [0, 2, 3]
// CHECK: %[[C1:.*]] = linalg.generic {indexing_maps = [#[[IN1]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%[[P]], %[[W1]] : tensor<1x2x10x10x16xf32>, tensor<2x2x3x3x16x16xf32>) outs(%[[BB]] : tensor<1x2x8x8x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 1, 1>}
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<1x2x8x8x16xf32>) {{.*}} attrs = {hi = 0x7F800000 : f32, lo = 0.000000e+00 : f32, onnxc.ukernel_epilogue = "clamp"}
// CHECK:   arith.maximumf
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x2x4x4x16xf32>
// CHECK: %[[C2:.*]] = linalg.generic {indexing_maps = [#[[IN2]], #[[W]], #[[OUT]]], {{.*}} ins(%[[R]], %[[W2]] : tensor<1x2x8x8x16xf32>, tensor<2x2x1x1x16x16xf32>) outs(%[[F]] : tensor<1x2x4x4x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 2, 2>}
// CHECK: %[[U:.*]] = linalg.transpose ins(%[[C2]] : tensor<1x2x4x4x16xf32>) outs(%{{.*}} : tensor<1x2x16x4x4xf32>) permutation = [0, 1, 4, 2, 3]
// CHECK: %[[Y:.*]] = tensor.collapse_shape %[[U]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x16x4x4xf32> into tensor<1x32x4x4xf32>
// CHECK: return %[[Y]]
func.func @chain(%x: tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32> {
  %w1 = arith.constant dense<1.0> : tensor<32x32x3x3xf32>
  %w2 = arith.constant dense<2.0> : tensor<32x32x1x1xf32>
  %b = arith.constant dense<0.5> : tensor<32xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x8x8xf32> to tensor<1x32x10x10xf32>
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %bb = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x8x8xf32>) dimensions = [0, 2, 3]
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w1 : tensor<1x32x10x10xf32>, tensor<32x32x3x3xf32>) outs(%bb : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x32x8x8xf32>) outs(%e : tensor<1x32x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x8x8xf32>
  %e2 = tensor.empty() : tensor<1x32x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%r, %w2 : tensor<1x32x8x8xf32>, tensor<32x32x1x1xf32>) outs(%f : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %c2 : tensor<1x32x4x4xf32>
}

// -----

// 24 input channels: not a multiple of 16, the conv stays as it is.
// CHECK-LABEL: func.func @channels
// CHECK-NOT: linalg.transpose
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: onnxc.ukernel
func.func @channels(%x: tensor<1x24x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<1.0> : tensor<32x24x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x24x8x8xf32>, tensor<32x24x1x1xf32>) outs(%f : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %c : tensor<1x32x8x8xf32>
}

// -----

// A filter computed at run time (an input) is not packed: the conv stays.
// CHECK-LABEL: func.func @dynamic_filter
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: onnxc.ukernel
func.func @dynamic_filter(%x: tensor<1x16x8x8xf32>, %w: tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%f : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}

// -----

// A residual Add of a conv's result and the input (two blocked operands),
// a depthwise conv (strided, padded) and a max pooling of the sum, and the
// Concat of both along the channels: all on blocked tensors, the windowed
// ops as elementwise generics over strided views, the Concat as insert_slices of whole channel
// blocks; one unpack at the end, marked for the runtime's layout kernel.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @blocks
// CHECK: %[[X:.*]] = linalg.transpose {{.*}} permutation = [0, 1, 3, 4, 2] {onnxc.ukernel = "pack_nchwc"}
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[X]], {{.*}}onnxc.ukernel = "conv2d_nchwc"
// CHECK: %[[X2:.*]] = linalg.transpose {{.*}} permutation = [0, 1, 3, 4, 2] {onnxc.ukernel = "pack_nchwc"}
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], {{.*}} ins(%[[C]], %[[X2]] : tensor<1x1x8x8x16xf32>, tensor<1x1x8x8x16xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[SUM]] low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK: %[[V0:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0, 0] [1, 1, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK-COUNT-8: tensor.extract_slice %[[P]]
// (The splat filter's taps fold into the body as constants.)
// CHECK: %[[DW:.*]] = linalg.generic {indexing_maps = [#[[ID]], {{.*}}, #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[V0]],
// CHECK-COUNT-9: arith.mulf
// CHECK: %[[M0:.*]] = tensor.extract_slice %[[SUM]][0, 0, 0, 0, 0] [1, 1, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[M0]],
// (max(-inf, x) folds: three maxima for a 2 x 2 window)
// CHECK-COUNT-3: arith.maximumf
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[DW]] into %{{.*}}[0, 0, 0, 0, 0] [1, 1, 4, 4, 16] [1, 1, 1, 1, 1] : tensor<1x1x4x4x16xf32> into tensor<1x2x4x4x16xf32>
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[MAX]] into %[[I1]][0, 1, 0, 0, 0] [1, 1, 4, 4, 16]
// CHECK: %[[U:.*]] = linalg.transpose ins(%[[I2]] : tensor<1x2x4x4x16xf32>) {{.*}} permutation = [0, 1, 4, 2, 3] {onnxc.ukernel = "unpack_nchwc"}
// CHECK: %[[Y:.*]] = tensor.collapse_shape %[[U]]
// CHECK: return %[[Y]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @blocks(%x: tensor<1x16x8x8xf32>) -> tensor<1x32x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<16x16x1x1xf32>
  %dw = arith.constant dense<0.5> : tensor<16x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%f : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %x : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x8xf32>
  %p = tensor.pad %sum low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
  %e2 = tensor.empty() : tensor<1x16x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %dw : tensor<1x16x10x10xf32>, tensor<16x3x3xf32>) outs(%f2 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%sum, %win : tensor<1x16x8x8xf32>, tensor<2x2xf32>) outs(%f3 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %e3 = tensor.empty() : tensor<1x32x4x4xf32>
  %i1 = tensor.insert_slice %d into %e3[0, 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x32x4x4xf32>
  %i2 = tensor.insert_slice %m into %i1[0, 16, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x32x4x4xf32>
  return %i2 : tensor<1x32x4x4xf32>
}

// -----

// A depthwise conv's filter taps (a weight, not a splat): one C/16 x 16
// slice of the packed filter per tap, read per channel block and lane.
// CHECK-DAG: #[[ID5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
// CHECK-LABEL: func.func @depthwise_taps
// CHECK: %[[F:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x16x1x2xf32>) outs(%{{.*}} : tensor<1x1x2x16xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[TAP:.*]] = tensor.extract_slice %[[F]][0, 0, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : tensor<1x1x2x16xf32> to tensor<1x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID5]], #[[CH]], #[[ID5]], #[[CH]], #[[ID5]]], {{.*}} ins(%{{.*}}, %[[TAP]], %{{.*}}, %{{.*}} : tensor<1x1x4x3x16xf32>, tensor<1x16xf32>, tensor<1x1x4x3x16xf32>, tensor<1x16xf32>)
func.func @depthwise_taps(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x3xf32> {
  %w = arith.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]], [[7.0, 8.0]], [[9.0, 10.0]], [[11.0, 12.0]], [[13.0, 14.0]], [[15.0, 16.0]], [[17.0, 18.0]], [[19.0, 20.0]], [[21.0, 22.0]], [[23.0, 24.0]], [[25.0, 26.0]], [[27.0, 28.0]], [[29.0, 30.0]], [[31.0, 32.0]]]> : tensor<16x1x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x3xf32>) -> tensor<1x16x4x3xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x4x4xf32>, tensor<16x1x2xf32>) outs(%f : tensor<1x16x4x3xf32>) -> tensor<1x16x4x3xf32>
  return %d : tensor<1x16x4x3xf32>
}

// -----

// Three input channels (a first conv): the input stays NCHW and the filter
// is packed along F only (F/16 x C x KH x KW x 16); the kernel generic has
// no channel-in-block loop.
// CHECK-DAG: #[[PIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7)>
// CHECK-DAG: #[[PW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d6, d7, d4)>
// CHECK-LABEL: func.func @first_conv
// CHECK: %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<1x3x3x3x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[PIN]], #[[PW]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %[[W]] : tensor<1x3x9x9xf32>, tensor<1x3x3x3x16xf32>) {{.*}} onnxc.ukernel = "conv2d_nchw_nchwc"
func.func @first_conv(%x: tensor<1x3x9x9xf32>) -> tensor<1x16x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<16x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x3x9x9xf32>, tensor<16x3x3x3xf32>) outs(%f : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %c : tensor<1x16x4x4xf32>
}

// -----

// An elementwise op reading loop indices (as an AveragePool's division by
// its window's count at the borders does) runs on the blocked tensor: the
// channel index becomes block * 16 + lane, n, h and w keep their loops.
// CHECK-LABEL: func.func @indices
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x4x4x16xf32>) outs(%{{.*}} : tensor<1x2x4x4x16xf32>)
// CHECK:   %[[B:.*]] = linalg.index 1 : index
// CHECK:   %[[L:.*]] = linalg.index 4 : index
// CHECK:   %[[M:.*]] = arith.muli %[[B]], %c16 : index
// CHECK:   %[[C:.*]] = arith.addi %[[M]], %[[L]] : index
// CHECK:   %[[H:.*]] = linalg.index 2 : index
// CHECK:   arith.addi %[[C]], %[[H]] : index
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @indices(%x: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<32x32x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x4x4xf32>, tensor<32x32x1x1xf32>) outs(%f : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x32x4x4xf32>) outs(%e : tensor<1x32x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %ch = linalg.index 1 : index
    %h = linalg.index 2 : index
    %s = arith.addi %ch, %h : index
    %i = arith.index_cast %s : index to i32
    %v = arith.sitofp %i : i32 to f32
    %m = arith.mulf %in, %v : f32
    linalg.yield %m : f32
  } -> tensor<1x32x4x4xf32>
  return %r : tensor<1x32x4x4xf32>
}
