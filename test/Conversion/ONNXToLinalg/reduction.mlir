// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// ReduceSum with constant axes over a dynamic batch: the accumulator of the
// kept dims is filled with 0, one linalg.generic reduces dim 1, and
// keepdims puts the unit dim back with tensor.expand_shape.

func.func @reduce_sum_keepdims(%x: tensor<?x4x5xf32>) -> tensor<?x1x5xf32> {
  %axes = "onnx.Constant"() <{value = dense<[-2]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.ReduceSum"(%x, %axes) <{keepdims = 1 : i64}> : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<?x1x5xf32>
  return %0 : tensor<?x1x5xf32>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_sum_keepdims
// CHECK-SAME: (%[[X:.+]]: tensor<?x4x5xf32>)
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4x5xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty(%[[N]]) : tensor<?x5xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<?x5xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<?x4x5xf32>) outs(%[[INIT]] : tensor<?x5xf32>)
// CHECK:   ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:   %[[ADD:.+]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK:   linalg.yield %[[ADD]]
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[SUM]] {{\[}}[0, 1], [2]] output_shape [%{{.+}}, 1, 5] : tensor<?x5xf32> into tensor<?x1x5xf32>
// CHECK: return %[[Y]]

// -----

// ReduceMax (version 20: constant axes input) on ui8 (signless i8 after
// conversion): unsigned max from the unsigned identity 0; keepdims=0 needs
// no reshape.

func.func @reduce_max_ui8(%x: tensor<3x?xui8>) -> tensor<3xui8> {
  %axes = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.ReduceMax"(%x, %axes) <{keepdims = 0 : i64}> : (tensor<3x?xui8>, tensor<1xi64>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}
// CHECK-LABEL: func.func @reduce_max_ui8
// CHECK-SAME: (%[[X:.+]]: tensor<3x?xi8>) -> tensor<3xi8>
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : i8) outs(%{{.+}} : tensor<3xi8>)
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<3x?xi8>) outs(%[[INIT]] : tensor<3xi8>)
// CHECK:   arith.maxui %{{.+}}, %{{.+}} : i8
// CHECK: return %[[MAX]]

// -----

// ReduceMean on f16 over all dims (no axes): accumulated in f32, divided by
// the element count and truncated once; keepdims expands the rank-0 result.

func.func @reduce_mean_f16(%x: tensor<2x3xf16>) -> tensor<1x1xf16> {
  %0 = "onnx.ReduceMean"(%x) : (tensor<2x3xf16>) -> tensor<1x1xf16>
  return %0 : tensor<1x1xf16>
}
// CHECK-LABEL: func.func @reduce_mean_f16
// CHECK: %[[COUNT:.+]] = arith.sitofp %{{.+}} : i64 to f32
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.+}} : tensor<2x3xf16>) outs(%{{.+}} : tensor<f32>)
// CHECK:   %[[E:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:   arith.addf %{{.+}}, %[[E]] : f32
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<f32>) outs(%{{.+}} : tensor<f16>)
// CHECK:   %[[D:.+]] = arith.divf %{{.+}}, %[[COUNT]] : f32
// CHECK:   arith.truncf %[[D]] : f32 to f16
// CHECK: tensor.expand_shape %[[MEAN]] [] output_shape [1, 1] : tensor<f16> into tensor<1x1xf16>

// -----

// ReduceLogSumExp: max first, then log(sum(exp(x - max))) + max, with an
// infinite max (all -inf or empty slice) replaced by 0.

func.func @reduce_log_sum_exp(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %axes = "onnx.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.ReduceLogSumExp"(%x, %axes) <{keepdims = 0 : i64}> : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[MAXK:.+]] = tensor.expand_shape %[[MAX]] {{\[}}[0, 1]] output_shape [2, 1]
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[MAXK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK:   math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x3xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[SUM]], %[[MAX]] : tensor<2xf32>, tensor<2xf32>)
// CHECK:   %[[L:.+]] = math.log
// CHECK:   arith.addf %[[L]]
// CHECK: return %[[Y]]

// -----

// ReduceSum whose axes are a run-time input: the shapes leave two sets of
// reduced dims ({1} or {2}), and an scf.if on the axes' values picks one.

func.func @reduce_sum_runtime_axes(%x: tensor<3x2x2xf32>, %axes: tensor<1xi64>) -> tensor<3x2xf32> {
  %0 = "onnx.ReduceSum"(%x, %axes) <{keepdims = 0 : i64}> : (tensor<3x2x2xf32>, tensor<1xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[DROP1:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[DROP2:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @reduce_sum_runtime_axes
// CHECK-SAME: (%[[X:.+]]: tensor<3x2x2xf32>, %[[AXES:.+]]: tensor<1xi64>)
// CHECK: %[[A:.+]] = tensor.extract %[[AXES]]
// CHECK: %[[IF:.+]] = scf.if %{{.+}} -> (tensor<3x2xf32>) {
// CHECK:   %[[R1:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[DROP1]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK:   scf.yield %[[R1]]
// CHECK: } else {
// CHECK:   %[[R2:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[DROP2]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:   scf.yield %[[R2]]
// CHECK: return %[[IF]]

// -----

// Empty axes with noop_with_empty_axes: the input itself.

func.func @reduce_sum_noop(%x: tensor<3x2xf32>, %axes: tensor<0xi64>) -> tensor<3x2xf32> {
  %0 = "onnx.ReduceSum"(%x, %axes) <{noop_with_empty_axes = 1 : i64}> : (tensor<3x2xf32>, tensor<0xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
// CHECK-LABEL: func.func @reduce_sum_noop
// CHECK-SAME: (%[[X:.+]]: tensor<3x2xf32>, %{{.+}}: tensor<0xi64>)
// CHECK-NEXT: return %[[X]]

// -----

// ReduceSumSquare over no axes still squares (version 18's
// noop_with_empty_axes skips only the reduction).

func.func @reduce_sum_square_noop(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = "onnx.ReduceSumSquare"(%x) <{noop_with_empty_axes = 1 : i64}> : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
// CHECK-LABEL: func.func @reduce_sum_square_noop
// CHECK: %[[SQ:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.+}} : tensor<3x2xf32>) outs(%{{.+}} : tensor<3x2xf32>)
// CHECK:   %[[M:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK:   arith.addf %{{.+}}, %[[M]] : f32
// CHECK: return %[[SQ]]

// -----

// ArgMax with select_last_index over a dynamic axis: one linalg.generic
// carries (value, index); >= takes the last maximum, and NaN always wins.

func.func @argmax_last(%x: tensor<3x?xf32>) -> tensor<3x1xi64> {
  %0 = "onnx.ArgMax"(%x) <{axis = -1 : i64, select_last_index = 1 : i64}> : (tensor<3x?xf32>) -> tensor<3x1xi64>
  return %0 : tensor<3x1xi64>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmax_last
// CHECK-SAME: (%[[X:.+]]: tensor<3x?xf32>)
// CHECK: %[[VALS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[IDXS:.+]] = linalg.fill ins(%{{.+}} : i64) outs(%{{.+}} : tensor<3xi64>)
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<3x?xf32>) outs(%[[VALS]], %[[IDXS]] : tensor<3xf32>, tensor<3xi64>)
// CHECK:   ^bb0(%[[IN:.+]]: f32, %[[BEST:.+]]: f32, %[[BEST_IDX:.+]]: i64):
// CHECK:   %[[NAN:.+]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK:   %[[GE:.+]] = arith.cmpf oge, %[[IN]], %[[BEST]] : f32
// CHECK:   %[[TAKE:.+]] = arith.ori %[[GE]], %[[NAN]] : i1
// CHECK:   %[[I:.+]] = linalg.index 1 : index
// CHECK:   %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK:   %[[V:.+]] = arith.select %[[TAKE]], %[[IN]], %[[BEST]] : f32
// CHECK:   %[[J:.+]] = arith.select %[[TAKE]], %[[I64]], %[[BEST_IDX]] : i64
// CHECK:   linalg.yield %[[V]], %[[J]] : f32, i64
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[R]]#1 {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
// CHECK: return %[[Y]]

// -----

// ArgMin on i32, keepdims=0: strict signed < keeps the first minimum, from
// the largest i32.

func.func @argmin_i32(%x: tensor<3x4xi32>) -> tensor<4xi64> {
  %0 = "onnx.ArgMin"(%x) <{keepdims = 0 : i64}> : (tensor<3x4xi32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
// CHECK-LABEL: func.func @argmin_i32
// CHECK: %[[MAX:.+]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[MAX]] : i32)
// CHECK: %[[R:.+]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]}
// CHECK:   arith.cmpi slt, %{{.+}}, %{{.+}} : i32
// CHECK:   linalg.index 0 : index
// CHECK: return %[[R]]#1 : tensor<4xi64>

// -----

// Run-time axes the shapes do not pin (10 ways to pick 2 of 5 dynamic dims):
// the squares first, then each dim reduced (kept) under an scf.if on whether
// the axes name it, sqrt after, and keepdims=0 reshapes to the dims the axes
// do not name, computed at run time.

func.func @reduce_l2_runtime_axes(%x: tensor<?x?x?x?x?xf32>, %axes: tensor<2xi64>) -> tensor<?x?x?xf32> {
  %0 = "onnx.ReduceL2"(%x, %axes) <{keepdims = 0 : i64}> : (tensor<?x?x?x?x?xf32>, tensor<2xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
// CHECK-LABEL: func.func @reduce_l2_runtime_axes
// CHECK: %[[SQ:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK:   arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[SQD:.+]] = tensor.cast %[[SQ]] : tensor<?x?x?x?x?xf32> to tensor<?x?x?x?x?xf32>
// CHECK: %[[R0:.+]] = scf.if %{{.+}} -> (tensor<?x?x?x?x?xf32>) {
// CHECK:   linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel"]} ins(%[[SQD]]
// CHECK: } else {
// CHECK:   scf.yield %[[SQD]]
// CHECK: %[[R1:.+]] = scf.if %{{.+}} -> (tensor<?x?x?x?x?xf32>) {
// CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel", "parallel", "parallel"]} ins(%[[R0]]
// CHECK: scf.if %{{.+}} -> (tensor<?x?x?x?x?xf32>) {
// CHECK: scf.if %{{.+}} -> (tensor<?x?x?x?x?xf32>) {
// CHECK: %[[R4:.+]] = scf.if %{{.+}} -> (tensor<?x?x?x?x?xf32>) {
// CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: %[[ROOT:.+]] = linalg.generic {{.*}} ins(%[[R4]]
// CHECK:   math.sqrt
// CHECK: %[[SHAPE:.+]] = tensor.from_elements %{{.+}}, %{{.+}}, %{{.+}} : tensor<3xindex>
// CHECK: %[[Y:.+]] = tensor.reshape %[[ROOT]](%[[SHAPE]]) : (tensor<?x?x?x?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
// CHECK: return %[[Y]]
