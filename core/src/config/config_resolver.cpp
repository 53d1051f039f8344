// SPDX-License-Identifier: Apache-2.0
// Precedence as Accelerate applies it. Sources: accelerate/commands/launch.py (_validate_launch_command: config
// file only where the CLI arg is None, default file skipped under --cpu), accelerate/state.py (Accelerator's
// mixed_precision argument beats ACCELERATE_MIXED_PRECISION; ACCELERATE_USE_* select the distributed type),
// accelerate/accelerator.py (ACCELERATE_GRADIENT_ACCUMULATION_STEPS beats the constructor argument),
// accelerate/commands/config/config_args.py (process_config defaults). docs/config.md lists them with lines.
#include <fathom/config/config_resolver.h>

#include "config_errors.h"

#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/config/config_paths.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/config_schema.h>

#include <array>
#include <unistd.h>

extern char** environ;  // NOLINT: POSIX

namespace fathom::config {
namespace {

struct Candidate {
  ValueSource source;
  ConfigValue value;
  std::string origin;
};

std::map<std::string, std::string> processEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    if (auto eq = entry.find('='); eq != std::string::npos) {
      env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
    }
  }
  return env;
}

const KeySpec& requireKey(const std::string& path, std::string_view origin) {
  const KeySpec* key = findKey(path);
  if (key == nullptr) {
    throw ConfigError(
        fathom::detail::concat(origin, ": unknown config key '", path, "'; see docs/config.md for the keys"));
  }
  return *key;
}

const std::string kGradientAccumulationNote = "ACCELERATE_GRADIENT_ACCUMULATION_STEPS overrides the "
                                              "gradient_accumulation_steps argument in code (as Accelerate's "
                                              "Accelerator does)";

// The levels in the order they win. Only gradient_accumulation_steps differs (accelerator.py:544-547).
std::array<ValueSource, 5> precedenceFor(const std::string& path) {
  if (path == "gradient_accumulation_steps") {
    return {ValueSource::Environment, ValueSource::Code, ValueSource::CommandLine, ValueSource::ConfigFile,
            ValueSource::Default};
  }
  return {ValueSource::Code, ValueSource::CommandLine, ValueSource::Environment, ValueSource::ConfigFile,
          ValueSource::Default};
}

}  // namespace

std::string_view toString(ValueSource source) {
  switch (source) {
  case ValueSource::Default: return "default";
  case ValueSource::ConfigFile: return "config file";
  case ValueSource::Environment: return "environment";
  case ValueSource::CommandLine: return "command line";
  case ValueSource::Code: return "code";
  }
  return "unknown";
}

const ResolvedValue* EffectiveConfig::find(std::string_view path) const {
  auto it = values.find(std::string(path));
  return it == values.end() ? nullptr : &it->second;
}

std::vector<std::string> environmentNamesFor(std::string_view path) {
  const KeySpec* key = findKey(path);
  if (key == nullptr) {
    return {};
  }
  std::vector<std::string> names{fathomEnvironmentName(*key)};
  names.insert(names.end(), key->environment.begin(), key->environment.end());
  return names;
}

EffectiveConfig resolveConfig(const ResolveInputs& inputs) {
  EffectiveConfig out;
  std::map<std::string, std::vector<Candidate>> candidates;
  auto add = [&](const std::string& path, ValueSource source, ConfigValue value, std::string origin) {
    candidates[path].push_back(Candidate{source, std::move(value), std::move(origin)});
  };

  // Code and command line first: they are checked before any file is read, and --cpu decides whether the
  // default file is read at all.
  for (const auto& [path, value] : inputs.code) {
    const std::string origin = "code argument " + path;
    add(path, ValueSource::Code, checkValue(requireKey(path, origin), value, origin), "code");
  }
  bool cpuFlag = false;
  for (const auto& [path, text] : inputs.commandLine) {
    const std::string flag = launchFlagForKey(path);
    ConfigValue value = parseValueText(requireKey(path, flag), text, flag);
    if (path == "use_cpu" && std::get<bool>(value)) {
      cpuFlag = true;
    }
    add(path, ValueSource::CommandLine, std::move(value), flag);
  }

  // The file.
  std::optional<LoadedConfig> loaded;
  if (inputs.configFile) {
    loaded = loadConfigFile(*inputs.configFile);
    out.configFile = *inputs.configFile;
  } else if (inputs.useDefaultConfigFile && !cpuFlag) {
    std::error_code ec;
    const auto own = defaultConfigFile();
    const auto accelerate = accelerateDefaultConfigFile();
    if (std::filesystem::is_regular_file(own, ec)) {
      loaded = loadConfigFile(own);
      out.configFile = own;
    } else if (std::filesystem::is_regular_file(accelerate, ec)) {
      loaded = loadConfigFile(accelerate);
      out.configFile = accelerate;
      out.usedAccelerateFallback = true;
      const std::string note =
          "no Fathom config at " + own.string() + "; using Accelerate's default config " + accelerate.string();
      out.notes.push_back(note);
      log(LogLevel::Info, note);
    }
  } else if (inputs.useDefaultConfigFile && cpuFlag) {
    out.notes.push_back("--cpu given: the default config file is not read (as `accelerate launch --cpu`)");
  }
  if (loaded) {
    for (const auto& [path, value] : loaded->config.values()) {
      std::string origin = loaded->source;
      if (auto it = loaded->locations.find(path); it != loaded->locations.end()) {
        origin += ':';
        origin += std::to_string(it->second.line);
        origin += ':';
        origin += std::to_string(it->second.column);
      }
      add(path, ValueSource::ConfigFile, value, origin);
    }
    out.notes.insert(out.notes.end(), loaded->notes.begin(), loaded->notes.end());
  }

  // The environment. Empty variables count as unset.
  const auto env = inputs.environment ? *inputs.environment : processEnvironment();
  auto lookup = [&](const std::string& name) -> const std::string* {
    auto it = env.find(name);
    return it == env.end() || it->second.empty() ? nullptr : &it->second;
  };
  for (const auto& key : allKeys()) {
    for (const auto& name : environmentNamesFor(key.path())) {
      if (const std::string* text = lookup(name)) {
        add(key.path(), ValueSource::Environment, parseValueText(key, *text, name), name);
        break;
      }
    }
  }
  if (auto& list = candidates["distributed_type"];
      std::none_of(list.begin(), list.end(), [](const Candidate& c) { return c.source == ValueSource::Environment; })) {
    // state.py: ACCELERATE_USE_DEEPSPEED, then ACCELERATE_USE_FSDP, then ACCELERATE_USE_MEGATRON_LM.
    static const std::array<std::pair<const char*, const char*>, 3> modes = {
        {{"ACCELERATE_USE_DEEPSPEED", "DEEPSPEED"},
         {"ACCELERATE_USE_FSDP", "FSDP"},
         {"ACCELERATE_USE_MEGATRON_LM", "MEGATRON_LM"}}};
    for (const auto& [name, mode] : modes) {
      if (const std::string* text = lookup(name)) {
        auto flag = parseBool(*text);
        if (!flag) {
          throw ConfigError(fathom::detail::concat(name, ": '", *text,
                                                   "' is not a boolean; allowed values: y, yes, t, true, on, 1, n, no, "
                                                   "f, false, off, 0"));
        }
        if (*flag) {
          list.push_back(Candidate{ValueSource::Environment, std::string(mode), name});
          break;
        }
      }
    }
  }

  // Pick per key.
  auto pick = [&](const std::string& path) {
    auto it = candidates.find(path);
    if (it == candidates.end() || it->second.empty()) {
      return;
    }
    const auto order = precedenceFor(path);
    std::vector<const Candidate*> sorted;
    for (ValueSource level : order) {
      for (const auto& c : it->second) {
        if (c.source == level) {
          sorted.push_back(&c);
        }
      }
    }
    ResolvedValue resolved{sorted.front()->value, sorted.front()->source, sorted.front()->origin, {}};
    for (std::size_t i = 1; i < sorted.size() && sorted[i]->source != ValueSource::Default; ++i) {
      resolved.overridden.push_back(sorted[i]->origin + " = " + toDisplayString(sorted[i]->value));
    }
    if (path == "gradient_accumulation_steps" && resolved.source == ValueSource::Environment &&
        std::any_of(it->second.begin(), it->second.end(),
                    [](const Candidate& c) { return c.source == ValueSource::Code; })) {
      out.notes.push_back(kGradientAccumulationNote);
    }
    out.config.set(path, resolved.value, resolved.origin);
    out.values[path] = std::move(resolved);
  };
  for (const auto& [path, list] : candidates) {
    if (path != "num_processes") {
      pick(path);
    }
  }
  // Defaults, after distributed_type is known (num_processes depends on it).
  for (const auto& key : allKeys()) {
    if (!key.section.empty() || !key.defaultValue || key.name == "num_processes") {
      continue;
    }
    if (!out.config.contains(key.name)) {
      candidates[key.name].push_back(Candidate{ValueSource::Default, *key.defaultValue, "default"});
      pick(key.name);
    }
  }
  candidates["num_processes"].push_back(Candidate{
      ValueSource::Default, out.config.distributedType() == "NO" ? std::int64_t{1} : std::int64_t{-1}, "default"});
  pick("num_processes");

  if (!out.configFile) {
    std::vector<std::string> defaulted;
    for (const char* key : {"num_processes", "num_machines", "mixed_precision", "distributed_type"}) {
      if (out.values.at(key).source == ValueSource::Default) {
        defaulted.push_back(std::string(key) + "=" + toDisplayString(out.values.at(key).value));
      }
    }
    if (!defaulted.empty()) {
      out.notes.push_back("no config file; these values had defaults used instead: " + detail::join(defaulted));
    }
  }
  return out;
}

WorkspaceSetting workspaceSetting(const EffectiveConfig& effective) {
  if (const ResolvedValue* v = effective.find("fathom.workspace")) {
    return {std::get<std::string>(v->value), v->source, v->origin};
  }
  return {kDefaultWorkspaceFile, ValueSource::Default, "default"};
}

WorkspaceSetting resolveWorkspace(const std::optional<std::string>& flag, ResolveInputs inputs) {
  if (flag) {
    return {*flag, ValueSource::CommandLine, "--workspace"};
  }
  const auto all = inputs.environment ? *inputs.environment : processEnvironment();
  std::map<std::string, std::string> mine;
  for (const auto& name : environmentNamesFor("fathom.workspace")) {
    if (auto it = all.find(name); it != all.end()) {
      mine.insert(*it);
    }
  }
  inputs.environment = std::move(mine);
  inputs.commandLine.clear();
  inputs.code.clear();
  return workspaceSetting(resolveConfig(inputs));
}

}  // namespace fathom::config
