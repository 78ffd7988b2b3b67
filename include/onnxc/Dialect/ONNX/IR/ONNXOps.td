//===- ONNXOps.td - The onnx dialect's operations ----------*- tablegen -*-===//
//
// The generated operators (ONNXOps.gen.td) plus the hand-written ops that
// ONNX has no operator for (region terminators). Operators of opsets newer
// than the schema registry the generator reads are to be added here, by hand
// (see docs/AddingAnOperator.md).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNX_IR_ONNXOPS_TD
#define ONNXC_DIALECT_ONNX_IR_ONNXOPS_TD

include "onnxc/Dialect/ONNX/IR/ONNXBase.td"
include "onnxc/Dialect/ONNX/IR/ONNXOps.gen.td"

def ONNXYieldOp : Op<ONNX_Dialect, "Yield", [Pure, Terminator, ReturnLike]> {
  let summary = "Returns the outputs of an ONNX subgraph";
  let description = [{
    Terminates the region of a subgraph attribute (If branches, Loop and Scan
    bodies, ...); its operands are the subgraph's outputs, in order.
  }];
  let arguments = (ins Variadic<AnyType>:$outputs);
  let assemblyFormat = "attr-dict ($outputs^ `:` type($outputs))?";
}

#endif // ONNXC_DIALECT_ONNX_IR_ONNXOPS_TD
