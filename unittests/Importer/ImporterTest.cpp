//===- ImporterTest.cpp - ONNX ModelProto -> onnx dialect -----------------===//

#include "onnxc/Importer/Importer.h"

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

void setTensorType(onnx::ValueInfoProto &vi, const std::string &name,
                   int32_t elemType, std::vector<int64_t> dims) {
  vi.set_name(name);
  auto *tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elemType);
  auto *shape = tt->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0)
      shape->add_dim()->set_dim_param("N");
    else
      shape->add_dim()->set_dim_value(d);
  }
}

/// Y = Add(X, W) with X: f32[N, 3] and W an initializer of 3 floats.
onnx::ModelProto makeAddModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("onnxc-unittests");
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("add");
  setTensorType(*graph->add_input(), "X", onnx::TensorProto::FLOAT, {-1, 3});
  onnx::TensorProto *w = graph->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  for (float v : {1.0f, 2.0f, 3.0f})
    w->add_float_data(v);
  onnx::NodeProto *node = graph->add_node();
  node->set_name("add0");
  node->set_op_type("Add");
  node->add_input("X");
  node->add_input("W");
  node->add_output("Y");
  // The output's type is left for the importer to infer.
  graph->add_output()->set_name("Y");
  return model;
}

std::string toString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

class ImporterTest : public ::testing::Test {
protected:
  ImporterTest() : ctx(makeRegistry()) {
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &ctx, [this](Diagnostic &diag) {
          diagnostics.push_back(diag.str());
          return success();
        });
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<ONNXDialect, func::FuncDialect>();
    return registry;
  }

  OwningOpRef<ModuleOp> import(StringRef bytes,
                               const ImportOptions &options = {}) {
    diagnostics.clear();
    return importONNXModelBuffer(&ctx, bytes, "test.onnx", ".", options);
  }
  OwningOpRef<ModuleOp> import(const onnx::ModelProto &model,
                               const ImportOptions &options = {}) {
    return import(model.SerializeAsString(), options);
  }

  MLIRContext ctx;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::vector<std::string> diagnostics;
};

TEST_F(ImporterTest, ImportsModelBuiltInCpp) {
  OwningOpRef<ModuleOp> module = import(makeAddModel());
  ASSERT_TRUE(module) << (diagnostics.empty() ? "" : diagnostics[0]);
  EXPECT_TRUE(diagnostics.empty());

  auto opsetAttr = (*module)->getAttrOfType<DictionaryAttr>("onnx.opset_import");
  ASSERT_TRUE(opsetAttr);
  auto aiOnnx = opsetAttr.getAs<IntegerAttr>("ai.onnx");
  ASSERT_TRUE(aiOnnx);
  EXPECT_EQ(aiOnnx.getInt(), 17);
  auto producer = (*module)->getAttrOfType<StringAttr>("onnx.producer_name");
  ASSERT_TRUE(producer);
  EXPECT_EQ(producer.getValue(), "onnxc-unittests");

  auto func = module->lookupSymbol<func::FuncOp>("main_graph");
  ASSERT_TRUE(func);
  EXPECT_EQ(toString(func.getFunctionType()),
            "(tensor<?x3xf32>) -> tensor<?x3xf32>");
  auto argName = func.getArgAttrOfType<StringAttr>(0, "onnx.name");
  ASSERT_TRUE(argName);
  EXPECT_EQ(argName.getValue(), "X");
  auto dimParams = func.getArgAttrOfType<ArrayAttr>(0, "onnx.dim_params");
  ASSERT_TRUE(dimParams);
  ASSERT_EQ(dimParams.size(), 2u);
  EXPECT_EQ(cast<StringAttr>(dimParams[0]).getValue(), "N");
  EXPECT_EQ(cast<StringAttr>(dimParams[1]).getValue(), "");
  auto resultName = func.getResultAttrOfType<StringAttr>(0, "onnx.name");
  ASSERT_TRUE(resultName);
  EXPECT_EQ(resultName.getValue(), "Y");

  // The body: the initializer, the node, the return.
  Block &body = func.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0]->getName().getStringRef(), "onnx.Constant");
  auto value = ops[0]->getAttrOfType<DenseElementsAttr>("value");
  ASSERT_TRUE(value);
  EXPECT_EQ(llvm::to_vector(value.getValues<float>()),
            (SmallVector<float>{1.0f, 2.0f, 3.0f}));
  Operation *add = ops[1];
  EXPECT_EQ(add->getName().getStringRef(), "onnx.Add");
  ASSERT_EQ(add->getNumOperands(), 2u);
  EXPECT_EQ(add->getOperand(0), body.getArgument(0));
  EXPECT_EQ(add->getOperand(1), ops[0]->getResult(0));
  EXPECT_EQ(toString(add->getResult(0).getType()), "tensor<?x3xf32>");
  // Node names become the op's location.
  auto loc = dyn_cast<NameLoc>(add->getLoc());
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc.getName().getValue(), "add0");
  ASSERT_TRUE(isa<func::ReturnOp>(ops[2]));
  EXPECT_EQ(ops[2]->getOperand(0), add->getResult(0));
}

TEST_F(ImporterTest, TypesWithoutONNXShapeInference) {
  // The importer asks each op's schema for the types ONNX's graph inference
  // would have given.
  ImportOptions options;
  options.onnxShapeInference = false;
  OwningOpRef<ModuleOp> module = import(makeAddModel(), options);
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<func::FuncOp>("main_graph");
  ASSERT_TRUE(func);
  EXPECT_EQ(toString(func.getFunctionType()),
            "(tensor<?x3xf32>) -> tensor<?x3xf32>");
}

TEST_F(ImporterTest, EntryNameAndResourceThreshold) {
  ImportOptions options;
  options.entryName = "forward";
  options.resourceThreshold = 12; // W has exactly 12 bytes.
  OwningOpRef<ModuleOp> module = import(makeAddModel(), options);
  ASSERT_TRUE(module);
  EXPECT_FALSE(module->lookupSymbol<func::FuncOp>("main_graph"));
  auto func = module->lookupSymbol<func::FuncOp>("forward");
  ASSERT_TRUE(func);
  Operation &constant = func.getBody().front().front();
  auto value = constant.getAttrOfType<DenseResourceElementsAttr>("value");
  ASSERT_TRUE(value);
  EXPECT_EQ(value.getRawHandle().getKey(), "W");

  options.resourceThreshold = 13;
  module = import(makeAddModel(), options);
  ASSERT_TRUE(module);
  func = module->lookupSymbol<func::FuncOp>("forward");
  EXPECT_TRUE(
      func.getBody().front().front().getAttrOfType<DenseElementsAttr>("value"));
}

TEST_F(ImporterTest, GarbageBytes) {
  // A varint that never ends: no protobuf parser accepts it.
  std::string garbage(64, '\xff');
  EXPECT_FALSE(import(garbage));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0], "not a valid ONNX model: the protobuf is "
                            "truncated or malformed");
}

TEST_F(ImporterTest, TruncatedModel) {
  std::string bytes = makeAddModel().SerializeAsString();
  EXPECT_FALSE(import(StringRef(bytes).take_front(bytes.size() / 2)));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].find("not a valid ONNX model"), std::string::npos)
      << diagnostics[0];
}

TEST_F(ImporterTest, EmptyBufferHasNoGraph) {
  EXPECT_FALSE(import(StringRef()));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0], "not a valid ONNX model: no graph");
}

TEST_F(ImporterTest, ModelWithoutIRVersion) {
  onnx::ModelProto model = makeAddModel();
  model.clear_ir_version();
  EXPECT_FALSE(import(model));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0], "not a valid ONNX model: no ir_version");
}

TEST_F(ImporterTest, UnsupportedOpsInOneDiagnostic) {
  onnx::ModelProto model = makeAddModel();
  auto *opset = model.add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  onnx::GraphProto *graph = model.mutable_graph();
  for (const char *name : {"first", "second"}) {
    onnx::NodeProto *node = graph->add_node();
    node->set_name(name);
    node->set_domain("com.example");
    node->set_op_type("Frobnicate");
    node->add_input("Y");
    node->add_output(std::string(name) + "_out");
  }
  onnx::NodeProto *other = graph->add_node();
  other->set_domain("com.example");
  other->set_op_type("Twiddle");
  other->add_input("first_out");
  other->add_output("Z");

  EXPECT_FALSE(import(model));
  ASSERT_EQ(diagnostics.size(), 1u);
  const std::string &d = diagnostics[0];
  EXPECT_NE(d.find("the model uses 2 operator(s) not supported by onnxc:"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("com.example::Frobnicate-1"), std::string::npos) << d;
  EXPECT_NE(d.find("used by 2 node(s): 'first', 'second'"), std::string::npos)
      << d;
  EXPECT_NE(d.find("com.example::Twiddle-1"), std::string::npos) << d;
  EXPECT_NE(d.find("(unnamed, output 'Z')"), std::string::npos) << d;
}

TEST_F(ImporterTest, UnsupportedOpInSubgraphIsListedWithTheOthers) {
  // If(C) { then: Frobnicate(X) } else { Neg(X) }, then Frobnicate again:
  // the branch's unsupported op must not end the import early.
  onnx::ModelProto model = makeAddModel();
  auto *opset = model.add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  onnx::GraphProto *graph = model.mutable_graph();
  setTensorType(*graph->add_input(), "C", onnx::TensorProto::BOOL, {});
  onnx::NodeProto *ifNode = graph->add_node();
  ifNode->set_name("if");
  ifNode->set_op_type("If");
  ifNode->add_input("C");
  ifNode->add_output("picked");
  auto addBranch = [&](const char *name, const char *opType,
                       const char *domain) {
    onnx::AttributeProto *attr = ifNode->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto *branch = attr->mutable_g();
    branch->set_name(name);
    onnx::NodeProto *node = branch->add_node();
    node->set_name(std::string(name) + "_node");
    node->set_op_type(opType);
    node->set_domain(domain);
    node->add_input("Y");
    node->add_output(std::string(name) + "_out");
    setTensorType(*branch->add_output(), std::string(name) + "_out",
                  onnx::TensorProto::FLOAT, {-1, 3});
  };
  addBranch("then_branch", "Frobnicate", "com.example");
  addBranch("else_branch", "Neg", "");
  onnx::NodeProto *after = graph->add_node();
  after->set_name("after");
  after->set_op_type("Frobnicate");
  after->set_domain("com.example");
  after->add_input("picked");
  after->add_output("Z");

  EXPECT_FALSE(import(model));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].find("com.example::Frobnicate-1 (the onnx dialect "
                                "has no operator of this name), used by 2 "
                                "node(s): 'then_branch_node', 'after'"),
            std::string::npos)
      << diagnostics[0];
}

TEST_F(ImporterTest, MissingFile) {
  diagnostics.clear();
  EXPECT_FALSE(importONNXModelFile(&ctx, "/nonexistent/dir/model.onnx"));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].find("cannot read '/nonexistent/dir/model.onnx'"),
            0u)
      << diagnostics[0];
}

} // namespace
