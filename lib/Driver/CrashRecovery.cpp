//===- CrashRecovery.cpp - Internal failures as errors naming the node ----===//
//
// The context's action handler keeps a stack of what is being done: the
// passes being run and the rewrite patterns being applied, each with the
// location and the name of the op it works on. A crash inside
// CrashRecovery::run is caught by llvm::CrashRecoveryContext, which jumps
// back out of the crashed frames without unwinding them: the stack still
// holds what was being done, and becomes one error line. The passes and
// the patterns it names are owned by the pass manager and the pattern
// sets, which the jump leaves alone.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Driver/CrashRecovery.h"

#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/IR/Action.h"
#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Rewrite/PatternApplicator.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>
#include <vector>

using namespace mlir;

namespace {
/// One action in progress: a pass run on `op` or a pattern applied to it.
struct Frame {
  const Pass *pass;                          // for a pass
  std::optional<ApplyPatternAction> pattern; // for a pattern (a copy)
  Location loc;
  StringRef opName;
};

/// The actions in progress, outermost first. onnxc's context is
/// single-threaded, and one CrashRecovery is alive at a time.
std::vector<Frame> &frames() {
  static std::vector<Frame> stack;
  return stack;
}

/// The op an action works on, when it has one.
Operation *actionOp(const tracing::Action &action) {
  if (auto *pass = dyn_cast<PassExecutionAction>(&action))
    return pass->getOp();
  for (IRUnit unit : action.getContextIRUnits())
    if (auto *op = dyn_cast<Operation *>(unit))
      return op;
  return nullptr;
}

/// The text after "pattern: " in an ApplyPatternAction's print (the
/// pattern's debug name, which RewritePatternSet::add sets to its type).
std::string patternName(const tracing::Action &action) {
  std::string text;
  llvm::raw_string_ostream os(text);
  action.print(os);
  size_t at = text.find("pattern: ");
  return at == std::string::npos ? std::string() : text.substr(at + 9);
}

} // namespace

onnxc::CrashRecovery::CrashRecovery(MLIRContext &context) : context(context) {
  frames().clear();
  context.registerActionHandler(
      [](function_ref<void()> transform, const tracing::Action &action) {
        bool isPass = isa<PassExecutionAction>(action);
        Operation *op = actionOp(action);
        if (!op || (!isPass && !isa<ApplyPatternAction>(action))) {
          transform();
          return;
        }
        Frame frame{nullptr, std::nullopt, op->getLoc(),
                    op->getName().getStringRef()};
        if (isPass)
          frame.pass = &cast<PassExecutionAction>(action).getPass();
        else
          frame.pattern.emplace(cast<ApplyPatternAction>(action));
        frames().push_back(std::move(frame));
        transform();
        frames().pop_back();
      });
}

onnxc::CrashRecovery::~CrashRecovery() {
  context.registerActionHandler(nullptr);
}

std::string onnxc::CrashRecovery::describeCrash(StringRef stage) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "onnxc: error: internal compiler error in stage '" << stage << "'";
  const Frame *pass = nullptr, *pattern = nullptr, *node = nullptr;
  for (const Frame &f : frames()) {
    (f.pass ? pass : pattern) = &f;
    if (describeNode(f.loc) != "a node")
      node = &f;
  }
  if (pass) {
    StringRef name = pass->pass->getArgument();
    os << ", pass '" << (name.empty() ? pass->pass->getName() : name) << "'";
  }
  if (pattern)
    os << ", pattern '" << patternName(*pattern->pattern) << "'";
  if (node)
    os << ", while rewriting " << describeNode(node->loc) << " ("
       << node->opName << ")";
  else if (const Frame *inner = pattern ? pattern : pass)
    os << ", on " << inner->opName;
  os << "; this is a bug in onnxc (the input is not at fault)";
  return text;
}

LogicalResult onnxc::CrashRecovery::run(StringRef stage,
                                        function_ref<LogicalResult()> fn) {
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext crc;
  // ONNXC_CRASH_STACK=1: the stack of the crash too, for onnxc's developers.
  crc.DumpStackAndCleanupOnFailure = std::getenv("ONNXC_CRASH_STACK") != nullptr;
  std::optional<LogicalResult> result;
  if (crc.RunSafely([&] { result = fn(); }))
    return *result;
  // The frames of the crash were not popped. The IR may be half rewritten:
  // exit without destroying it.
  llvm::errs() << describeCrash(stage) << "\n";
  llvm::errs().flush();
  std::_Exit(1);
}

namespace {
/// Crashes while rewriting the op of the ONNX node `node`: a trap, or an
/// LLVM fatal error. Only for testing CrashRecovery.
struct CrashAtNode : RewritePattern {
  CrashAtNode(MLIRContext *ctx, StringRef node, bool fatalError)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), node(node),
        fatalError(fatalError) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &) const override {
    if (onnxc::describeNode(op->getLoc()) != "node '" + node + "'")
      return failure();
    if (fatalError)
      llvm::report_fatal_error("onnxc: the crash of --testing-crash-at-node");
    __builtin_trap();
  }
  std::string node;
  bool fatalError;
};

struct CrashTestPass : PassWrapper<CrashTestPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CrashTestPass)
  CrashTestPass(std::string node, bool fatalError)
      : node(std::move(node)), fatalError(fatalError) {}
  StringRef getArgument() const override { return "onnxc-test-crash"; }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CrashAtNode>(&getContext(), node, fatalError);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
  std::string node;
  bool fatalError;
};
} // namespace

std::unique_ptr<Pass> onnxc::createCrashTestPass(StringRef node,
                                                 bool fatalError) {
  return std::make_unique<CrashTestPass>(node.str(), fatalError);
}
