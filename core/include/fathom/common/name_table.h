// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/error.h>

#include <array>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom {

/// One value of an enumeration and how it is written. Tables of these are the single definition of a concept's
/// vocabulary: YAML schema, CLI flags, option parsers, help texts and the Studio's combo boxes all read them.
template <typename E> struct NamedValue {
  E value;                ///< the enumerator
  std::string_view name;  ///< canonical spelling (Accelerate's where it has one); what Fathom writes
  std::string_view help;  ///< one line for --help, docs/config.md and the wizard's tooltips
  /// Fathom runs this value end to end. false: Accelerate knows it, so a file may hold it and keeps it, but the
  /// part of Fathom that would run it refuses it (requireSupported()), and `fathom config` and the wizard do not
  /// offer it.
  bool supported = true;
  std::array<std::string_view, 3> aliases{};  ///< other spellings read as this value (legacy numbers, torch names)
};

/// How text is matched against a table's names and aliases.
enum class NameMatch {
  Exact,    ///< byte for byte (Accelerate's case-sensitive enums, e.g. distributed_type)
  Lenient,  ///< any case, '-' and '_' alike ("shard-grad-op" reads as SHARD_GRAD_OP)
};

/// The names of one enumeration. Invariant: every value appears once, names and aliases are unique under the
/// table's matching rule (tests/core/tst_vocabulary.cpp checks every table).
template <typename E, std::size_t N> class NameTable {
public:
  /// `what` names the concept in messages ("fsdp_sharding_strategy", "offload device").
  constexpr NameTable(std::string_view what, NameMatch match, std::array<NamedValue<E>, N> values)
      : m_what(what), m_match(match), m_values(values) {}

  /// The concept's name as messages use it.
  constexpr std::string_view what() const { return m_what; }
  /// Every value with its spellings, in the table's order (the order lists and combo boxes show).
  constexpr const std::array<NamedValue<E>, N>& entries() const { return m_values; }

  /// The entry of `value`. A value missing from the table is a bug in Fathom (InternalError).
  const NamedValue<E>& entry(E value) const {
    for (const auto& v : m_values) {
      if (v.value == value) {
        return v;
      }
    }
    FATHOM_ASSERT(false, "value ", static_cast<long long>(value), " of ", m_what, " has no name");
    return m_values.front();  // unreachable
  }
  /// The canonical spelling of `value`.
  std::string_view toString(E value) const { return entry(value).name; }
  /// Whether Fathom runs `value` (NamedValue::supported).
  bool isSupported(E value) const { return entry(value).supported; }

  /// The value spelled `text` (a name or an alias, matched by the table's rule), or std::nullopt.
  std::optional<E> find(std::string_view text) const {
    for (const auto& v : m_values) {
      if (same(v.name, text)) {
        return v.value;
      }
      for (std::string_view alias : v.aliases) {
        if (!alias.empty() && same(alias, text)) {
          return v.value;
        }
      }
    }
    return std::nullopt;
  }
  /// The canonical spelling of `text`, or an empty string when no value is spelled so.
  std::string canonical(std::string_view text) const {
    const auto value = find(text);
    return value ? std::string(toString(*value)) : std::string();
  }
  /// find(), or ConfigError "invalid <what> '<text>' (expected A, B or C)".
  E parse(std::string_view text) const {
    if (const auto value = find(text)) {
      return *value;
    }
    throw ConfigError(detail::concat("invalid ", m_what, " '", text, "' (expected ", joined(names(), " or "), ")"));
  }
  /// ConfigError "<where>: <what> '<name>' is not supported by Fathom (<help>); supported: A, B" unless Fathom runs
  /// `value`. `where` names the key, flag or variable that gave it (empty: the message starts with <what>).
  void requireSupported(E value, std::string_view where) const {
    const NamedValue<E>& v = entry(value);
    FATHOM_CHECK(v.supported, ConfigError, where, where.empty() ? "" : ": ", m_what, " '", v.name,
                 "' is not supported by Fathom (", v.help, "); supported: ", joined(supportedNames(), ", "));
  }
  /// parse(), then ConfigError "<what> '<text>' (<name>) is not supported by Fathom (<help>); supported: ..." for a
  /// value Fathom does not run: what an engine's option parser accepts.
  E parseSupported(std::string_view text) const {
    const E value = parse(text);
    const NamedValue<E>& v = entry(value);
    FATHOM_CHECK(v.supported, ConfigError, m_what, " '", text, "'",
                 same(v.name, text) ? "" : " (" + std::string(v.name) + ")", " is not supported by Fathom (", v.help,
                 "); supported: ", joined(supportedNames(), ", "));
    return value;
  }

  /// Every canonical spelling, in table order (the YAML schema's allowed values).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& v : m_values) {
      out.emplace_back(v.name);
    }
    return out;
  }
  /// The spellings of the values Fathom runs, in table order (what `fathom config` and the wizard offer).
  std::vector<std::string> supportedNames() const {
    std::vector<std::string> out;
    for (const auto& v : m_values) {
      if (v.supported) {
        out.emplace_back(v.name);
      }
    }
    return out;
  }
  /// The values Fathom runs, in table order.
  std::vector<E> supportedValues() const {
    std::vector<E> out;
    for (const auto& v : m_values) {
      if (v.supported) {
        out.push_back(v.value);
      }
    }
    return out;
  }
  /// Every alias with the canonical name it stands for (the YAML schema's legacy spellings).
  std::vector<std::pair<std::string, std::string>> aliases() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& v : m_values) {
      for (std::string_view alias : v.aliases) {
        if (!alias.empty()) {
          out.emplace_back(alias, v.name);
        }
      }
    }
    return out;
  }
  /// "A, B or C" (`last` " or "), as --help texts list choices.
  static std::string joined(const std::vector<std::string>& items, std::string_view last) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
      out += i == 0 ? "" : (i + 1 == items.size() ? std::string(last) : std::string(", "));
      out += items[i];
    }
    return out;
  }
  /// The table's matching rule.
  constexpr NameMatch match() const { return m_match; }

private:
  bool same(std::string_view a, std::string_view b) const {
    if (m_match == NameMatch::Exact) {
      return a == b;
    }
    if (a.size() != b.size()) {
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (fold(a[i]) != fold(b[i])) {
        return false;
      }
    }
    return true;
  }
  static char fold(char c) { return c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

  std::string_view m_what;
  NameMatch m_match;
  std::array<NamedValue<E>, N> m_values;
};

}  // namespace fathom
