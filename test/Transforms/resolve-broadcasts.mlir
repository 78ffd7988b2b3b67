// RUN: onnx-mlir-opt %s --onnxc-resolve-broadcasts --canonicalize | FileCheck %s

// An elementwise op between two tensors with a dynamic dim reads each one
// with tensor.extract and, at that dim, index 0 when the tensor's size is 1
// at run time (numpy broadcasting), as onnxc's ONNX-to-linalg lowering
// emits it. Both sizes derive from %a's: the sizes are equal, nothing
// broadcasts, and the tensors become the op's inputs with identity maps.
// CHECK-LABEL: func.func @equal_dims
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x?x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %[[E]] : tensor<2x?x8xf32>, tensor<2x?x8xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: tensor.extract
// CHECK-NOT: arith.select
// CHECK: arith.addf %[[X]], %[[Y]]
func.func @equal_dims(%a: tensor<2x?x8xf32>) -> tensor<2x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %a, %c1 : tensor<2x?x8xf32>
  %e0 = tensor.empty(%d) : tensor<2x?x8xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<2x?x8xf32>) outs(%e0 : tensor<2x?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<2x?x8xf32>
  %da = tensor.dim %a, %c1 : tensor<2x?x8xf32>
  %de = tensor.dim %exp, %c1 : tensor<2x?x8xf32>
  %aIsOne = arith.cmpi eq, %da, %c1 : index
  %eIsOne = arith.cmpi eq, %de, %c1 : index
  %size = arith.select %aIsOne, %de, %da : index
  %e1 = tensor.empty(%size) : tensor<2x?x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e1 : tensor<2x?x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %ja = arith.select %aIsOne, %c0, %j : index
    %x = tensor.extract %a[%i, %ja, %k] : tensor<2x?x8xf32>
    %je = arith.select %eIsOne, %c0, %j : index
    %y = tensor.extract %exp[%i, %je, %k] : tensor<2x?x8xf32>
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x?x8xf32>
  return %r : tensor<2x?x8xf32>
}

// A per-row statistic (2 x ? x 1) against its rows: the unit dim is read at
// the constant 0 (a broadcast the shapes fix), the dynamic one at the
// loop's index once the sizes are proven equal.
// CHECK-LABEL: func.func @row_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[ID2:map[0-9]*]], #[[ROW:map[0-9]*]], #[[ID2]]], {{.*}} ins(%arg0, %{{.*}} : tensor<2x?x8xf32>, tensor<2x?x1xf32>)
// CHECK-NOT: tensor.extract
// CHECK: arith.subf
func.func @row_broadcast(%a: tensor<2x?x8xf32>) -> tensor<2x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %d = tensor.dim %a, %c1 : tensor<2x?x8xf32>
  %e0 = tensor.empty(%d) : tensor<2x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x?xf32>) -> tensor<2x?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a : tensor<2x?x8xf32>) outs(%f : tensor<2x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = arith.addf %in, %out : f32
    linalg.yield %x : f32
  } -> tensor<2x?xf32>
  %m = tensor.expand_shape %sum [[0], [1, 2]] output_shape [2, %d, 1] : tensor<2x?xf32> into tensor<2x?x1xf32>
  %da = tensor.dim %a, %c1 : tensor<2x?x8xf32>
  %dm = tensor.dim %m, %c1 : tensor<2x?x1xf32>
  %aIsOne = arith.cmpi eq, %da, %c1 : index
  %mIsOne = arith.cmpi eq, %dm, %c1 : index
  %size = arith.select %aIsOne, %dm, %da : index
  %e1 = tensor.empty(%size) : tensor<2x?x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e1 : tensor<2x?x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %ja = arith.select %aIsOne, %c0, %j : index
    %x = tensor.extract %a[%i, %ja, %k] : tensor<2x?x8xf32>
    %jm = arith.select %mIsOne, %c0, %j : index
    %y = tensor.extract %m[%i, %jm, %c0] : tensor<2x?x1xf32>
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x?x8xf32>
  return %r : tensor<2x?x8xf32>
}

// Two unrelated dynamic sizes: either may be 1 at run time, so the reads
// stay as they are.
// CHECK-LABEL: func.func @unrelated_dims
// CHECK: linalg.generic {{.*}} outs(
// CHECK: arith.select
// CHECK: tensor.extract %arg0
// CHECK: arith.select
// CHECK: tensor.extract %arg1
func.func @unrelated_dims(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %da = tensor.dim %a, %c0 : tensor<?xf32>
  %db = tensor.dim %b, %c0 : tensor<?xf32>
  %aIsOne = arith.cmpi eq, %da, %c1 : index
  %bIsOne = arith.cmpi eq, %db, %c1 : index
  %size = arith.select %aIsOne, %db, %da : index
  %e = tensor.empty(%size) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%e : tensor<?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %ia = arith.select %aIsOne, %c0, %i : index
    %x = tensor.extract %a[%ia] : tensor<?xf32>
    %ib = arith.select %bIsOne, %c0, %i : index
    %y = tensor.extract %b[%ib] : tensor<?xf32>
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A read at a computed index (a gather) is not a broadcast: untouched.
// CHECK-LABEL: func.func @gather
// CHECK: tensor.extract %arg0
func.func @gather(%a: tensor<8xf32>, %idx: tensor<4xindex>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%idx : tensor<4xindex>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: index, %out: f32):
    %x = tensor.extract %a[%in] : tensor<8xf32>
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
