// SPDX-License-Identifier: Apache-2.0
// Reads Accelerate's config YAML the way `accelerate launch` does (config_args.py: load_config_from_file,
// process_config, the unknown-key check), but strictly: every key and value is checked against the schema and an
// error points at the file, line and column.
#include <fathom/config/config_reader.h>

#include "config_errors.h"

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/config/config_schema.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fathom::config {
namespace {

std::string kindOfNode(const YAML::Node& node) {
  switch (node.Type()) {
  case YAML::NodeType::Sequence: return "a list";
  case YAML::NodeType::Map: return "a mapping";
  case YAML::NodeType::Null: return "null";
  default: return "a scalar";
  }
}

class Reader {
public:
  Reader(std::string_view text, std::string_view source) : m_text(text) { m_result.source = std::string(source); }

  LoadedConfig run() {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(m_text));
    } catch (const YAML::Exception& e) {
      malformed(e);
    }
    if (!root.IsMap()) {
      throw ConfigError(fathom::detail::concat(
          where(root.Mark()), ": expected a mapping of config keys at the top level, got ",
          root.IsNull() ? "an empty file" : kindOfNode(root), "; allowed keys: ", detail::join(allowedKeysIn(""))));
    }
    const YAML::Node& constRoot = root;
    if (const YAML::Node env = constRoot["compute_environment"];
        env && env.IsScalar() && env.Scalar() == "AMAZON_SAGEMAKER") {
      throw ConfigError(
          fathom::detail::concat(where(env.Mark()), ": key 'compute_environment': 'AMAZON_SAGEMAKER' ",
                                 "(SageMakerConfig) is not supported by Fathom; allowed values: LOCAL_MACHINE"));
    }
    readSection(root, "");
    applyLegacyTopLevel();
    if (!m_result.config.contains("distributed_type")) {
      // process_config: "A `distributed_type` must be specified in the config file."
      const KeySpec& key = *findKey("distributed_type");
      throw ConfigError(fathom::detail::concat(where(root.Mark()),
                                               ": key 'distributed_type': missing; a `distributed_type` ",
                                               "must be specified in the config file; ", detail::allowedText(key)));
    }
    return std::move(m_result);
  }

private:
  std::string where(const YAML::Mark& mark) const {
    // The file name quoted in every message: terminal-safe (a name may hold control characters).
    if (mark.is_null()) {
      return terminalSafe(m_result.source) + ":1:1";  // an empty document has no mark
    }
    return fathom::detail::concat(terminalSafe(m_result.source), ":", mark.line + 1, ":", mark.column + 1);
  }

  // The last "key:" at or above `line` (0-based), so that a syntax error still names a key.
  std::string nearestKey(int line) const {
    std::vector<std::string> lines;
    std::stringstream in{std::string(m_text)};
    for (std::string l; std::getline(in, l);) {
      lines.push_back(l);
    }
    static const std::regex keyLine(R"(^\s*-?\s*([A-Za-z0-9_.\-]+)\s*:)");
    for (int i = std::min<int>(line, int(lines.size()) - 1); i >= 0; --i) {
      std::smatch m;
      if (std::regex_search(lines[std::size_t(i)], m, keyLine)) {
        return m[1].str();
      }
    }
    return {};
  }

  [[noreturn]] void malformed(const YAML::Exception& e) const {
    const std::string near = nearestKey(e.mark.line);
    throw ConfigError(fathom::detail::concat(where(e.mark), ": malformed YAML",
                                             near.empty() ? "" : " at key '" + near + "'", ": ", terminalSafe(e.msg),
                                             "; allowed: a mapping of `key: value` lines (docs/config.md)"));
  }

  void readSection(const YAML::Node& map, const std::string& section) {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node keyNode = it->first;
      const YAML::Node value = it->second;
      if (!keyNode.IsScalar()) {
        throw ConfigError(fathom::detail::concat(where(keyNode.Mark()), ": a key must be a plain name, got ",
                                                 kindOfNode(keyNode), "; allowed keys", inSection(section), ": ",
                                                 detail::join(allowedKeysIn(section))));
      }
      const std::string name = keyNode.Scalar();
      const std::string childSection = section.empty() ? name : section + "." + name;
      if (section.empty() && (name == "fp16" || name == "dynamo_backend")) {
        readLegacyTopLevel(name, keyNode, value, seen);
        continue;
      }
      if (isSection(childSection)) {
        checkDuplicate(seen, name, keyNode);
        if (value.IsNull()) {
          continue;  // `fsdp_config:` or `fsdp_config: null`, as empty
        }
        if (!value.IsMap()) {
          throw ConfigError(fathom::detail::concat(where(value.Mark()), ": key '", childSection,
                                                   "': expected a mapping, got ", kindOfNode(value),
                                                   "; allowed keys: ", detail::join(allowedKeysIn(childSection))));
        }
        readSection(value, childSection);
        continue;
      }
      const KeySpec* key = findKeyInSection(section, name);
      if (key == nullptr || !key->inFile) {
        // config_args.py: "had unknown keys (...), please try upgrading your `accelerate` version or fix
        // (and potentially remove) these keys from your config file."
        throw ConfigError(fathom::detail::concat(
            where(keyNode.Mark()), ": unknown key '", terminalSafe(section.empty() ? name : section + "." + name), "'",
            inSection(section), "; allowed keys: ", detail::join(allowedKeysIn(section))));
      }
      if (key->name != name) {
        m_result.notes.push_back(
            fathom::detail::concat(where(keyNode.Mark()), ": legacy key '", name, "' read as '", key->path(), "'"));
      }
      checkDuplicate(seen, key->name, keyNode);
      readValue(*key, value);
    }
  }

  static std::string inSection(const std::string& section) { return section.empty() ? "" : " in " + section; }

  void checkDuplicate(std::set<std::string>& seen, const std::string& name, const YAML::Node& keyNode) const {
    if (!seen.insert(name).second) {
      throw ConfigError(fathom::detail::concat(where(keyNode.Mark()), ": duplicate key '", terminalSafe(name),
                                               "'; each key may appear once per section"));
    }
  }

  void readValue(const KeySpec& key, const YAML::Node& value) {
    if (value.IsNull()) {
      return;  // None: Accelerate drops it
    }
    const std::string at = where(value.Mark());
    ConfigValue parsed;
    const bool listKind =
        key.kind == ValueKind::StringList || key.kind == ValueKind::EnumList || key.kind == ValueKind::BoolList;
    if (value.IsMap() || (value.IsSequence() && !listKind)) {
      detail::throwValueError(at, key, kindOfNode(value),
                              fathom::detail::concat("expected ", describe(key.kind), ", got"));
    }
    if (value.IsSequence()) {
      std::vector<std::string> items;
      for (const auto& item : value) {
        if (!item.IsScalar()) {
          detail::throwValueError(where(item.Mark()), key, kindOfNode(item), "a list entry must be a scalar, got");
        }
        items.push_back(item.Scalar());
      }
      parsed = parseValueList(key, items, at);
    } else {
      parsed = parseValueText(key, value.Scalar(), at);
    }
    const std::string path = key.path();
    m_result.config.set(path, parsed, at);
    m_result.locations[path] = SourceLocation{value.Mark().line + 1, value.Mark().column + 1};
  }

  void readLegacyTopLevel(const std::string& name, const YAML::Node& keyNode, const YAML::Node& value,
                          std::set<std::string>& seen) {
    checkDuplicate(seen, name, keyNode);
    if (name == "fp16") {
      KeySpec boolKey;
      boolKey.name = "fp16";
      boolKey.kind = ValueKind::Bool;
      m_legacyFp16 =
          value.IsNull() ? false : std::get<bool>(parseValueText(boolKey, value.Scalar(), where(value.Mark())));
      m_legacyFp16Location = SourceLocation{value.Mark().line + 1, value.Mark().column + 1};
      m_result.notes.push_back(where(keyNode.Mark()) + ": legacy key 'fp16' read as 'mixed_precision'");
      return;
    }
    const KeySpec& backend = *findKey("dynamo_config.dynamo_backend");
    if (!value.IsScalar()) {
      detail::throwValueError(where(value.Mark()), backend, kindOfNode(value), "expected a backend name, got");
    }
    m_legacyDynamo = std::get<std::string>(parseValueText(backend, value.Scalar(), where(value.Mark())));
    m_legacyDynamoLocation = SourceLocation{value.Mark().line + 1, value.Mark().column + 1};
    m_result.notes.push_back(where(keyNode.Mark()) + ": legacy key 'dynamo_backend' read as 'dynamo_config'");
  }

  // process_config: `fp16: true` becomes mixed_precision fp16 when mixed_precision is absent; a top-level
  // dynamo_backend replaces dynamo_config entirely ({} for NO).
  void applyLegacyTopLevel() {
    auto& cfg = m_result.config;
    if (m_legacyFp16 && *m_legacyFp16 && !cfg.contains("mixed_precision")) {
      cfg.set("mixed_precision", std::string("fp16"));
      m_result.locations["mixed_precision"] = m_legacyFp16Location;
    }
    if (m_legacyDynamo) {
      for (const auto& key : allKeys()) {
        if (key.section == "dynamo_config") {
          cfg.erase(key.path());
          m_result.locations.erase(key.path());
        }
      }
      if (*m_legacyDynamo != "no") {
        cfg.set("dynamo_config.dynamo_backend", *m_legacyDynamo);
        m_result.locations["dynamo_config.dynamo_backend"] = m_legacyDynamoLocation;
      }
    }
  }

  std::string_view m_text;
  LoadedConfig m_result;
  std::optional<bool> m_legacyFp16;
  SourceLocation m_legacyFp16Location;
  std::optional<std::string> m_legacyDynamo;
  SourceLocation m_legacyDynamoLocation;
};

}  // namespace

LoadedConfig parseConfig(std::string_view yamlText, std::string_view sourceName) {
  return Reader(yamlText, sourceName).run();
}

LoadedConfig loadConfigFile(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw ConfigError(fathom::detail::concat("The passed configuration file `", file.string(),
                                             "` does not exist. Pass an existing file, or create the default one with ",
                                             "`fathom config`."));
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    throw ConfigError(fathom::detail::concat(file.string(), ": cannot read the file"));
  }
  return parseConfig(text.str(), file.string());
}

}  // namespace fathom::config
