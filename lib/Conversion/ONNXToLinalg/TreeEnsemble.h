//===- TreeEnsemble.h - Tree ensembles from their attributes ----*- C++ -*-===//
//
// TreeEnsembleRegressor-3, TreeEnsembleClassifier-3 and TreeEnsemble-5
// (ai.onnx.ml) describe their trees differently; TreeEnsembleAttrs.cpp reads
// each into one form, checked, which TreeEnsemble.cpp turns into constant
// tables and the loops that walk them.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LIB_CONVERSION_ONNXTOLINALG_TREEENSEMBLE_H
#define ONNXC_LIB_CONVERSION_ONNXTOLINALG_TREEENSEMBLE_H

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::onnxc::trees {

/// How an interior node compares the feature with its split (TreeEnsemble-5's
/// numbering of nodes_modes).
enum class Mode : int32_t { LEQ = 0, LT, GTE, GT, EQ, NEQ, Member };

/// TreeEnsemble-5's numbering of aggregate_function and post_transform.
enum class Aggregate : int32_t { Average = 0, Sum, Min, Max };
enum class PostTransform : int32_t {
  None = 0,
  Softmax,
  Logistic,
  SoftmaxZero,
  Probit
};

/// Node codes: an interior node by its index (>= 0), leaf `l` as -1 - l.
inline int64_t leafCode(int64_t leaf) { return -1 - leaf; }

struct Ensemble {
  // Interior nodes, by index.
  SmallVector<int64_t> feature;
  SmallVector<double> split;
  SmallVector<Mode> mode;
  SmallVector<bool> missingTracksTrue;
  /// Codes of the children taken when the comparison holds or not.
  SmallVector<int64_t> yes, no;
  /// The set of a Member node (empty for the others).
  SmallVector<SmallVector<double>> members;
  /// Leaf l votes weightValue[k] for target weightTarget[k], k in
  /// [leafBegin[l], leafBegin[l + 1]).
  SmallVector<int64_t> leafBegin{0};
  SmallVector<int64_t> weightTarget;
  SmallVector<double> weightValue;
  /// The code of each tree's root.
  SmallVector<int64_t> roots;
  int64_t targets = 0;
  /// Added to the aggregated scores: empty, one per target, or (binary
  /// classifiers) one.
  SmallVector<double> base;
  Aggregate aggregate = Aggregate::Sum;
  PostTransform post = PostTransform::None;
  /// The splits are doubles (*_as_tensor, or TreeEnsemble-5's f64): the
  /// comparisons are made in f64.
  bool doubleSplits = false;

  int64_t numLeaves() const { return int64_t(leafBegin.size()) - 1; }
  /// The interior nodes each tree reaches from its root (in visiting order)
  /// and the leaves it reaches.
  void reachable(int64_t root, SmallVectorImpl<int64_t> &nodes,
                 SmallVectorImpl<int64_t> &leaves) const;
};

/// The classifier's labels and how ONNX Runtime reads a two-class model.
struct ClassifierInfo {
  SmallVector<int64_t> intLabels;
  SmallVector<std::string> stringLabels;
  /// Two classes, all votes for one class id: one score decides (as ONNX
  /// Runtime's binary case).
  bool binary = false;
  /// Every class weight is >= 0 (the binary score is then a probability).
  bool weightsPositive = true;
};

/// Reads and checks the attributes. `targetsHint` is the result's static
/// number of targets (or -1) for a regressor without n_targets. On an
/// inconsistent model, fails with `why` saying what is wrong (naming the
/// tree and node).
FailureOr<Ensemble> readRegressor(ONNXMLTreeEnsembleRegressorOp op,
                                  int64_t targetsHint, std::string &why);
FailureOr<Ensemble> readClassifier(ONNXMLTreeEnsembleClassifierOp op,
                                   ClassifierInfo &info, std::string &why);
FailureOr<Ensemble> readTreeEnsemble(ONNXMLTreeEnsembleOp op,
                                     int64_t targetsHint, std::string &why);

//===----------------------------------------------------------------------===//
// Code generation (TreeEnsembleWalk.cpp)
//===----------------------------------------------------------------------===//

/// X as [N, F] (converted), its ONNX element type, and N.
struct Input {
  Value x;
  Type elem;
  OpFoldResult rows;
};

/// The scores [N, targets] (f64) and, with `withHas`, whether any leaf
/// voted [N, targets] (i1): per (sample, target) the trees that vote for the
/// target are walked and their leaves' votes aggregated (SUM, AVERAGE: the
/// sum; MIN, MAX; 0 without votes). `finish`, when given, turns each (score,
/// target) into the element of a result of `finishType` instead. X's width
/// is checked at run time against the features the trees read.
using FinishFn = function_ref<Value(OpBuilder &, Location, Value, Value)>;
SmallVector<Value> buildScores(OpBuilder &b, Location loc, Operation *op,
                               const Ensemble &e, const Input &in, bool withHas,
                               RankedTensorType finishType, FinishFn finish);

/// Scores of one row as a function of the column (an index value), f64.
using RowFn = function_ref<Value(OpBuilder &, Location, Value)>;
/// post_transform of column `col` of a row of `count` scores (f64).
Value transformAt(OpBuilder &b, Location l, PostTransform post, RowFn row,
                  int64_t count, Value col);
/// 1 / (1 + exp(-v)), and ONNX Runtime's probit, in f64.
Value logistic(OpBuilder &b, Location l, Value v);
Value probit(OpBuilder &b, Location l, Value v);

/// A constant 1-D table of `values` in `elem`.
Value floatTable(OpBuilder &b, Location loc, ArrayRef<double> values,
                 FloatType elem);
/// table[i]; i32 entries come back as index values.
Value at(OpBuilder &b, Location l, Value table, ValueRange i);
Value f64(OpBuilder &b, Location l, double v);
Value cmpf(OpBuilder &b, Location l, arith::CmpFPredicate p, Value x, Value y);
Value select(OpBuilder &b, Location l, Value c, Value x, Value y);

} // namespace mlir::onnxc::trees

#endif // ONNXC_LIB_CONVERSION_ONNXTOLINALG_TREEENSEMBLE_H
