//===- Passes.td - Passes over the onnx dialect ------------*- tablegen -*-===//
#ifndef ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
#define ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ONNXShapeInference : Pass<"onnx-shape-inference", "func::FuncOp"> {
  let summary = "Infer the result types of onnx ops from the ONNX schemas";
  let description = [{
    Refines the result types of every onnx op, in program order and inside
    subgraph regions, by running the type-and-shape inference function that
    the ONNX schema registry defines for the operator. Operands that are
    constants (onnx.Constant) are passed as data, so shapes computed from
    tensors (Reshape, Expand, ConstantOfShape, Slice, ...) become static.
    Dimensions that stay unknown become dynamic (`?`); results are only ever
    refined, never made less precise. The function's signature is updated
    when a returned value got a more precise type.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

def ONNXDeriveGradients : Pass<"onnx-derive-gradients", "func::FuncOp"> {
  let summary = "Replace ai.onnx.preview.training Gradient ops by the backward "
                "graph in onnx ops (reverse-mode automatic differentiation)";
  let description = [{
    A Gradient op (as the importer builds it: its inputs, then the values its
    xs and zs attributes name, then the value y names) becomes the onnx ops
    that compute the gradient of y, summed over its elements, with respect
    to each x, at the Gradient's inputs: the ops from the named values to y
    are walked in reverse and each op's gradient rule (Autodiff.h) turns the
    gradients of its results into those of its operands; gradients of a
    value used more than once are added; broadcast operands get theirs
    summed back to their shape. xs and zs are independent variables: the
    walk does not go through the ops that compute them. When the inputs are
    other values than the named ones, the ops from the named values to y are
    first cloned on the inputs. An x that y does not depend on gets zeros.

    Rules cover the elementwise arithmetic and activations, MatMul, Gemm,
    the reshapes, Transpose, Expand, Concat, Split, Slice, Pad, Gather,
    GatherElements, Where, Cast, CastLike, Resize (nearest), Dropout, the
    reductions, Softmax and LogSoftmax, Conv and ConvTranspose (grouped
    too), MaxPool,
    AveragePool, the global poolings, BatchNormalization (inference and
    training mode) and LayerNormalization; the losses
    SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss are
    differentiated through their ONNX function bodies (the importer expands
    them). An op on the way without a rule, or a case a rule does not cover
    (named in the error), fails the pass at that op. New ops are typed by the ONNX schemas' inference; later passes fold,
    simplify and lower them like any others.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ONNXBuildTrainingStep : Pass<"onnx-build-training-step", "ModuleOp"> {
  let summary = "Turn a model's entry function into one training step";
  let description = [{
    The entry function becomes one step of training the model (onnxc
    --train): BatchNormalization runs in training mode and Dropout drops
    (what PyTorch's model.train() means), with a new mask every step (a
    splitmix64 hash of the element, the node and a `dropout.step` state
    counter, in onnx ops); the trainable parameters, i.e.
    the float initializers (marked `onnx.initializer` by the importer) that
    the loss depends on, except the `freeze`d ones, become arguments; so do
    BatchNormalization's running mean and variance, updated by the op, and
    the optimizer's state. The loss is computed on output `loss-output`:
    `cross-entropy` (the mean over the samples of -log softmax along dim 1
    at an int64 `labels` argument), `mse` (the mean squared difference to a
    `labels` argument of the output's type) or `output` (the output is the
    loss; its mean if not a scalar). Gradients come from the autodiff engine
    of onnx-derive-gradients, and the optimizer updates the parameters:
    `sgd` (w - lr (g + weight_decay w)), or the ai.onnx.preview.training
    operators Momentum (`momentum`, `nesterov`: alpha = momentum, beta = 1,
    as PyTorch's SGD), Adam (`adam`: bias correction counting this step,
    as PyTorch's) and Adagrad (`adagrad`), with an `optimizer.step` count.

    The function then takes the model's inputs, `labels` and the state
    (`dropout.step` if there is a Dropout, the parameters and running
    statistics in the model's order, the optimizer state) and
    returns the loss and the next state in the same order; the module gets
    `onnxc.train_state` (the initial value of each state tensor: the
    initializers, zeros) and `onnxc.train_first_state` (the index of the
    first state argument), which the code generator embeds for the
    runtime's onnxc_train_* API.

    With `from-model`, the function is a model's inference graph combined
    with its own training algorithm (the importer's TrainingGraph::Algorithm,
    which sets the module attribute `onnxc.update_binding`, pairs of an
    initializer and the output that is its next value): the bound
    initializers are the state, in binding order, and the step computes
    what the algorithm computes; nothing else changes (no loss, optimizer,
    training modes or Dropout masks are added). The loss the step reports
    is the first result that no binding names (its mean if not a scalar,
    0 if there is none); the other results are dropped.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main_graph\"",
           "The function to turn into a training step">,
    Option<"loss", "loss", "std::string", /*default=*/"\"cross-entropy\"",
           "cross-entropy, mse or output">,
    Option<"lossOutput", "loss-output", "int64_t", /*default=*/"0",
           "The model output the loss is computed on">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd, momentum, nesterov, adam or adagrad">,
    Option<"learningRate", "learning-rate", "double", /*default=*/"0.01",
           "The learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.9",
           "momentum/nesterov: the decay of the accumulated gradient">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "adam: the decay of the first moment">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "adam: the decay of the second moment">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8",
           "adam, adagrad: added to the denominator">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "L2 penalty coefficient (added to the gradient)">,
    ListOption<"freeze", "freeze", "std::string",
               "Initializers that are not trained">,
    Option<"fromModel", "from-model", "bool", /*default=*/"false",
           "Use the model's own training algorithm (TrainingInfoProto) "
           "instead of a loss and an optimizer">,
  ];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

def ONNXPromoteInitializers : Pass<"onnx-promote-initializers", "ModuleOp"> {
  let summary = "Turn named initializers into arguments of the entry function";
  let description = [{
    Each initializer in `names` (a constant the importer marked
    `onnx.initializer`) becomes an argument appended to the entry function
    in the order of `names`, named after it; the marks of the others are
    dropped. onnxc --train uses it for the evaluation function of a training
    library: the inference model with the trained state as inputs. A name
    that is not an initializer of the function is an error.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main_graph\"",
           "The function whose initializers become arguments">,
    ListOption<"names", "names", "std::string",
               "The initializers to make arguments, in order">,
  ];
}

def ONNXBoxUnrankedOutputs
    : Pass<"onnx-box-unranked-outputs", "func::FuncOp"> {
  let summary = "Return outputs whose rank is known only at run time as "
                "boxed values";
  let description = [{
    An If whose branches yield tensors of different ranks has a result of
    unknown rank. When such a result is an output of the function (a result
    marked `onnxc.box_output`, or of unranked tensor type), it becomes an
    `!onnx.opt` of the unranked tensor type: each branch wraps the ranked
    tensor it yields in an `onnx.Optional` (through nested Ifs), which the
    lowering turns into a tensor value of the runtime (its rank and shape
    travel with it). The runtime's signature gives such an output rank -1
    and copies the value out as a plain tensor. A marked result that became
    ranked in the meantime (also behind a `tensor.cast` to the unranked
    type) is boxed alike, so the calling convention stays
    what the signature said. An unranked output that does not come from
    If branches (or an If result with other uses) is an error naming the
    node where its rank is lost.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

def ONNXFoldBatchNorm : Pass<"onnx-fold-batch-norm", "func::FuncOp"> {
  let summary = "Fold inference-mode BatchNormalization into the Conv, Gemm "
                "or MatMul before it";
  let description = [{
    A BatchNormalization (training_mode 0) whose input is the result of a
    Conv that has no other user, and whose scale, B, mean and var are
    weights (they depend on no function argument), is an affine map per
    output channel: Y = conv * a + (B - mean * a) with
    a = scale / sqrt(var + epsilon). The pass replaces the pair by one Conv
    whose filter is W with each output channel f scaled by a[f] and whose
    bias is (bias - mean) * a + B (B - mean * a without a bias). The new
    weights are onnx ops on the old ones (Add, Sqrt, Div, Reshape, Mul,
    Sub or Neg), which depend on weights only: the compiler computes them
    once per process (onnxc-hoist-constants), and no weight is copied at
    compile time.

    Likewise after a 2-D Gemm, or a 2-D MatMul by a weight (the
    BatchNormalization normalises its columns): one Gemm whose B has column
    n scaled by a[n] and whose C is (beta C - mean) * a + B (B - mean * a
    without a C), with beta 1.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

def ONNXFuseQDQ : Pass<"onnx-fuse-qdq", "func::FuncOp"> {
  let summary = "Run QDQ-quantized Conv and MatMul as QLinearConv and "
                "QLinearMatMul";
  let description = [{
    A QuantizeLinear of a Conv (or MatMul) whose operands are
    DequantizeLinear results of 8-bit tensors is what ONNX Runtime runs as
    one integer operator; so does this pass, replacing the QuantizeLinear
    and the Conv (MatMul) by a QLinearConv (QLinearMatMul) of the
    DequantizeLinears' operands (which stay for their other users, if any).
    Conditions: f32 scales; X, A and the output quantized per tensor; W per
    tensor or per output channel (axis 0), B per tensor or per column (a 2-D
    B, axis 1); no blocks; a Conv's bias the DequantizeLinear of an int32
    tensor with zero point 0 and scale x_scale * w_scale (constants, checked
    to a relative 1e-6). A Relu between the op and a QuantizeLinear whose
    zero point is the least value of its type is dropped first: the
    quantization clamps what Relu would have. Results can differ from the
    float pattern's by one unit of the output's quantization: the integer
    operators sum exactly and round once.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

def ONNXFoldConstants : Pass<"onnx-fold-constants", "func::FuncOp"> {
  let summary = "Evaluate constant subgraphs of onnx ops at compile time";
  let description = [{
    Walks the function in program order and evaluates every onnx op whose
    operands are known at compile time (onnx.Constant, or results the walk
    already evaluated), replacing it by an onnx.Constant: the Shape ->
    Gather -> Unsqueeze -> Concat -> Reshape chains that exporters emit,
    Cast, integer and float arithmetic and comparisons, Where, Range,
    ConstantOfShape, Expand, Slice, Transpose, Squeeze/Unsqueeze/Flatten.
    The Shape of a tensor with dynamic dims is known in part: a Gather or
    Slice that picks only its static dims folds, and so does what is
    computed from them.

    Only results of at most `max-elements` elements are folded, and only
    constants of at most 65536 elements are read, so weights are never
    copied or duplicated at compile time and compile time stays bounded
    (weight-only computations on large tensors are left to
    onnxc-hoist-constants, which runs them once per process). Ops whose
    result is an error for the values given (an index out of range, an
    integer division by zero) are left alone: they report the error at run
    time with the node's name. Ops that become unused are erased.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"4096",
           "Fold only results with at most this many elements">,
  ];
  let statistics = [
    Statistic<"numFolded", "num-folded", "onnx ops replaced by constants">,
  ];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect"];
}

def ONNXSimplify : Pass<"onnx-simplify", "func::FuncOp"> {
  let summary = "Canonicalise onnx graphs: no-op removal, transpose and "
                "reshape chains, Mul/Add by constants into Conv and Gemm";
  let description = [{
    Rewrites on the onnx dialect, applied until none matches (dead pure ops
    are erased on the way):
    - no-ops: Identity; Dropout in inference mode whose mask is unused;
      Cast to the type it has; Transpose by the identity permutation;
      Reshape, Squeeze, Unsqueeze or Flatten to the static type of its
      input; Expand to its input's static type;
    - chains: Transpose of a Transpose becomes one Transpose (or nothing);
      a Reshape (or Flatten, Squeeze, Unsqueeze) of a Reshape reads the
      first one's input when the second's target does not copy dims (no 0
      without allowzero);
    - Conv followed by Mul by a weight of one value per output channel (or
      one value): the filter and bias are scaled instead; Conv followed by
      Add of such a weight: the bias absorbs it. Gemm followed by Mul by a
      scalar weight: alpha and beta are scaled; Gemm without C followed by
      Add of a weight that broadcasts to its rows: the weight becomes C.
      The new weights are onnx ops on the old ones (computed once per
      process by onnxc-hoist-constants, or at compile time by
      onnx-fold-constants when they are small);
    - decompositions: QLinearMatMul into MatMulInteger, Cast, Mul and
      QuantizeLinear;
    - folds: OptionalHasElement/OptionalGetElement where the input's kind
      (absent, plain, onnx.Optional) decides them; an If on a constant
      condition becomes its taken branch (a tensor.cast to the If's type
      where a non-onnx user needs it);
    - an If whose branches yield tensors of different ranks: the lower-rank
      yields get leading unit dims when every use reads the result only
      through broadcasting against an operand of at least that rank or as
      CastLike's target; otherwise the rest of its block (at most 256 ops)
      is cloned into both branches, so that each computes it with its own
      static rank, and the block's terminator takes the If's results.
  }];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ONNXFoldToFixpoint : Pass<"onnx-fold-to-fixpoint", "func::FuncOp"> {
  let summary = "Fold constants, simplify and infer shapes, in rounds, until "
                "the function no longer changes";
  let description = [{
    Runs onnx-fold-constants, onnx-simplify and onnx-shape-inference on the
    function, again and again while a round changes it (at most
    `max-rounds` rounds). Each of the three enables the others: a folded
    Pad or Reshape target gives a static type, a static type makes the next
    Shape a constant, and so on through a model's blocks (a Swin
    transformer's window padding, (w - h % w) % w computed from the shape
    of the previous block's output, is static only after several rounds).
  }];
  let options = [
    Option<"maxRounds", "max-rounds", "unsigned", /*default=*/"16",
           "Stop after this many rounds even if the last one changed the "
           "function">,
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"4096",
           "onnx-fold-constants' max-elements">,
  ];
  let statistics = [
    Statistic<"numRounds", "num-rounds", "rounds run (the last changed "
              "nothing, unless max-rounds stopped them)">,
  ];
  let dependentDialects = ["::mlir::onnxc::ONNXDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
