//===- Passes.td - onnxc passes below the onnx dialect -----*- tablegen -*-===//
#ifndef ONNXC_TRANSFORMS_PASSES_TD
#define ONNXC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FreshResultBuffers : Pass<"onnxc-fresh-result-buffers", "func::FuncOp"> {
  let summary = "Make every returned memref a fresh allocation";
  let description = [{
    The runtime takes ownership of a model's outputs and frees them. A
    returned memref that is not a fresh `memref.alloc` of the function
    (a constant global, a function argument, a view, or a value returned
    twice) is copied into a new allocation first. Runs after bufferization
    and before buffer deallocation.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // ONNXC_TRANSFORMS_PASSES_TD
