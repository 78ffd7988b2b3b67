//===- Value.cpp - Host values (tensors, sequences, optionals) ------------===//

#include "Value.h"

#include "Compare.h"
#include "CompiledModel.h"

namespace onnxc::runner {

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
}

std::vector<HostTensor *> HostValue::tensors() {
  std::vector<HostTensor *> all;
  if (!present_)
    return all;
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

static const int64_t noDims[1] = {0};

onnxc_value HostValue::view() const {
  onnxc_value contents{};
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

HostValue copyValue(const onnxc_value &value, const ValueInfo &info) {
  switch (value.kind) {
  case ONNXC_KIND_SEQUENCE: {
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

std::string checkValue(const onnxc_value &value, const ValueInfo &info,
                       const std::string &what) {
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

std::string valueString(const HostValue &value) {
  std::string s;
  if (!value.hasValue()) {
    s = "none";
  } else if (!value.holdsSequence()) {
    s = tensorString(value.tensor());
  } else if (value.items().empty()) {
    s = "seq(empty, " + dtypeName(value.dtype()) + ")";
  } else {
    // Long sequences: the first three items and the count.
    const size_t kShown = 3;
    size_t n = value.items().size();
    size_t shown = n <= kShown + 1 ? n : kShown;
    s = "seq(";
    for (size_t i = 0; i < shown; ++i)
      s += (i ? ", " : "") + tensorString(value.items()[i]);
    if (shown < n)
      s += ", ... (" + std::to_string(n) + " items)";
    s += ")";
  }
  return value.isOptional() ? "optional(" + s + ")" : s;
}

bool identical(const HostValue &a, const onnxc_value &b, std::string *where) {
  if (where)
    where->clear();
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
