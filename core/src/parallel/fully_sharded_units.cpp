// SPDX-License-Identifier: Apache-2.0
#include "fully_sharded_units.h"

#include <fathom/common/error.h>

#include <algorithm>
#include <set>
#include <unordered_map>

namespace fathom::parallel::detail {

std::string className(const torch::nn::Module& module) {
  const std::string& name = module.name();
  const auto colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

namespace {

std::int64_t parameterCount(const torch::nn::Module& module) {
  std::int64_t n = 0;
  for (const auto& p : module.parameters(/*recurse=*/true))
    n += p.numel();
  return n;
}

bool isUnder(const std::string& path, const std::string& ancestor) {
  return path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 &&
         path[ancestor.size()] == '.';
}

}  // namespace

std::vector<ShardedUnit> buildUnits(torch::nn::Module& module, const FullyShardedConfig& config,
                                    const FlatParam::Options& base, const std::string& prefix) {
  // Candidates: outermost modules of the named classes, in registration (pre-)order.
  std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>> wrapped;
  std::set<std::string> classesSeen;
  if (config.wrapPolicy != FsdpWrapPolicy::NoWrap) {
    FATHOM_CHECK(!config.unitClassNames.empty(), ConfigError, prefix,
                 ": the auto-wrap policy needs the block class names (fsdp_transformer_layer_cls_to_wrap)");
    for (const auto& item : module.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
      const std::string cls = className(*item.value());
      classesSeen.insert(cls);
      const bool named =
          std::find(config.unitClassNames.begin(), config.unitClassNames.end(), cls) != config.unitClassNames.end();
      if (!named)
        continue;
      const bool nested =
          std::any_of(wrapped.begin(), wrapped.end(), [&](const auto& w) { return isUnder(item.key(), w.first); });
      if (nested)
        continue;
      if (config.wrapPolicy == FsdpWrapPolicy::SizeBased && parameterCount(*item.value()) < config.minNumParams)
        continue;
      wrapped.emplace_back(item.key(), item.value());
    }
    if (config.wrapPolicy == FsdpWrapPolicy::TransformerBased && wrapped.empty()) {
      std::string classes;
      for (const std::string& c : classesSeen)
        classes += (classes.empty() ? "" : ", ") + c;
      FATHOM_CHECK(false, ConfigError, prefix, ": no module of class '", config.unitClassNames.front(),
                   "' (fsdp_transformer_layer_cls_to_wrap) in the model; its classes are: ", classes);
    }
  }

  // Assign every parameter to the first unit that holds it; what no wrapped module holds is the root's.
  std::unordered_map<const c10::TensorImpl*, std::size_t> owner;  // -> index in `wrapped`
  std::vector<std::vector<std::pair<std::string, at::Tensor>>> params(wrapped.size());
  for (std::size_t w = 0; w < wrapped.size(); ++w) {
    for (const auto& item : wrapped[w].second->named_parameters(/*recurse=*/true)) {
      const auto found = owner.find(item.value().unsafeGetTensorImpl());
      if (found != owner.end() && found->second == w)
        continue;  // tied within the unit: once
      const auto [it, inserted] = owner.emplace(item.value().unsafeGetTensorImpl(), w);
      FATHOM_CHECK(inserted, ConfigError, prefix, ": parameter '", wrapped[w].first, ".", item.key(),
                   "' is shared by the units '", wrapped[it->second].first, "' and '", wrapped[w].first,
                   "'; shared parameters must live in one unit (wrap their common parent instead)");
      params[w].emplace_back(wrapped[w].first + "." + item.key(), item.value());
    }
  }
  std::vector<std::pair<std::string, at::Tensor>> rootParams;
  std::set<const c10::TensorImpl*> seen;  // a tied weight registered under several names counts once
  for (const auto& item : module.named_parameters(/*recurse=*/true)) {
    const c10::TensorImpl* impl = item.value().unsafeGetTensorImpl();
    if (!owner.count(impl) && seen.insert(impl).second)
      rootParams.emplace_back(item.key(), item.value());
  }

  auto build = [&](std::string label, const std::vector<std::pair<std::string, at::Tensor>>& list, bool root,
                   const torch::nn::Module* mod) {
    const bool grad = list.front().second.requires_grad();
    for (const auto& [name, p] : list) {
      FATHOM_CHECK(p.requires_grad() == grad, ConfigError, prefix, ": unit '", label, "' mixes parameters that ",
                   "require grad with frozen ones ('", name, "'); freeze whole units");
    }
    FlatParam::Options o = base;
    o.label = std::move(label);
    o.device = list.front().second.device();
    ShardedUnit u;
    u.root = root;
    u.module = mod;
    u.flat = std::make_unique<FlatParam>(list, o);
    return u;
  };
  std::vector<ShardedUnit> units;
  if (!rootParams.empty())
    units.push_back(build("root", rootParams, true, nullptr));
  for (std::size_t w = 0; w < wrapped.size(); ++w) {
    if (!params[w].empty())
      units.push_back(build(wrapped[w].first, params[w], false, wrapped[w].second.get()));
  }
  FATHOM_CHECK(!units.empty(), ConfigError, prefix, ": the model has no parameters");
  return units;
}

}  // namespace fathom::parallel::detail
