// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/builtin_model.h"

#include "fathom/common/checked_number.h"
#include "fathom/common/error.h"
#include "fathom/common/json_input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace fathom::models {
namespace {

/// Sorted by name (builtinModelNames() is documented so).
constexpr std::array<BuiltinModelInfo, 4> kModels{{
    {"gpt", ModelFamily::Gpt, "gpt-tiny",
     "nanoGPT-style decoder: gpt-tiny's shape, resized by the gpt dimension flags"},
    {"gpt-small", ModelFamily::Gpt, "gpt-small", "nanoGPT-style decoder, the small preset"},
    {"gpt-tiny", ModelFamily::Gpt, "gpt-tiny", "nanoGPT-style decoder, the tiny preset"},
    {"mlp", ModelFamily::Mlp, "", "regression MLP: blocks of Linear(hidden, hidden) + ReLU"},
}};

double count(std::int64_t v) {
  return static_cast<double>(v);
}
/// A count's value, already checked by checkValue() where it entered the request (never undefined behaviour, even
/// for a value put into ModelRequest::dimensions directly: that is checked by shape(), and written out as 0 here).
std::int64_t whole(double v) {
  return narrowed<std::int64_t>(std::round(v)).value_or(0);
}

const std::array<ModelDimensionInfo, 8> kDimensions{{
    {ModelDimension::Hidden, "hidden", ModelFamily::Mlp, "mlp: width of the blocks and of the regression data", 1,
     65536, true, [](const ModelShape& s) { return count(s.mlp.hidden); },
     [](ModelShape& s, double v) { s.mlp.hidden = whole(v); }},
    {ModelDimension::Layers, "layers", ModelFamily::Mlp, "mlp: blocks of Linear(hidden, hidden) + ReLU", 1, 1024, true,
     [](const ModelShape& s) { return count(s.mlp.layers); }, [](ModelShape& s, double v) { s.mlp.layers = whole(v); }},
    {ModelDimension::NLayer, "n_layer", ModelFamily::Gpt, "gpt: transformer blocks", 1, 1024, true,
     [](const ModelShape& s) { return count(s.gpt.nLayer); }, [](ModelShape& s, double v) { s.gpt.nLayer = whole(v); }},
    {ModelDimension::NHead, "n_head", ModelFamily::Gpt, "gpt: attention heads (they divide n_embd)", 1, 1024, true,
     [](const ModelShape& s) { return count(s.gpt.nHead); }, [](ModelShape& s, double v) { s.gpt.nHead = whole(v); }},
    {ModelDimension::NEmbd, "n_embd", ModelFamily::Gpt, "gpt: width", 1, 65536, true,
     [](const ModelShape& s) { return count(s.gpt.nEmbd); }, [](ModelShape& s, double v) { s.gpt.nEmbd = whole(v); }},
    {ModelDimension::BlockSize, "block_size", ModelFamily::Gpt, "gpt: context length (rows of the position table)", 1,
     1 << 20, true, [](const ModelShape& s) { return count(s.gpt.blockSize); },
     [](ModelShape& s, double v) { s.gpt.blockSize = whole(v); }},
    {ModelDimension::VocabSize, "vocab_size", ModelFamily::Gpt, "gpt: vocabulary size", 1, 1 << 22, true,
     [](const ModelShape& s) { return count(s.gpt.vocabSize); },
     [](ModelShape& s, double v) { s.gpt.vocabSize = whole(v); }},
    {ModelDimension::Dropout, "dropout", ModelFamily::Gpt, "gpt: dropout probability (0: no masks stored)", 0, 1, false,
     [](const ModelShape& s) { return s.gpt.dropout; }, [](ModelShape& s, double v) { s.gpt.dropout = v; }},
}};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += out.empty() ? item : ", " + item;
  }
  return out;
}

ModelShape presetShape(const BuiltinModelInfo& model) {
  ModelShape shape;
  if (!model.preset.empty()) {
    shape.gpt = gptPreset(model.preset);
  }
  return shape;
}

/// "4", "0.1": a value as a command line and --help write it.
std::string text(const ModelDimensionInfo& d, double value) {
  if (d.integral) {
    return std::to_string(whole(value));
  }
  char buf[32];
  const auto [end, error] = std::to_chars(buf, buf + sizeof buf, value);
  return error == std::errc() ? std::string(buf, end) : std::to_string(value);
}

std::string normalised(std::string_view flag) {
  std::string out(flag);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

/// ConfigError unless `value` is valid for `d`: a count (whole, at least its minimum, an int64) or a fraction in
/// [minimum, maximum]. `origin` says where the value came from ("plan.json: key 'n_layer'"); empty: the flag
/// ("--n_layer").
void checkValue(const ModelDimensionInfo& d, double value, std::string_view origin = {}) {
  const std::string what =
      origin.empty() ? detail::concat("--", d.flag) : detail::concat(origin, ": key '", d.flag, "'");
  if (d.integral) {
    checkedNarrow<std::int64_t>(value, what, static_cast<std::int64_t>(d.minimum));
  } else {
    FATHOM_CHECK(std::isfinite(value) && value >= d.minimum && value <= d.maximum, ConfigError, what, ": ",
                 detail::numberText(value), " is out of range (allowed ", detail::numberText(d.minimum), "..",
                 detail::numberText(d.maximum), ")");
  }
}

/// A number given as text, or ConfigError naming the flag.
double number(std::string_view flag, const std::string& text) {
  double v = 0;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), last, v);
  FATHOM_CHECK(!text.empty() && error == std::errc() && end == last && std::isfinite(v), ConfigError, "--", flag, ": '",
               text, "' is not a number");
  return v;
}

}  // namespace

std::span<const BuiltinModelInfo> builtinModels() {
  return kModels;
}

std::vector<std::string> builtinModelNames() {
  std::vector<std::string> names;
  for (const BuiltinModelInfo& m : kModels) {
    names.emplace_back(m.name);
  }
  return names;
}

const BuiltinModelInfo& builtinModel(std::string_view name) {
  for (const BuiltinModelInfo& m : kModels) {
    if (m.name == name) {
      return m;
    }
  }
  throw ConfigError(detail::concat("unknown model '", name, "' (known: ", joined(builtinModelNames()), ")"));
}

std::span<const ModelDimensionInfo> modelDimensions() {
  return kDimensions;
}

const ModelDimensionInfo& dimensionInfo(ModelDimension dimension) {
  for (const ModelDimensionInfo& d : kDimensions) {
    if (d.dimension == dimension) {
      return d;
    }
  }
  FATHOM_ASSERT(false, "model dimension ", static_cast<int>(dimension), " has no row");
  return kDimensions.front();
}

const ModelDimensionInfo* findDimension(std::string_view flag) {
  const std::string key = normalised(flag);
  for (const ModelDimensionInfo& d : kDimensions) {
    if (d.flag == key) {
      return &d;
    }
  }
  return nullptr;
}

std::string dimensionHelp(ModelDimension dimension) {
  const ModelDimensionInfo& d = dimensionInfo(dimension);
  std::vector<std::string> defaults;
  for (const BuiltinModelInfo& m : kModels) {
    if (m.family == d.family && m.name != "gpt") {  // gpt is gpt-tiny's shape
      defaults.push_back(std::string(m.name) + " " + text(d, d.read(presetShape(m))));
    }
  }
  return std::string(d.help) + " (default: " + joined(defaults) + ")";
}

ModelRequest& ModelRequest::set(ModelDimension dimension, double value) {
  checkValue(dimensionInfo(dimension), value);
  dimensions[dimension] = value;
  return *this;
}

void ModelRequest::checkDimensions() const {
  const BuiltinModelInfo& model = info();
  std::string others;
  int count = 0;
  for (const auto& [dimension, value] : dimensions) {
    const ModelDimensionInfo& d = dimensionInfo(dimension);
    if (d.family != model.family) {
      others += (others.empty() ? "--" : ", --") + std::string(d.flag);
      ++count;
    }
  }
  if (others.empty()) {
    return;
  }
  std::string own;
  for (const ModelDimensionInfo& d : kDimensions) {
    if (d.family == model.family) {
      own += (own.empty() ? "--" : ", --") + std::string(d.flag);
    }
  }
  throw ConfigError(detail::concat(others, count == 1 ? " applies to " : " apply to ",
                                   model.family == ModelFamily::Gpt ? "--model mlp" : "the gpt models", ", not ", name,
                                   " (its dimensions: ", own, ")"));
}

ModelShape ModelRequest::shape() const {
  checkDimensions();
  ModelShape shape = presetShape(info());
  for (const auto& [dimension, value] : dimensions) {
    const ModelDimensionInfo& d = dimensionInfo(dimension);
    checkValue(d, value);  // `dimensions` is a public member: a value may not have come through set()
    d.write(shape, value);
  }
  if (bias) {
    shape.gpt.bias = *bias;
  }
  return shape;
}

double ModelRequest::value(ModelDimension dimension) const {
  if (const auto it = dimensions.find(dimension); it != dimensions.end()) {
    return it->second;
  }
  return dimensionInfo(dimension).read(presetShape(info()));
}

ModelRequest ModelRequest::withoutPresetValues() const {
  ModelRequest out = *this;
  const ModelShape preset = presetShape(info());
  std::erase_if(out.dimensions,
                [&](const auto& entry) { return dimensionInfo(entry.first).read(preset) == entry.second; });
  return out;
}

std::vector<std::string> ModelRequest::trainArguments() const {
  std::vector<std::string> out{"--model", name};
  for (const auto& [dimension, value] : dimensions) {
    const ModelDimensionInfo& d = dimensionInfo(dimension);
    out.push_back("--" + std::string(d.flag));
    out.push_back(text(d, value));
  }
  return out;
}

nlohmann::ordered_json toJson(const ModelRequest& request) {
  nlohmann::ordered_json j{{"name", request.name}};
  for (const auto& [dimension, value] : request.dimensions) {
    const ModelDimensionInfo& d = dimensionInfo(dimension);
    if (d.integral) {
      j[std::string(d.flag)] = whole(value);
    } else {
      j[std::string(d.flag)] = value;
    }
  }
  if (request.bias) {
    j["bias"] = *request.bias;
  }
  return j;
}

ModelRequest modelRequestFromJson(const nlohmann::json& j, std::string_view origin) {
  FATHOM_CHECK(j.is_object(), ConfigError, origin, ": a built-in model must be a map of keys, got '", quotedJson(j),
               "'");
  ModelRequest r;
  if (const auto it = j.find("name"); it != j.end()) {
    FATHOM_CHECK(it->is_string(), ConfigError, origin, ": bad value for 'name': '", quotedJson(*it), "'");
    r.name = it->get<std::string>();
  }
  for (const ModelDimensionInfo& d : kDimensions) {
    const auto it = j.find(std::string(d.flag));
    if (it == j.end() || it->is_null()) {
      continue;
    }
    FATHOM_CHECK(it->is_number(), ConfigError, origin, ": bad value for '", d.flag, "': '", quotedJson(*it), "'");
    const double v = it->get<double>();
    if (d.integral && v == 0) {
      continue;  // earlier releases saved 0 for "the preset's"
    }
    checkValue(d, v, origin);
    r.dimensions[d.dimension] = v;
  }
  if (const auto it = j.find("bias"); it != j.end() && it->is_boolean()) {
    r.bias = it->get<bool>();
  }
  return r;
}

std::optional<ModelRequest> modelRequestFromArguments(std::span<const std::string> arguments) {
  std::optional<ModelRequest> out;
  std::map<ModelDimension, double> dimensions;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& word = arguments[i];
    if (word.rfind("--", 0) != 0) {
      continue;
    }
    std::string flag = word.substr(2);
    std::optional<std::string> value;
    if (const auto eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    } else if (i + 1 < arguments.size()) {
      value = arguments[i + 1];
    }
    if (!value) {
      continue;
    }
    if (normalised(flag) == "model") {
      out = ModelRequest{*value, {}, std::nullopt};
    } else if (const ModelDimensionInfo* d = findDimension(flag)) {
      const double v = number(d->flag, *value);
      checkValue(*d, v);
      dimensions[d->dimension] = v;
    }
  }
  if (out) {
    out->dimensions = std::move(dimensions);
  }
  return out;
}

}  // namespace fathom::models
