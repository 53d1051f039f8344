// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/data_parallel_engine.h>
#include <fathom/parallel/ddp_reducer.h>

#include <memory>

namespace fathom::parallel {

/// DDP as a DataParallelEngine: a DdpReducer (replicated parameters, bucketed all-reduce) plus the accounting
/// the Accelerator asks every strategy for. Also used without a Comm (one process): nothing is communicated.
class DdpEngine : public DataParallelEngine {
public:
  /// `comm` null: a single process (no reducer). Otherwise see DdpReducer's constructor.
  DdpEngine(std::shared_ptr<torch::nn::Module> module, Comm* comm, const DdpOptions& options);

  std::string_view strategy() const override { return "ddp"; }
  std::shared_ptr<torch::nn::Module> module() const override { return m_module; }
  void setRequireGradSync(bool sync) override;
  bool requireGradSync() const override;
  /// Local clip: every rank holds the same averaged gradients.
  double clipGradNorm(double maxNorm, double normType) override;
  ModelStateBytes stateBytes(const std::vector<const torch::optim::Optimizer*>& optimizers) const override;
  /// Every rank holds the full parameters: clones, no communication.
  NamedTensors fullStateDict(bool rank0Only) override;

  /// The reducer, or nullptr in a single process.
  const DdpReducer* reducer() const { return m_reducer.get(); }

private:
  std::shared_ptr<torch::nn::Module> m_module;
  std::unique_ptr<DdpReducer> m_reducer;
  int m_rank = 0;
};

}  // namespace fathom::parallel
