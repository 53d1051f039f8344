// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace fathom::parallel {

/// What runs around the forward of a module that an engine made a unit: a sharded engine (FullyShardedEngine)
/// gathers its parameters before, frees them after and arms the backward hooks on its outputs; a dispatched model
/// (bigmodel::DispatchedModel) loads offloaded weights before, releases them after, and moves tensors to where the
/// unit computes.
class UnitHooks {
public:
  virtual ~UnitHooks() = default;
  /// Before the unit's forward body.
  virtual void preForward() = 0;
  /// After it, with its tensor outputs (empty when the forward threw or returned no tensor).
  virtual void postForward(const std::vector<at::Tensor>& outputs) = 0;
  /// A tensor entering the unit's computation (an input, or a tensor coming back from another unit), as the unit
  /// needs it: on the device it computes on. The identity unless overridden.
  virtual at::Tensor alignInput(const at::Tensor& input) { return input; }
  /// The unit's output as its caller receives it (after postForward). The identity unless overridden.
  virtual at::Tensor alignOutput(const at::Tensor& output) { return output; }
};

/// Makes `hooks` run around every UnitScope opened on `module` (replacing any earlier registration) until
/// unregisterUnitHooks. Thread-safe.
void registerUnitHooks(const torch::nn::Module& module, std::shared_ptr<UnitHooks> hooks);
/// Forgets `module`'s hooks (nothing when it has none). Thread-safe.
void unregisterUnitHooks(const torch::nn::Module& module);

/// The one line that makes a C++ module shardable by FSDP / ZeRO-3. LibTorch modules have no forward hooks,
/// so a module whose parameters a sharded engine gathers on demand must announce when its forward runs:
///
///     at::Tensor MyBlock::forward(const at::Tensor& x) {
///       fathom::parallel::UnitScope unit(*this);
///       ...
///       return unit.finish(y);
///     }
///
/// or, at the call site, `y = fathom::parallel::callUnit(block, x);`. For a module no engine wrapped both cost
/// one registry lookup. Opening a scope on the model's own (root) module lets the engine free the root's
/// parameters between steps too; without it they stay gathered (docs/sharding.md, "Units").
///
/// A model that may be dispatched over several devices (bigmodel::DispatchedModel) also passes each tensor that
/// enters a unit from outside through align(): the forward's inputs, and in a unit that calls other units, what
/// comes back from them before its own modules use it (`x = root.align(x)`). callUnit aligns its tensor arguments
/// itself. Without a dispatch, align() returns its argument.
class UnitScope {
public:
  /// Runs the module's preForward, if an engine registered hooks for it.
  explicit UnitScope(const torch::nn::Module& module);
  /// Runs postForward without outputs if finish() was not called (the forward threw, or returned no tensor).
  ~UnitScope();
  UnitScope(const UnitScope&) = delete;
  UnitScope& operator=(const UnitScope&) = delete;

  /// `tensor` on the device this unit computes on (UnitHooks::alignInput); itself when no engine placed the unit.
  at::Tensor align(const at::Tensor& tensor) const;

  /// Runs postForward with `output` (backward hooks attach to it) and returns it, as the caller receives it
  /// (UnitHooks::alignOutput).
  at::Tensor finish(at::Tensor output);
  /// The same for several outputs.
  std::vector<at::Tensor> finish(std::vector<at::Tensor> outputs);

private:
  std::shared_ptr<UnitHooks> m_hooks;
  bool m_profiled = false;  ///< the profiler recorded this unit in the module hierarchy
  bool m_finished = false;
};

/// `module->forward(args...)` inside a UnitScope, each at::Tensor argument aligned (UnitScope::align); `module` is a
/// std::shared_ptr or a torch ModuleHolder.
template <typename M, typename... Args> auto callUnit(M& module, Args&&... args) {
  UnitScope scope(*module);
  const auto aligned = [&scope](auto&& arg) -> decltype(auto) {
    if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, at::Tensor>) {
      return scope.align(arg);
    } else {
      return std::forward<decltype(arg)>(arg);
    }
  };
  auto output = module->forward(aligned(std::forward<Args>(args))...);
  if constexpr (std::is_same_v<std::decay_t<decltype(output)>, at::Tensor>) {
    return scope.finish(std::move(output));
  } else {
    return output;
  }
}

}  // namespace fathom::parallel
