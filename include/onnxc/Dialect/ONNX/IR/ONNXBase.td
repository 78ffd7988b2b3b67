//===- ONNXBase.td - The onnx dialect, its types and op base ---*- tablegen -*-===//
//
// Hand-written part of the `onnx` dialect: the dialect itself, the types for
// ONNX sequences, optionals, maps and strings, type constraints over them, and
// the base class of every ONNX operator.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNX_IR_ONNXBASE_TD
#define ONNXC_DIALECT_ONNX_IR_ONNXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::mlir::onnxc";
  let summary = "One operation per ONNX operator";
  let description = [{
    The `onnx` dialect models ONNX graphs: one op per operator of the ONNX
    schema registry (ai.onnx, ai.onnx.ml, ai.onnx.preview.training), each op
    modelling the newest version of its operator that onnxc knows. Tensors
    are builtin tensor types; ONNX sequences, optionals and maps have types of
    their own. Subgraph attributes (If, Loop, Scan, ...) are regions ending in
    `onnx.Yield`.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class ONNX_TypeDef<string name, string typeMnemonic> : TypeDef<ONNX_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def ONNX_String : ONNX_TypeDef<"String", "string"> {
  let summary = "ONNX string (element type of string tensors)";
}

def ONNX_Seq : ONNX_TypeDef<"Seq", "seq"> {
  let summary = "ONNX sequence";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def ONNX_Opt : ONNX_TypeDef<"Opt", "opt"> {
  let summary = "ONNX optional";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def ONNX_Map : ONNX_TypeDef<"Map", "map"> {
  let summary = "ONNX map";
  let parameters = (ins "::mlir::Type":$keyType, "::mlir::Type":$valueType);
  let assemblyFormat = "`<` $keyType `,` $valueType `>`";
}

class ONNX_SeqOf<list<Type> allowed>
    : Type<And<[CPred<"::llvm::isa<::mlir::onnxc::SeqType>($_self)">,
                SubstLeaves<"$_self",
                            "::llvm::cast<::mlir::onnxc::SeqType>($_self).getElementType()",
                            AnyTypeOf<allowed>.predicate>]>,
           "sequence of " # AnyTypeOf<allowed>.summary, "::mlir::onnxc::SeqType">;

class ONNX_OptOf<list<Type> allowed>
    : Type<And<[CPred<"::llvm::isa<::mlir::onnxc::OptType>($_self)">,
                SubstLeaves<"$_self",
                            "::llvm::cast<::mlir::onnxc::OptType>($_self).getElementType()",
                            AnyTypeOf<allowed>.predicate>]>,
           "optional of " # AnyTypeOf<allowed>.summary, "::mlir::onnxc::OptType">;

class ONNX_MapOf<list<Type> keys, list<Type> values>
    : Type<And<[CPred<"::llvm::isa<::mlir::onnxc::MapType>($_self)">,
                SubstLeaves<"$_self",
                            "::llvm::cast<::mlir::onnxc::MapType>($_self).getKeyType()",
                            AnyTypeOf<keys>.predicate>,
                SubstLeaves<"$_self",
                            "::llvm::cast<::mlir::onnxc::MapType>($_self).getValueType()",
                            AnyTypeOf<values>.predicate>]>,
           "map", "::mlir::onnxc::MapType">;

//===----------------------------------------------------------------------===//
// Op base
//===----------------------------------------------------------------------===//

// Checks what ODS cannot express per operand: that operands and results
// sharing an ONNX type variable (e.g. `T` of Add) have the same type.
def ONNX_OpTrait : NativeOpTrait<"ONNXOpTrait"> {
  let cppNamespace = "::mlir::onnxc";
}

// `version` is the operator version (since_version) this op models.
class ONNX_Op<string mnemonic, int version, list<Trait> traits = []>
    : Op<ONNX_Dialect, mnemonic, !listconcat(traits, [ONNX_OpTrait])> {
  int sinceVersion = version;
}

#endif // ONNXC_DIALECT_ONNX_IR_ONNXBASE_TD
