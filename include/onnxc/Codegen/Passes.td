//===- Passes.td - onnxc's code-generation passes ----------*- tablegen -*-===//
//
// The passes of lib/Codegen (docs/Performance.md, "The strategy layer").
// The code generators still in lib/Transforms move here one at a time.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CODEGEN_PASSES_TD
#define ONNXC_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def SelectLoweringConfigs
    : Pass<"onnxc-select-lowering-configs", "func::FuncOp"> {
  let summary = "Attach the CPU strategy's lowering configuration to every "
                "root op";
  let description = [{
    Reads the module's target (the `onnxc.target` dictionary that the
    driver attaches from --mcpu/--mattr, the reference AVX-512 machine when
    there is none; a malformed one is an error) and attaches to every
    linalg op on tensors that the CPU code generators tile (contractions,
    elementwise ops, reductions; not fills, copies, transposes, broadcasts
    or ops a hand-written kernel takes) the configuration that
    onnxc::chooseContractionConfig gives for it, as the
    `onnxc.lowering_config` dictionary:

        {cache_tiles = array<i64: mc, nc, kc>,
         register_tile = array<i64: mr, nr>,
         dynamic_blocks = array<i64: bm, bn>, vector_length = vl : i64}

    An op that already has one keeps it (a test, or a later strategy that
    chose per op), so the pass runs before onnxc-conv-to-matmul (which
    reads a conv's register tile width nr and cache tile nc for its blocks
    of positions) and again after it, for the matmuls it made.
    onnxc-pack-matmul-weights (panel width nr, row blocks, k chunks) and
    onnxc-tile-and-vectorize (tiles, blocks, vector length) read it, and
    copy it onto the ops they make. Passes that run on vectors or buffers,
    where the ops are gone, read the module's target instead
    (onnxc-lower-vectors: which register tiles are whole, to unroll;
    onnxc-outline-parallel-loops: the vector width its work estimate
    counts in).
  }];
}

def OrderGlobals : Pass<"onnxc-order-globals", "ModuleOp"> {
  let summary = "Put the constant globals that bufferization made in one "
                "order, with names that follow it";
  let description = [{
    One-shot bufferization turns each tensor constant into a private
    `memref.global` named `__constant_<shape>` (plus a counter when the name
    is taken) as it meets it, function by function, in an order that
    depends on pointer values (the functions that call no other come out of
    a DenseMap): the same model gave libraries whose globals were named and
    laid out differently from run to run (resnet18: about 1 compile in 3),
    so two builds of a model were never byte-identical. This pass puts those
    globals (private, named `__constant_*`) in the order of their first
    `memref.get_global` in the module (the functions' bodies do not depend
    on that order), after the other globals, and renames them in that
    order: the name without its counter, then `_1`, `_2`, ... for the next
    globals of the same shape. Globals that nothing reads keep their
    relative order at the end.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // ONNXC_CODEGEN_PASSES_TD
