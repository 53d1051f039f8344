// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/unit_scope.h>
#include <fathom/profile/annotations.h>

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace fathom::parallel {

namespace {

struct Registry {
  std::shared_mutex mutex;
  std::unordered_map<const torch::nn::Module*, std::shared_ptr<UnitHooks>> hooks;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::shared_ptr<UnitHooks> lookup(const torch::nn::Module& module) {
  Registry& r = registry();
  const std::shared_lock lock(r.mutex);
  const auto it = r.hooks.find(&module);
  return it == r.hooks.end() ? nullptr : it->second;
}

}  // namespace

void registerUnitHooks(const torch::nn::Module& module, std::shared_ptr<UnitHooks> hooks) {
  Registry& r = registry();
  const std::unique_lock lock(r.mutex);
  r.hooks[&module] = std::move(hooks);
}

void unregisterUnitHooks(const torch::nn::Module& module) {
  Registry& r = registry();
  const std::unique_lock lock(r.mutex);
  r.hooks.erase(&module);
}

UnitScope::UnitScope(const torch::nn::Module& module)
    : m_hooks(lookup(module)), m_profiled(profile::hooks::enterModule(module.name())) {
  if (m_hooks) {
    try {
      m_hooks->preForward();
    } catch (...) {  // no destructor runs for a constructor that throws: leave the profiler's module stack as found
      profile::hooks::exitModule(m_profiled);
      throw;
    }
  }
}

UnitScope::~UnitScope() {
  profile::hooks::exitModule(m_profiled);
  if (m_hooks && !m_finished) {
    try {
      m_hooks->postForward({});
    } catch (...) {  // NOLINT(bugprone-empty-catch): already unwinding or returning; the engine keeps its error
    }
  }
}

at::Tensor UnitScope::align(const at::Tensor& tensor) const {
  return m_hooks && tensor.defined() ? m_hooks->alignInput(tensor) : tensor;
}

at::Tensor UnitScope::finish(at::Tensor output) {
  if (m_hooks && !m_finished) {
    m_finished = true;
    m_hooks->postForward({output});
    return output.defined() ? m_hooks->alignOutput(output) : output;
  }
  return output;
}

std::vector<at::Tensor> UnitScope::finish(std::vector<at::Tensor> outputs) {
  if (m_hooks && !m_finished) {
    m_finished = true;
    m_hooks->postForward(outputs);
    for (at::Tensor& output : outputs) {
      if (output.defined()) {
        output = m_hooks->alignOutput(output);
      }
    }
  }
  return outputs;
}

}  // namespace fathom::parallel
