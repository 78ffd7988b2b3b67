//===- ValueFile.cpp - Tensor, sequence, optional and map files -----------===//

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

static bool isIntegerKeyType(int keyType) {
  switch (keyType) {
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return true;
  default:
    return false;
  }
}

static bool isKeyType(int keyType) {
  return keyType == onnx::TensorProto::STRING || isIntegerKeyType(keyType);
}

/// Whether a parsed MapProto is likely one (other messages parse as a
/// MapProto too): a key type, keys in its field and as many values.
static bool looksLikeMap(const onnx::MapProto &proto) {
  if (!isKeyType(proto.key_type()))
    return false;
  bool strings = proto.key_type() == onnx::TensorProto::STRING;
  const onnx::SequenceProto &v = proto.values();
  int keys = strings ? proto.string_keys_size() : proto.keys_size();
  int values = v.tensor_values_size() + v.sparse_tensor_values_size() +
               v.sequence_values_size() + v.map_values_size() +
               v.optional_values_size();
  return (strings ? proto.keys_size() : proto.string_keys_size()) == 0 &&
         keys == values;
}

/// What the file seems to hold, for the message about a file of the wrong
/// kind: "a MapProto", "a SequenceProto of maps", "a TensorProto", "a
/// SequenceProto" (several tensors) or "a SequenceProto or OptionalProto"
/// (their encodings coincide), or "".
static std::string guessContents(const std::string &bytes) {
  onnx::MapProto map;
  if (parseExactly(bytes, map) && looksLikeMap(map))
    return "a MapProto";
  onnx::SequenceProto maps;
  if (parseExactly(bytes, maps) &&
      maps.elem_type() == onnx::SequenceProto::MAP && maps.map_values_size())
    return "a SequenceProto of maps";
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

/// The map of `proto`, as ONNX writes it (onnx.helper.make_map,
/// onnx.numpy_helper.from_dict): int64 keys in `keys` or strings in
/// `string_keys`, the values a SequenceProto of as many 0-d tensors. An
/// empty map takes the signature's value type. `error` does not name the
/// file.
static bool mapFromProto(const onnx::MapProto &proto, const ValueInfo &info,
                         HostMap &map, std::string &error) {
  int keyType = proto.key_type();
  bool strings = keyType == onnx::TensorProto::STRING;
  if (!strings && keyType != onnx::TensorProto::INT64) {
    error =
        "a map with " +
        (isIntegerKeyType(keyType) ? dtypeName(keyType) + " keys"
                                   : "key_type " + std::to_string(keyType)) +
        " (onnxc-run reads maps with int64 or string keys)";
    return false;
  }
  if ((strings ? proto.keys_size() : proto.string_keys_size()) != 0) {
    error = std::string("a MapProto with key_type ") +
            (strings ? "string but keys in `keys`"
                     : "int64 but keys in `string_keys`");
    return false;
  }
  int n = strings ? proto.string_keys_size() : proto.keys_size();
  if (strings) {
    std::vector<std::string> keys(proto.string_keys().begin(),
                                  proto.string_keys().end());
    for (int i = 0; i < n; ++i) {
      size_t nul = keys[size_t(i)].find('\0');
      if (nul != std::string::npos) {
        error = "string_keys[" + std::to_string(i) +
                "] has a NUL byte at offset " + std::to_string(nul) +
                " (the C API takes NUL-terminated strings)";
        return false;
      }
    }
    map.keys = HostTensor::ofStrings({n}, std::move(keys));
  } else {
    map.keys = HostTensor(ONNXC_INT64, {n});
    for (int i = 0; i < n; ++i)
      static_cast<int64_t *>(map.keys.data())[i] = proto.keys(i);
  }
  int64_t repeated = KeyIndex(map.keys).duplicate();
  if (repeated >= 0) {
    error = "the key " + map.keyString(repeated) + " appears twice";
    return false;
  }

  const onnx::SequenceProto &values = proto.values();
  int elemType = values.elem_type();
  if (values.sparse_tensor_values_size() || values.sequence_values_size() ||
      values.map_values_size() || values.optional_values_size() ||
      (elemType != onnx::SequenceProto::TENSOR &&
       (elemType != onnx::SequenceProto::UNDEFINED || n > 0))) {
    error = std::string("a map whose values are ") + protoTypeName(elemType) +
            " (onnxc-run reads maps whose values are 0-d tensors)";
    return false;
  }
  if (values.tensor_values_size() != n) {
    int v = values.tensor_values_size();
    error = "a map of " + std::to_string(n) + (n == 1 ? " key" : " keys") +
            " and " + std::to_string(v) + (v == 1 ? " value" : " values") +
            " (ONNX stores one 0-d tensor per key)";
    return false;
  }
  for (int i = 0; i < n; ++i) {
    HostTensor t;
    std::string problem;
    std::string key = "the value of key " + map.keyString(i);
    if (!tensorFromProto(values.tensor_values(i), t, problem)) {
      error = key + ": " + problem;
      return false;
    }
    if (t.numElements() != 1) {
      error = key + " is " + dtypeName(t.dtype()) + shapeString(t.shape()) +
              " (a map's values are 0-d tensors)";
      return false;
    }
    if (i == 0)
      map.values = HostTensor(t.dtype(), {n});
    if (t.dtype() != map.values.dtype()) {
      error = key + " is " + dtypeName(t.dtype()) + ", that of key " +
              map.keyString(0) + " " + dtypeName(map.values.dtype()) +
              " (the values of a map share one element type)";
      return false;
    }
    copyElement(t, 0, map.values, i);
  }
  if (n == 0)
    map.values = HostTensor(info.dtype, {0});
  return true;
}

/// The sequence of maps of `proto` (a SequenceProto of MapProto).
static bool mapsFromProto(const onnx::SequenceProto &proto,
                          const ValueInfo &info, HostValue &value,
                          std::string &error) {
  std::vector<HostMap> maps;
  for (int i = 0; i < proto.map_values_size(); ++i) {
    HostMap m;
    std::string problem, item = "item " + std::to_string(i);
    if (!mapFromProto(proto.map_values(i), info, m, problem)) {
      error = item + ": " + problem;
      return false;
    }
    if (i > 0 && (m.keys.dtype() != maps[0].keys.dtype() ||
                  m.values.dtype() != maps[0].values.dtype())) {
      error = item + " maps " + dtypeName(m.keys.dtype()) + " to " +
              dtypeName(m.values.dtype()) + ", item 0 " +
              dtypeName(maps[0].keys.dtype()) + " to " +
              dtypeName(maps[0].values.dtype()) +
              " (the maps of a sequence share their types)";
      return false;
    }
    maps.push_back(std::move(m));
  }
  int32_t keyDtype = maps.empty() ? info.keyDtype : maps[0].keys.dtype();
  int32_t dtype = maps.empty() ? info.dtype : maps[0].values.dtype();
  value = HostValue::ofSequenceOfMaps(keyDtype, dtype, std::move(maps));
  return true;
}

/// The sequence of tensors, or of maps, of `proto`; an empty one takes the
/// signature's element type. `error` does not name the file.
static bool sequenceFromProto(const onnx::SequenceProto &proto,
                              const ValueInfo &info, HostValue &value,
                              std::string &error) {
  int want =
      info.hasMaps() ? onnx::SequenceProto::MAP : onnx::SequenceProto::TENSOR;
  bool others = proto.sparse_tensor_values_size() ||
                proto.sequence_values_size() || proto.optional_values_size() ||
                (want == onnx::SequenceProto::MAP ? proto.tensor_values_size()
                                                  : proto.map_values_size());
  int elemType = proto.elem_type();
  // An empty sequence: as ONNX's numpy_helper.from_list([]) writes it, of
  // tensors, also for a sequence of maps.
  if ((elemType == onnx::SequenceProto::UNDEFINED ||
       elemType == onnx::SequenceProto::TENSOR) &&
      proto.tensor_values_size() == 0 && proto.map_values_size() == 0 &&
      !others)
    elemType = want;
  if (elemType != want || others) {
    error = std::string("a sequence of ") + protoTypeName(elemType) + " (" +
            info.describe() + " needs a sequence of " + protoTypeName(want) +
            ")";
    return false;
  }
  if (want == onnx::SequenceProto::MAP)
    return mapsFromProto(proto, info, value, error);
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
      std::string bytes, ignored, holds;
      if (!npy && readFile(path, bytes, ignored))
        holds = guessContents(bytes);
      if (holds.rfind("a SequenceProto", 0) == 0 || holds == "a MapProto")
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
                      : info.type == ONNXC_TYPE_SEQUENCE_OF_MAPS
                          ? "an onnx.SequenceProto of maps"
                      : info.type == ONNXC_TYPE_MAP ? "an onnx.MapProto"
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

  if (info.type == ONNXC_TYPE_MAP) {
    onnx::MapProto proto;
    if (!parseExactly(bytes, proto) || !isKeyType(proto.key_type()))
      return fail(wrongKind(info, needs, bytes));
    HostMap map;
    std::string problem;
    if (!mapFromProto(proto, info, map, problem))
      return fail(problem);
    value = HostValue::ofMap(std::move(map));
    return true;
  }

  if (info.isSequence() && !info.isOptional()) {
    // A MapProto of string keys may parse as a SequenceProto, with its key
    // type as elem_type.
    onnx::SequenceProto proto;
    if (!parseExactly(bytes, proto) ||
        proto.elem_type() > onnx::SequenceProto::OPTIONAL)
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

/// A map as ONNX writes it: a 0-d tensor per key (see mapFromProto).
static void mapToProto(const HostMap &map, onnx::MapProto &proto) {
  proto.set_key_type(map.keys.dtype());
  for (int64_t i = 0; i < map.size(); ++i) {
    if (map.keys.isString())
      proto.add_string_keys(map.keys.strings()[size_t(i)]);
    else
      proto.add_keys(static_cast<const int64_t *>(map.keys.data())[i]);
  }
  onnx::SequenceProto &values = *proto.mutable_values();
  values.set_elem_type(onnx::SequenceProto::TENSOR);
  for (int64_t i = 0; i < map.size(); ++i) {
    HostTensor scalar(map.values.dtype(), {});
    copyElement(map.values, i, scalar, 0);
    tensorToProto(scalar, *values.add_tensor_values());
  }
}

static void sequenceToProto(const HostValue &value,
                            onnx::SequenceProto &proto) {
  if (value.holdsMaps()) {
    proto.set_elem_type(onnx::SequenceProto::MAP);
    for (const HostMap &m : value.maps())
      mapToProto(m, *proto.add_map_values());
    return;
  }
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
  onnx::MapProto map;
  google::protobuf::Message *proto = &sequence;
  if (value.kind() == ONNXC_KIND_MAP) {
    proto = &map;
    map.set_name(name);
    mapToProto(value.maps()[0], map);
  } else if (value.isOptional()) {
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
