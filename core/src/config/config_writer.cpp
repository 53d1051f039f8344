// SPDX-License-Identifier: Apache-2.0
#include <fathom/config/config_writer.h>

#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

namespace fathom::config {
namespace {

// A tree of sections so that keys come out sorted per level, as safe_dump sorts them.
struct Tree {
  std::map<std::string, const ConfigValue*> values;
  std::map<std::string, Tree> children;
  bool empty() const {
    if (!values.empty()) {
      return false;
    }
    for (const auto& [name, child] : children) {
      if (!child.empty()) {
        return false;
      }
    }
    return true;
  }
};

// YAML 1.1 (PyYAML) reads these plain scalars as booleans, null or numbers; quote them when they are strings.
bool needsQuotes(const std::string& s) {
  if (s.empty() || parseBool(s) || s == "~" || s == "null" || s == "Null" || s == "NULL" || s == "y" || s == "n") {
    return true;
  }
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (end == s.c_str() + s.size()) {
    return true;  // "1234", "1e8", "0x1F", "inf", "nan"
  }
  const std::string lower = [&] {
    std::string l;
    for (char c : s) {
      l += char(std::tolower(static_cast<unsigned char>(c)));
    }
    return l;
  }();
  return lower == ".inf" || lower == "-.inf" || lower == ".nan" ||
         s.find_first_of(":#{}[],&*!|>'\"%@`") != std::string::npos || s.front() == ' ' || s.back() == ' ' ||
         s.front() == '-' || s.front() == '?';
}

/// Control characters (a lone carriage return, a tab, ...) survive only in a double-quoted scalar, where the emitter
/// writes them as escapes: plain or single-quoted, YAML folds or drops them, and the file reads back differently.
bool hasControlCharacters(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

void emitString(YAML::Emitter& out, const std::string& s) {
  if (hasControlCharacters(s)) {
    out << YAML::DoubleQuoted << s;
  } else if (needsQuotes(s)) {
    out << YAML::SingleQuoted << s;
  } else {
    out << s;
  }
}

void emitValue(YAML::Emitter& out, const ConfigValue& value) {
  if (const auto* b = std::get_if<bool>(&value)) {
    out << *b;
  } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
    out << *i;
  } else if (const auto* d = std::get_if<double>(&value)) {
    out << toDisplayString(*d);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    emitString(out, *s);
  } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    out << YAML::BeginSeq;
    for (const auto& item : *list) {
      emitString(out, item);
    }
    out << YAML::EndSeq;
  } else if (const auto* bools = std::get_if<std::vector<bool>>(&value)) {
    out << YAML::Flow << YAML::BeginSeq;
    for (bool b : *bools) {
      out << b;
    }
    out << YAML::EndSeq;
  }
}

void emitTree(YAML::Emitter& out, const Tree& tree) {
  std::map<std::string, const Tree*> children;
  for (const auto& [name, child] : tree.children) {
    if (!child.empty()) {
      children.emplace(name, &child);
    }
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : tree.values) {
    names.push_back(name);
  }
  for (const auto& [name, child] : children) {
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  out << YAML::BeginMap;
  for (const auto& name : names) {
    out << YAML::Key << name << YAML::Value;
    if (auto it = tree.values.find(name); it != tree.values.end()) {
      emitValue(out, *it->second);
    } else {
      emitTree(out, *children.at(name));
    }
  }
  out << YAML::EndMap;
}

}  // namespace

std::string emitConfig(const AccelerateConfig& config) {
  Tree root;
  for (const auto& [path, value] : config.values()) {
    if (const KeySpec* key = findKey(path); key != nullptr && !key->inFile) {
      continue;  // resolved from code/flags/environment only (gradient_accumulation_steps); not a file key
    }
    Tree* node = &root;
    std::string rest = path;
    for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      node = &node->children[rest.substr(0, dot)];
      rest = rest.substr(dot + 1);
    }
    node->values[rest] = &value;
  }
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetBoolFormat(YAML::TrueFalseBool);
  out.SetBoolFormat(YAML::LowerCase);
  if (root.empty()) {
    return "{}\n";
  }
  emitTree(out, root);
  return std::string(out.c_str()) + "\n";
}

void saveConfigFile(const AccelerateConfig& config, const std::filesystem::path& file) {
  const std::string text = emitConfig(config);  // everything that can fail on content happens before any I/O
  const std::filesystem::path dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw StorageError(detail::concat("cannot create directory ", dir.string(), ": ", ec.message()));
  }
  // Whole or not at all (AtomicFile): a full disk, the file size limit or a kill leaves the previous file as it was
  // and no temporary behind.
  AtomicFile::writeWhole(
      file, text,
      {.temporarySuffix = ".tmp-" + std::to_string(::getpid()), .what = "config file", .unnamedWhileWriting = true});
}

}  // namespace fathom::config
