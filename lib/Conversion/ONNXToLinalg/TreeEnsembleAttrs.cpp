//===- TreeEnsembleAttrs.cpp - Tree ensembles from their attributes -------===//
//
// Reads the trees of TreeEnsembleRegressor/Classifier-3 (nodes named by
// tree and node id, votes attached to leaves by those ids) and of
// TreeEnsemble-5 (interior nodes and leaves in two index spaces, roots
// listed) into one Ensemble, and checks what the lowering relies on: the
// attribute lists agree in length, every id names something that exists,
// targets and features are in range, and no tree has a cycle. As ONNX
// Runtime: a tree's root is its first node; votes on interior nodes are
// ignored; a leaf may vote for several targets.
//
//===----------------------------------------------------------------------===//

#include "TreeEnsemble.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstring>
#include <map>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::trees;

namespace {

SmallVector<int64_t> ints(std::optional<ArrayAttr> attr) {
  SmallVector<int64_t> out;
  if (attr)
    for (Attribute a : *attr)
      out.push_back(cast<IntegerAttr>(a).getInt());
  return out;
}

SmallVector<double> floats(std::optional<ArrayAttr> attr) {
  SmallVector<double> out;
  if (attr)
    for (Attribute a : *attr)
      out.push_back(cast<FloatAttr>(a).getValueAsDouble());
  return out;
}

SmallVector<StringRef> strings(std::optional<ArrayAttr> attr) {
  SmallVector<StringRef> out;
  if (attr)
    for (Attribute a : *attr)
      out.push_back(cast<StringAttr>(a).getValue());
  return out;
}

/// The elements of a tensor attribute (dense or a resource blob) as
/// doubles; fails on element types other than floats and integers.
FailureOr<SmallVector<double>> elementsAsDoubles(ElementsAttr attr) {
  SmallVector<double> out;
  Type elem = attr.getElementType();
  auto fromFloat = [](APFloat v) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return v.convertToDouble();
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(elem)) {
      for (APFloat v : dense.getValues<APFloat>())
        out.push_back(fromFloat(v));
      return out;
    }
    if (elem.isInteger()) {
      for (APInt v : dense.getValues<APInt>())
        out.push_back(elem.isUnsignedInteger() ? double(v.getZExtValue())
                                               : double(v.getSExtValue()));
      return out;
    }
    return failure();
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || !elem.isIntOrFloat())
    return failure();
  unsigned bits = elem.getIntOrFloatBitWidth();
  if (bits % 8 || bits > 64)
    return failure();
  ArrayRef<char> data = blob->getData();
  for (size_t i = 0; i + bits / 8 <= data.size(); i += bits / 8) {
    uint64_t raw = 0;
    std::memcpy(&raw, data.data() + i, bits / 8); // little-endian hosts
    APInt v(bits, raw);
    if (auto f = dyn_cast<FloatType>(elem))
      out.push_back(fromFloat(APFloat(f.getFloatSemantics(), v)));
    else
      out.push_back(elem.isUnsignedInteger() ? double(v.getZExtValue())
                                             : double(v.getSExtValue()));
  }
  return out;
}

std::string str(int64_t v) { return std::to_string(v); }

/// Checks that no tree reaches a node again below itself (the walk would not
/// end); `name` names an interior node in the message.
LogicalResult checkAcyclic(const Ensemble &e,
                           function_ref<std::string(int64_t)> name,
                           std::string &why) {
  // 0: not seen, 1: on the current path, 2: done.
  SmallVector<uint8_t> state(e.feature.size(), 0);
  for (int64_t root : e.roots) {
    if (root < 0 || state[root] == 2)
      continue;
    SmallVector<std::pair<int64_t, int>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      if (next == 2) {
        state[node] = 2;
        stack.pop_back();
        continue;
      }
      int64_t child = next++ == 0 ? e.yes[node] : e.no[node];
      if (child < 0 || state[child] == 2)
        continue;
      if (state[child] == 1) {
        why = name(node) + " leads back to " + name(child) +
              ": the tree has a cycle";
        return failure();
      }
      state[child] = 1;
      stack.push_back({child, 0});
    }
  }
  return success();
}

/// The largest target id + 1 when n_targets is not given.
int64_t countTargets(std::optional<uint64_t> nTargets, int64_t hint,
                     ArrayRef<int64_t> ids) {
  if (nTargets)
    return int64_t(*nTargets);
  if (hint >= 0)
    return hint;
  int64_t n = 0;
  for (int64_t id : ids)
    n = std::max(n, id + 1);
  return n;
}

/// The *_as_tensor form when given (doubles), else the float list.
FailureOr<SmallVector<double>> floatsOrTensor(std::optional<ArrayAttr> list,
                                              std::optional<ElementsAttr> t,
                                              StringRef name,
                                              std::string &why) {
  if (list && t) {
    why = ("both " + name + " and " + name + "_as_tensor are given").str();
    return failure();
  }
  if (!t)
    return floats(list);
  FailureOr<SmallVector<double>> values = elementsAsDoubles(*t);
  if (failed(values))
    why = (name + "_as_tensor is not a tensor of numbers").str();
  return values;
}

/// TreeEnsembleRegressor/Classifier-3: nodes named (tree id, node id).
struct Version3 {
  SmallVector<int64_t> treeIds, nodeIds, featureIds, trueIds, falseIds, missing;
  SmallVector<StringRef> modes;
  SmallVector<double> values;
  bool doubleValues = false;
  // Votes ("target_*" or "class_*").
  StringRef votePrefix;
  SmallVector<int64_t> voteIds, voteNodeIds, voteTreeIds;
  SmallVector<double> voteWeights;

  FailureOr<Ensemble> read(int64_t targets, std::string &why) const;
};

FailureOr<Ensemble> Version3::read(int64_t targets, std::string &why) const {
  size_t m = treeIds.size();
  auto sameLength = [&](size_t n, StringRef name) {
    if (n == m)
      return true;
    why = (name + " has " + str(n) + " entries, nodes_treeids " + str(m)).str();
    return false;
  };
  if (!sameLength(nodeIds.size(), "nodes_nodeids") ||
      !sameLength(featureIds.size(), "nodes_featureids") ||
      !sameLength(modes.size(), "nodes_modes") ||
      !sameLength(values.size(), "nodes_values") ||
      !sameLength(trueIds.size(), "nodes_truenodeids") ||
      !sameLength(falseIds.size(), "nodes_falsenodeids") ||
      (!missing.empty() &&
       !sameLength(missing.size(), "nodes_missing_value_tracks_true")))
    return failure();
  std::string prefix = votePrefix.str();
  size_t votes = voteIds.size();
  if (voteNodeIds.size() != votes || voteTreeIds.size() != votes ||
      voteWeights.size() != votes) {
    why = prefix + "ids, " + prefix + "nodeids, " + prefix + "treeids and " +
          prefix + "weights differ in length";
    return failure();
  }
  if (targets <= 0) {
    why = "there are no targets";
    return failure();
  }
  auto name = [&](size_t i) {
    return "node " + str(nodeIds[i]) + " of tree " + str(treeIds[i]);
  };
  std::map<std::pair<int64_t, int64_t>, int64_t> index;
  SmallVector<int64_t> treeOrder;
  std::map<int64_t, int64_t> firstOfTree;
  Ensemble e;
  e.doubleSplits = doubleValues;
  SmallVector<int64_t> number(m); // interior index or leaf code
  for (size_t i = 0; i < m; ++i) {
    if (!index.insert({{treeIds[i], nodeIds[i]}, int64_t(i)}).second) {
      why = name(i) + " is given twice";
      return failure();
    }
    if (firstOfTree.insert({treeIds[i], int64_t(i)}).second)
      treeOrder.push_back(treeIds[i]);
    std::optional<Mode> mode = llvm::StringSwitch<std::optional<Mode>>(modes[i])
                                   .Case("BRANCH_LEQ", Mode::LEQ)
                                   .Case("BRANCH_LT", Mode::LT)
                                   .Case("BRANCH_GTE", Mode::GTE)
                                   .Case("BRANCH_GT", Mode::GT)
                                   .Case("BRANCH_EQ", Mode::EQ)
                                   .Case("BRANCH_NEQ", Mode::NEQ)
                                   .Case("LEAF", std::nullopt)
                                   .Default(Mode::Member);
    if (mode == Mode::Member) {
      why = name(i) + " has the unknown mode '" + modes[i].str() + "'";
      return failure();
    }
    if (!mode) {
      number[i] = leafCode(int64_t(e.leafBegin.size()) - 1);
      e.leafBegin.push_back(0);
      continue;
    }
    if (featureIds[i] < 0) {
      why = name(i) + " reads feature " + str(featureIds[i]);
      return failure();
    }
    number[i] = int64_t(e.feature.size());
    e.feature.push_back(featureIds[i]);
    e.split.push_back(values[i]);
    e.mode.push_back(*mode);
    e.missingTracksTrue.push_back(!missing.empty() && missing[i] == 1);
    e.members.emplace_back();
  }
  // Children, in the node's own tree.
  for (size_t i = 0; i < m; ++i) {
    if (number[i] < 0)
      continue;
    for (int side = 0; side < 2; ++side) {
      int64_t child = side == 0 ? trueIds[i] : falseIds[i];
      auto it = index.find({treeIds[i], child});
      if (it == index.end()) {
        why = name(i) + ": its " + (side == 0 ? "true" : "false") +
              " child, node " + str(child) + ", does not exist in the tree";
        return failure();
      }
      (side == 0 ? e.yes : e.no).push_back(number[it->second]);
    }
  }
  // Votes, per leaf in the order given.
  SmallVector<SmallVector<std::pair<int64_t, double>>> leafVotes(e.numLeaves());
  for (size_t k = 0; k < votes; ++k) {
    auto it = index.find({voteTreeIds[k], voteNodeIds[k]});
    if (it == index.end()) {
      why = prefix + "nodeids/" + prefix + "treeids name node " +
            str(voteNodeIds[k]) + " of tree " + str(voteTreeIds[k]) +
            ", which does not exist";
      return failure();
    }
    if (voteIds[k] < 0 || voteIds[k] >= targets) {
      why = prefix + "ids gives " + name(it->second) + " the " +
            (prefix == "class_" ? "class " : "target ") + str(voteIds[k]) +
            ", out of range [0, " + str(targets) + ")";
      return failure();
    }
    int64_t code = number[it->second];
    if (code >= 0)
      continue; // a vote on an interior node: ignored, as ONNX Runtime
    leafVotes[leafCode(code)].push_back({voteIds[k], voteWeights[k]});
  }
  for (int64_t l = 0; l < e.numLeaves(); ++l) {
    for (auto [target, weight] : leafVotes[l]) {
      e.weightTarget.push_back(target);
      e.weightValue.push_back(weight);
    }
    e.leafBegin[l + 1] = int64_t(e.weightTarget.size());
  }
  for (int64_t tree : treeOrder)
    e.roots.push_back(number[firstOfTree[tree]]);
  e.targets = targets;
  SmallVector<int64_t> interiorToIndex(e.feature.size());
  for (size_t i = 0; i < m; ++i)
    if (number[i] >= 0)
      interiorToIndex[number[i]] = int64_t(i);
  if (failed(checkAcyclic(
          e, [&](int64_t n) { return name(interiorToIndex[n]); }, why)))
    return failure();
  return e;
}

LogicalResult checkBase(ArrayRef<double> base, int64_t n, bool binary,
                        std::string &why) {
  if (base.empty() || int64_t(base.size()) == n || (binary && base.size() == 1))
    return success();
  why = "base_values has " + str(base.size()) + " values for " + str(n) +
        (binary ? " classes" : " targets");
  return failure();
}

} // namespace

void Ensemble::reachable(int64_t root, SmallVectorImpl<int64_t> &nodes,
                         SmallVectorImpl<int64_t> &leaves) const {
  llvm::DenseSet<int64_t> seen;
  SmallVector<int64_t> stack{root};
  while (!stack.empty()) {
    int64_t code = stack.pop_back_val();
    if (!seen.insert(code).second)
      continue;
    if (code < 0) {
      leaves.push_back(leafCode(code));
      continue;
    }
    nodes.push_back(code);
    stack.push_back(no[code]);
    stack.push_back(yes[code]);
  }
}

FailureOr<Ensemble> trees::readRegressor(ONNXMLTreeEnsembleRegressorOp op,
                                         int64_t targetsHint,
                                         std::string &why) {
  Version3 v;
  v.treeIds = ints(op.getNodesTreeids());
  v.nodeIds = ints(op.getNodesNodeids());
  v.featureIds = ints(op.getNodesFeatureids());
  v.trueIds = ints(op.getNodesTruenodeids());
  v.falseIds = ints(op.getNodesFalsenodeids());
  v.missing = ints(op.getNodesMissingValueTracksTrue());
  v.modes = strings(op.getNodesModes());
  FailureOr<SmallVector<double>> values = floatsOrTensor(
      op.getNodesValues(), op.getNodesValuesAsTensor(), "nodes_values", why);
  FailureOr<SmallVector<double>> weights =
      floatsOrTensor(op.getTargetWeights(), op.getTargetWeightsAsTensor(),
                     "target_weights", why);
  FailureOr<SmallVector<double>> base = floatsOrTensor(
      op.getBaseValues(), op.getBaseValuesAsTensor(), "base_values", why);
  if (failed(values) || failed(weights) || failed(base))
    return failure();
  v.values = *values;
  v.doubleValues = op.getNodesValuesAsTensor().has_value();
  v.votePrefix = "target_";
  v.voteIds = ints(op.getTargetIds());
  v.voteNodeIds = ints(op.getTargetNodeids());
  v.voteTreeIds = ints(op.getTargetTreeids());
  v.voteWeights = *weights;
  int64_t targets = countTargets(op.getNTargets(), targetsHint, v.voteIds);
  FailureOr<Ensemble> e = v.read(targets, why);
  if (failed(e) || failed(checkBase(*base, targets, false, why)))
    return failure();
  e->base = *base;
  std::optional<Aggregate> agg =
      llvm::StringSwitch<std::optional<Aggregate>>(op.getAggregateFunction())
          .Case("AVERAGE", Aggregate::Average)
          .Case("SUM", Aggregate::Sum)
          .Case("MIN", Aggregate::Min)
          .Case("MAX", Aggregate::Max)
          .Default(std::nullopt);
  std::optional<PostTransform> post =
      llvm::StringSwitch<std::optional<PostTransform>>(op.getPostTransform())
          .Case("NONE", PostTransform::None)
          .Case("SOFTMAX", PostTransform::Softmax)
          .Case("LOGISTIC", PostTransform::Logistic)
          .Case("SOFTMAX_ZERO", PostTransform::SoftmaxZero)
          .Case("PROBIT", PostTransform::Probit)
          .Default(std::nullopt);
  if (!agg || !post) {
    why = !agg ? "unknown aggregate_function '" +
                     op.getAggregateFunction().str() + "'"
               : "unknown post_transform '" + op.getPostTransform().str() + "'";
    return failure();
  }
  e->aggregate = *agg;
  e->post = *post;
  return e;
}

FailureOr<Ensemble> trees::readClassifier(ONNXMLTreeEnsembleClassifierOp op,
                                          ClassifierInfo &info,
                                          std::string &why) {
  info.intLabels = ints(op.getClasslabelsInt64s());
  for (StringRef s : strings(op.getClasslabelsStrings()))
    info.stringLabels.push_back(s.str());
  if (info.intLabels.empty() == info.stringLabels.empty()) {
    why = "needs one of classlabels_int64s and classlabels_strings";
    return failure();
  }
  int64_t classes =
      int64_t(std::max(info.intLabels.size(), info.stringLabels.size()));
  if (classes < 2) {
    why = "has one class label; at least two are needed";
    return failure();
  }
  Version3 v;
  v.treeIds = ints(op.getNodesTreeids());
  v.nodeIds = ints(op.getNodesNodeids());
  v.featureIds = ints(op.getNodesFeatureids());
  v.trueIds = ints(op.getNodesTruenodeids());
  v.falseIds = ints(op.getNodesFalsenodeids());
  v.missing = ints(op.getNodesMissingValueTracksTrue());
  v.modes = strings(op.getNodesModes());
  FailureOr<SmallVector<double>> values = floatsOrTensor(
      op.getNodesValues(), op.getNodesValuesAsTensor(), "nodes_values", why);
  FailureOr<SmallVector<double>> weights = floatsOrTensor(
      op.getClassWeights(), op.getClassWeightsAsTensor(), "class_weights", why);
  FailureOr<SmallVector<double>> base = floatsOrTensor(
      op.getBaseValues(), op.getBaseValuesAsTensor(), "base_values", why);
  if (failed(values) || failed(weights) || failed(base))
    return failure();
  v.values = *values;
  v.doubleValues = op.getNodesValuesAsTensor().has_value();
  v.votePrefix = "class_";
  v.voteIds = ints(op.getClassIds());
  v.voteNodeIds = ints(op.getClassNodeids());
  v.voteTreeIds = ints(op.getClassTreeids());
  v.voteWeights = *weights;
  FailureOr<Ensemble> e = v.read(classes, why);
  if (failed(e))
    return failure();
  llvm::DenseSet<int64_t> ids(v.voteIds.begin(), v.voteIds.end());
  info.binary = classes == 2 && ids.size() == 1;
  info.weightsPositive =
      llvm::all_of(v.voteWeights, [](double w) { return !(w < 0); });
  if (failed(checkBase(*base, classes, classes == 2, why)))
    return failure();
  e->base = *base;
  // Two classes, votes for both, one base value: class 0's (ONNX Runtime).
  if (!info.binary && e->base.size() == 1)
    e->base.push_back(0.0);
  std::optional<PostTransform> post =
      llvm::StringSwitch<std::optional<PostTransform>>(op.getPostTransform())
          .Case("NONE", PostTransform::None)
          .Case("SOFTMAX", PostTransform::Softmax)
          .Case("LOGISTIC", PostTransform::Logistic)
          .Case("SOFTMAX_ZERO", PostTransform::SoftmaxZero)
          .Case("PROBIT", PostTransform::Probit)
          .Default(std::nullopt);
  if (!post) {
    why = "unknown post_transform '" + op.getPostTransform().str() + "'";
    return failure();
  }
  e->post = *post;
  return e;
}

FailureOr<Ensemble> trees::readTreeEnsemble(ONNXMLTreeEnsembleOp op,
                                            int64_t targetsHint,
                                            std::string &why) {
  SmallVector<int64_t> featureIds = ints(op.getNodesFeatureids());
  SmallVector<int64_t> trueIds = ints(op.getNodesTruenodeids());
  SmallVector<int64_t> falseIds = ints(op.getNodesFalsenodeids());
  SmallVector<int64_t> trueLeafs = ints(op.getNodesTrueleafs());
  SmallVector<int64_t> falseLeafs = ints(op.getNodesFalseleafs());
  SmallVector<int64_t> missing = ints(op.getNodesMissingValueTracksTrue());
  SmallVector<int64_t> leafTargets = ints(op.getLeafTargetids());
  SmallVector<int64_t> roots = ints(op.getTreeRoots());
  FailureOr<SmallVector<double>> splits =
      elementsAsDoubles(op.getNodesSplits());
  FailureOr<SmallVector<double>> modes = elementsAsDoubles(op.getNodesModes());
  FailureOr<SmallVector<double>> weights =
      elementsAsDoubles(op.getLeafWeights());
  FailureOr<SmallVector<double>> members = SmallVector<double>();
  if (std::optional<ElementsAttr> m = op.getMembershipValues())
    members = elementsAsDoubles(*m);
  if (failed(splits) || failed(modes) || failed(weights) || failed(members)) {
    why = "nodes_splits, nodes_modes, leaf_weights and membership_values must "
          "be tensors of numbers";
    return failure();
  }
  size_t m = featureIds.size();
  auto sameLength = [&](size_t n, StringRef name) {
    if (n == m)
      return true;
    why = (name + " has " + str(n) + " entries, nodes_featureids " + str(m))
              .str();
    return false;
  };
  if (!sameLength(splits->size(), "nodes_splits") ||
      !sameLength(modes->size(), "nodes_modes") ||
      !sameLength(trueIds.size(), "nodes_truenodeids") ||
      !sameLength(falseIds.size(), "nodes_falsenodeids") ||
      !sameLength(trueLeafs.size(), "nodes_trueleafs") ||
      !sameLength(falseLeafs.size(), "nodes_falseleafs") ||
      (!missing.empty() &&
       !sameLength(missing.size(), "nodes_missing_value_tracks_true")))
    return failure();
  size_t leaves = leafTargets.size();
  if (weights->size() != leaves) {
    why = "leaf_weights has " + str(weights->size()) +
          " entries, leaf_targetids " + str(leaves);
    return failure();
  }
  Ensemble e;
  e.targets = countTargets(op.getNTargets(), targetsHint, leafTargets);
  if (e.targets <= 0) {
    why = "there are no targets";
    return failure();
  }
  e.doubleSplits =
      cast<ElementsAttr>(op.getNodesSplits()).getElementType().isF64();
  auto child = [&](size_t i, bool isTrue, int64_t &code) -> LogicalResult {
    int64_t leaf = isTrue ? trueLeafs[i] : falseLeafs[i];
    int64_t id = isTrue ? trueIds[i] : falseIds[i];
    StringRef side = isTrue ? "true" : "false";
    if (leaf != 0 && leaf != 1) {
      why = ("nodes_" + side + "leafs[" + str(i) + "] is " + str(leaf) +
             ", not 0 or 1")
                .str();
      return failure();
    }
    size_t bound = leaf ? leaves : m;
    if (id < 0 || size_t(id) >= bound) {
      why = ("node " + str(i) + ": its " + side + " child, " +
             (leaf ? "leaf " : "node ") + str(id) + ", is out of range [0, " +
             str(bound) + ")")
                .str();
      return failure();
    }
    code = leaf ? leafCode(id) : id;
    return success();
  };
  // The sets of the Member nodes, in node order, each ended by a NaN.
  SmallVector<SmallVector<double>> sets(1);
  for (double v : *members) {
    if (std::isnan(v))
      sets.emplace_back();
    else
      sets.back().push_back(v);
  }
  if (sets.back().empty())
    sets.pop_back();
  size_t nextSet = 0;
  for (size_t i = 0; i < m; ++i) {
    double mode = (*modes)[i];
    if (!(mode >= 0 && mode <= 6) || mode != std::floor(mode)) {
      why = "nodes_modes[" + str(i) + "] is " + std::to_string(mode) +
            ", not a mode (0 to 6)";
      return failure();
    }
    if (featureIds[i] < 0) {
      why = "node " + str(i) + " reads feature " + str(featureIds[i]);
      return failure();
    }
    int64_t yes, no;
    if (failed(child(i, true, yes)) || failed(child(i, false, no)))
      return failure();
    e.feature.push_back(featureIds[i]);
    e.split.push_back((*splits)[i]);
    e.mode.push_back(Mode(int32_t(mode)));
    e.missingTracksTrue.push_back(!missing.empty() && missing[i] == 1);
    e.yes.push_back(yes);
    e.no.push_back(no);
    e.members.emplace_back();
    if (e.mode.back() == Mode::Member) {
      if (nextSet == sets.size()) {
        why = "membership_values has fewer sets than there are "
              "BRANCH_MEMBER nodes";
        return failure();
      }
      e.members.back() = sets[nextSet++];
    }
  }
  if (nextSet != sets.size()) {
    why = "membership_values has " + str(sets.size()) + " sets for " +
          str(nextSet) + " BRANCH_MEMBER nodes";
    return failure();
  }
  for (size_t l = 0; l < leaves; ++l) {
    if (leafTargets[l] < 0 || leafTargets[l] >= e.targets) {
      why = "leaf " + str(l) + " votes for target " + str(leafTargets[l]) +
            ", out of range [0, " + str(e.targets) + ")";
      return failure();
    }
    e.weightTarget.push_back(leafTargets[l]);
    e.weightValue.push_back((*weights)[l]);
    e.leafBegin.push_back(int64_t(l) + 1);
  }
  for (int64_t root : roots) {
    if (root < 0 || size_t(root) >= m) {
      why = "tree_roots names node " + str(root) + ", out of range [0, " +
            str(m) + ")";
      return failure();
    }
    // A tree that is one leaf: a root whose two branches are that leaf.
    bool single =
        trueLeafs[root] && falseLeafs[root] && trueIds[root] == falseIds[root];
    e.roots.push_back(single ? e.yes[root] : root);
  }
  if (failed(checkAcyclic(
          e, [](int64_t n) { return "node " + str(n); }, why)))
    return failure();
  int64_t agg = int64_t(op.getAggregateFunction());
  int64_t post = int64_t(op.getPostTransform());
  if (agg < 0 || agg > 3 || post < 0 || post > 4) {
    why = agg < 0 || agg > 3
              ? "aggregate_function " + str(agg) + " is not 0 to 3"
              : "post_transform " + str(post) + " is not 0 to 4";
    return failure();
  }
  e.aggregate = Aggregate(agg);
  e.post = PostTransform(post);
  return e;
}
