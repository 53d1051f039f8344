// SPDX-License-Identifier: Apache-2.0
// The tree of a checkpoint's tensors: matched to the config's model (transformers' from_pretrained: base-model prefix
// added or removed, unexpected keys ignored, missing ones initialized, tied weights stored once), or derived from the
// names when there is no model to match. Names are untrusted: split without recursion, their depth bounded.
#include <fathom/bigmodel/checkpoint_module_tree.h>

#include <fathom/bigmodel/hf_module_tree.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>

#include <algorithm>
#include <map>
#include <system_error>
#include <unordered_map>

namespace fathom::bigmodel {
namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return out + "]";
}

/// Whether model_type and architectures[0] name a model moduleTreeFromHfConfig builds.
const HfFamily* buildableFamily(const plan::HfConfig* config) {
  const HfFamily* family = config ? hfFamily(config->modelType) : nullptr;
  if (family == nullptr || !config->model) {
    return nullptr;
  }
  const std::string& arch = config->architecture;
  return arch.empty() || arch == family->headClass || arch == family->baseClass ? family : nullptr;
}

// ---- matched to the config's model ---------------------------------------------------------------------------------

CheckpointModel matchedToConfig(const std::vector<CheckpointTensor>& tensors, const plan::HfConfig& config,
                                const HfFamily& family) {
  const ModuleTree model = moduleTreeFromHfConfig(config);
  const std::string prefix = std::string(family.basePrefix) + ".";
  const bool expectsPrefix = model.findModule(family.basePrefix).has_value();
  const bool hasPrefix = std::any_of(tensors.begin(), tensors.end(),
                                     [&](const CheckpointTensor& t) { return t.name.starts_with(prefix); });
  // transformers' _load_pretrained_model: a model expecting the prefix loads a checkpoint without it by taking the
  // prefix off its own names (lm_head keeps its name); a base model loads a prefixed checkpoint by putting the prefix
  // on its names. The checkpoint's names are matched against the model's names so changed.
  const auto asLoaded = [&](const std::string& modelName) {
    if (expectsPrefix && !hasPrefix) {
      return modelName.starts_with(prefix) ? modelName.substr(prefix.size()) : modelName;
    }
    return !expectsPrefix && hasPrefix ? prefix + modelName : modelName;
  };

  // Where each of the model's tensors sits, by full name, and every place each tensor object (id) sits.
  struct Slot {
    std::size_t module;
    bool parameter;
    std::size_t index;
  };
  std::vector<ModuleInfo> modules = model.modules();
  const auto info = [&](const Slot& s) -> TensorInfo& {
    return (s.parameter ? modules[s.module].parameters : modules[s.module].buffers)[s.index];
  };
  std::unordered_map<std::string, Slot> byName;
  std::map<std::int64_t, std::vector<Slot>> byId;
  for (std::size_t m = 0; m < modules.size(); ++m) {
    for (const bool parameter : {true, false}) {
      const auto& list = parameter ? modules[m].parameters : modules[m].buffers;
      for (std::size_t i = 0; i < list.size(); ++i) {
        byName.emplace(asLoaded(ModuleTree::qualified(modules[m].name, list[i].name)), Slot{m, parameter, i});
        byId[list[i].tensorId].push_back({m, parameter, i});
      }
    }
  }

  CheckpointModel out{model, {}, std::nullopt, {}, {}};
  std::map<std::int64_t, bool> held;  // tensor ids the checkpoint provides
  std::size_t matched = 0;
  for (const CheckpointTensor& t : tensors) {
    const auto it = byName.find(t.name);
    if (it == byName.end()) {
      out.unusedTensors.push_back(t.name);
      continue;
    }
    TensorInfo& target = info(it->second);
    FATHOM_CHECK(target.shape == t.shape, ConfigError, "checkpoint: tensor '", terminalSafe(t.name), "' (in ",
                 terminalSafe(t.file), ") has shape ", shapeText(t.shape), ", but ", model.root().className, " as ",
                 config.origin, " describes it has ", shapeText(target.shape));
    ++matched;
    if (!it->second.parameter && !target.persistent) {
      continue;  // a stored copy of a non-persistent buffer: the model keeps its own
    }
    if (!held[target.tensorId]) {
      held[target.tensorId] = true;
      for (const Slot& s : byId.at(target.tensorId)) {  // a tied tensor is one object: one dtype, the first stored
        info(s).dtype = t.dtype;
      }
    }
  }
  FATHOM_CHECK(matched > 0, ConfigError, "checkpoint: none of its ", tensors.size(), " tensors is one of ",
               model.root().className, " as ", config.origin, " describes it (the first is '",
               tensors.empty() ? std::string() : terminalSafe(tensors.front().name), "')");
  for (const ModuleInfo& m : modules) {
    for (const bool parameter : {true, false}) {
      for (const TensorInfo& t : parameter ? m.parameters : m.buffers) {
        if ((parameter || t.persistent) && !held[t.tensorId]) {
          out.missingTensors.push_back(ModuleTree::qualified(m.name, t.name));
        }
      }
    }
  }
  out.tree = ModuleTree(std::move(modules));
  return out;
}

// ---- derived from the names ----------------------------------------------------------------------------------------

/// One prefix of the names: a module. Nodes live in one vector and refer to each other by index, so neither building
/// nor destroying the trie recurses, however deep the names.
struct Node {
  std::string name;
  std::vector<std::size_t> children;
  std::unordered_map<std::string, std::size_t> childByLocal;
  std::vector<std::pair<std::string, std::size_t>> tensors;  ///< local name, index into the input
};

std::vector<std::string> nameParts(const CheckpointTensor& t) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = t.name.find('.', begin);
    parts.push_back(t.name.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
    FATHOM_CHECK(!parts.back().empty(), ConfigError, "checkpoint: tensor '", terminalSafe(t.name), "' (in ",
                 terminalSafe(t.file), ") has an empty part in its dotted name");
    FATHOM_CHECK(parts.size() <= kMaxNameParts, ConfigError, "checkpoint: tensor '",
                 terminalSafe(t.name.substr(0, 200)), "...' (in ", terminalSafe(t.file), ") has more than ",
                 kMaxNameParts, " dotted parts in its name");
    if (dot == std::string::npos) {
      return parts;
    }
    begin = dot + 1;
  }
}

bool isNumber(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

CheckpointModel derivedFromNames(const std::vector<CheckpointTensor>& tensors, const plan::HfConfig* config) {
  std::vector<Node> nodes(1);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::vector<std::string> parts = nameParts(tensors[i]);
    std::size_t node = 0;
    for (std::size_t p = 0; p + 1 < parts.size(); ++p) {
      const auto found = nodes[node].childByLocal.find(parts[p]);
      if (found != nodes[node].childByLocal.end()) {
        node = found->second;
        continue;
      }
      const std::size_t child = nodes.size();
      Node created;
      created.name = ModuleTree::qualified(nodes[node].name, parts[p]);
      nodes.push_back(std::move(created));
      nodes[node].childByLocal.emplace(parts[p], child);
      nodes[node].children.push_back(child);
      node = child;
    }
    nodes[node].tensors.emplace_back(parts.back(), i);
  }

  // Classes: the config family's base model names its modules (under its prefix or at the root).
  std::optional<ModuleTree> base;
  std::string prefix;
  if (const HfFamily* family = config ? hfFamily(config->modelType) : nullptr; family && config->model) {
    plan::HfConfig baseConfig = *config;
    baseConfig.architecture = std::string(family->baseClass);
    base = moduleTreeFromHfConfig(baseConfig);
    prefix = std::string(family->basePrefix) + ".";
  }
  const auto classOf = [&](const Node& n) -> std::string {
    if (n.name.empty()) {
      return config && !config->architecture.empty() ? config->architecture : "Model";
    }
    if (base) {
      const std::string inBase = n.name.starts_with(prefix) ? n.name.substr(prefix.size()) : n.name;
      if (const auto index = base->findModule(inBase)) {
        return base->module(*index).className;
      }
      if (n.name + "." == prefix) {
        return base->root().className;
      }
    }
    const bool list = !n.children.empty() && std::all_of(n.children.begin(), n.children.end(), [&](std::size_t c) {
      return isNumber(nodes[c].name.substr(nodes[c].name.rfind('.') + 1));
    });
    return list ? "ModuleList" : "Module";
  };

  std::vector<ModuleInfo> modules;
  std::vector<std::size_t> stack{0};
  while (!stack.empty()) {
    Node& n = nodes[stack.back()];
    stack.pop_back();
    const auto local = [&](std::size_t c) { return nodes[c].name.substr(n.name.empty() ? 0 : n.name.size() + 1); };
    if (std::all_of(n.children.begin(), n.children.end(), [&](std::size_t c) { return isNumber(local(c)); })) {
      std::stable_sort(n.children.begin(), n.children.end(), [&](std::size_t a, std::size_t b) {
        const std::string la = local(a), lb = local(b);
        return la.size() != lb.size() ? la.size() < lb.size() : la < lb;  // numeric order, leading zeros aside
      });
    }
    ModuleInfo m{n.name, classOf(n), {}, {}, {}};
    for (const std::size_t c : n.children) {
      m.children.push_back(local(c));
    }
    for (const auto& [name, i] : n.tensors) {
      FATHOM_CHECK(!n.childByLocal.contains(name), ConfigError, "checkpoint: '", terminalSafe(tensors[i].name),
                   "' (in ", terminalSafe(tensors[i].file), ") is a tensor and also a module holding others");
      m.parameters.push_back({name, tensors[i].shape, tensors[i].dtype, true, -1});
    }
    modules.push_back(std::move(m));
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
      stack.push_back(*it);
    }
  }
  return {ModuleTree(std::move(modules)), {}, std::nullopt, {}, {}};
}

}  // namespace

CheckpointModel checkpointModel(const std::vector<CheckpointTensor>& tensors, const plan::HfConfig* config) {
  if (const HfFamily* family = buildableFamily(config)) {
    return matchedToConfig(tensors, *config, *family);
  }
  return derivedFromNames(tensors, config);
}

CheckpointModel readCheckpointModel(const std::filesystem::path& path) {
  const CheckpointTensors read = readCheckpointTensors(path);
  const std::filesystem::path configPath = read.file.parent_path() / "config.json";
  std::error_code ec;
  std::optional<plan::HfConfig> config;
  if (std::filesystem::is_regular_file(configPath, ec)) {
    config = plan::readHfConfig(configPath);
  }
  CheckpointModel model = checkpointModel(read.tensors, config ? &*config : nullptr);
  model.file = read.file;
  model.config = std::move(config);
  return model;
}

ModuleTree moduleTreeFromSafetensors(const std::filesystem::path& path) {
  return readCheckpointModel(path).tree;
}

}  // namespace fathom::bigmodel
