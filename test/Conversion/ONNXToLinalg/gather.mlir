// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// The indices feed the generic through a projection onto the index dims;
// negative indices wrap by the (dynamic) axis size.

func.func @gather(%d: tensor<?x4xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %0 = "onnx.Gather"(%d, %i) {axis = 0 : i64} : (tensor<?x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
// CHECK-DAG: #[[IDX:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK: module attributes {onnxc.runtime_messages = ["node (Gather): index {0} out of range [{1}, {2}) on axis 0"]}
// CHECK: func.func private @onnxc_rt_fail(i32, i64, i64, i64, i64)
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[D:.+]]: tensor<?x4xf32>, %[[I:.+]]: tensor<2x3xi32>)
// CHECK: %[[N:.+]] = tensor.dim %[[D]], %{{.+}} : tensor<?x4xf32>
// The indices are validated once, before the gather: one pass finds their
// minimum and maximum, and one check compares them with [-N, N).
// CHECK: %[[MM:.+]]:2 = linalg.generic {{.+}} iterator_types = ["reduction", "reduction"]} ins(%[[I]] : tensor<2x3xi32>) outs(%{{.+}}, %{{.+}} : tensor<i64>, tensor<i64>)
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: %[[LO:.+]] = tensor.extract %[[MM]]#0[] : tensor<i64>
// CHECK: %[[HI:.+]] = tensor.extract %[[MM]]#1[] : tensor<i64>
// CHECK: %[[UP:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[DOWN:.+]] = arith.subi %{{.+}}, %[[UP]] : i64
// CHECK: %[[TOOHIGH:.+]] = arith.cmpi sge, %[[HI]], %[[UP]] : i64
// CHECK: %[[TOOLOW:.+]] = arith.cmpi slt, %[[LO]], %[[DOWN]] : i64
// CHECK: %[[BAD:.+]] = arith.ori %[[TOOHIGH]], %[[TOOLOW]] : i1
// CHECK: %[[VAL:.+]] = arith.select %[[TOOHIGH]], %[[HI]], %[[LO]] : i64
// CHECK: scf.if %[[BAD]] {
// CHECK: func.call @onnxc_rt_fail(%{{.+}}, %[[VAL]], %[[DOWN]], %[[UP]], %{{.+}}) : (i32, i64, i64, i64, i64) -> ()
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]], {{.+}}} ins(%[[I]] : tensor<2x3xi32>) outs(%[[INIT]] : tensor<2x3x4xf32>)
// CHECK: ^bb0(%[[IN:.+]]: i32, %{{.+}}: f32):
// CHECK: %[[K:.+]] = linalg.index 2 : index
// CHECK: %[[IX:.+]] = arith.index_cast %[[IN]] : i32 to index
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[IX]], %{{.+}} : index
// CHECK: %[[WRAP:.+]] = arith.addi %[[IX]], %[[N]] : index
// CHECK: %[[ROW:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[IX]] : index
// CHECK: %[[V:.+]] = tensor.extract %[[D]][%[[ROW]], %[[K]]] : tensor<?x4xf32>
// CHECK: linalg.yield %[[V]] : f32
// CHECK: return %[[Y]]

// -----

func.func @gather_elements(%d: tensor<3x?xf32>, %i: tensor<2x?xi64>) -> tensor<2x?xf32> {
  %0 = "onnx.GatherElements"(%d, %i) {axis = 0 : i64} : (tensor<3x?xf32>, tensor<2x?xi64>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[D:.+]]: tensor<3x?xf32>, %[[I:.+]]: tensor<2x?xi64>)
// CHECK: %[[M:.+]] = tensor.dim %[[I]], %{{.+}} : tensor<2x?xi64>
// CHECK: %[[OK:.+]] = arith.cmpi ule, %[[M]], %{{.+}} : index
// CHECK: scf.if
// CHECK: func.call @onnxc_rt_fail
// CHECK: %[[INIT:.+]] = tensor.empty(%{{.+}}) : tensor<2x?xf32>
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} ins(%[[I]] : tensor<2x?xi64>) outs(%[[INIT]] : tensor<2x?xf32>)
// CHECK: ^bb0(%[[IN:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[IX:.+]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: %[[ROW:.+]] = arith.select %{{.+}}, %{{.+}}, %[[IX]] : index
// CHECK: tensor.extract %[[D]][%[[ROW]], %[[J]]] : tensor<3x?xf32>
// CHECK: return %[[Y]]

// -----

// Each output element reads its index tuple from the last indices dim.

func.func @gather_nd(%d: tensor<2x3x4xf32>, %i: tensor<5x2xi64>) -> tensor<5x4xf32> {
  %0 = "onnx.GatherND"(%d, %i) {batch_dims = 0 : i64} : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: (%[[D:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<5x2xi64>)
// CHECK-COUNT-2: func.call @onnxc_rt_fail
// CHECK: %[[Y:.+]] = linalg.generic
// CHECK: %[[R:.+]] = linalg.index 0 : index
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[E0:.+]] = tensor.extract %[[I]][%[[R]], %{{.+}}] : tensor<5x2xi64>
// CHECK: %[[X0:.+]] = arith.index_cast %[[E0]] : i64 to index
// CHECK: %[[S0:.+]] = arith.select %{{.+}}, %{{.+}}, %[[X0]] : index
// CHECK: %[[E1:.+]] = tensor.extract %[[I]][%[[R]], %{{.+}}] : tensor<5x2xi64>
// CHECK: %[[X1:.+]] = arith.index_cast %[[E1]] : i64 to index
// CHECK: %[[S1:.+]] = arith.select %{{.+}}, %{{.+}}, %[[X1]] : index
// CHECK: tensor.extract %[[D]][%[[S0]], %[[S1]], %[[C]]] : tensor<2x3x4xf32>
// CHECK: return %[[Y]]

// -----

// Scatters loop over the indices, carrying the result tensor.

func.func @scatter_elements(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = "onnx.ScatterElements"(%d, %i, %u) {axis = 0 : i64, reduction = "add"} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
// CHECK-LABEL: func.func @scatter_elements
// CHECK-SAME: (%[[D:.+]]: tensor<3x3xf32>, %[[I:.+]]: tensor<2x3xi64>, %[[U:.+]]: tensor<2x3xf32>)
// CHECK: %[[Y:.+]] = scf.for %[[A:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC0:.+]] = %[[D]]) -> (tensor<3x3xf32>)
// CHECK: scf.for %[[B:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[ACC0]]) -> (tensor<3x3xf32>)
// CHECK: %[[E:.+]] = tensor.extract %[[I]][%[[A]], %[[B]]] : tensor<2x3xi64>
// CHECK: %[[IX:.+]] = arith.index_cast %[[E]] : i64 to index
// CHECK: %[[ROW:.+]] = arith.select %{{.+}}, %{{.+}}, %[[IX]] : index
// CHECK: %[[UPD:.+]] = tensor.extract %[[U]][%[[A]], %[[B]]] : tensor<2x3xf32>
// CHECK: %[[OLD:.+]] = tensor.extract %[[ACC]][%[[ROW]], %[[B]]] : tensor<3x3xf32>
// CHECK: %[[SUM:.+]] = arith.addf %[[OLD]], %[[UPD]] : f32
// CHECK: %[[NEW:.+]] = tensor.insert %[[SUM]] into %[[ACC]][%[[ROW]], %[[B]]] : tensor<3x3xf32>
// CHECK: scf.yield %[[NEW]] : tensor<3x3xf32>
// CHECK: return %[[Y]]

// -----

func.func @scatter_nd(%d: tensor<4x2xf32>, %i: tensor<2x1xi64>, %u: tensor<2x2xf32>) -> tensor<4x2xf32> {
  %0 = "onnx.ScatterND"(%d, %i, %u) {reduction = "none"} : (tensor<4x2xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @scatter_nd
// CHECK-SAME: (%[[D:.+]]: tensor<4x2xf32>, %[[I:.+]]: tensor<2x1xi64>, %[[U:.+]]: tensor<2x2xf32>)
// CHECK: %[[Y:.+]] = scf.for %[[A:.+]] = {{.+}} iter_args(%{{.+}} = %[[D]])
// CHECK: scf.for %[[B:.+]] = {{.+}} iter_args(%[[ACC:.+]] = %{{.+}})
// CHECK: %[[E:.+]] = tensor.extract %[[I]][%[[A]], %{{.+}}] : tensor<2x1xi64>
// CHECK: %[[ROW:.+]] = arith.select
// CHECK: %[[UPD:.+]] = tensor.extract %[[U]][%[[A]], %[[B]]] : tensor<2x2xf32>
// CHECK: %[[NEW:.+]] = tensor.insert %[[UPD]] into %[[ACC]][%[[ROW]], %[[B]]] : tensor<4x2xf32>
// CHECK: return %[[Y]]

// -----

// The depth is read at run time; it sizes the new dim.

func.func @one_hot(%i: tensor<3xi64>, %depth: tensor<i64>, %v: tensor<2xf32>) -> tensor<3x?xf32> {
  %0 = "onnx.OneHot"(%i, %depth, %v) {axis = -1 : i64} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}
// CHECK-DAG: #[[IDX:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @one_hot
// CHECK-SAME: (%[[I:.+]]: tensor<3xi64>, %[[DEPTH:.+]]: tensor<i64>, %[[V:.+]]: tensor<2xf32>)
// CHECK: %[[DE:.+]] = tensor.extract %[[DEPTH]][] : tensor<i64>
// CHECK: %[[N:.+]] = arith.index_cast %[[DE]] : i64 to index
// CHECK: %[[OFF:.+]] = tensor.extract %[[V]][%{{.+}}] : tensor<2xf32>
// CHECK: %[[ON:.+]] = tensor.extract %[[V]][%{{.+}}] : tensor<2xf32>
// CHECK: %[[INIT:.+]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]], {{.+}}} ins(%[[I]] : tensor<3xi64>) outs(%[[INIT]] : tensor<3x?xf32>)
// CHECK: ^bb0(%[[IN:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[K:.+]] = linalg.index 1 : index
// CHECK: %[[IX:.+]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: %[[W:.+]] = arith.select %{{.+}}, %{{.+}}, %[[IX]] : index
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[W]], %[[K]] : index
// CHECK: %[[R:.+]] = arith.select %[[HIT]], %[[ON]], %[[OFF]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: return %[[Y]]

// -----

func.func @reverse_sequence(%x: tensor<4x3xf32>, %l: tensor<3xi64>) -> tensor<4x3xf32> {
  %0 = "onnx.ReverseSequence"(%x, %l) {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
// CHECK-LABEL: func.func @reverse_sequence
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[L:.+]]: tensor<3xi64>)
// CHECK-COUNT-2: func.call @onnxc_rt_fail
// CHECK: %[[Y:.+]] = linalg.generic
// CHECK: %[[T:.+]] = linalg.index 0 : index
// CHECK: %[[B:.+]] = linalg.index 1 : index
// CHECK: %[[LE:.+]] = tensor.extract %[[L]][%[[B]]] : tensor<3xi64>
// CHECK: %[[LEN:.+]] = arith.index_cast %[[LE]] : i64 to index
// CHECK: %[[LAST:.+]] = arith.subi %[[LEN]], %{{.+}} : index
// CHECK: %[[REV:.+]] = arith.subi %[[LAST]], %[[T]] : index
// CHECK: %[[IN:.+]] = arith.cmpi slt, %[[T]], %[[LEN]] : index
// CHECK: %[[TT:.+]] = arith.select %[[IN]], %[[REV]], %[[T]] : index
// CHECK: tensor.extract %[[X]][%[[TT]], %[[B]]] : tensor<4x3xf32>
// CHECK: return %[[Y]]

// -----

// One element at a time: out[i] = out[i - 1] + x[i], x[0] first.

func.func @cumsum(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = "onnx.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0 = "onnx.CumSum"(%x, %a) {exclusive = 0 : i64, reverse = 0 : i64} : (tensor<?xf32>, tensor<i32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?xf32>
// CHECK: %[[INIT:.+]] = tensor.empty(%{{.+}}) : tensor<?xf32>
// CHECK: %[[Y:.+]] = scf.for %[[I:.+]] = %{{.+}} to %[[N]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (tensor<?xf32>)
// CHECK: %[[PREV:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[I]], %{{.+}} : index
// CHECK: %[[P:.+]] = tensor.extract %[[ACC]][%[[PREV]]] : tensor<?xf32>
// CHECK: %[[XI:.+]] = tensor.extract %[[X]][%[[I]]] : tensor<?xf32>
// CHECK: %[[SUM:.+]] = arith.addf %[[P]], %[[XI]] : f32
// CHECK: %[[V:.+]] = arith.select %{{.+}}, %[[XI]], %[[SUM]] : f32
// CHECK: %[[NEW:.+]] = tensor.insert %[[V]] into %[[ACC]][%[[I]]] : tensor<?xf32>
// CHECK: scf.yield %[[NEW]] : tensor<?xf32>
// CHECK: return %[[Y]]

// -----

// Each element's rank in its row (larger first, ties by index) comes from a
// reduction over the row; elements of rank < k are written at their rank.

func.func @top_k(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %0:2 = "onnx.TopK"(%x, %k) {axis = -1 : i64, largest = 1 : i64, sorted = 1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x2xi64>
}
// CHECK-DAG: #[[SELF:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OTHER:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @top_k
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>, %[[K:.+]]: tensor<1xi64>)
// CHECK: %[[KE:.+]] = tensor.extract %[[K]][%{{.+}}] : tensor<1xi64>
// CHECK: %[[KI:.+]] = arith.index_cast %[[KE]] : i64 to index
// CHECK: %[[RANKS:.+]] = linalg.generic {indexing_maps = [#[[SELF]], #[[OTHER]], #[[SELF]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[X]] : tensor<3x4xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<3x4xindex>)
// CHECK: ^bb0(%[[A:.+]]: f32, %[[O:.+]]: f32, %[[R:.+]]: index):
// CHECK: %[[GT:.+]] = arith.cmpf ogt, %[[O]], %[[A]] : f32
// CHECK: %[[INC:.+]] = arith.select %{{.+}}, %{{.+}}, %{{.+}} : index
// CHECK: %[[NR:.+]] = arith.addi %[[R]], %[[INC]] : index
// CHECK: linalg.yield %[[NR]] : index
// CHECK: %[[Y:.+]]:2 = scf.for
// CHECK: scf.for %[[I:.+]] = {{.+}} iter_args(%[[V:.+]] = %{{.+}}, %[[IDX:.+]] = %{{.+}})
// CHECK: %[[POS:.+]] = tensor.extract %[[RANKS]][%{{.+}}, %[[I]]] : tensor<3x4xindex>
// CHECK: %[[KEEP:.+]] = arith.cmpi slt, %[[POS]], %[[KI]] : index
// CHECK: scf.if %[[KEEP]] -> (tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK: tensor.insert %{{.+}} into %[[V]][%{{.+}}, %[[POS]]] : tensor<3x2xf32>
// CHECK: tensor.insert %{{.+}} into %[[IDX]][%{{.+}}, %[[POS]]] : tensor<3x2xi64>
// CHECK: return %[[Y]]#0, %[[Y]]#1

// -----

// Count, then write the coordinates of each non-zero element.

func.func @non_zero(%x: tensor<?xi32>) -> tensor<1x?xi64> {
  %0 = "onnx.NonZero"(%x) : (tensor<?xi32>) -> tensor<1x?xi64>
  return %0 : tensor<1x?xi64>
}
// CHECK-LABEL: func.func @non_zero
// CHECK-SAME: (%[[X:.+]]: tensor<?xi32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?xi32>
// CHECK: %[[COUNT:.+]] = scf.for %{{.+}} = %{{.+}} to %[[N]] step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (index)
// CHECK: %[[INIT:.+]] = tensor.empty(%[[COUNT]]) : tensor<1x?xi64>
// CHECK: %[[Y:.+]]:2 = scf.for %[[I:.+]] = %{{.+}} to %[[N]] step %{{.+}} iter_args(%[[OUT:.+]] = %[[INIT]], %[[POS:.+]] = %{{.+}}) -> (tensor<1x?xi64>, index)
// CHECK: %[[E:.+]] = tensor.extract %[[X]][%[[I]]] : tensor<?xi32>
// CHECK: %[[NZ:.+]] = arith.cmpi ne, %[[E]], %{{.+}} : i32
// CHECK: scf.if %[[NZ]] -> (tensor<1x?xi64>, index)
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: tensor.insert %[[I64]] into %[[OUT]][%{{.+}}, %[[POS]]] : tensor<1x?xi64>
// CHECK: return %[[Y]]#0

// -----

// The kept positions along the axis, then a gather of them.

func.func @compress(%x: tensor<3x4xf32>, %c: tensor<?xi1>) -> tensor<3x?xf32> {
  %0 = "onnx.Compress"(%x, %c) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<?xi1>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}
// CHECK-LABEL: func.func @compress
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>, %[[C:.+]]: tensor<?xi1>)
// CHECK: %[[COUNT:.+]] = scf.for
// CHECK: %[[SEL0:.+]] = tensor.empty(%[[COUNT]]) : tensor<?xindex>
// CHECK: %[[SEL:.+]]:2 = scf.for
// CHECK: tensor.insert %{{.+}} into %{{.+}}[%{{.+}}] : tensor<?xindex>
// CHECK: %[[INIT:.+]] = tensor.empty(%[[COUNT]]) : tensor<3x?xf32>
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} outs(%[[INIT]] : tensor<3x?xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[JJ:.+]] = tensor.extract %[[SEL]]#0[%[[J]]] : tensor<?xindex>
// CHECK: tensor.extract %[[X]][%[[I]], %[[JJ]]] : tensor<3x4xf32>
// CHECK: return %[[Y]]

// -----

// TensorScatter-24, circular: each cache position reads the update where
// (position - write_indices[batch]) mod max_len falls inside it, else the
// past cache; the update's other dims and write_indices' length are checked
// against the cache's.
// CHECK-LABEL: func.func @tensor_scatter
// CHECK: call @onnxc_rt_fail
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<2x3x8x4xf32>)
// CHECK: tensor.extract %{{.+}} : tensor<2xi64>
// CHECK: arith.remsi
// CHECK: tensor.extract %{{.+}} : tensor<2x3x2x4xf32>
// CHECK: tensor.extract %{{.+}} : tensor<2x3x8x4xf32>
// CHECK: arith.select
func.func @tensor_scatter(%past: tensor<2x3x8x4xf32>, %upd: tensor<2x3x2x4xf32>, %w: tensor<2xi64>) -> tensor<2x3x8x4xf32> {
  %0 = "onnx.TensorScatter"(%past, %upd, %w) <{mode = "circular"}> : (tensor<2x3x8x4xf32>, tensor<2x3x2x4xf32>, tensor<2xi64>) -> tensor<2x3x8x4xf32>
  return %0 : tensor<2x3x8x4xf32>
}

// -----

// MaxUnpool: zeros of the output's shape, then one loop over X writing each
// element where its index says; the flat index unravels in the unpooled
// shape ((2 - 1) * 2 + 2 = 4 per spatial dim), which output_shape may pad
// (here to 5x5). The indices are checked to lie in [0, 16).
// CHECK-LABEL: func.func @maxunpool
// CHECK: call @onnxc_rt_fail
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract %{{.+}} : tensor<1x1x2x2xi64>
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: arith.remsi %{{.+}}, %[[C4]]
// CHECK: tensor.insert %{{.+}} into %{{.+}} : tensor<1x1x5x5xf32>
func.func @maxunpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<1x1x5x5xf32> {
  %0 = "onnx.MaxUnpool"(%x, %i) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x5x5xf32>
}
