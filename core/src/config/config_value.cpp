// SPDX-License-Identifier: Apache-2.0
// Typed values: display, parsing from text (environment, flags, answers) and checking typed code arguments.
#include "config_errors.h"

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/config/config_schema.h>
#include <fathom/config/config_value.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace fathom::config {
namespace detail {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

std::string allowedText(const KeySpec& key) {
  switch (key.kind) {
  case ValueKind::Bool: return "allowed values: true, false";
  case ValueKind::Int:
    if (!key.allowed.empty()) {
      return "allowed values: " + join(key.allowed);
    }
    if (key.maximum != std::numeric_limits<std::int64_t>::max()) {
      return "allowed values: integers " + std::to_string(key.minimum) + ".." + std::to_string(key.maximum);
    }
    return "allowed values: integers >= " + std::to_string(key.minimum);
  case ValueKind::Float:
    if (key.floatMinimum) {
      std::array<char, 32> text{};
      const auto end = std::to_chars(text.data(), text.data() + text.size(), *key.floatMinimum).ptr;
      return "allowed values: numbers >= " + std::string(text.data(), end);
    }
    return "allowed values: numbers";
  case ValueKind::String: return "allowed values: a string";
  case ValueKind::StringList: return "allowed values: a list of strings";
  case ValueKind::Enum:
  case ValueKind::EnumList: return "allowed values: " + join(key.allowed);
  case ValueKind::BoolList:
    return "allowed values: a list of " + std::to_string(key.listSize) + " booleans, e.g. [false, false, false]";
  case ValueKind::BoolOrEnum: return "allowed values: true, false, " + join(key.allowed);
  }
  return {};
}

void throwValueError(std::string_view where, const KeySpec& key, std::string_view value, std::string_view detail) {
  // The value and the origin (a file name) come from outside: quoted terminal-safe.
  throw ConfigError(fathom::detail::concat(terminalSafe(where), ": key '", key.path(), "': ", detail, " '",
                                           terminalSafe(value), "'; ", allowedText(key)));
}

void requireUtf8(const KeySpec& key, std::string_view text, std::string_view origin) {
  if (!isValidUtf8(text)) {
    throwValueError(origin, key, text, "not valid UTF-8:");
  }
}

std::string matchEnum(const KeySpec& key, std::string_view text) {
  auto same = [&](std::string_view a, std::string_view b) {
    if (!key.caseInsensitive) {
      return a == b;
    }
    // As the vocabulary's NameMatch::Lenient: any case, '-' and '_' alike.
    const auto fold = [](char c) { return c == '-' ? '_' : char(std::tolower(static_cast<unsigned char>(c))); };
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return fold(x) == fold(y); });
  };
  for (const auto& allowed : key.allowed) {
    if (same(allowed, text)) {
      return allowed;
    }
  }
  for (const auto& [legacy, canonical] : key.valueAliases) {
    if (same(legacy, text)) {
      return canonical;
    }
  }
  return {};
}

}  // namespace detail

namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string> splitList(std::string_view text) {
  std::string t = trim(text);
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') {
    t = t.substr(1, t.size() - 2);
  }
  std::vector<std::string> out;
  std::stringstream in(t);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = trim(item);
    if (!item.empty()) {
      out.push_back(item);
    }
  }
  return out;
}

std::optional<std::int64_t> parseInt(std::string_view text) {
  std::string t = trim(text);
  if (!t.empty() && t.front() == '+') {
    t.erase(t.begin());
  }
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && ptr == t.data() + t.size() && !t.empty()) {
    return v;
  }
  // `fsdp_min_num_params: 1e8` (launch.py's default is the float 1e8): accept integral floats.
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (!t.empty() && end == t.c_str() + t.size() && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e18) {
    return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

std::int64_t checkInt(const KeySpec& key, std::int64_t v, std::string_view origin) {
  if (!key.allowed.empty() &&
      std::find(key.allowed.begin(), key.allowed.end(), std::to_string(v)) == key.allowed.end()) {
    detail::throwValueError(origin, key, std::to_string(v), "invalid value");
  }
  if (v < key.minimum || v > key.maximum) {
    detail::throwValueError(origin, key, std::to_string(v), "out of range:");
  }
  return v;
}

double checkFloat(const KeySpec& key, double d, std::string_view origin) {
  if (key.floatMinimum && d < *key.floatMinimum) {
    detail::throwValueError(origin, key, toDisplayString(d), "out of range:");
  }
  return d;
}

std::string formatDouble(double d) {
  // The shortest text that reads back to the same double ("80", "0.1", "1e-07").
  std::array<char, 64> buffer{};
  const auto [ptr, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), d);
  std::string s(buffer.data(), ec == std::errc() ? ptr : buffer.data());
  // YAML 1.1 (PyYAML) reads a float only with a '.' in the mantissa: 1.0, 1.0e-07.
  if (s.find_first_of(".n") == std::string::npos) {
    const auto e = s.find_first_of("eE");
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

}  // namespace

std::string toDisplayString(const ConfigValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return formatDouble(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::string>& v) const {
      std::string out = "[";
      out += detail::join(v);
      out += ']';
      return out;
    }
    std::string operator()(const std::vector<bool>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) {
        out += i ? ", " : "";
        out += v[i] ? "true" : "false";
      }
      out += ']';
      return out;
    }
  };
  return std::visit(Visitor{}, value);
}

ConfigValue parseValueText(const KeySpec& key, std::string_view rawText, std::string_view origin) {
  // Every value is text at some point (JSON lines, the workspace, the YAML Fathom writes): UTF-8 at the front door.
  detail::requireUtf8(key, rawText, origin);
  const std::string text = trim(rawText);
  switch (key.kind) {
  case ValueKind::Bool:
    if (auto b = parseBool(text)) {
      return *b;
    }
    detail::throwValueError(origin, key, text, "expected a boolean, got");
  case ValueKind::Int:
    if (auto i = parseInt(text)) {
      return checkInt(key, *i, origin);
    }
    detail::throwValueError(origin, key, text, "expected an integer, got");
  case ValueKind::Float: {
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(d)) {
      detail::throwValueError(origin, key, text, "expected a number, got");
    }
    return checkFloat(key, d, origin);
  }
  case ValueKind::String: return std::string(rawText);  // free text keeps its spaces
  case ValueKind::Enum: {
    std::string canonical = detail::matchEnum(key, text);
    if (canonical.empty()) {
      detail::throwValueError(origin, key, text, "invalid value");
    }
    return canonical;
  }
  case ValueKind::StringList: return splitList(text);
  case ValueKind::EnumList: {
    std::vector<std::string> out;
    for (const auto& item : splitList(text)) {
      std::string canonical = detail::matchEnum(key, item);
      if (canonical.empty()) {
        detail::throwValueError(origin, key, item, "invalid list entry");
      }
      out.push_back(canonical);
    }
    return out;
  }
  case ValueKind::BoolList: {
    std::vector<bool> out;
    for (const auto& item : splitList(text)) {
      auto b = parseBool(item);
      if (!b) {
        detail::throwValueError(origin, key, item, "expected a boolean list entry, got");
      }
      out.push_back(*b);
    }
    if (out.size() != key.listSize) {
      detail::throwValueError(origin, key, text,
                              "expected " + std::to_string(key.listSize) + " entries, got " +
                                  std::to_string(out.size()) + " in");
    }
    return out;
  }
  case ValueKind::BoolOrEnum: {
    std::string canonical = detail::matchEnum(key, text);
    if (!canonical.empty()) {
      return canonical;
    }
    if (auto b = parseBool(text)) {
      return *b;
    }
    detail::throwValueError(origin, key, text, "invalid value");
  }
  }
  detail::throwValueError(origin, key, text, "unsupported value");
}

ConfigValue parseValueList(const KeySpec& key, const std::vector<std::string>& items, std::string_view origin) {
  for (const std::string& item : items) {
    detail::requireUtf8(key, item, origin);
  }
  switch (key.kind) {
  case ValueKind::StringList: return items;
  case ValueKind::EnumList:
  case ValueKind::BoolList: {
    std::vector<std::string> names;
    std::vector<bool> bools;
    for (const auto& item : items) {
      if (key.kind == ValueKind::EnumList) {
        std::string canonical = detail::matchEnum(key, trim(item));
        if (canonical.empty()) {
          detail::throwValueError(origin, key, item, "invalid list entry");
        }
        names.push_back(std::move(canonical));
      } else {
        auto b = parseBool(trim(item));
        if (!b) {
          detail::throwValueError(origin, key, item, "expected a boolean list entry, got");
        }
        bools.push_back(*b);
      }
    }
    if (key.kind == ValueKind::EnumList) {
      return names;
    }
    if (bools.size() != key.listSize) {
      detail::throwValueError(origin, key, toDisplayString(bools),
                              "expected " + std::to_string(key.listSize) + " entries, got " +
                                  std::to_string(bools.size()) + ":");
    }
    return bools;
  }
  default: break;
  }
  detail::throwValueError(origin, key, "a list", fathom::detail::concat("expected ", describe(key.kind), ", got"));
}

ConfigValue checkValue(const KeySpec& key, const ConfigValue& value, std::string_view origin) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    return parseValueText(key, *s, origin);
  }
  const std::string shown = toDisplayString(value);
  switch (key.kind) {
  case ValueKind::Bool:
  case ValueKind::BoolOrEnum:
    if (std::holds_alternative<bool>(value)) {
      return value;
    }
    break;
  case ValueKind::Int:
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      return checkInt(key, *i, origin);
    }
    break;
  case ValueKind::Float:
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      return checkFloat(key, static_cast<double>(*i), origin);
    }
    if (const auto* d = std::get_if<double>(&value)) {
      return checkFloat(key, *d, origin);
    }
    break;
  case ValueKind::StringList:
    if (std::holds_alternative<std::vector<std::string>>(value)) {
      return value;
    }
    break;
  case ValueKind::EnumList:
    if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
      std::vector<std::string> out;
      for (const auto& item : *list) {
        std::string canonical = detail::matchEnum(key, item);
        if (canonical.empty()) {
          detail::throwValueError(origin, key, item, "invalid list entry");
        }
        out.push_back(canonical);
      }
      return out;
    }
    break;
  case ValueKind::BoolList:
    if (const auto* list = std::get_if<std::vector<bool>>(&value); list != nullptr && list->size() == key.listSize) {
      return value;
    }
    break;
  case ValueKind::String:
  case ValueKind::Enum: break;
  }
  detail::throwValueError(origin, key, shown, fathom::detail::concat("expected ", describe(key.kind), ", got"));
}

}  // namespace fathom::config
