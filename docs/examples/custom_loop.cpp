// SPDX-License-Identifier: Apache-2.0
// A user's own LibTorch training loop, made distributed with fathom::Accelerator. Run it alone:
//     ./custom_loop
// or on two processes (DDP over Gloo on this machine):
//     fathom launch --num_processes 2 ./custom_loop
// The lines marked "Fathom" are all that differ from a plain single-process loop.
#include <fathom/train/accelerator.h>  // Fathom

#include <torch/torch.h>

#include <iostream>

namespace {

/// y = 3x - 1 with a little noise: 256 samples, one feature.
class LineDataset : public fathom::data::Dataset {
public:
  LineDataset() {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(42);
    m_x = at::randn({256, 1}, generator);
    m_y = 3 * m_x - 1 + 0.01 * at::randn({256, 1}, generator);
  }
  std::int64_t size() const override { return m_x.size(0); }
  fathom::data::Example get(std::int64_t i) const override { return {m_x[i], m_y[i]}; }

private:
  at::Tensor m_x, m_y;
};

}  // namespace

int main() {
  fathom::Accelerator accelerator({.gradientAccumulationSteps = 2});  // Fathom

  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(1, 16), torch::nn::ReLU(), torch::nn::Linear(16, 1));
  auto optimizer = std::make_shared<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.05));
  auto scheduler = std::make_shared<torch::optim::StepLR>(*optimizer, /*step_size=*/40, /*gamma=*/0.5);
  fathom::data::DataLoader loader(std::make_shared<LineDataset>(), {.batchSize = 16, .shuffle = true});

  auto [dmodel, doptimizer, dscheduler, dloader] = accelerator.prepare(model, optimizer, scheduler, loader);  // Fathom

  for (int epoch = 0; epoch < 10; ++epoch) {
    dloader->setEpoch(epoch);
    double lastLoss = 0;
    for (const auto& batch : *dloader) {
      auto sync = accelerator.accumulate();  // Fathom: sync every 2nd batch
      auto loss = torch::mse_loss(dmodel->forward(batch.input), batch.target);
      accelerator.backward(loss);  // Fathom: instead of loss.backward()
      doptimizer->step();
      dscheduler->step();
      doptimizer->zeroGrad();
      lastLoss = loss.item<double>();
    }
    // Average the last loss over the processes; print once.
    const double mean = accelerator.reduce(torch::tensor(lastLoss), fathom::train::Reduction::Mean).item<double>();
    accelerator.print("epoch", epoch, "loss", mean);
  }

  // Evaluate on every process's share; gatherForMetrics drops the samples even_batches repeated.
  torch::NoGradGuard noGrad;
  fathom::data::DataLoader evalLoader(std::make_shared<LineDataset>(), {.batchSize = 50});
  auto [deval] = accelerator.prepare(evalLoader);
  std::int64_t seen = 0;
  double squaredError = 0;
  for (const auto& batch : *deval) {
    auto errors = accelerator.gatherForMetrics((dmodel->forward(batch.input) - batch.target).pow(2));
    seen += errors.size(0);
    squaredError += errors.sum().item<double>();
  }
  accelerator.print("evaluated", seen, "samples, mse", squaredError / static_cast<double>(seen));
  return seen == 256 ? 0 : 1;
}
