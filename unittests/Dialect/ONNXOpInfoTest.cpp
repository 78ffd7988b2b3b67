//===- ONNXOpInfoTest.cpp - Schema metadata of the onnx ops ---------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

TEST(ONNXOpInfoTest, LookupByDomainAndOpType) {
  const ONNXOpInfo *add = lookupONNXOpInfo("", "Add");
  ASSERT_TRUE(add);
  EXPECT_STREQ(add->mnemonic, "Add");
  EXPECT_STREQ(add->onnxName, "Add");
  EXPECT_STREQ(add->domain, "");
  EXPECT_EQ(add->sinceVersion, 14);
  // "ai.onnx" is another name of the default domain.
  EXPECT_EQ(lookupONNXOpInfo("ai.onnx", "Add"), add);
  EXPECT_EQ(lookupONNXOpInfo("onnx.Add"), add);

  const ONNXOpInfo *encoder = lookupONNXOpInfo("ai.onnx.ml", "LabelEncoder");
  ASSERT_TRUE(encoder);
  EXPECT_STREQ(encoder->mnemonic, "ml.LabelEncoder");
  EXPECT_STREQ(encoder->domain, "ai.onnx.ml");
  EXPECT_EQ(encoder->sinceVersion, 4); // ML_VERSIONS: LabelEncoder-4
  EXPECT_EQ(lookupONNXOpInfo("onnx.ml.LabelEncoder"), encoder);

  const ONNXOpInfo *adam = lookupONNXOpInfo("ai.onnx.preview.training", "Adam");
  ASSERT_TRUE(adam);
  EXPECT_STREQ(adam->mnemonic, "preview.training.Adam");
  EXPECT_EQ(lookupONNXOpInfo("onnx.preview.training.Adam"), adam);
}

TEST(ONNXOpInfoTest, LookupMisses) {
  EXPECT_FALSE(lookupONNXOpInfo("", "NoSuchOp"));
  // Case matters, as in ONNX.
  EXPECT_FALSE(lookupONNXOpInfo("", "add"));
  // The op type exists, but in another domain.
  EXPECT_FALSE(lookupONNXOpInfo("com.example", "Add"));
  EXPECT_FALSE(lookupONNXOpInfo("ai.onnx.ml", "Add"));
  EXPECT_FALSE(lookupONNXOpInfo("", "LabelEncoder"));
  // Operation names need the dialect prefix; onnx.Yield is not an ONNX op.
  EXPECT_FALSE(lookupONNXOpInfo("Add"));
  EXPECT_FALSE(lookupONNXOpInfo("onnx.Yield"));
}

TEST(ONNXOpInfoTest, EveryInfoIsARegisteredOp) {
  DialectRegistry registry;
  registry.insert<ONNXDialect, func::FuncDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  ArrayRef<ONNXOpInfo> infos = getAllONNXOpInfos();
  // ONNX 1.12's registry has 200 operators; hand-written ones may follow.
  EXPECT_GE(infos.size(), 200u);
  std::set<std::string> names;
  for (const ONNXOpInfo &info : infos) {
    std::string name = std::string("onnx.") + info.mnemonic;
    SCOPED_TRACE(name);
    EXPECT_TRUE(names.insert(name).second) << "duplicate";
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(name, &ctx);
    ASSERT_TRUE(op.has_value());
    EXPECT_EQ(lookupONNXOpInfo(info.domain, info.onnxName), &info);
    // Ops with several optional/variadic operands need segment sizes.
    auto countNonSingle = [](ArrayRef<ONNXParamInfo> params) {
      return llvm::count_if(params, [](const ONNXParamInfo &p) {
        return p.getOption() != ONNXParamOption::Single;
      });
    };
    EXPECT_EQ(info.attrSizedOperands, countNonSingle(info.inputs) > 1);
    EXPECT_EQ(info.attrSizedResults, countNonSingle(info.outputs) > 1);
  }
}

TEST(ONNXOpInfoTest, ParamsAndAttrs) {
  const ONNXOpInfo *clip = lookupONNXOpInfo("", "Clip");
  ASSERT_TRUE(clip);
  ASSERT_EQ(clip->inputs.size(), 3u);
  EXPECT_STREQ(clip->inputs[0].name, "input");
  EXPECT_EQ(clip->inputs[0].getOption(), ONNXParamOption::Single);
  EXPECT_STREQ(clip->inputs[1].name, "min");
  EXPECT_EQ(clip->inputs[1].getOption(), ONNXParamOption::Optional);
  EXPECT_STREQ(clip->inputs[1].typeVar, "T");
  EXPECT_TRUE(clip->attrSizedOperands);
  EXPECT_FALSE(clip->attrSizedResults);

  const ONNXOpInfo *loop = lookupONNXOpInfo("", "Loop");
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->inputs[2].getOption(), ONNXParamOption::Variadic);
  EXPECT_FALSE(loop->inputs[2].homogeneous);
  EXPECT_EQ(loop->getRegionNames(), SmallVector<StringRef>{"body"});

  const ONNXOpInfo *ifOp = lookupONNXOpInfo("", "If");
  ASSERT_TRUE(ifOp);
  EXPECT_EQ(ifOp->getRegionNames(),
            (SmallVector<StringRef>{"else_branch", "then_branch"}));
  const ONNXAttrInfo *thenBranch = ifOp->findAttr("then_branch");
  ASSERT_TRUE(thenBranch);
  EXPECT_TRUE(thenBranch->isGraph());
  EXPECT_TRUE(thenBranch->required);

  const ONNXOpInfo *conv = lookupONNXOpInfo("", "Conv");
  ASSERT_TRUE(conv);
  EXPECT_TRUE(conv->getRegionNames().empty());
  const ONNXAttrInfo *group = conv->findAttr("group");
  ASSERT_TRUE(group);
  EXPECT_EQ(group->type, 2); // INT
  EXPECT_FALSE(group->required);
  const ONNXAttrInfo *kernel = conv->findAttr("kernel_shape");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->type, 7); // INTS
  EXPECT_FALSE(conv->findAttr("axis"));

  const ONNXAttrInfo *size = lookupONNXOpInfo("", "LRN")->findAttr("size");
  ASSERT_TRUE(size);
  EXPECT_TRUE(size->required);
}

TEST(ONNXOpInfoTest, ODSAttrNames) {
  DialectRegistry registry;
  registry.insert<ONNXDialect, func::FuncDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // Optional's ONNX attribute `type` clashes with Op::getType().
  EXPECT_EQ(getODSAttrName(OperationName("onnx.Optional", &ctx), "type"),
            "type_");
  EXPECT_EQ(getODSAttrName(OperationName("onnx.Cast", &ctx), "to"), "to");
  EXPECT_EQ(getODSAttrName(OperationName("onnx.Conv", &ctx), "group"),
            "group");
  // Names the op does not know stay as they are.
  EXPECT_EQ(getODSAttrName(OperationName("onnx.Cast", &ctx), "type"), "type");
  EXPECT_EQ(getODSAttrName(OperationName("onnx.Unknown", &ctx), "x"), "x");
}

//===----------------------------------------------------------------------===//
// Input and output groups
//===----------------------------------------------------------------------===//

class ONNXGroupsTest : public ::testing::Test {
protected:
  ONNXGroupsTest() : ctx(makeRegistry()) { ctx.loadAllAvailableDialects(); }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<ONNXDialect, func::FuncDialect>();
    return registry;
  }

  /// Parses `body` as the body of a function with arguments %a..%e and
  /// returns its first op.
  Operation *parse(StringRef args, StringRef body) {
    std::string source = ("func.func @f(" + args + ") {\n" + body +
                          "\n  return\n}")
                             .str();
    module = parseSourceString<ModuleOp>(source, &ctx);
    if (!module)
      return nullptr;
    auto func = cast<func::FuncOp>(module->getBody()->front());
    return &func.getBody().front().front();
  }

  /// The argument numbers bound to each group, e.g. {{0}, {}, {1}}.
  static SmallVector<SmallVector<int>>
  argNumbers(ArrayRef<SmallVector<Value, 1>> groups) {
    SmallVector<SmallVector<int>> result;
    for (const auto &group : groups) {
      SmallVector<int> &numbers = result.emplace_back();
      for (Value v : group)
        numbers.push_back(cast<BlockArgument>(v).getArgNumber());
    }
    return result;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

using Groups = SmallVector<SmallVector<int>>;

TEST_F(ONNXGroupsTest, SegmentSizesPlaceOptionalOperands) {
  Operation *op = parse(
      "%a: tensor<4xf32>, %b: tensor<f32>",
      R"("onnx.Clip"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 1>}>
            : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>)");
  ASSERT_TRUE(op);
  const ONNXOpInfo *info = lookupONNXOpInfo(op->getName().getStringRef());
  ASSERT_TRUE(info);
  EXPECT_EQ(argNumbers(getONNXInputGroups(op, *info)),
            (Groups{{0}, {}, {1}}));
  EXPECT_EQ(getONNXOutputGroups(op, *info).size(), 1u);
}

TEST_F(ONNXGroupsTest, AllOptionalsAbsent) {
  Operation *op = parse(
      "%a: tensor<4xf32>",
      R"("onnx.Clip"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0>}>
            : (tensor<4xf32>) -> tensor<4xf32>)");
  ASSERT_TRUE(op);
  const ONNXOpInfo *info = lookupONNXOpInfo("", "Clip");
  EXPECT_EQ(argNumbers(getONNXInputGroups(op, *info)), (Groups{{0}, {}, {}}));
}

TEST_F(ONNXGroupsTest, SingleOptionalWithoutSegments) {
  // SequenceInsert's only optional operand, `position`, needs no segments:
  // it is there when there are three operands.
  const ONNXOpInfo *info = lookupONNXOpInfo("", "SequenceInsert");
  ASSERT_TRUE(info);
  ASSERT_FALSE(info->attrSizedOperands);
  StringRef args =
      "%a: !onnx.seq<tensor<2xf32>>, %b: tensor<2xf32>, %c: tensor<i64>";
  Operation *with = parse(
      args, R"(%0 = "onnx.SequenceInsert"(%a, %b, %c)
        : (!onnx.seq<tensor<2xf32>>, tensor<2xf32>, tensor<i64>)
          -> !onnx.seq<tensor<2xf32>>)");
  ASSERT_TRUE(with);
  EXPECT_EQ(argNumbers(getONNXInputGroups(with, *info)),
            (Groups{{0}, {1}, {2}}));
  Operation *without = parse(
      args, R"(%0 = "onnx.SequenceInsert"(%a, %b)
        : (!onnx.seq<tensor<2xf32>>, tensor<2xf32>) -> !onnx.seq<tensor<2xf32>>)");
  ASSERT_TRUE(without);
  EXPECT_EQ(argNumbers(getONNXInputGroups(without, *info)),
            (Groups{{0}, {1}, {}}));
}

TEST_F(ONNXGroupsTest, VariadicTakesTheRest) {
  Operation *op = parse(
      "%a: tensor<2xf32>, %b: tensor<2xf32>, %c: tensor<2xf32>",
      R"(%0 = "onnx.Sum"(%a, %b, %c)
        : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>)");
  ASSERT_TRUE(op);
  const ONNXOpInfo *info = lookupONNXOpInfo("", "Sum");
  EXPECT_EQ(argNumbers(getONNXInputGroups(op, *info)), (Groups{{0, 1, 2}}));

  // Adam: two fixed inputs, then the variadic group.
  Operation *adam = parse(
      "%a: tensor<f32>, %b: tensor<i64>, %c: tensor<3xf32>, %d: tensor<3xf32>",
      R"(%0:2 = "onnx.preview.training.Adam"(%a, %b, %c, %d)
        : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<3xf32>)
          -> (tensor<3xf32>, tensor<3xf32>))");
  ASSERT_TRUE(adam);
  const ONNXOpInfo *adamInfo = lookupONNXOpInfo("onnx.preview.training.Adam");
  EXPECT_EQ(argNumbers(getONNXInputGroups(adam, *adamInfo)),
            (Groups{{0}, {1}, {2, 3}}));
  auto outputs = getONNXOutputGroups(adam, *adamInfo);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].size(), 2u);
}

TEST_F(ONNXGroupsTest, OptionalAndVariadicOperandsWithSegments) {
  // Loop: M present, cond absent, two loop-carried values.
  Operation *op = parse(
      "%a: tensor<i64>, %b: tensor<2xf32>, %c: tensor<i64>",
      R"(%0:2 = "onnx.Loop"(%a, %b, %c)
          <{operandSegmentSizes = array<i32: 1, 0, 2>}> ({
        ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %x: tensor<2xf32>, %y: tensor<i64>):
          onnx.Yield %cond, %x, %y : tensor<i1>, tensor<2xf32>, tensor<i64>
        }) : (tensor<i64>, tensor<2xf32>, tensor<i64>) -> (tensor<2xf32>, tensor<i64>))");
  ASSERT_TRUE(op);
  const ONNXOpInfo *info = lookupONNXOpInfo("", "Loop");
  EXPECT_EQ(argNumbers(getONNXInputGroups(op, *info)),
            (Groups{{0}, {}, {1, 2}}));
}

TEST_F(ONNXGroupsTest, OptionalResultsWithSegments) {
  // LSTM producing Y and Y_c but not Y_h.
  Operation *op = parse(
      "%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>",
      R"(%0:2 = "onnx.LSTM"(%x, %w, %r) <{hidden_size = 4 : i64,
            operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>,
            resultSegmentSizes = array<i32: 1, 0, 1>}>
          : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>)
            -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>))");
  ASSERT_TRUE(op);
  const ONNXOpInfo *info = lookupONNXOpInfo("", "LSTM");
  auto outputs = getONNXOutputGroups(op, *info);
  ASSERT_EQ(outputs.size(), 3u);
  ASSERT_EQ(outputs[0].size(), 1u);
  EXPECT_EQ(outputs[0][0], op->getResult(0));
  EXPECT_TRUE(outputs[1].empty());
  ASSERT_EQ(outputs[2].size(), 1u);
  EXPECT_EQ(outputs[2][0], op->getResult(1));
  EXPECT_EQ(argNumbers(getONNXInputGroups(op, *info)),
            (Groups{{0}, {1}, {2}, {}, {}, {}, {}, {}}));
}

} // namespace
