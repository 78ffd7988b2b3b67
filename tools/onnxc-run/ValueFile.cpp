//===- ValueFile.cpp - Tensor, sequence and optional files ----------------===//

#include "ValueFile.h"

#include "TensorFile.h"

#include <onnx/onnx-data_pb.h>

#include <cstring>
#include <fstream>

namespace onnxc::runner {

static bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Parses `bytes` as `proto`, which must use every field it holds: a message
/// of another type usually leaves fields it does not know.
template <typename Proto>
static bool parseExactly(const std::string &bytes, Proto &proto) {
  return proto.ParseFromString(bytes) && proto.unknown_fields().empty();
}

/// What the file seems to hold, for the message about a file of the wrong
/// kind: "a TensorProto", "a SequenceProto" (several tensors) or "a
/// SequenceProto or OptionalProto" (their encodings coincide), or "".
static std::string guessContents(const std::string &bytes) {
  onnx::TensorProto tensor;
  if (parseExactly(bytes, tensor) && tensor.data_type() != 0 &&
      !tensor.has_segment())
    return "a TensorProto";
  onnx::SequenceProto sequence;
  if (parseExactly(bytes, sequence))
    return sequence.tensor_values_size() > 1
               ? "a SequenceProto"
               : "a SequenceProto or OptionalProto";
  return "";
}

/// "X: seq(float32[?,3]) needs an onnx.SequenceProto; this file holds a
/// TensorProto".
static std::string wrongKind(const ValueInfo &info, const std::string &needs,
                             const std::string &bytes) {
  std::string holds = guessContents(bytes);
  return info.describe() + " needs " + needs + "; this file " +
         (holds.empty() ? "is not one" : "holds " + holds);
}

static const char *protoTypeName(int elemType) {
  // SequenceProto.DataType and OptionalProto.DataType number them alike.
  switch (elemType) {
  case onnx::SequenceProto::TENSOR:
    return "tensors";
  case onnx::SequenceProto::SPARSE_TENSOR:
    return "sparse tensors";
  case onnx::SequenceProto::SEQUENCE:
    return "sequences";
  case onnx::SequenceProto::MAP:
    return "maps";
  case onnx::SequenceProto::OPTIONAL:
    return "optionals";
  default:
    return "elements of an unknown type";
  }
}

/// The sequence of tensors of `proto`; an empty one takes the signature's
/// element type. `error` does not name the file.
static bool sequenceFromProto(const onnx::SequenceProto &proto,
                              const ValueInfo &info, HostValue &value,
                              std::string &error) {
  bool others = proto.sparse_tensor_values_size() ||
                proto.sequence_values_size() || proto.map_values_size() ||
                proto.optional_values_size();
  int elemType = proto.elem_type();
  if (elemType == onnx::SequenceProto::UNDEFINED &&
      proto.tensor_values_size() == 0 && !others)
    elemType = onnx::SequenceProto::TENSOR; // an empty sequence
  if (elemType != onnx::SequenceProto::TENSOR || others) {
    error = std::string("a sequence of ") + protoTypeName(elemType) +
            " (onnxc-run reads sequences of tensors)";
    return false;
  }
  std::vector<HostTensor> items;
  for (int i = 0; i < proto.tensor_values_size(); ++i) {
    HostTensor t;
    std::string problem;
    if (!tensorFromProto(proto.tensor_values(i), t, problem)) {
      error = "item " + std::to_string(i) + ": " + problem;
      return false;
    }
    if (i > 0 && t.dtype() != items[0].dtype()) {
      error = "item " + std::to_string(i) + " is " + dtypeName(t.dtype()) +
              ", item 0 " + dtypeName(items[0].dtype()) +
              " (the tensors of a sequence share one element type)";
      return false;
    }
    items.push_back(std::move(t));
  }
  int32_t dtype = items.empty() ? info.dtype : items[0].dtype();
  value = HostValue::ofSequence(dtype, std::move(items));
  return true;
}

bool readValueFile(const std::string &path, const ValueInfo &info,
                   HostValue &value, std::string &error) {
  bool npy = endsWith(path, ".npy");
  if (info.type == ONNXC_TYPE_TENSOR ||
      (npy && info.type == ONNXC_TYPE_OPTIONAL_TENSOR)) {
    HostTensor t;
    std::string name;
    if (!readTensorFile(path, t, name, error)) {
      // A sequence or an optional where a tensor belongs: say so.
      std::string bytes, ignored;
      if (!npy && readFile(path, bytes, ignored) &&
          guessContents(bytes).rfind("a SequenceProto", 0) == 0)
        error = path + ": " +
                wrongKind(info, "an onnx.TensorProto or .npy file", bytes);
      return false;
    }
    value = HostValue::ofTensor(std::move(t));
    if (info.isOptional())
      value = HostValue::some(std::move(value));
    return true;
  }
  const char *needs = info.type == ONNXC_TYPE_SEQUENCE ? "an onnx.SequenceProto"
                      : info.type == ONNXC_TYPE_OPTIONAL_TENSOR
                          ? "an onnx.OptionalProto or .npy file"
                          : "an onnx.OptionalProto";
  if (npy) {
    error = path + ": " + info.describe() + " needs " + needs +
            "; a .npy file holds a tensor";
    return false;
  }
  std::string bytes;
  if (!readFile(path, bytes, error))
    return false;
  auto fail = [&](const std::string &problem) {
    error = path + ": " + problem;
    return false;
  };

  if (info.type == ONNXC_TYPE_SEQUENCE) {
    onnx::SequenceProto proto;
    if (!parseExactly(bytes, proto))
      return fail(wrongKind(info, needs, bytes));
    std::string problem;
    if (!sequenceFromProto(proto, info, value, problem))
      return fail(problem);
    return true;
  }

  // An optional. A SequenceProto of several tensors parses as an
  // OptionalProto (the repeated field merges into the single one).
  onnx::OptionalProto proto;
  if (!parseExactly(bytes, proto) || guessContents(bytes) == "a SequenceProto")
    return fail(wrongKind(info, needs, bytes));
  bool others = proto.has_sparse_tensor_value() || proto.has_map_value() ||
                proto.has_optional_value();
  int elemType = proto.elem_type();
  std::string holds = info.isSequence() ? "a sequence" : "a tensor";
  switch (elemType) {
  case onnx::OptionalProto::UNDEFINED: // how ONNX writes an empty optional
    if (proto.has_tensor_value() || proto.has_sequence_value() || others)
      return fail("an OptionalProto with a value but elem_type UNDEFINED");
    value = HostValue::none(info.isSequence(), info.dtype);
    return true;
  case onnx::OptionalProto::TENSOR:
  case onnx::OptionalProto::SEQUENCE: {
    bool ofSequence = elemType == onnx::OptionalProto::SEQUENCE;
    if (others)
      return fail("an OptionalProto of a sparse tensor, map or optional "
                  "besides its elem_type's value");
    if (ofSequence != info.isSequence())
      return fail(info.describe() + " needs an optional of " + holds +
                  "; this OptionalProto holds " +
                  (ofSequence ? "a sequence" : "a tensor"));
    if (ofSequence ? !proto.has_sequence_value() : !proto.has_tensor_value()) {
      value = HostValue::none(ofSequence, info.dtype);
      return true;
    }
    HostValue contents;
    std::string problem;
    if (ofSequence) {
      if (!sequenceFromProto(proto.sequence_value(), info, contents, problem))
        return fail(problem);
    } else {
      HostTensor t;
      if (!tensorFromProto(proto.tensor_value(), t, problem))
        return fail(problem);
      contents = HostValue::ofTensor(std::move(t));
    }
    value = HostValue::some(std::move(contents));
    return true;
  }
  default:
    return fail(std::string("an optional of ") + protoTypeName(elemType) +
                " (onnxc-run reads optional tensors and sequences)");
  }
}

static void sequenceToProto(const HostValue &value,
                            onnx::SequenceProto &proto) {
  proto.set_elem_type(onnx::SequenceProto::TENSOR);
  for (const HostTensor &t : value.items())
    tensorToProto(t, *proto.add_tensor_values());
}

bool writeValueFile(const std::string &path, const std::string &name,
                    const HostValue &value, std::string &error) {
  if (value.kind() == ONNXC_KIND_TENSOR)
    return writeTensorProto(path, name, value.tensor(), error);
  onnx::SequenceProto sequence;
  onnx::OptionalProto optional;
  google::protobuf::Message *proto = &sequence;
  if (value.isOptional()) {
    proto = &optional;
    optional.set_name(name);
    if (!value.hasValue()) {
      optional.set_elem_type(onnx::OptionalProto::UNDEFINED);
    } else if (value.holdsSequence()) {
      optional.set_elem_type(onnx::OptionalProto::SEQUENCE);
      sequenceToProto(value, *optional.mutable_sequence_value());
    } else {
      optional.set_elem_type(onnx::OptionalProto::TENSOR);
      tensorToProto(value.tensor(), *optional.mutable_tensor_value());
    }
  } else {
    sequence.set_name(name);
    sequenceToProto(value, sequence);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = path + ": cannot create file: " + std::strerror(errno);
    return false;
  }
  if (!proto->SerializeToOstream(&out) || !out.flush()) {
    error = path + ": write error";
    return false;
  }
  return true;
}

} // namespace onnxc::runner
