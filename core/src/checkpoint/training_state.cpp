// SPDX-License-Identifier: Apache-2.0
// Optimizer, LR scheduler and RNG states as StateDicts (tensors plus string values; no pickle).
#include <fathom/checkpoint/training_state.h>
#include <fathom/common/error.h>

#include "runtime/torch_compat.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <nlohmann/json.hpp>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include <functional>
#include <memory>

namespace fathom::checkpoint {

namespace {

using Tensors = std::map<std::string, at::Tensor>;

/// How one optimizer type's per-parameter state and options map to named tensors and JSON. `save` lists the
/// defined tensors of a state (the step as a 0-dim int64 tensor); `load` builds a state from them.
struct Codec {
  const char* type;
  std::function<void(const torch::optim::OptimizerParamState&, Tensors&)> save;
  std::function<std::unique_ptr<torch::optim::OptimizerParamState>(const Tensors&)> load;
  std::function<nlohmann::json(const torch::optim::OptimizerOptions&)> options;
  /// State keys that must be present (the others are optional).
  std::vector<std::string> required;
};

at::Tensor stepTensor(std::int64_t step) {
  return at::scalar_tensor(step, at::kLong);
}

std::int64_t stepOf(const Tensors& t) {
  return t.at("step").item<std::int64_t>();
}

at::Tensor optional(const Tensors& t, const char* key) {
  const auto it = t.find(key);
  return it == t.end() ? at::Tensor() : it->second;
}

template <typename State> void putAdam(const State& s, Tensors& out) {
  out["step"] = stepTensor(s.step());
  if (s.exp_avg().defined())
    out["exp_avg"] = s.exp_avg();
  if (s.exp_avg_sq().defined())
    out["exp_avg_sq"] = s.exp_avg_sq();
  if (s.max_exp_avg_sq().defined())
    out["max_exp_avg_sq"] = s.max_exp_avg_sq();
}

template <typename State> std::unique_ptr<torch::optim::OptimizerParamState> getAdam(const Tensors& t) {
  auto s = std::make_unique<State>();
  s->step(stepOf(t));
  s->exp_avg(t.at("exp_avg"));
  s->exp_avg_sq(t.at("exp_avg_sq"));
  s->max_exp_avg_sq(optional(t, "max_exp_avg_sq"));
  return s;
}

template <typename Options> nlohmann::json adamOptions(const torch::optim::OptimizerOptions& o) {
  const auto& a = static_cast<const Options&>(o);
  return {{"lr", a.lr()},
          {"betas", {std::get<0>(a.betas()), std::get<1>(a.betas())}},
          {"eps", a.eps()},
          {"weight_decay", a.weight_decay()},
          {"amsgrad", a.amsgrad()}};
}

const Codec& codecFor(const torch::optim::Optimizer& optimizer) {
  using namespace torch::optim;
  static const Codec adamw{
      "AdamW",
      [](const OptimizerParamState& s, Tensors& out) { putAdam(static_cast<const AdamWParamState&>(s), out); },
      getAdam<AdamWParamState>,
      adamOptions<AdamWOptions>,
      {"step", "exp_avg", "exp_avg_sq"}};
  static const Codec adam{
      "Adam",
      [](const OptimizerParamState& s, Tensors& out) { putAdam(static_cast<const AdamParamState&>(s), out); },
      getAdam<AdamParamState>,
      adamOptions<AdamOptions>,
      {"step", "exp_avg", "exp_avg_sq"}};
  static const Codec sgd{"SGD",
                         [](const OptimizerParamState& s, Tensors& out) {
                           const auto& g = static_cast<const SGDParamState&>(s);
                           if (g.momentum_buffer().defined())
                             out["momentum_buffer"] = g.momentum_buffer();
                         },
                         [](const Tensors& t) -> std::unique_ptr<OptimizerParamState> {
                           auto s = std::make_unique<SGDParamState>();
                           s->momentum_buffer(optional(t, "momentum_buffer"));
                           return s;
                         },
                         [](const OptimizerOptions& o) -> nlohmann::json {
                           const auto& g = static_cast<const SGDOptions&>(o);
                           return {{"lr", g.lr()},
                                   {"momentum", g.momentum()},
                                   {"dampening", g.dampening()},
                                   {"weight_decay", g.weight_decay()},
                                   {"nesterov", g.nesterov()}};
                         },
                         {}};
  static const Codec rmsprop{"RMSprop",
                             [](const OptimizerParamState& s, Tensors& out) {
                               const auto& r = static_cast<const RMSpropParamState&>(s);
                               out["step"] = stepTensor(r.step());
                               if (r.square_avg().defined())
                                 out["square_avg"] = r.square_avg();
                               if (r.momentum_buffer().defined())
                                 out["momentum_buffer"] = r.momentum_buffer();
                               if (r.grad_avg().defined())
                                 out["grad_avg"] = r.grad_avg();
                             },
                             [](const Tensors& t) -> std::unique_ptr<OptimizerParamState> {
                               auto s = std::make_unique<RMSpropParamState>();
                               s->step(stepOf(t));
                               s->square_avg(t.at("square_avg"));
                               s->momentum_buffer(optional(t, "momentum_buffer"));
                               s->grad_avg(optional(t, "grad_avg"));
                               return s;
                             },
                             [](const OptimizerOptions& o) -> nlohmann::json {
                               const auto& r = static_cast<const RMSpropOptions&>(o);
                               return {{"lr", r.lr()},
                                       {"alpha", r.alpha()},
                                       {"eps", r.eps()},
                                       {"weight_decay", r.weight_decay()},
                                       {"momentum", r.momentum()},
                                       {"centered", r.centered()}};
                             },
                             {"step", "square_avg"}};
  static const Codec adagrad{"Adagrad",
                             [](const OptimizerParamState& s, Tensors& out) {
                               const auto& a = static_cast<const AdagradParamState&>(s);
                               out["step"] = stepTensor(a.step());
                               out["sum"] = a.sum();
                             },
                             [](const Tensors& t) -> std::unique_ptr<OptimizerParamState> {
                               auto s = std::make_unique<AdagradParamState>();
                               s->step(stepOf(t));
                               s->sum(t.at("sum"));
                               return s;
                             },
                             [](const OptimizerOptions& o) -> nlohmann::json {
                               const auto& a = static_cast<const AdagradOptions&>(o);
                               return {{"lr", a.lr()},
                                       {"lr_decay", a.lr_decay()},
                                       {"weight_decay", a.weight_decay()},
                                       {"initial_accumulator_value", a.initial_accumulator_value()},
                                       {"eps", a.eps()}};
                             },
                             {"step", "sum"}};
  // AdamW before Adam: neither derives from the other, but the order states which name wins for subclasses.
  if (dynamic_cast<const AdamW*>(&optimizer) != nullptr)
    return adamw;
  if (dynamic_cast<const Adam*>(&optimizer) != nullptr)
    return adam;
  if (dynamic_cast<const SGD*>(&optimizer) != nullptr)
    return sgd;
  if (dynamic_cast<const RMSprop*>(&optimizer) != nullptr)
    return rmsprop;
  if (dynamic_cast<const Adagrad*>(&optimizer) != nullptr)
    return adagrad;
  throw ConfigError("save_state: the optimizer is not Adam, AdamW, SGD, RMSprop or Adagrad (or derived from one); "
                    "its state cannot be checkpointed yet");
}

/// Parameter i's state prefix, as torch.optim's state_dict numbers parameters across groups.
std::string prefix(std::size_t i) {
  return "state." + std::to_string(i) + ".";
}

template <typename LRScheduler> struct StepCountAccess : LRScheduler {
  static unsigned& of(LRScheduler& scheduler) { return scheduler.*(&StepCountAccess::step_count_); }
};

}  // namespace

StateDict optimizerStateDict(const torch::optim::Optimizer& optimizer) {
  const Codec& codec = codecFor(optimizer);
  StateDict out;
  nlohmann::json groups = nlohmann::json::array();
  nlohmann::json shapes = nlohmann::json::array();
  std::size_t index = 0;
  const auto& state = optimizer.state();
  for (const auto& group : optimizer.param_groups()) {
    nlohmann::json options = codec.options(group.options());
    options["params"] = nlohmann::json::array();
    for (const at::Tensor& param : group.params()) {
      options["params"].push_back(index);
      shapes.push_back(param.sizes().vec());
      const auto it = state.find(compat::optimizerStateKey(param));
      if (it != state.end()) {
        Tensors tensors;
        codec.save(*it->second, tensors);
        for (auto& [key, t] : tensors)
          out.tensors.emplace_back(prefix(index) + key, t.detach().to(at::kCPU, /*non_blocking=*/false, /*copy=*/true));
      }
      ++index;
    }
    groups.push_back(std::move(options));
  }
  out.values["format"] = "fathom.optimizer.v1";
  out.values["optimizer"] = codec.type;
  out.values["param_groups"] = groups.dump();
  out.values["shapes"] = shapes.dump();
  return out;
}

std::function<void()> stageOptimizerStateDict(torch::optim::Optimizer& optimizer, const StateDict& saved,
                                              const std::string& file) {
  const Codec& codec = codecFor(optimizer);
  const std::string* type = saved.value("optimizer");
  const std::string* groupsText = saved.value("param_groups");
  const std::string* shapesText = saved.value("shapes");
  FATHOM_CHECK(type && groupsText && shapesText, ConfigError, file,
               ": not an optimizer state (values optimizer, param_groups and shapes expected)");
  FATHOM_CHECK(*type == codec.type, ConfigError, file, ": the optimizer state is ", *type, "'s, this optimizer is ",
               codec.type);
  nlohmann::json groups;
  nlohmann::json shapes;
  try {
    groups = nlohmann::json::parse(*groupsText);
    shapes = nlohmann::json::parse(*shapesText);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(detail::concat(file, ": malformed param_groups or shapes: ", e.what()));
  }
  auto& paramGroups = optimizer.param_groups();
  FATHOM_CHECK(groups.size() == paramGroups.size(), ConfigError, file, ": ", groups.size(),
               " parameter group(s) saved, the optimizer has ", paramGroups.size());
  // Everything is checked, and every new state built, before the optimizer is touched.
  std::map<std::size_t, Tensors> byParam;
  for (const auto& [name, t] : saved.tensors) {
    const auto dot = name.find('.', 6);
    FATHOM_CHECK(name.rfind("state.", 0) == 0 && dot != std::string::npos, ConfigError, file, ": unexpected tensor '",
                 name, "' (state.<i>.<key> expected)");
    byParam[std::stoul(name.substr(6, dot - 6))][name.substr(dot + 1)] = t;
  }
  std::vector<std::pair<at::Tensor, std::unique_ptr<torch::optim::OptimizerParamState>>> states;
  std::vector<double> lrs;
  std::size_t index = 0;
  for (std::size_t g = 0; g < paramGroups.size(); ++g) {
    const auto& params = paramGroups[g].params();
    FATHOM_CHECK(groups[g].at("params").size() == params.size(), ConfigError, file, ": parameter group ", g, " has ",
                 groups[g].at("params").size(), " parameters saved, ", params.size(), " here");
    lrs.push_back(groups[g].at("lr").get<double>());
    for (const at::Tensor& param : params) {
      const auto savedShape = shapes.at(index).get<std::vector<std::int64_t>>();
      FATHOM_CHECK(savedShape == param.sizes().vec(), ConfigError, file, ": parameter ", index, " has shape ",
                   at::IntArrayRef(savedShape), " saved, ", param.sizes(),
                   " here (a checkpoint of another model or "
                   "another sharding layout)");
      const auto it = byParam.find(index);
      if (it != byParam.end()) {
        for (const std::string& key : codec.required) {
          FATHOM_CHECK(it->second.count(key) > 0, ConfigError, file, ": parameter ", index, " has no '", key,
                       "' state");
        }
        Tensors onDevice;
        for (const auto& [key, t] : it->second) {
          if (key == "step") {
            onDevice[key] = t;
            continue;
          }
          FATHOM_CHECK(t.sizes() == param.sizes(), ConfigError, file, ": state.", index, ".", key, " has shape ",
                       t.sizes(), ", the parameter ", param.sizes());
          onDevice[key] = t.to(param.options(), /*non_blocking=*/false, /*copy=*/true);
        }
        states.emplace_back(param, codec.load(onDevice));
      } else {
        states.emplace_back(param, nullptr);
      }
      ++index;
    }
  }
  auto staged = std::make_shared<decltype(states)>(std::move(states));
  return [&optimizer, staged, lrs] {
    auto& state = optimizer.state();
    for (auto& [param, s] : *staged) {
      const auto key = compat::optimizerStateKey(param);
      if (s) {
        state[key] = std::move(s);
      } else {
        state.erase(key);
      }
    }
    auto& paramGroups = optimizer.param_groups();
    for (std::size_t g = 0; g < paramGroups.size(); ++g)
      paramGroups[g].options().set_lr(lrs[g]);
  };
}

void loadOptimizerStateDict(torch::optim::Optimizer& optimizer, const StateDict& saved, const std::string& file) {
  stageOptimizerStateDict(optimizer, saved, file)();
}

unsigned schedulerStepCount(torch::optim::LRScheduler& scheduler) {
  return StepCountAccess<torch::optim::LRScheduler>::of(scheduler);
}

void setSchedulerStepCount(torch::optim::LRScheduler& scheduler, unsigned count) {
  StepCountAccess<torch::optim::LRScheduler>::of(scheduler) = count;
}

StateDict rngStateDict() {
  StateDict out;
  out.tensors.emplace_back("torch_cpu", at::detail::getDefaultCPUGenerator().get_state());
  if (at::hasCUDA()) {
    const int devices = at::detail::getCUDAHooks().getNumGPUs();
    for (int d = 0; d < devices; ++d) {
      at::Generator gen = at::globalContext().defaultGenerator(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(d)));
      out.tensors.emplace_back("torch_cuda_" + std::to_string(d), gen.get_state());
    }
  }
  out.values["format"] = "fathom.rng.v1";
  return out;
}

void loadRngStateDict(const StateDict& state, const std::string& file) {
  const at::Tensor* cpu = state.tensor("torch_cpu");
  FATHOM_CHECK(cpu != nullptr, ConfigError, file, ": no torch_cpu generator state");
  const int devices = at::hasCUDA() ? at::detail::getCUDAHooks().getNumGPUs() : 0;
  for (const auto& [name, t] : state.tensors) {
    if (name.rfind("torch_cuda_", 0) != 0)
      continue;
    const int d = std::stoi(name.substr(11));
    FATHOM_CHECK(d < devices, ConfigError, file, ": has the state of CUDA device ", d, ", this process sees ", devices,
                 " device(s)");
  }
  at::Generator cpuGenerator = at::detail::getDefaultCPUGenerator();  // a handle to the default generator
  cpuGenerator.set_state(*cpu);
  for (const auto& [name, t] : state.tensors) {
    if (name.rfind("torch_cuda_", 0) != 0)
      continue;
    const auto d = static_cast<c10::DeviceIndex>(std::stoi(name.substr(11)));
    at::Generator generator = at::globalContext().defaultGenerator(at::Device(at::kCUDA, d));
    generator.set_state(t);
  }
}

}  // namespace fathom::checkpoint
