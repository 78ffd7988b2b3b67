// RUN: onnx-mlir-opt %s --onnxc-write-into-pads --split-input-file | FileCheck %s
// RUN: onnx-mlir-opt %s --onnxc-write-into-pads --split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse --canonicalize | FileCheck %s --check-prefix=BUF

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// The Relu writes into the interior of the padded tensor; only the four
// borders (rows 0 and 5-6, columns 0 and 5 of rows 1-4) are filled.
// CHECK-LABEL: func.func @relu_then_pad
// CHECK: %[[A:.+]] = bufferization.alloc_tensor() : tensor<1x2x7x6xf32>
// CHECK: %[[S0:.+]] = tensor.extract_slice %[[A]][0, 0, 0, 0] [1, 2, 1, 6] [1, 1, 1, 1]
// CHECK: %[[F0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[S0]] : tensor<1x2x1x6xf32>)
// CHECK: %[[B0:.+]] = tensor.insert_slice %[[F0]] into %[[A]][0, 0, 0, 0] [1, 2, 1, 6]
// CHECK: tensor.insert_slice %{{.+}} into %[[B0]][0, 0, 5, 0] [1, 2, 2, 6]
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1, 0] [1, 2, 4, 1]
// CHECK: %[[B3:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1, 5] [1, 2, 4, 1]
// CHECK: %[[I:.+]] = tensor.extract_slice %[[B3]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[R:.+]] = linalg.generic {{.+}} outs(%[[I]] : tensor<1x2x4x4xf32>)
// CHECK: %[[P:.+]] = tensor.insert_slice %[[R]] into %[[B3]][0, 0, 1, 1] [1, 2, 4, 4]
// CHECK: return %[[P]]
// After bufferization: one buffer, no copy; the fills and the Relu write
// into its subviews.
// BUF-LABEL: func.func @relu_then_pad
// BUF: %[[A:.+]] = memref.alloc() {{.+}} : memref<1x2x7x6xf32>
// BUF-NOT: memref.copy
// BUF-NOT: memref.alloc
// BUF: linalg.generic {{.+}} outs(%{{.+}} : memref<1x2x4x4xf32, strided<[84, 42, 6, 1], offset: 7>>)
// BUF-NOT: memref.copy
// BUF: return %[[A]]
func.func @relu_then_pad(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x7x6xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 2, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x7x6xf32>
  return %p : tensor<1x2x7x6xf32>
}

// -----

// Two pads of one shape keep two buffers (alloc_tensor is not merged by
// CSE); each producer writes into its own, with no copy.
// BUF-LABEL: func.func @two_pads
// BUF-COUNT-2: memref.alloc()
// BUF-NOT: memref.copy
// BUF: return
func.func @two_pads(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<10xf32>, tensor<10xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.negf %in : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.negf %in : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %pa = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %cst : f32
  } : tensor<8xf32> to tensor<10xf32>
  %pb = tensor.pad %b low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %cst : f32
  } : tensor<8xf32> to tensor<10xf32>
  return %pa, %pb : tensor<10xf32>, tensor<10xf32>
}

// -----

// A producer that reads its init (a matmul accumulates) keeps its own
// buffer, and so does a function argument: the pad copies them into the
// interior.
// CHECK-LABEL: func.func @not_in_place
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK-NOT: tensor.extract_slice %{{.+}}[1, 1] [4, 4]
// CHECK: tensor.insert_slice %[[M]] into %{{.+}}[1, 1] [4, 4] [1, 1]
// CHECK: tensor.insert_slice %arg3 into %{{.+}}[1, 1] [6, 6] [1, 1]
func.func @not_in_place(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %acc: tensor<4x4xf32>, %x: tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<8x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %m = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %pm = tensor.pad %m low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  %px = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<6x6xf32> to tensor<8x8xf32>
  return %pm, %px : tensor<6x6xf32>, tensor<8x8xf32>
}

// -----

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A 1x1 convolution's input: the padded value is a collapse_shape of the
// Relu's result; the Relu writes into the expand_shape of the interior.
// CHECK-LABEL: func.func @collapsed_then_pad
// CHECK: %[[I:.+]] = tensor.extract_slice %{{.+}}[0, 0] [4, 196] [1, 1] : tensor<4x224xf32> to tensor<4x196xf32>
// CHECK: %[[E:.+]] = tensor.expand_shape %[[I]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 4, 14, 14]
// CHECK: linalg.generic {{.+}} outs(%[[E]] : tensor<1x4x14x14xf32>)
// BUF-LABEL: func.func @collapsed_then_pad
// BUF-COUNT-1: memref.alloc()
// BUF-NOT: memref.copy
// BUF: return
func.func @collapsed_then_pad(%x: tensor<1x4x14x14xf32>) -> tensor<4x224xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x14x14xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x14x14xf32>) outs(%e : tensor<1x4x14x14xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  } -> tensor<1x4x14x14xf32>
  %c = tensor.collapse_shape %r [[0, 1], [2, 3]] : tensor<1x4x14x14xf32> into tensor<4x196xf32>
  %p = tensor.pad %c low[0, 0] high[0, 28] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<4x196xf32> to tensor<4x224xf32>
  return %p : tensor<4x224xf32>
}

// -----

// Slabs of an im2col tensor: each copy writes into its (rank-reducing)
// slice of the tensor it is inserted into.
// CHECK-LABEL: func.func @im2col_slabs
// CHECK: %[[S0:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x2x8xf32> to tensor<2x8xf32>
// CHECK: linalg.copy ins(%{{.+}} : tensor<2x8xf32>) outs(%[[S0]] : tensor<2x8xf32>)
// CHECK: %[[S1:.+]] = tensor.extract_slice %{{.+}}[1, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x2x8xf32> to tensor<2x8xf32>
// CHECK: linalg.copy ins(%{{.+}} : tensor<2x8xf32>) outs(%[[S1]] : tensor<2x8xf32>)
// BUF-LABEL: func.func @im2col_slabs
// BUF-COUNT-1: memref.alloc()
// BUF-NOT: memref.copy
// BUF: return
func.func @im2col_slabs(%x: tensor<2x16x16xf32>) -> tensor<2x2x8xf32> {
  %cols = tensor.empty() : tensor<2x2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %s0 = tensor.extract_slice %x[0, 0, 0] [2, 1, 8] [1, 2, 2] : tensor<2x16x16xf32> to tensor<2x8xf32>
  %c0 = linalg.copy ins(%s0 : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %i0 = tensor.insert_slice %c0 into %cols[0, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x8xf32> into tensor<2x2x8xf32>
  %s1 = tensor.extract_slice %x[0, 1, 1] [2, 1, 8] [1, 2, 2] : tensor<2x16x16xf32> to tensor<2x8xf32>
  %c1 = linalg.copy ins(%s1 : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %i1 = tensor.insert_slice %c1 into %i0[1, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x8xf32> into tensor<2x2x8xf32>
  return %i1 : tensor<2x2x8xf32>
}

// -----

// A reduction whose init is a fill (a max pool's -inf start) writes into the
// padded buffer too: the fill moves onto the interior slice.
// CHECK-LABEL: func.func @pool_then_pad
// CHECK: %[[I:.+]] = tensor.extract_slice %{{.+}}[1] [4] [1] : tensor<6xf32> to tensor<4xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[I]] : tensor<4xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.+}} outs(%[[F]] : tensor<4xf32>)
// CHECK: tensor.insert_slice %[[R]] into %{{.+}}[1] [4] [1]
// BUF-LABEL: func.func @pool_then_pad
// BUF-COUNT-1: memref.alloc()
// BUF-NOT: memref.copy
// BUF: return
func.func @pool_then_pad(%x: tensor<4x2xf32>) -> tensor<6xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x2xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %p = tensor.pad %r low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// A Concat (inserts into an empty tensor after both producers): the first
// insert moves up to the second producer, so that each producer writes its
// part of the Concat's buffer; no copies after bufferization.
// CHECK-LABEL: func.func @concat_chain
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0] [4, 8] [1, 1]
// CHECK: %[[X:.*]] = linalg.generic {{.*}} outs(%[[S0]] : tensor<4x8xf32>)
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [4, 8] [1, 1]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[I1]][4, 0] [4, 8] [1, 1]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%[[S1]] : tensor<4x8xf32>)
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[Y]] into %[[I1]][4, 0] [4, 8] [1, 1]
// CHECK: return %[[I2]]
// BUF-LABEL: func.func @concat_chain
// BUF-NOT: memref.copy
// BUF: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @concat_chain(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.negf %i : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.negf %i : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %i1 = tensor.insert_slice %x into %e[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  %i2 = tensor.insert_slice %y into %i1[4, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  return %i2 : tensor<8x8xf32>
}
