//===- Passes.td - Conversions out of the onnx dialect -----*- tablegen -*-===//
#ifndef ONNXC_CONVERSION_PASSES_TD
#define ONNXC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertONNXToLinalg : Pass<"convert-onnx-to-linalg", "ModuleOp"> {
  let summary = "Lower onnx ops to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every onnx op on ranked tensors into linalg/tensor/arith/math
    (and scf where control flow needs it), with numpy broadcasting and
    dynamic dimensions computed at run time. Unsigned ONNX element types
    become signless integers; the ops chosen keep the unsigned semantics.
    Ops that cannot be lowered are reported, each with its node, and the
    pass fails.

    What the inputs decide at run time (index values, sizes read from
    tensors, dynamic broadcasting, dims the inferred shapes fix) is checked
    by the generated code (include/onnxc/Conversion/RuntimeChecks.h);
    `runtime-checks=false` leaves the checks out (only to measure their
    cost: a bad input is then undefined behaviour).
  }];
  let options = [
    Option<"runtimeChecks", "runtime-checks", "bool", /*default=*/"true",
           "Emit the run-time checks of index values and data-decided sizes">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

#endif // ONNXC_CONVERSION_PASSES_TD
