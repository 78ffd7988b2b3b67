//===- Passes.td - onnxc passes below the onnx dialect -----*- tablegen -*-===//
#ifndef ONNXC_TRANSFORMS_PASSES_TD
#define ONNXC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FreshResultBuffers : Pass<"onnxc-fresh-result-buffers", "func::FuncOp"> {
  let summary = "Make every returned memref a fresh allocation";
  let description = [{
    The runtime takes ownership of a model's outputs and frees them. A
    returned memref that is not a fresh `memref.alloc` of the function, or
    an expand_shape/collapse_shape of one (a constant global, a function
    argument, another view, or a buffer returned twice), is copied into a
    new allocation first. Runs after bufferization
    and before buffer deallocation.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def PlanBuffers : Pass<"onnxc-plan-buffers", "func::FuncOp"> {
  let summary = "Place the function's static buffers in one arena, reusing "
                "memory whose buffer is dead";
  let description = [{
    Runs after buffer deallocation, which frees every buffer at the end of
    the function. A `memref.alloc` of static shape and identity layout in
    the function's entry block, freed by a `memref.dealloc` in that block
    and not returned, lives from its allocation to the last entry-block op
    that uses it or a view of it (subviews, reshapes, results of loops that
    carry it: any memref result of an op reading it). Those intervals are
    packed into one arena, largest buffer first, each at the lowest offset
    (64-byte aligned) where it overlaps no buffer alive at the same time;
    the buffers become `memref.view`s of the arena, which is allocated
    once at the start of the function and freed at its end. Buffers with
    dynamic sizes stay separate allocations.

    The function gets the attributes `onnxc.arena_bytes` (the arena's
    size), `onnxc.buffer_bytes` (the planned buffers' sizes added up: the
    memory without reuse), `onnxc.planned_buffers`, `onnxc.output_allocs`
    (returned buffers, which the caller frees) and `onnxc.dynamic_allocs`
    (other allocations left to run time), which
    `onnxc --stats` prints.

    With `separate-device-buffers` (the CUDA target, after the mapping to
    gpu.launch), the buffers that only kernels touch (every use, through
    views, inside a gpu.launch or a gpu.launch_func's operand, or a
    dealloc) are packed into a second arena, marked
    `onnxc.device_memory` for onnxc-device-memory, whose size is also
    `onnxc.device_arena_bytes`; `onnxc.arena_bytes` is then both arenas'.
  }];
  let options = [
    Option<"separateDeviceBuffers", "separate-device-buffers", "bool",
           /*default=*/"false",
           "Pack the buffers only kernels touch into an arena of their own">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def DeviceMemory : Pass<"onnxc-device-memory", "ModuleOp"> {
  let summary = "Allocate the buffers only kernels touch in device memory";
  let description = [{
    The CUDA target's buffers are CUDA managed memory, which host code
    (run-time checks, loops that call the runtime, the caller reading the
    outputs) and kernels both reach, at the cost of page migrations each
    time the side that touches a page changes. A `memref.alloc` of identity
    layout and byte-sized elements whose every use, through views
    (memref.view, subview, reshapes, casts), is inside a `gpu.launch`, an
    operand of a `gpu.launch_func` or a `memref.dealloc` (or that
    onnxc-plan-buffers marked `onnxc.device_memory`) becomes a call of the
    runtime's `onnxc_rt_device_buffer(bytes)`, which returns device memory
    (cuMemAlloc) as a `memref<?xi8>`, and a `memref.view` of it in the
    allocation's type. Its descriptor's allocated pointer is a host record
    of the block, which the dealloc frees as any buffer; the host never
    dereferences the aligned one. Each public function gets
    `onnxc.device_inputs`, whether only kernels read each argument (the
    runtime stages those inputs in device memory). Runs after the mapping
    to the GPU (before or after kernel outlining), before the host
    lowering.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def UnshareFills : Pass<"onnxc-unshare-fills", "func::FuncOp"> {
  let summary = "A fill of an empty tensor with several users is cloned for each";
  let description = [{
    Runs on tensors right before one-shot bufferization (after the last
    CSE, which merges fills of equal shapes and values). Every user of a
    shared linalg.fill (or linalg.broadcast: a conv's bias start) of a
    tensor.empty but the first gets its own clone of both, right before it
    (or before the op of the fill's block that holds it): an op writing into
    a shared fill in place would otherwise work on a copy of its buffer.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
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

def ResolveBroadcasts : Pass<"onnxc-resolve-broadcasts", "func::FuncOp"> {
  let summary = "Read operands whose broadcast is decided at run time as inputs where their sizes are provably the loops'";
  let description = [{
    The ONNX lowering reads an operand of an elementwise op that may be
    broadcast along a dynamic dim (its size may be 1 at run time) with
    tensor.extract at `select(size == 1, 0, linalg.index d)`. Where
    ValueBoundsOpInterface proves that size equal to loop d's extent (both
    derive from the same dynamic size), the select always yields the loop's
    index, so the operand becomes an input of the op with an ordinary
    indexing map (0 at static unit dims): the op fuses with its neighbours
    and vectorises. Reads at other indices (gathers) and sizes that cannot
    be proven stay as they are.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseElementwise : Pass<"onnxc-fuse-elementwise", "func::FuncOp"> {
  let summary = "Fuse elementwise producers into consumers without reductions";
  let description = [{
    MLIR's elementwise op fusion (linalg-fuse-elementwise-ops), except that
    a producer is fused into a consumer with reduction loops only when the
    consumer is not a contraction and reads the producer's result at every
    loop (a permutation map: LayerNormalization's (x - mean)^2 into the
    variance's sum). Otherwise its body would run once per reduction step
    (GELU's erf inside the next MatMul's k loop), and the consumer would
    stop being a contraction that onnxc-tile-and-vectorize vectorises.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvToMatmul : Pass<"onnxc-conv-to-matmul", "func::FuncOp"> {
  let summary = "2-D convolutions as sums of matmuls, one per kernel "
                "position; matmuls with transposed operands in plain layout";
  let description = [{
    Runs on tensors, before onnxc-tile-and-vectorize. A static f32
    linalg.conv_2d_nchw_fchw of batch 1 becomes, for each block of 64
    filters x 256 output positions, matmuls accumulating into the block
    while it is in cache. With stride 1 and at least min-shifted-channels
    input channels: a loop over the KH*KW kernel positions k whose body is
    one linalg.matmul W_k (filters x C) x X_k (C x positions), with the
    filter transposed to (KH*KW) x F x C so that each W_k is contiguous,
    and X_k a slice of the padded input flattened to C x (Hp*Wp) starting
    at (k / KW)*d*Wp + (k % KW)*d: no copy; the matmuls compute Wp - OW
    extra columns per output row, dropped at the end. Otherwise (strides,
    or few channels, where each kernel position's matmul would do a handful
    of FMAs per load and store of the accumulator) one matmul of the filter
    as F x (KH*KW*C) by an im2col tensor (KH*KW*C) x positions (one strided
    copy per kernel position). Positions are computed up to a
    multiple of 32 (the register tile's width; the input or the im2col
    tensor gets zero columns for them), so every tile is whole and every
    shape static. A fill or bias init starts each block in cache.

    A grouped conv (conv_2d_ngchw_gfchw) becomes a loop over the groups,
    each rewritten as above. A depthwise conv (depthwise_conv_2d_nchw_chw)
    becomes one elementwise linalg.generic over the KH*KW shifted views of
    the input and the filter columns, summing the products in its body:
    over C x flattened positions with stride 1; with other strides over
    C x OH x OW, reading strided views of the input (no copies).
    Max and sum poolings (MaxPool, AveragePool) take the same form without
    the filter: the body takes the maximum or the sum of the views.

    A linalg.matmul that reads B as N x K (Gemm's transB) or A as K x M
    gets that operand transposed first, when it is a weight (the transpose
    then runs once, see onnxc-hoist-constants) or when the other operand
    has 8 or more rows (columns), so that register tiles read contiguously.

    Epilogues: when the only user of a (one-group) conv's result is an
    elementwise linalg.generic whose other inputs are per output channel
    or scalars (a bias, BatchNormalization's X * a + c, Relu, Clip, ...,
    fused into one op by onnxc-fuse-elementwise), that op is applied to
    each output block right after the block's matmuls, while the block is
    in cache, and replaces the conv's result: no separate pass over the
    whole output.
  }];
  let options = [
    Option<"minShiftedChannels", "min-shifted-channels", "int64_t", "16",
           "Fewest input channels for the shifted-slice form of a stride-1 "
           "conv (fewer: im2col and one matmul)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Apply a per-channel elementwise consumer to each output block">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvNCHWc : Pass<"onnxc-conv-nchwc", "func::FuncOp"> {
  let summary = "2-D convolutions with channels in multiples of 16 as "
                "direct convolutions in the NCHWc layout";
  let description = [{
    Runs on tensors, before onnxc-conv-to-matmul. A static f32
    linalg.conv_2d_nchw_fchw whose input and output channel counts are
    multiples of 16 and whose filter is a weight becomes a linalg.generic
    marked `onnxc.ukernel = "conv2d_nchwc"` on channel-blocked tensors
    (linalg.pack: input N x C/16 x H x W x 16, filter F/16 x C/16 x KH x KW
    x 16 x 16, result N x F/16 x OH x OW x 16, unpacked after). A spatial
    zero pad of the input is moved after its pack; a bias or fill init is
    built packed. Then MLIR's data-layout propagation patterns move the
    unpacks down and the packs up through elementwise generics and pads,
    and pack(unpack(x)) folds, so that conv chains stay blocked; the packs
    and unpacks left become reshapes and transposes. onnxc-lower-ukernels
    replaces the marked generic by the runtime's kernel after
    bufferization.

    Depthwise convs and max and sum poolings with channels in multiples of
    16 become elementwise generics over strided views of the blocked input
    (vectors along the 16 channels of a block); grouped convs with at most
    8 groups and channels per group in multiples of 16, one kernel generic
    per group; Concats along the channels of blocked tensors, insert_slices
    of whole channel blocks; elementwise ops reading several blocked
    tensors (a residual Add), one elementwise op on the blocked tensors.

    With min-flops-per-moved > 0 the function is left as it was unless the
    kernels' multiply-adds (2 per MAC) are at least that many times the
    elements the layout changes left move.
  }];
  let options = [
    Option<"minFlopsPerMoved", "min-flops-per-moved", "int64_t", "0",
           "Keep the blocked form only if the converted convs' FLOPs are at "
           "least this many per element the remaining layout changes move "
           "(0: always)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LowerUkernels : Pass<"onnxc-lower-ukernels", "ModuleOp"> {
  let summary = "Calls of the runtime's kernels for the linalg ops marked "
                "onnxc.ukernel";
  let description = [{
    Runs on buffers. A linalg.generic marked `onnxc.ukernel =
    "conv2d_nchwc"` (see onnxc-conv-nchwc) whose operands have unit
    innermost strides becomes a call of onnxc_uk_conv2d_nchwc_f32 with the
    buffers' addresses, strides and the conv's sizes. The linalg.fill or
    linalg.broadcast of a bias that wrote its output buffer just before is
    folded into the call (the kernel starts its accumulators from it).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def PackMatmulWeights : Pass<"onnxc-pack-matmul-weights", "func::FuncOp"> {
  let summary = "Matmuls read their weight operand packed in column panels";
  let description = [{
    Runs on tensors, after onnxc-conv-to-matmul (whose transposes leave
    every weight as K x N) and before onnxc-hoist-constants. A f32
    linalg.matmul C (M x N) += A (M x K) x B (K x N) whose B derives from
    constants only, with K and N static and N >= panel-width, reads B
    repacked into panels of panel-width columns, Bp (N/nr x K x nr; a
    linalg.transpose of B expanded to K x N/nr x nr, zero-padded to whole
    panels, which onnxc-hoist-constants then runs once). The matmul becomes
    linalg.contract ops over (k, i, p, j): A (i, k) by Bp (p, k, j) into C
    viewed as M x N/nr x nr (i, p, j), with the reduction dim first, so that
    onnxc-tile-and-vectorize's cache tiles (in dim order) walk k chunks,
    then row blocks, then panels; a static M under 48 rows (a classifier's
    single row) puts k last instead, (i, p, j, k), so that each panel is
    read as one stream. 8 or more panels go in an even number of
    groups of at most 32 panels (a group's chunk of 256 rows of Bp is at
    most 1 MiB, half an L2), a loop over the groups marked parallel (the
    threads' loop: equal shares on 2 cores), each group one contraction
    over its slices of Bp and C; N is zero-padded to whole groups (a fill
    init is rebuilt at the padded width, other inits get zero columns; the
    extra columns are sliced off). A dynamic M: A and C are zero-padded
    once to whole blocks of 64 rows; in each group, a loop over chunks of
    256 columns of A holds a loop over the row blocks (marked parallel when
    there is one group), one static 64-row contraction per block and chunk,
    so that the blocks share the chunk of the group's panels in cache.

    Each register tile reads its columns of B as one contiguous row per k,
    instead of strided rows of a matrix too large for the cache (BERT's
    768 x 3072 weights: 137 -> 180 GFLOP/s); the k-first order took sgemm
    1024^3 from 11.2-12.5 to 10.5-11.9 ms (panels outermost, the whole of
    A was read from memory once per panel).
  }];
  let options = [
    Option<"panelWidth", "panel-width", "int64_t", /*default=*/"0",
           "Columns per panel (0: the register tile's width nr of the op's "
           "lowering configuration)">
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def HoistConstants : Pass<"onnxc-hoist-constants", "ModuleOp"> {
  let summary = "Compute the entry function's weight-only tensors once";
  let description = [{
    Runs on tensors. The ops of the entry function (the one with
    llvm.emit_c_interface) whose operands all come from constants, and that
    compute something (not only a constant, an empty tensor or a view of
    one), move into a private function `__onnxc_init`. The runtime calls it
    once, before the model's first run. Each of their results that other
    ops still use (static shapes only) is stored there into a private
    memref.global of its own (bufferization.materialize_in_destination);
    the entry function reads it back with a restrict
    bufferization.to_tensor of the global. So ConstantOfShape fills, the
    filter transposes of onnxc-conv-to-matmul and BatchNormalization's
    scale and shift run once per process instead of once per run, at the
    cost of memory holding their results. An op whose result the entry
    function writes in place (a bias broadcast into a convolution's
    accumulator: from a global, it would be a copy on every run) stays,
    with the constant ops that read it; the values it reads from the
    other constant ops are kept (the BatchNormalization shift the bias
    broadcasts, instead of computing it on every run).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def WriteIntoPads : Pass<"onnxc-write-into-pads", "func::FuncOp"> {
  let summary = "Pads as border fills, their producers writing the interior";
  let description = [{
    Runs on tensors, before onnxc-tile-and-vectorize. Each tensor.pad of
    static shape with a constant padding value becomes a new tensor
    (bufferization.alloc_tensor, which CSE leaves alone) whose borders alone
    are filled (one linalg.fill per side of each padded dim)
    and an insert_slice of the padded value into its interior. Where that
    value (or the value it is a collapse_shape of: a 1x1 convolution's
    flattened input, padded to whole register tiles) is the only result of a linalg op that does not read its init
    (elementwise ops, fills), whose init is a
    tensor.empty, in the pad's block, the op's init becomes the interior
    slice of the padded tensor (expand_shape'd to the op's shape): after bufferization it writes into the
    padded buffer directly, and the insert_slice bufferizes to nothing.

    A convolution's padded input was a memset of the whole buffer and a copy
    of the interior; now it is a fill of the borders.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ApproximateMath : Pass<"onnxc-approximate-math", "func::FuncOp"> {
  let summary = "Polynomial f32 exp, erf and tanh instead of libm calls";
  let description = [{
    math.exp, math.erf and math.tanh on f32 scalars and vectors become
    MLIR's polynomial approximations (populateMathPolynomialApproximation-
    Patterns): arithmetic that stays vectorised, a few ulp from the
    correctly rounded result; the math.fma and math.floor ops they use
    become llvm.intr.fma and llvm.intr.floor (convert-math-to-libm would
    call fmaf and floorf). Without it,
    convert-math-to-libm calls expf, erff or tanhf once per vector lane: a
    BERT encoder spent 14% of its time in erff (GELU) and 5% in expf
    (softmax).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def WeightsAsBytes : Pass<"onnxc-weights-as-bytes", "ModuleOp"> {
  let summary = "Store initialised memref.globals as flat byte arrays";
  let description = [{
    Runs on memrefs, before the conversion to the LLVM dialect. Each
    memref.global with a static shape and a dense initial value (a
    dense_resource blob, or a non-splat dense attribute of whole-byte
    elements) becomes a global of type memref<N x i8> holding the same
    bytes, aligned to at least 64 bytes; each memref.get_global of it
    becomes a get_global of the byte global and a memref.view back to the
    original type.

    The translation to LLVM IR then makes one flat byte array per weight
    (ConstantDataArray over the raw bytes) instead of one LLVM constant per
    innermost row of an n-D array, and the object emitter copies its bytes
    in one piece: a ResNet-50's 3x3 filters had been 2.4 million constants,
    created, uniqued and destroyed one by one.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def ExpandDynamicGroups : Pass<"onnxc-expand-dynamic-groups"> {
  let summary = "memref.expand_shape into several dynamic dims of one group "
                "as memref.reinterpret_cast";
  let description = [{
    Runs on memrefs, right before expand-strided-metadata. A view that
    splits one dim into several dynamic ones ([batch * seq, features] as
    [batch, seq, features], as dynamic-batch, dynamic-sequence models and
    their recurrences have) becomes a memref.reinterpret_cast of the same
    base buffer at the same offset: the sizes are the op's output_shape,
    the innermost dim of each group keeps the source dim's stride, and each
    dim outside it strides over the one inside. MLIR 22's
    expand-strided-metadata assumes at most one dynamic size per group and
    crashes on a second.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def ParallelLinalgLoops : Pass<"onnxc-parallel-linalg-loops", "func::FuncOp"> {
  let summary = "Loops marked parallel for the linalg ops left untiled";
  let description = [{
    Runs on memrefs, before convert-linalg-to-loops. A linalg op whose
    loops are all parallel and that is not inside a loop marked
    `onnxc.parallel` (the tiles of onnxc-tile-and-vectorize and
    onnxc-conv-to-matmul) becomes its loop nest with the outermost loop
    marked `onnxc.parallel`, so that onnxc-outline-parallel-loops puts it on
    the threads when it has work enough: the elementwise ops on dynamic
    shapes, which stay scalar loops (a BERT encoder with a dynamic sequence
    length has a hundred), and bodies that read tensors at computed
    indices. Other linalg ops are left to convert-linalg-to-loops.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def OutlineParallelLoops : Pass<"onnxc-outline-parallel-loops", "ModuleOp"> {
  let summary = "Outline the outermost parallel tile loops for the thread pool";
  let description = [{
    Runs on memrefs, before SCF to CF. The outermost scf.for marked
    `onnxc.parallel` (by onnxc-conv-to-matmul and onnxc-tile-and-vectorize:
    independent tiles) whose trip count is not a static 0 or 1 and whose
    body neither allocates, frees nor calls anything (the run-time checks
    and allocations need the calling thread's run context) becomes a
    private function `__onnxc_parallel_N(begin, end, captured...)` running
    iterations [begin, end), and the loop a call of it over
    [0, trip count). Constants used in the body are rebuilt inside. A loop
    whose estimated work (operations executed, nested loops counted by
    their trip counts) is below `min-work` stays serial, and so do the
    loops inside it. The marks are removed. First, a memref.copy at the
    top level of a function that counts as `min-work` (a copy counts a
    quarter of its elements) becomes a marked loop over pieces of its
    leading dims (at least 16 pieces), so that large copies run on the
    threads too; a copy whose leading dim alone is dynamic, a loop over
    its rows. A trip count known only at run time counts as 128 (the
    dynamic dims of the models are sequence lengths).
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"8000",
           "Estimated operations a loop must execute to be run in parallel">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def DispatchParallelCalls : Pass<"onnxc-dispatch-parallel-calls", "ModuleOp"> {
  let summary = "Run the outlined parallel loops on the runtime's threads";
  let description = [{
    Runs on the LLVM dialect. Each call of an `__onnxc_parallel_N` function
    stores its captured arguments into a struct on the stack and becomes
    `onnxc_rt_parallel_for(task, &struct, trip count)`, where the task
    loads them back and runs the iterations it is given.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileAndVectorize : Pass<"onnxc-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile f32 contractions for caches and registers, vectorise "
                "the register tiles";
  let description = [{
    Runs on tensors, before bufferization. The sizes below come from each
    op's lowering configuration (onnxc-select-lowering-configs; without one,
    the strategy's choice for the module's target: mc x nc x kc = 48 x 256
    x 256, mr x nr = 12 x 32, dynamic blocks 64 x 32 and vl = 64 on
    AVX-512); an option set to a non-zero value overrides it. Every f32 multiply-accumulate
    contraction with one m, one n and one k dim (linalg.matmul,
    linalg.batch_matmul, contraction generics) is tiled into cache tiles
    (mc x nc x kc) and those into register tiles (mr x nr x 1) with
    TilingInterface; the register loops over m and n are peeled, every
    register tile becomes a vector.contract (masked in the peeled
    remainders), tensor slices fold into the transfers, and the
    accumulator's transfer pair is hoisted out of the k loop, so that it
    stays in registers. A dynamic m or n dim is first walked in blocks of
    64 rows or 32 columns: the operands are zero-padded to whole blocks and
    a loop runs the contraction on each block, so that every tile has a
    static shape (vectorised, and cheap for bufferization's analysis); a
    dynamic k dim stays whole in the cache tiles; a static m at most a
    quarter taller than mc (a conv block of 68 filters) is one cache tile
    (its remainder tile went through a buffer, which kept the conv's block
    loop off the threads). Static elementwise ops (all loops parallel, no
    tensor.extract in the body) get the dims that are contiguous in every
    operand merged, and are tiled into rows of up to `vl` elements of the
    innermost dim (peeled) and vectorised. onnxc-lower-vectors finishes the
    job after bufferization.
  }];
  let options = [
    Option<"mc", "mc", "int64_t", /*default=*/"0",
           "Cache tile along m (0: the op's lowering configuration)">,
    Option<"nc", "nc", "int64_t", /*default=*/"0",
           "Cache tile along n (0: the op's lowering configuration)">,
    Option<"kc", "kc", "int64_t", /*default=*/"0",
           "Cache tile along k (0: the op's lowering configuration)">,
    Option<"mr", "mr", "int64_t", /*default=*/"0",
           "Register tile along m (0: the op's lowering configuration)">,
    Option<"nr", "nr", "int64_t", /*default=*/"0",
           "Register tile along n (0: the op's lowering configuration)">,
    Option<"vl", "vl", "int64_t", /*default=*/"0",
           "Elements per tile of an elementwise op (its innermost dim; 0: "
           "the op's lowering configuration)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def LowerVectors : Pass<"onnxc-lower-vectors", "func::FuncOp"> {
  let summary = "Lower vector ops to 1-D loads, FMAs and stores";
  let description = [{
    Runs after bufferization: vector.contract to outer products and those
    to vector.fma per row, transfers to minor-identity rank-1 form, and
    masks, transposes, broadcasts, shape casts and multi-reductions to
    1-D operations that convert-vector-to-llvm handles (VectorToSCF unrolls
    any transfer of a higher rank that remains). A 1-D read along a dim of
    static stride s > 1 becomes one contiguous load of its span and a
    vector.shuffle of every s-th element when s <= 4 and the span has at
    most 256 elements (the views of stride-2 depthwise convs and poolings,
    the im2col slabs of strided convs), else a vector.gather.

    First, every register tile's k loop that reads its A column (M x 1,
    M <= 16) from a memref gets one memref.prefetch per step, of row
    (k mod M) of the column prefetch-distance elements ahead: each of the
    M rows every M steps. A matmul's A streams from memory in M rows that
    are each only a cache tile (kc elements) long, too short for the
    hardware prefetchers to lock on: ResNet-50's last convs (9.4 MB of
    filters each, used for 49 positions) waited on them. Loops that already
    prefetch are left alone, so that the pass can run again.

    Then (prefetch-accumulators) a register tile whose accumulator is read
    from a memref right before its k loop, in a loop over tiles with static
    bounds, prefetches for writing the accumulator of that loop's next
    iteration (the last iteration its own): one cache line per k step, line
    (k mod L) of the L lines (rows x lines per row) of the next tile. The
    next tile's indices are the read's, with the pure ops of the tile loop
    that compute them cloned for the next induction variable. Between two
    visits of a tile (one per k chunk), its rows of C, N elements apart,
    leave the caches near the core and defeat the hardware prefetchers:
    each tile began with a miss per line.

    Then the k loops of whole register tiles (a contraction of at least
    8 x 32, unit dims aside, carried in the loop's only iter_arg: a packed
    matmul's tiles are 12 x 1 x 32) are unrolled unroll-k
    times, so that fewer loop instructions compete with the FMAs for
    their ports: sgemm 1024^3 12.2 -> 11.2 ms on the Intel host (4; 2 gave
    nothing, 8 no more), at the price of more code (DenseNet-121 compiles
    in 10.2 s instead of 7.2).
  }];
  let options = [
    Option<"prefetchDistance", "prefetch-distance", "int64_t",
           /*default=*/"64",
           "Elements ahead that a register tile prefetches A (0: none)">,
    Option<"unrollK", "unroll-k", "int64_t", /*default=*/"4",
           "Times a register tile's k loop is unrolled (1: not)">,
    Option<"prefetchAccumulators", "prefetch-accumulators", "bool",
           /*default=*/"true",
           "Register tiles prefetch the next tile's accumulator">
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MapParallelLoopsToGPU
    : Pass<"onnxc-map-parallel-loops-to-gpu", "func::FuncOp"> {
  let summary = "Run each outermost scf.parallel as a GPU kernel launch";
  let description = [{
    The CUDA target's mapping (memrefs, after linalg -> parallel loops). An
    outermost scf.parallel without reductions whose body neither calls,
    allocates nor frees (a run-time check's failure call, an allocation,
    must run on the host) becomes a `gpu.launch` of one thread per
    iteration: its trip counts are multiplied into one linear count N,
    blocks of `block-size` threads cover [0, N), and each thread whose
    linear index is below N recovers the loop's induction variables from
    it (the last dim varies fastest, so neighbouring threads touch
    neighbouring elements) and runs the body. Nested scf.parallel and
    scf.for loops inside run sequentially in that thread. A count of zero
    launches nothing. Loops it leaves run on the host (on managed memory).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def DeviceGlobals : Pass<"onnxc-device-globals", "ModuleOp"> {
  let summary = "Host code reaches the model's globals through device copies";
  let description = [{
    The CUDA target's last host pass (LLVM dialect, after gpu-to-llvm). A
    kernel cannot read the shared object's data: every
    `llvm.mlir.addressof` of a global (weights, hoisted constants) in a host
    function becomes a call of the runtime's
    `onnxc_rt_device_global(ptr host, i64 bytes)`, which returns one
    device-accessible copy per global, made at its first use (the weights
    copied in; a hoisted constant's copy is what onnx_model_init then
    writes).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GPUTiledMatmul : Pass<"onnxc-gpu-tiled-matmul", "func::FuncOp"> {
  let summary = "Run f32, f16 and bf16 matmuls, batch matmuls and NCHW convolutions as shared-memory tiled kernels";
  let description = [{
    The CUDA target's matmul kernel (memrefs, before linalg -> parallel
    loops). A `linalg.matmul` or `linalg.batch_matmul` on f32 with the
    default indexing maps becomes a `gpu.launch` of 16 x 16 threads per
    64 x 64 tile of C (grid: N/64 x M/64 x batch). The block walks K in
    steps of 16: its threads copy the 64 x 16 tile of A and the 16 x 64 tile
    of B into workgroup memory (4 elements each, zero outside the matrices),
    synchronise, and each thread accumulates its 4 x 4 elements of C (rows
    4 ty + r, columns 4 tx + c: one 16-byte workgroup load of A's and one
    of B's per step) in registers, unrolled over the 16 steps; at the end it adds them to C
    where they lie inside it. A `linalg.conv_2d_nchw_fchw` (input padded
    before) is the same kernel as an implicit GEMM per image (grid z): M =
    output channels, N = output pixels, K = C x KH x KW, the filter as A
    and the input windows gathered as B. Other contractions keep the
    one-thread-per-element mapping.

    Products whose static sizes give at least 132 tiles of 128 x 128 (a
    wave on an H100) get the large kernel instead: 128 x 128 tiles of C for
    16 x 16 threads, each thread 8 x 8 elements (rows 64 g + 4 ty + r,
    columns 64 h + 4 tx + c: four 16-byte workgroup loads per step), K in
    steps of 8, the workgroup tile of A padded to 132 columns (transposing
    stores without bank conflicts) and the next step's elements loaded into
    registers before the current step's products. `tile=64|128` forces one
    kernel for every product.

    `tf32`: every product on tensor cores instead (sm_80 or newer): 64 x 64
    tiles of C for 8 warps, each warp 32 x 16 of it as 2 x 2
    `nvgpu.mma.sync` m16n8k8 with tf32 operands and f32 sums per 8 of K,
    its fragments read from workgroup tiles padded to 72 columns; K in
    steps of 16, prefetched into registers; split K as for the 64-tiles.
    Large products (as above) get 128 x 128 tiles, each warp 64 x 32 of
    them as 4 x 4 mma.sync, tiles padded to 136 columns.

    Products of f16 or bf16 operands (f32 sums, as the MatMul and Conv
    lowerings write them) stage their operands widened to f32 (exactly)
    and run as above; with `half-mma` on tensor cores: f16 operands stay
    f16 in workgroup memory and multiply as mma.sync m16n8k16 (f16 x f16 +
    f32) per 16 of K, on the same tiles and warps as tf32; bf16 operands,
    whose values tf32 holds exactly, take the tf32 kernels.

    `host-reference` (onnxc --cuda-gemm-host-check): instead of a kernel,
    a loop nest over the batch, rows and columns of C that reads C's
    initial value, adds A's row times B's column in f32 and stores the sum,
    all through the accessors and fusions the kernels use, so that the
    suites can check those (a convolution's implicit GEMM view, the fused
    bias and epilogue) on a machine without a GPU.

    Fusion: the op right before the product that writes every element of
    its result from other buffers (the fill with zero, a bias broadcast)
    and the elementwise op right after it that reads the result once with
    the identity map (a bias, Relu, f16's cast back) are evaluated inside
    the kernel, at each element where it reads C's initial value and
    stores its sum (or in split K's second kernel), instead of as kernels
    of their own; the result's buffer goes where nothing else reads it.
    Not where an op would write a buffer another of them reads.
  }];
  let options = [
    Option<"tile", "tile", "int64_t", /*default=*/"0",
           "Tile of C: 0 chooses by size, 64 or 128 forces it">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "Multiply on tensor cores with tf32 operands">,
    Option<"halfMma", "half-mma", "bool", /*default=*/"false",
           "Multiply f16 and bf16 operands on tensor cores (sm_80 or newer)">,
    Option<"hostReference", "host-reference", "bool", /*default=*/"false",
           "Each product a sequential loop nest on the host, through the "
           "same operand views and fusions as the kernels (to check them "
           "without a GPU)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def GPUReductions : Pass<"onnxc-gpu-reductions", "func::FuncOp"> {
  let summary = "Run reductions into few outputs as a block per output";
  let description = [{
    The CUDA target (memrefs, before linalg -> parallel loops). A
    `linalg.generic` with static sizes that reduces into at most 16384
    outputs over at least 32 elements each, whose body folds each element
    into the output with one arith combiner (`out = combiner(out, c)`: add,
    mul, max, min, and, or, ...; the output indexed by parallel dims only),
    becomes a `gpu.launch` of one block per output (grid x: the outputs,
    linearised) of 64, 128 or 256 threads (by the reduction's size): thread
    t folds elements t, t + T, ... of the linearised reduction domain into
    a partial value that starts at the combiner's neutral element, the
    block combines the partials pairwise in workgroup memory (log2 T steps,
    a barrier each), and thread 0 folds the total into the output's initial
    value. One thread per output (the generic mapping) would run a
    LayerNorm's 256 row means as one block. The order of the additions
    differs from the sequential loop's: float sums differ in their last
    bits. A reduction into several outputs each computed from the inputs
    and its own output only (an index check's minimum and maximum) is
    first split into one generic per output.

    As in onnxc-gpu-tiled-matmul (GPUGemmFusion.h), the op right before
    that writes the whole output (the fill with zero or minus infinity)
    and the elementwise op right after it that reads the output (a mean's
    division, a softmax's exponent's reciprocal) are evaluated by thread 0
    where it reads the output's initial value and stores the result: a
    LayerNorm's mean is one kernel, not three. `host-reference` (onnxc
    --cuda-gemm-host-check): each reduction a sequential loop per output
    instead of a kernel, through the same fusions.
  }];
  let options = [
    Option<"hostReference", "host-reference", "bool", /*default=*/"false",
           "Each reduction a sequential loop nest on the host, with the "
           "same fusions as the kernels (to check them without a GPU)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def GPUCopies : Pass<"onnxc-gpu-copies", "func::FuncOp"> {
  let summary = "Copies between buffers as linalg.copy, to run as kernels";
  let description = [{
    The CUDA target (memrefs, before linalg -> parallel loops). A
    `memref.copy` (a pad's interior, a concat's part, a slice) would run on
    the host through the runtime's memrefCopy, moving the managed buffers
    to the CPU and back; as `linalg.copy` it becomes a parallel loop and
    then a kernel. Copies of rank 0 stay (one element).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DeviceSync : Pass<"onnxc-device-sync", "ModuleOp"> {
  let summary = "Host code waits for the launched kernels only where it touches memory";
  let description = [{
    The CUDA target (LLVM dialect, host functions, after gpu-to-llvm).
    Kernel launches are asynchronous on the thread's stream (the runtime's
    mgpuStreamSynchronize only notes that kernels are pending); before each
    host operation that reads or writes memory (llvm.load, llvm.store, the
    memcpy/memmove/memset intrinsics, atomics, and calls other than the
    runtime's launch and device functions) this pass inserts a call of
    `onnxc_rt_device_sync()`, which waits for the stream when kernels are
    pending and ends the run with ONNXC_ERROR_DEVICE when one failed.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AlignWorkgroupBuffers
    : Pass<"onnxc-align-workgroup-buffers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Align the kernels' workgroup buffers to 16 bytes";
  let description = [{
    The CUDA target, after kernel outlining: every workgroup attribution of
    a `gpu.func` gets `llvm.align = 16`, which the NVVM lowering gives its
    shared-memory global, so that the tiled GEMM's 16-byte vector loads
    from it are aligned.
  }];
}

#endif // ONNXC_TRANSFORMS_PASSES_TD
