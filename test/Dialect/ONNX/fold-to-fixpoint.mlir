// RUN: onnx-mlir-opt %s --onnx-fold-to-fixpoint | FileCheck %s
// RUN: onnx-mlir-opt %s --onnx-fold-to-fixpoint="max-rounds=1" | FileCheck %s --check-prefix=ONE

// A window partition as torchvision's Swin exports it: the padding is
// computed, (w - h % w) % w, the padded tensor's Shape gives the Reshape's
// target. The Pad's type is static only once its pads fold, the Shape folds
// only once the Pad's type is static, and the Reshape's type is static only
// once the Shape has folded: three rounds of fold and inference.
// CHECK-LABEL: func.func @window_partition
// CHECK: "onnx.Pad"{{.*}} -> tensor<1x8x8x4xf32>
// CHECK-NOT: "onnx.Shape"
// CHECK: "onnx.Reshape"{{.*}} -> tensor<1x2x4x2x4x4xf32>
// CHECK: "onnx.Transpose"{{.*}} -> tensor<1x2x2x4x4x4xf32>
// ONE-LABEL: func.func @window_partition
// ONE: "onnx.Reshape"{{.*}} -> tensor<?x?x?x?x?x?xf32>
func.func @window_partition(%x: tensor<1x6x6x4xf32>) -> tensor<*xf32> {
  %h = "onnx.Constant"() <{value = dense<6> : tensor<i64>}> : () -> tensor<i64>
  %w = "onnx.Constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
  %m = "onnx.Mod"(%h, %w) <{fmod = 0 : i64}> : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %d = "onnx.Sub"(%w, %m) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %p = "onnx.Mod"(%d, %w) <{fmod = 0 : i64}> : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %pu = "onnx.Unsqueeze"(%p, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %z3 = "onnx.Constant"() <{value = dense<0> : tensor<3xi64>}> : () -> tensor<3xi64>
  %z2 = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %pads = "onnx.Concat"(%z3, %z2, %z2, %pu, %pu, %z2) <{axis = 0 : i64}> : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<8xi64>
  %xp = "onnx.Pad"(%x, %pads) <{mode = "constant", operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<1x6x6x4xf32>, tensor<8xi64>) -> tensor<*xf32>
  %s = "onnx.Shape"(%xp) : (tensor<*xf32>) -> tensor<*xi64>
  %i1 = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %i3 = "onnx.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %hp = "onnx.Gather"(%s, %i1) <{axis = 0 : i64}> : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
  %nh = "onnx.Div"(%hp, %w) : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
  %c = "onnx.Gather"(%s, %i3) <{axis = 0 : i64}> : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
  %nhu = "onnx.Unsqueeze"(%nh, %ax) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %cu = "onnx.Unsqueeze"(%c, %ax) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %wu = "onnx.Unsqueeze"(%w, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %shape = "onnx.Concat"(%one, %nhu, %wu, %nhu, %wu, %cu) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<*xi64>, tensor<1xi64>, tensor<*xi64>, tensor<1xi64>, tensor<*xi64>) -> tensor<*xi64>
  %r = "onnx.Reshape"(%xp, %shape) : (tensor<*xf32>, tensor<*xi64>) -> tensor<*xf32>
  %t = "onnx.Transpose"(%r) <{perm = [0, 1, 3, 2, 4, 5]}> : (tensor<*xf32>) -> tensor<*xf32>
  return %t : tensor<*xf32>
}
