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

def ReadOnlyArguments : Pass<"onnxc-read-only-arguments", "ModuleOp"> {
  let summary = "Mark the tensor arguments of public functions read-only";
  let description = [{
    A compiled model never writes its inputs: the caller owns them, may
    reuse them for the next run and may share them between threads. This
    pass sets `bufferization.writable = false` on every tensor argument of
    every public function, so that one-shot bufferization copies an input
    before an op writes to it (ScatterND, ScatterElements, ...) instead of
    updating it in place. Runs right before bufferization.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

#endif // ONNXC_TRANSFORMS_PASSES_TD
