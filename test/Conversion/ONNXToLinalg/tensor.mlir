// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// A static result type fixes the shape whatever the shape input holds:
// collapse to 1-D and expand (canonicalization folds the pair).

func.func @reshape_static(%x: tensor<2x3x4xf32>, %s: tensor<3xi64>) -> tensor<4x3x2xf32> {
  %0 = "onnx.Reshape"(%x, %s) {allowzero = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}
// CHECK-LABEL: func.func @reshape_static
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %{{.+}}: tensor<3xi64>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [4, 3, 2] : tensor<24xf32> into tensor<4x3x2xf32>
// CHECK: return %[[Y]]

// -----

// A run-time shape with dynamic result dims: 0 (copy the input dim) and -1
// (infer) are resolved at run time, then tensor.reshape.

func.func @reshape_runtime_shape(%x: tensor<?x6xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = "onnx.Reshape"(%x, %s) {allowzero = 0 : i64} : (tensor<?x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @reshape_runtime_shape
// CHECK-SAME: (%[[X:.+]]: tensor<?x6xf32>, %[[S:.+]]: tensor<2xi64>)
// CHECK: %[[E0:.+]] = tensor.extract %[[S]][%{{.+}}] : tensor<2xi64>
// CHECK: %[[S0:.+]] = arith.index_cast %[[E0]] : i64 to index
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x6xf32>
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[S0]], %{{.+}} : index
// CHECK: %[[C0:.+]] = arith.select %[[IS0]], %[[N]], %[[S0]] : index
// CHECK: %[[TOTAL:.+]] = arith.muli %[[N]], %{{.+}} : index
// CHECK: %[[INFER:.+]] = arith.divsi %[[TOTAL]], %{{.+}} : index
// CHECK: %[[ISM1:.+]] = arith.cmpi eq, %[[C0]], %{{.+}} : index
// CHECK: %[[D0:.+]] = arith.select %[[ISM1]], %[[INFER]], %[[C0]] : index
// CHECK: %[[SHAPE:.+]] = tensor.from_elements %[[D0]], %{{.+}} : tensor<2xindex>
// CHECK: %[[Y:.+]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x6xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK: return %[[Y]]

// -----

// A constant shape that only adds a unit dim: one expand_shape.

func.func @reshape_constant_unit_dims(%x: tensor<?x3xf32>) -> tensor<?x1x3xf32> {
  %s = "onnx.Constant"() <{value = dense<[0, 1, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "onnx.Reshape"(%x, %s) {allowzero = 0 : i64} : (tensor<?x3xf32>, tensor<3xi64>) -> tensor<?x1x3xf32>
  return %0 : tensor<?x1x3xf32>
}
// CHECK-LABEL: func.func @reshape_constant_unit_dims
// CHECK-SAME: (%[[X:.+]]: tensor<?x3xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] output_shape [%[[N]], 1, 3] : tensor<?x3xf32> into tensor<?x1x3xf32>
// CHECK: return %[[Y]]

// -----

func.func @flatten(%x: tensor<?x3x4xf32>) -> tensor<?x4xf32> {
  %0 = "onnx.Flatten"(%x) {axis = 2 : i64} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x4xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x3x4xf32> into tensor<?x4xf32>
// CHECK: return %[[Y]]

// -----

// Unsigned elements become signless; the data only moves.

func.func @squeeze(%x: tensor<?x1x?xui8>) -> tensor<?x?xui8> {
  %a = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.Squeeze"(%x, %a) : (tensor<?x1x?xui8>, tensor<1xi64>) -> tensor<?x?xui8>
  return %0 : tensor<?x?xui8>
}
// CHECK-LABEL: func.func @squeeze
// CHECK-SAME: (%[[X:.+]]: tensor<?x1x?xi8>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2]] : tensor<?x1x?xi8> into tensor<?x?xi8>
// CHECK: return %[[Y]]

// -----

// Without axes the dynamic dim was kept (taken not to be 1): a run-time
// check fails when it is 1.
func.func @squeeze_no_axes(%x: tensor<?x1x3xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.Squeeze"(%x) : (tensor<?x1x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @squeeze_no_axes
// CHECK-SAME: (%[[X:.+]]: tensor<?x1x3xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x1x3xf32>
// CHECK: %[[ONE:.+]] = arith.cmpi eq, %[[D]], %{{.+}} : index
// CHECK: scf.if %[[ONE]] {
// CHECK: call @onnxc_rt_fail
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2]] : tensor<?x1x3xf32> into tensor<?x3xf32>
// CHECK: return %[[Y]]

// -----

func.func @unsqueeze(%x: tensor<?x?xi1>) -> tensor<1x?x?x1xi1> {
  %a = "onnx.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Unsqueeze"(%x, %a) : (tensor<?x?xi1>, tensor<2xi64>) -> tensor<1x?x?x1xi1>
  return %0 : tensor<1x?x?x1xi1>
}
// CHECK-LABEL: func.func @unsqueeze
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xi1>)
// CHECK-DAG: %[[D0:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x?xi1>
// CHECK-DAG: %[[D1:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x?xi1>
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2, 3]] output_shape [1, %[[D0]], %[[D1]], 1] : tensor<?x?xi1> into tensor<1x?x?x1xi1>
// CHECK: return %[[Y]]

// -----

func.func @transpose(%x: tensor<?x3x4xf32>) -> tensor<4x?x3xf32> {
  %0 = "onnx.Transpose"(%x) {perm = [2, 0, 1]} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
  return %0 : tensor<4x?x3xf32>
}
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x4xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x4xf32>
// CHECK: %[[INIT:.+]] = tensor.empty(%[[N]]) : tensor<4x?x3xf32>
// CHECK: %[[Y:.+]] = linalg.transpose ins(%[[X]] : tensor<?x3x4xf32>) outs(%[[INIT]] : tensor<4x?x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[Y]]

// -----

// Each input is inserted at its offset along the axis.

func.func @concat(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.Concat"(%a, %b) {axis = 0 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.+]]: tensor<?x3xf32>, %[[B:.+]]: tensor<2x3xf32>)
// CHECK: %[[N:.+]] = arith.addi %{{.+}}, %c2 : index
// CHECK: %[[INIT:.+]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: %[[NA:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[Y0:.+]] = tensor.insert_slice %[[A]] into %[[INIT]][0, 0] [%[[NA]], 3] [1, 1]
// CHECK: %[[AT:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[Y:.+]] = tensor.insert_slice %[[B]] into %[[Y0]][%[[AT]], 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<?x3xf32>
// CHECK: return %[[Y]]

// -----

// No split input: equal parts.

func.func @split(%x: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %0:2 = "onnx.Split"(%x) {axis = 1 : i64} : (tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>)
  return %0#0, %0#1 : tensor<?x2xf32>, tensor<?x2xf32>
}
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK: %[[Y0:.+]] = linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: tensor.extract %[[X]][%[[I]], %[[J]]] : tensor<?x4xf32>
// CHECK: %[[Y1:.+]] = linalg.generic
// CHECK: %[[I1:.+]] = linalg.index 0 : index
// CHECK: %[[J1:.+]] = linalg.index 1 : index
// CHECK: %[[OFF:.+]] = arith.addi %[[J1]], %{{.+}} : index
// CHECK: tensor.extract %[[X]][%[[I1]], %[[OFF]]] : tensor<?x4xf32>
// CHECK: return %[[Y0]], %[[Y1]]

// -----

func.func @shape(%x: tensor<?x3x4xf32>) -> tensor<2xi64> {
  %0 = "onnx.Shape"(%x) {end = -1 : i64, start = 0 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
// CHECK-LABEL: func.func @shape
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x4xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x4xf32>
// CHECK: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[C3:.+]] = arith.constant 3 : i64
// CHECK: %[[Y:.+]] = tensor.from_elements %[[N64]], %[[C3]] : tensor<2xi64>
// CHECK: return %[[Y]]

// -----

func.func @size(%x: tensor<?x3xf32>) -> tensor<i64> {
  %0 = "onnx.Size"(%x) : (tensor<?x3xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}
// CHECK-LABEL: func.func @size
// CHECK-SAME: (%[[X:.+]]: tensor<?x3xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[P:.+]] = arith.muli %[[N]], %{{.+}} : index
// CHECK: %[[P64:.+]] = arith.index_cast %[[P]] : index to i64
// CHECK: %[[Y:.+]] = tensor.from_elements %[[P64]] : tensor<i64>
// CHECK: return %[[Y]]

// -----

func.func @constant_of_shape(%s: tensor<2xi64>) -> tensor<?x?xi32> {
  %0 = "onnx.ConstantOfShape"(%s) {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<?x?xi32>
  return %0 : tensor<?x?xi32>
}
// CHECK-LABEL: func.func @constant_of_shape
// CHECK-SAME: (%[[S:.+]]: tensor<2xi64>)
// CHECK: %[[E0:.+]] = tensor.extract %[[S]][%{{.+}}] : tensor<2xi64>
// CHECK: %[[D0:.+]] = arith.index_cast %[[E0]] : i64 to index
// CHECK: %[[E1:.+]] = tensor.extract %[[S]][%{{.+}}] : tensor<2xi64>
// CHECK: %[[D1:.+]] = arith.index_cast %[[E1]] : i64 to index
// CHECK: %[[C7:.+]] = arith.constant 7 : i32
// CHECK: %[[INIT:.+]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xi32>
// CHECK: %[[Y:.+]] = linalg.fill ins(%[[C7]] : i32) outs(%[[INIT]] : tensor<?x?xi32>)
// CHECK: return %[[Y]]

// -----

// Static input dims broadcast through the indexing map.

func.func @expand(%x: tensor<3x1xf32>, %s: tensor<3xi64>) -> tensor<2x3x4xf32> {
  %0 = "onnx.Expand"(%x, %s) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[X:.+]]: tensor<3x1xf32>, %{{.+}}: tensor<3xi64>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<3x1xf32>) outs(%[[INIT]] : tensor<2x3x4xf32>)
// CHECK: ^bb0(%[[IN0:.+]]: f32, %{{.+}}: f32):
// CHECK: linalg.yield %[[IN0]] : f32
// CHECK: return %[[Y]]

// -----

func.func @tile(%x: tensor<?x3xf32>, %r: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = "onnx.Tile"(%x, %r) : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @tile
// CHECK-SAME: (%[[X:.+]]: tensor<?x3xf32>, %[[R:.+]]: tensor<2xi64>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[S0:.+]] = arith.muli %[[N]], %{{.+}} : index
// CHECK: %[[S1:.+]] = arith.muli %{{.+}}, %{{.+}} : index
// CHECK: %[[INIT:.+]] = tensor.empty(%[[S0]], %[[S1]]) : tensor<?x?xf32>
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} outs(%[[INIT]] : tensor<?x?xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[II:.+]] = arith.remsi %[[I]], %[[N]] : index
// CHECK: %[[JJ:.+]] = arith.remsi %[[J]], %{{.+}} : index
// CHECK: tensor.extract %[[X]][%[[II]], %[[JJ]]] : tensor<?x3xf32>
// CHECK: return %[[Y]]

// -----

// Starts and ends clamp (negative steps to [-1, dim - 1]); the input is read
// at start + i * step.

func.func @slice(%x: tensor<5x?xf32>) -> tensor<2x?xf32> {
  %st = "onnx.Constant"() <{value = dense<[1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %en = "onnx.Constant"() <{value = dense<[4, -1000]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ax = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %sp = "onnx.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Slice"(%x, %st, %en, %ax, %sp) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<5x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.+]]: tensor<5x?xf32>)
// CHECK: %[[M:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<5x?xf32>
// CHECK: %[[START:.+]] = arith.addi %[[M]], %{{.+}} : index
// CHECK: %[[LAST:.+]] = arith.subi %[[M]], %{{.+}} : index
// CHECK: %[[LO:.+]] = arith.maxsi %[[START]], %{{.+}} : index
// CHECK: %[[ST:.+]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK: %[[INIT:.+]] = tensor.empty(%{{.+}}) : tensor<2x?xf32>
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} outs(%[[INIT]] : tensor<2x?xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[I2:.+]] = arith.muli %[[I]], %{{.+}} : index
// CHECK: %[[II:.+]] = arith.addi %[[I2]], %{{.+}} : index
// CHECK: %[[JN:.+]] = arith.muli %[[J]], %{{.+}} : index
// CHECK: %[[JJ:.+]] = arith.addi %[[ST]], %[[JN]] : index
// CHECK: tensor.extract %[[X]][%[[II]], %[[JJ]]] : tensor<5x?xf32>
// CHECK: return %[[Y]]

// -----

// Reflect mode: indices mirror with period 2 * (dim - 1).

func.func @pad_reflect(%x: tensor<?x4xf32>) -> tensor<?x6xf32> {
  %p = "onnx.Constant"() <{value = dense<[1, 1, 0, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %0 = "onnx.Pad"(%x, %p) <{mode = "reflect", operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<?x4xf32>, tensor<4xi64>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}
// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[SIZE:.+]] = arith.addi %[[N]], %{{.+}} : index
// CHECK: %[[INIT:.+]] = tensor.empty(%[[SIZE]]) : tensor<?x6xf32>
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} outs(%[[INIT]] : tensor<?x6xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[SHIFTED:.+]] = arith.subi %[[I]], %{{.+}} : index
// CHECK: %[[LAST:.+]] = arith.subi %[[N]], %{{.+}} : index
// CHECK: %[[P2:.+]] = arith.muli %[[LAST]], %{{.+}} : index
// CHECK: %[[PERIOD:.+]] = arith.maxsi %[[P2]], %{{.+}} : index
// CHECK: arith.remsi %[[SHIFTED]], %[[PERIOD]] : index
// CHECK: tensor.extract %[[X]]
// CHECK: return %[[Y]]

// -----

// max(ceil((limit - start) / delta), 0) elements of start + i * delta.

func.func @range(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>) -> tensor<?xi32> {
  %0 = "onnx.Range"(%a, %b, %c) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}
// CHECK-LABEL: func.func @range
// CHECK-SAME: (%[[A:.+]]: tensor<i32>, %[[B:.+]]: tensor<i32>, %[[C:.+]]: tensor<i32>)
// CHECK: %[[START:.+]] = tensor.extract %[[A]][] : tensor<i32>
// CHECK: %[[DELTA:.+]] = tensor.extract %[[C]][] : tensor<i32>
// CHECK: %[[Q:.+]] = arith.divf %{{.+}}, %{{.+}} : f64
// CHECK: %[[CEIL:.+]] = math.ceil %[[Q]] : f64
// CHECK: %[[N:.+]] = arith.maxsi %{{.+}}, %{{.+}} : index
// CHECK: %[[INIT:.+]] = tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} outs(%[[INIT]] : tensor<?xi32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[I32:.+]] = arith.trunci %[[I64]] : i64 to i32
// CHECK: %[[STEP:.+]] = arith.muli %[[I32]], %[[DELTA]] : i32
// CHECK: %[[V:.+]] = arith.addi %[[START]], %[[STEP]] : i32
// CHECK: linalg.yield %[[V]] : i32
// CHECK: return %[[Y]]

// -----

func.func @eyelike(%x: tensor<3x4xf32>) -> tensor<3x4xi32> {
  %0 = "onnx.EyeLike"(%x) {dtype = 6 : i64, k = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}
// CHECK-LABEL: func.func @eyelike
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<3x4xi32>
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} outs(%[[INIT]] : tensor<3x4xi32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[D:.+]] = arith.subi %[[J]], %[[I]] : index
// CHECK: %[[ON:.+]] = arith.cmpi eq, %[[D]], %{{.+}} : index
// CHECK: %[[V:.+]] = arith.select %[[ON]], %{{.+}}, %{{.+}} : i32
// CHECK: linalg.yield %[[V]] : i32
// CHECK: return %[[Y]]

// -----

// Lower triangle: keep col - row <= k over the last two dims.

func.func @trilu(%x: tensor<?x3x4xf32>, %k: tensor<i64>) -> tensor<?x3x4xf32> {
  %0 = "onnx.Trilu"(%x, %k) {upper = 0 : i64} : (tensor<?x3x4xf32>, tensor<i64>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}
// CHECK-LABEL: func.func @trilu
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x4xf32>, %[[K:.+]]: tensor<i64>)
// CHECK: %[[KE:.+]] = tensor.extract %[[K]][] : tensor<i64>
// CHECK: %[[KI:.+]] = arith.index_cast %[[KE]] : i64 to index
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<?x3x4xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[R:.+]] = linalg.index 1 : index
// CHECK: %[[C:.+]] = linalg.index 2 : index
// CHECK: %[[D:.+]] = arith.subi %[[C]], %[[R]] : index
// CHECK: %[[KEEP:.+]] = arith.cmpi sle, %[[D]], %[[KI]] : index
// CHECK: %[[V:.+]] = arith.select %[[KEEP]], %[[IN]], %{{.+}} : f32
// CHECK: linalg.yield %[[V]] : f32
// CHECK: return %[[Y]]

// -----

// DCR: input channel = (i * blocksize + j) * C_out + c.

func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = "onnx.DepthToSpace"(%x) {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}
// CHECK-LABEL: func.func @depth_to_space
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x2x3xf32>)
// CHECK: %[[Y:.+]] = linalg.generic
// CHECK: %[[N:.+]] = linalg.index 0 : index
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[H:.+]] = linalg.index 2 : index
// CHECK: %[[W:.+]] = linalg.index 3 : index
// CHECK: %[[I:.+]] = arith.remsi %[[H]], %{{.+}} : index
// CHECK: %[[J:.+]] = arith.remsi %[[W]], %{{.+}} : index
// CHECK: %[[HH:.+]] = arith.divsi %[[H]], %{{.+}} : index
// CHECK: %[[WW:.+]] = arith.divsi %[[W]], %{{.+}} : index
// CHECK: %[[IB:.+]] = arith.muli %[[I]], %{{.+}} : index
// CHECK: %[[BLK:.+]] = arith.addi %[[IB]], %[[J]] : index
// CHECK: %[[BC:.+]] = arith.muli %[[BLK]], %{{.+}} : index
// CHECK: %[[CH:.+]] = arith.addi %[[BC]], %[[C]] : index
// CHECK: tensor.extract %[[X]][%[[N]], %[[CH]], %[[HH]], %[[WW]]] : tensor<1x8x2x3xf32>
// CHECK: return %[[Y]]

// -----

func.func @space_to_depth(%x: tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32> {
  %0 = "onnx.SpaceToDepth"(%x) {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  return %0 : tensor<1x8x2x3xf32>
}
// CHECK-LABEL: func.func @space_to_depth
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x4x6xf32>)
// CHECK: %[[Y:.+]] = linalg.generic
// CHECK: %[[N:.+]] = linalg.index 0 : index
// CHECK: %[[OC:.+]] = linalg.index 1 : index
// CHECK: %[[C:.+]] = arith.remsi %[[OC]], %{{.+}} : index
// CHECK: tensor.extract %[[X]][%[[N]], %[[C]], %{{.+}}, %{{.+}}] : tensor<1x2x4x6xf32>
// CHECK: return %[[Y]]

// -----

// Range-27 on f16 with the default stash_type 1: start + i * delta in f32,
// rounded to f16 once.

func.func @range_f16(%s: tensor<f16>, %l: tensor<f16>, %d: tensor<f16>) -> tensor<5xf16> {
  %0 = "onnx.Range"(%s, %l, %d) : (tensor<f16>, tensor<f16>, tensor<f16>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}
// CHECK-LABEL: func.func @range_f16
// CHECK: linalg.generic
// CHECK:   %[[I:.+]] = arith.sitofp %{{.+}} : i64 to f32
// CHECK:   %[[START:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:   %[[DELTA:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:   %[[STEP:.+]] = arith.mulf %[[I]], %[[DELTA]] : f32
// CHECK:   %[[V:.+]] = arith.addf %[[START]], %[[STEP]] : f32
// CHECK:   arith.truncf %[[V]] : f32 to f16

// -----

// Pad-18 `axes`: the pads [1, 2] before / [0, 3] after refer to dims 2 and
// -3 (0); dim 1 is not padded. Wrap mode reads index mod size.
// CHECK-LABEL: func.func @pad_axes_wrap
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<5x3x6xf32>)
// CHECK-COUNT-3: arith.remsi
// CHECK: tensor.extract %{{.+}} : tensor<2x3x4xf32>
func.func @pad_axes_wrap(%x: tensor<2x3x4xf32>) -> tensor<5x3x6xf32> {
  %p = "onnx.Constant"() <{value = dense<[2, 1, 0, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %a = "onnx.Constant"() <{value = dense<[2, -3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Pad"(%x, %p, %a) <{mode = "wrap", operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (tensor<2x3x4xf32>, tensor<4xi64>, tensor<2xi64>) -> tensor<5x3x6xf32>
  return %0 : tensor<5x3x6xf32>
}

// -----

// Run-time axes: checked to be in range, then each dim selects the pads of
// the axis that names it.
// CHECK-LABEL: func.func @pad_runtime_axes
// CHECK: scf.if
// CHECK: call @onnxc_rt_fail
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: linalg.generic
func.func @pad_runtime_axes(%x: tensor<2x3xf32>, %a: tensor<1xi64>) -> tensor<?x?xf32> {
  %p = "onnx.Constant"() <{value = dense<[1, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Pad"(%x, %p, %a) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (tensor<2x3xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
