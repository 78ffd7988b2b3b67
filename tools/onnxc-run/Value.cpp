//===- Value.cpp - Host values (tensors, sequences, optionals, maps) ------===//

#include "Value.h"

#include "Compare.h"
#include "CompiledModel.h"

#include <algorithm>
#include <cstring>

namespace onnxc::runner {

/// Key `i` of a tensor of int64 keys.
static int64_t intKey(const HostTensor &keys, int64_t i) {
  int64_t v;
  std::memcpy(&v, static_cast<const unsigned char *>(keys.data()) + i * 8, 8);
  return v;
}

std::string HostMap::keyString(int64_t i) const {
  return keys.isString() ? quoteString(keys.strings()[size_t(i)], 32)
                         : std::to_string(intKey(keys, i));
}

std::vector<int64_t> HostMap::sortedOrder() const {
  std::vector<int64_t> order(static_cast<size_t>(size()));
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = int64_t(i);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return keys.isString()
               ? keys.strings()[size_t(a)] < keys.strings()[size_t(b)]
               : intKey(keys, a) < intKey(keys, b);
  });
  return order;
}

KeyIndex::KeyIndex(const HostTensor &keys) : strings_(keys.isString()) {
  for (int64_t i = 0, n = keys.numElements(); i < n; ++i) {
    bool added = strings_ ? strs_.emplace(keys.strings()[size_t(i)], i).second
                          : ints_.emplace(intKey(keys, i), i).second;
    if (!added && duplicate_ < 0)
      duplicate_ = i;
  }
}

int64_t KeyIndex::find(const HostTensor &keys, int64_t i) const {
  if (keys.isString() != strings_)
    return -1;
  if (strings_) {
    auto it = strs_.find(keys.strings()[size_t(i)]);
    return it == strs_.end() ? -1 : it->second;
  }
  auto it = ints_.find(intKey(keys, i));
  return it == ints_.end() ? -1 : it->second;
}

HostValue HostValue::ofTensor(HostTensor tensor) {
  HostValue v;
  v.tensor_ = std::move(tensor);
  return v;
}

HostValue HostValue::ofSequence(int32_t dtype, std::vector<HostTensor> items) {
  HostValue v;
  v.kind_ = ONNXC_KIND_SEQUENCE;
  v.sequence_ = true;
  v.dtype_ = dtype;
  v.items_ = std::move(items);
  return v;
}

HostValue HostValue::some(HostValue contents) {
  HostValue v = std::move(contents);
  v.kind_ = ONNXC_KIND_OPTIONAL;
  v.present_ = true;
  return v;
}

HostValue HostValue::ofMap(HostMap map) {
  HostValue v;
  v.kind_ = ONNXC_KIND_MAP;
  v.mapped_ = true;
  v.dtype_ = map.values.dtype();
  v.keyDtype_ = map.keys.dtype();
  v.maps_.push_back(std::move(map));
  return v;
}

HostValue HostValue::ofSequenceOfMaps(int32_t keyDtype, int32_t dtype,
                                      std::vector<HostMap> maps) {
  HostValue v;
  v.kind_ = ONNXC_KIND_SEQUENCE;
  v.sequence_ = v.mapped_ = true;
  v.dtype_ = dtype;
  v.keyDtype_ = keyDtype;
  v.maps_ = std::move(maps);
  return v;
}

HostValue HostValue::none(bool ofSequence, int32_t dtype) {
  HostValue v;
  v.kind_ = ONNXC_KIND_OPTIONAL;
  v.present_ = false;
  v.sequence_ = ofSequence;
  v.dtype_ = dtype;
  if (!ofSequence)
    v.tensor_.reinterpretAs(dtype);
  return v;
}

void HostValue::reinterpretAs(int32_t dtype) {
  dtype_ = dtype;
  tensor_.reinterpretAs(dtype);
  for (HostTensor &t : items_)
    t.reinterpretAs(dtype);
  for (HostMap &m : maps_)
    m.values.reinterpretAs(dtype);
}

std::vector<HostTensor *> HostValue::tensors() {
  std::vector<HostTensor *> all;
  if (!present_)
    return all;
  if (mapped_) {
    for (HostMap &m : maps_) {
      all.push_back(&m.keys);
      all.push_back(&m.values);
    }
    return all;
  }
  if (!sequence_)
    return {&tensor_};
  for (HostTensor &t : items_)
    all.push_back(&t);
  return all;
}

std::vector<const HostTensor *> HostValue::tensors() const {
  std::vector<const HostTensor *> all;
  for (HostTensor *t : const_cast<HostValue *>(this)->tensors())
    all.push_back(t);
  return all;
}

std::vector<std::pair<std::string, const HostTensor *>>
HostValue::labeledTensors() const {
  std::vector<std::pair<std::string, const HostTensor *>> all;
  std::vector<const HostTensor *> tensors = this->tensors();
  for (size_t k = 0; k < tensors.size(); ++k) {
    size_t item = mapped_ ? k / 2 : k;
    std::string label = sequence_ ? "item " + std::to_string(item) : "";
    if (mapped_)
      label +=
          std::string(label.empty() ? "" : " ") + (k % 2 ? "values" : "keys");
    all.emplace_back(label, tensors[k]);
  }
  return all;
}

static const int64_t noDims[1] = {0};

static onnxc_value tensorView(const HostTensor &t) {
  onnxc_value v{};
  v.kind = ONNXC_KIND_TENSOR;
  v.tensor = t.view();
  return v;
}

onnxc_value HostValue::view() const {
  onnxc_value contents{};
  if (mapped_) {
    // Every map's keys and values first: the maps point into mapViews_.
    mapViews_.clear();
    for (const HostMap &m : maps_) {
      mapViews_.push_back(tensorView(m.keys));
      mapViews_.push_back(tensorView(m.values));
    }
    itemViews_.clear();
    for (size_t k = 0; k < maps_.size(); ++k) {
      onnxc_value map{};
      map.kind = ONNXC_KIND_MAP;
      map.tensor.dtype = dtype_;
      map.tensor.shape = noDims;
      map.num_items = 2;
      map.items = &mapViews_[2 * k];
      itemViews_.push_back(map);
    }
    if (!sequence_)
      return itemViews_[0];
    contents.kind = ONNXC_KIND_SEQUENCE;
    contents.tensor.dtype = dtype_;
    contents.tensor.shape = noDims;
    contents.num_items = itemViews_.size();
    contents.items = itemViews_.empty() ? nullptr : itemViews_.data();
    return contents;
  }
  if (sequence_) {
    itemViews_.clear();
    for (const HostTensor &t : items_) {
      onnxc_value item{};
      item.kind = ONNXC_KIND_TENSOR;
      item.tensor = t.view();
      itemViews_.push_back(item);
    }
    contents.kind = ONNXC_KIND_SEQUENCE;
    contents.tensor.dtype = dtype_;
    contents.tensor.shape = noDims;
    contents.num_items = itemViews_.size();
    contents.items = itemViews_.empty() ? nullptr : itemViews_.data();
  } else {
    contents.kind = ONNXC_KIND_TENSOR;
    contents.tensor = tensor_.view();
  }
  if (kind_ != ONNXC_KIND_OPTIONAL)
    return contents;
  onnxc_value optional{};
  optional.kind = ONNXC_KIND_OPTIONAL;
  optional.tensor.dtype = dtype();
  optional.tensor.shape = noDims;
  contentsView_.clear();
  if (present_) {
    contentsView_.push_back(contents);
    optional.num_items = 1;
    optional.items = contentsView_.data();
  }
  return optional;
}

static HostMap copyMap(const onnxc_value &map) {
  return HostMap{copyTensor(map.items[0].tensor),
                 copyTensor(map.items[1].tensor)};
}

HostValue copyValue(const onnxc_value &value, const ValueInfo &info) {
  switch (value.kind) {
  case ONNXC_KIND_MAP:
    return HostValue::ofMap(copyMap(value));
  case ONNXC_KIND_SEQUENCE: {
    if (info.hasMaps()) {
      std::vector<HostMap> maps;
      for (size_t i = 0; i < value.num_items; ++i)
        maps.push_back(copyMap(value.items[i]));
      int32_t keyDtype = maps.empty() ? info.keyDtype : maps[0].keys.dtype();
      return HostValue::ofSequenceOfMaps(keyDtype, value.tensor.dtype,
                                         std::move(maps));
    }
    std::vector<HostTensor> items;
    for (size_t i = 0; i < value.num_items; ++i)
      items.push_back(copyTensor(value.items[i].tensor));
    return HostValue::ofSequence(value.tensor.dtype, std::move(items));
  }
  case ONNXC_KIND_OPTIONAL:
    if (value.num_items == 0)
      return HostValue::none(info.isSequence(), info.dtype);
    return HostValue::some(copyValue(value.items[0], info));
  default:
    return HostValue::ofTensor(copyTensor(value.tensor));
  }
}

static const char *kindName(int32_t kind) {
  switch (kind) {
  case ONNXC_KIND_TENSOR:
    return "a tensor";
  case ONNXC_KIND_SEQUENCE:
    return "a sequence";
  case ONNXC_KIND_OPTIONAL:
    return "an optional";
  case ONNXC_KIND_MAP:
    return "a map";
  default:
    return "of unknown kind";
  }
}

/// The checks of a tensor against the signature's dtype, rank and dims.
static std::string checkTensor(const onnxc_tensor &t, const ValueInfo &info,
                               const std::string &what) {
  if (t.dtype != info.dtype)
    return what + " has dtype " + dtypeName(t.dtype) + "; the signature says " +
           dtypeName(info.dtype);
  if (t.rank < 0 || (info.rankKnown && t.rank != int32_t(info.dims.size())))
    return what + " has rank " + std::to_string(t.rank) +
           "; the signature says " +
           (info.rankKnown ? std::to_string(info.dims.size()) : "any");
  if (t.rank > 0 && !t.shape)
    return what + " has no shape";
  for (int32_t a = 0; a < t.rank; ++a)
    if (t.shape[a] < 0 ||
        (info.rankKnown && info.dims[a] >= 0 && t.shape[a] != info.dims[a]))
      return what + " has dim " + std::to_string(a) + " = " +
             std::to_string(t.shape[a]) + "; the signature says " +
             info.describe();
  if (!elementSize(t.dtype))
    return what + " has dtype " + dtypeName(t.dtype) +
           ", which onnxc-run cannot read";
  int64_t n = numElements(std::vector<int64_t>(t.shape, t.shape + t.rank));
  if (!t.data && n)
    return what + " has no data";
  if (t.dtype == ONNXC_STRING)
    for (int64_t i = 0; i < n; ++i)
      if (!static_cast<const char *const *>(t.data)[i])
        return what + " has a null string pointer at " +
               indexString(std::vector<int64_t>(t.shape, t.shape + t.rank), i);
  return "";
}

/// A tensor or a sequence of tensors (the contents of an optional too).
static std::string checkContents(const onnxc_value &v, const ValueInfo &info,
                                 const std::string &what) {
  int32_t want = info.isSequence() ? ONNXC_KIND_SEQUENCE : ONNXC_KIND_TENSOR;
  if (v.kind != want)
    return what + " is " + kindName(v.kind) + "; the signature says " +
           info.typeString();
  if (v.kind == ONNXC_KIND_TENSOR)
    return checkTensor(v.tensor, info, what);
  if (v.tensor.dtype != info.dtype)
    return what + " is a sequence of " + dtypeName(v.tensor.dtype) +
           "; the signature says " + info.typeString();
  if (v.num_items && !v.items)
    return what + " has " + std::to_string(v.num_items) +
           " items but no items array";
  for (size_t i = 0; i < v.num_items; ++i) {
    std::string item = what + " item " + std::to_string(i);
    if (v.items[i].kind != ONNXC_KIND_TENSOR)
      return item + " is " + kindName(v.items[i].kind) +
             "; a sequence holds tensors";
    std::string problem = checkTensor(v.items[i].tensor, info, item);
    if (!problem.empty())
      return problem;
  }
  return "";
}

/// A map of signature entry `info` (a map or a sequence of maps).
static std::string checkMap(const onnxc_value &v, const ValueInfo &info,
                            const std::string &what) {
  if (v.kind != ONNXC_KIND_MAP)
    return what + " is " + kindName(v.kind) + "; the signature says " +
           info.typeString();
  if (v.num_items != 2 || !v.items)
    return what + " is a map of " + std::to_string(v.num_items) +
           " items; a map has 2 (the keys and the values)";
  if (v.tensor.dtype != info.dtype)
    return what + " is a map with dtype " + dtypeName(v.tensor.dtype) +
           "; the signature says " + info.typeString();
  const onnxc_value &keys = v.items[0], &values = v.items[1];
  for (const onnxc_value *t : {&keys, &values})
    if (t->kind != ONNXC_KIND_TENSOR)
      return what + " has " + (t == &keys ? "keys" : "values") + " that are " +
             kindName(t->kind) + "; a map holds two tensors";
  int32_t keyDtype = keys.tensor.dtype;
  if (info.keyDtype >= 0 && keyDtype != info.keyDtype)
    return what + " has keys of dtype " + dtypeName(keyDtype) +
           "; the signature says " + info.typeString();
  if (keyDtype != ONNXC_INT64 && keyDtype != ONNXC_STRING)
    return what + " has keys of dtype " + dtypeName(keyDtype) +
           "; map keys are int64 or strings";
  // Both are 1-D tensors of any length.
  ValueInfo vector;
  vector.dims = {-1};
  vector.dimNames = {""};
  vector.dtype = keyDtype;
  std::string problem = checkTensor(keys.tensor, vector, what + " keys");
  if (!problem.empty())
    return problem;
  vector.dtype = info.dtype;
  problem = checkTensor(values.tensor, vector, what + " values");
  if (!problem.empty())
    return problem;
  if (keys.tensor.shape[0] != values.tensor.shape[0])
    return what + " has " + std::to_string(keys.tensor.shape[0]) +
           " keys but " + std::to_string(values.tensor.shape[0]) + " values";
  HostMap map{copyTensor(keys.tensor), HostTensor()};
  int64_t repeated = KeyIndex(map.keys).duplicate();
  if (repeated >= 0)
    return what + " has the key " + map.keyString(repeated) + " twice";
  return "";
}

/// A map or a sequence of maps.
static std::string checkMaps(const onnxc_value &v, const ValueInfo &info,
                             const std::string &what) {
  if (info.type == ONNXC_TYPE_MAP)
    return checkMap(v, info, what);
  if (v.kind != ONNXC_KIND_SEQUENCE)
    return what + " is " + kindName(v.kind) + "; the signature says " +
           info.typeString();
  if (v.tensor.dtype != info.dtype)
    return what + " is a sequence with dtype " + dtypeName(v.tensor.dtype) +
           "; the signature says " + info.typeString();
  if (v.num_items && !v.items)
    return what + " has " + std::to_string(v.num_items) +
           " items but no items array";
  for (size_t i = 0; i < v.num_items; ++i) {
    std::string problem =
        checkMap(v.items[i], info, what + " item " + std::to_string(i));
    if (!problem.empty())
      return problem;
  }
  return "";
}

std::string checkValue(const onnxc_value &value, const ValueInfo &info,
                       const std::string &what) {
  if (info.hasMaps())
    return checkMaps(value, info, what);
  if (!info.isOptional())
    return checkContents(value, info, what);
  if (value.kind != ONNXC_KIND_OPTIONAL)
    return what + " is " + kindName(value.kind) + "; the signature says " +
           info.typeString();
  if (value.num_items > 1)
    return what + " holds " + std::to_string(value.num_items) +
           " values; an optional holds 0 or 1";
  if (value.num_items == 0)
    return "";
  if (!value.items)
    return what + " has a value but no items array";
  return checkContents(value.items[0], info, what);
}

static std::string tensorString(const HostTensor &t) {
  return dtypeName(t.dtype()) + shapeString(t.shape());
}

/// "map(string -> float32, 3 keys)".
static std::string mapString(int32_t keyDtype, int32_t dtype, int64_t size) {
  return "map(" + (keyDtype < 0 ? std::string("?") : dtypeName(keyDtype)) +
         " -> " + dtypeName(dtype) +
         (size < 0
              ? ""
              : ", " + std::to_string(size) + (size == 1 ? " key" : " keys")) +
         ")";
}

std::string valueString(const HostValue &value) {
  std::string s;
  bool maps = value.holdsMaps();
  size_t n = maps ? value.maps().size() : value.items().size();
  auto item = [&](size_t i) {
    if (!maps)
      return tensorString(value.items()[i]);
    const HostMap &m = value.maps()[i];
    return mapString(m.keys.dtype(), m.values.dtype(), m.size());
  };
  if (!value.hasValue()) {
    s = "none";
  } else if (!value.holdsSequence()) {
    s = maps ? item(0) : tensorString(value.tensor());
  } else if (n == 0) {
    s = "seq(empty, " +
        (maps ? mapString(value.keyDtype(), value.dtype(), -1)
              : dtypeName(value.dtype())) +
        ")";
  } else {
    // Long sequences: the first three items and the count.
    const size_t kShown = 3;
    size_t shown = n <= kShown + 1 ? n : kShown;
    s = "seq(";
    for (size_t i = 0; i < shown; ++i)
      s += (i ? ", " : "") + item(i);
    if (shown < n)
      s += ", ... (" + std::to_string(n) + " items)";
    s += ")";
  }
  return value.isOptional() ? "optional(" + s + ")" : s;
}

/// Whether the library's map `b` maps the keys of `a` to the same bits, in
/// any order; when not, `key` receives "key K" for the first key of `a` that
/// `b` lacks or maps to other bits, or "" when the maps' types or sizes
/// differ.
static bool identicalMap(const HostMap &a, const onnxc_value &b,
                         std::string &key) {
  key.clear();
  if (b.kind != ONNXC_KIND_MAP || b.num_items != 2 || !b.items)
    return false;
  const onnxc_value &keys = b.items[0], &values = b.items[1];
  for (const onnxc_value *t : {&keys, &values}) {
    const onnxc_tensor &tensor = t->tensor;
    if (t->kind != ONNXC_KIND_TENSOR || tensor.rank != 1 || !tensor.shape ||
        tensor.shape[0] != a.size() || (a.size() && !tensor.data))
      return false;
    if (tensor.dtype == ONNXC_STRING)
      for (int64_t i = 0; i < a.size(); ++i)
        if (!static_cast<const char *const *>(tensor.data)[i])
          return false;
  }
  if (keys.tensor.dtype != a.keys.dtype() ||
      values.tensor.dtype != a.values.dtype())
    return false;
  HostMap copy = copyMap(b);
  KeyIndex index(copy.keys);
  for (int64_t i = 0; i < a.size(); ++i) {
    int64_t j = index.find(a.keys, i);
    if (j < 0 || !sameElement(a.values, i, copy.values, j)) {
      key = "key " + a.keyString(i);
      return false;
    }
  }
  return true;
}

/// identical() of a map or a sequence of maps.
static bool identicalMaps(const HostValue &a, const onnxc_value &b,
                          std::string *where) {
  std::string key;
  if (!a.holdsSequence()) {
    bool same = identicalMap(a.maps()[0], b, key);
    if (where)
      *where = key;
    return same;
  }
  if (b.kind != ONNXC_KIND_SEQUENCE || b.tensor.dtype != a.dtype() ||
      b.num_items != a.maps().size() || (b.num_items && !b.items))
    return false;
  for (size_t i = 0; i < a.maps().size(); ++i)
    if (!identicalMap(a.maps()[i], b.items[i], key)) {
      if (where)
        *where = "item " + std::to_string(i) + (key.empty() ? "" : " " + key);
      return false;
    }
  return true;
}

bool identical(const HostValue &a, const onnxc_value &b, std::string *where) {
  if (where)
    where->clear();
  if (a.holdsMaps())
    return a.kind() == b.kind && identicalMaps(a, b, where);
  const onnxc_value *contents = &b;
  if (a.kind() != b.kind)
    return false;
  if (a.isOptional()) {
    if (b.num_items != (a.hasValue() ? 1u : 0u) || (b.num_items && !b.items))
      return false;
    if (!a.hasValue())
      return true;
    contents = b.items;
    if (contents->kind !=
        (a.holdsSequence() ? ONNXC_KIND_SEQUENCE : ONNXC_KIND_TENSOR))
      return false;
  }
  if (!a.holdsSequence())
    return identical(a.tensor(), contents->tensor);
  if (contents->tensor.dtype != a.dtype() ||
      contents->num_items != a.items().size() ||
      (contents->num_items && !contents->items))
    return false;
  for (size_t i = 0; i < a.items().size(); ++i) {
    const onnxc_value &item = contents->items[i];
    if (item.kind != ONNXC_KIND_TENSOR ||
        !identical(a.items()[i], item.tensor)) {
      if (where)
        *where = "item " + std::to_string(i);
      return false;
    }
  }
  return true;
}

} // namespace onnxc::runner
