// SPDX-License-Identifier: Apache-2.0
// The loop behind `fathom train`. It uses nothing but fathom::Accelerator's public API, exactly as a user's own
// program would (docs/train.md walks through it): build the model, optimizer and loader as for one process,
// prepare() them, and keep the loop unchanged.
#include "train_loop.h"
#include "train_cuda_memory.h"
#include "train_outputs.h"
#include "train_resume.h"
#include "train_stats.h"

#include <fathom/common/error.h>
#include <fathom/io/safetensors.h>
#include <fathom/parallel/comm_record.h>
#include <fathom/profile/annotations.h>
#include <fathom/train/accelerator.h>

#include <torch/cuda.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fathom::cli {

namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<torch::optim::Optimizer> makeOptimizer(const TrainOptions& options, models::Model& model) {
  if (options.optimizer == "sgd") {
    return std::make_shared<torch::optim::SGD>(model.parameters(), torch::optim::SGDOptions(options.lr));
  }
  if (options.optimizer == "adamw") {
    return std::make_shared<torch::optim::AdamW>(
        model.parameters(), torch::optim::AdamWOptions(options.lr).weight_decay(options.weightDecay));
  }
  throw ConfigError(detail::concat("--optimizer '", options.optimizer, "' is not one of: adamw, sgd"));
}

void synchronizeDevice(const c10::Device& device) {
  if (device.is_cuda())
    torch::cuda::synchronize(device.index());
}

/// The gradient all-reduces DDP ran during optimizer step `step` (what the planner predicts per step): the
/// Comm records of that step whose label marks a DDP bucket. Other collectives of the step (logging, the final
/// barrier) are left out.
nlohmann::json ddpSummary(const Accelerator& accelerator, std::int64_t step) {
  std::int64_t count = 0;
  std::int64_t bytes = 0;
  double seconds = 0;
  for (const parallel::CommRecord& record : accelerator.commRecords()) {
    if (record.step != step || record.label.rfind("ddp.bucket", 0) != 0)
      continue;
    ++count;
    bytes += record.bytes;
    seconds += static_cast<double>(record.duration.value) * 1e-9;
  }
  return {{"all_reduce_count", count}, {"all_reduce_bytes", bytes}, {"all_reduce_seconds", seconds}};
}

/// CPU time this process has used so far (every thread): with the machine shared, a step's CPU time is a steadier
/// measure of its cost than its wall time (tests/bench/bench_profiler.py uses both).
double processCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::int64_t bytesOf(const at::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<std::int64_t>(t.element_size()) : 0;
}

/// Model-state bytes this process holds, measured from the live tensors (what the planner's parameters,
/// gradients and optimizer_states predict per rank). Parameters and gradients: Σ numel × element size over the
/// model's parameters (a gradient counts while defined; zeroGrad() zeroes in place, so it stays allocated).
/// Optimizer states: every tensor in the optimizer's per-parameter state (AdamW: exp_avg, exp_avg_sq, and
/// max_exp_avg_sq with amsgrad; SGD: momentum_buffer); AdamW's step counter is an int64 field, not a tensor.
nlohmann::json memorySummary(const std::vector<at::Tensor>& parameters, torch::optim::Optimizer& optimizer) {
  std::int64_t params = 0;
  std::int64_t grads = 0;
  for (const at::Tensor& p : parameters) {
    params += bytesOf(p);
    grads += bytesOf(p.grad());
  }
  std::int64_t states = 0;
  for (const auto& [key, state] : optimizer.state()) {
    if (const auto* adamw = dynamic_cast<const torch::optim::AdamWParamState*>(state.get())) {
      states += bytesOf(adamw->exp_avg()) + bytesOf(adamw->exp_avg_sq()) + bytesOf(adamw->max_exp_avg_sq());
    } else if (const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(state.get())) {
      states += bytesOf(sgd->momentum_buffer());
    }
  }
  return {{"parameters", params}, {"gradients", grads}, {"optimizer_states", states}};
}

/// One progress line: printed by the main process (when `print`), and sent to the workspace by every process as a
/// log line of its rank (docs/trackers.md), so `fathom runs show` has every rank's progress.
void emitLine(Accelerator& accelerator, const std::string& line, bool print, LogLevel level = LogLevel::Info) {
  if (print && accelerator.isMainProcess())
    std::cout << line << std::endl;
  accelerator.logLine(line, level);
}

}  // namespace

int runTraining(const TrainOptions& options) {
  FATHOM_CHECK(options.steps >= 1, ConfigError, "--steps must be >= 1 (got ", options.steps, ")");
  FATHOM_CHECK(options.logEvery >= 0, ConfigError, "--log_every must be >= 0 (got ", options.logEvery, ")");
  FATHOM_CHECK(!options.saveFinal || options.saveFinal->extension() == ".safetensors", ConfigError, "--save_final '",
               options.saveFinal ? options.saveFinal->string() : "", "' must name a .safetensors file");
  // The checkpoint to resume from, and every folder it will write (a probe file each): a missing checkpoint or a
  // read-only folder fails here, not after training.
  const std::optional<ResumePoint> resume = checkTrainCheckpoints(options);
  checkTrainOutputs(options);

  Accelerator accelerator(options.accelerator);
  accelerator.setSeed(options.seed);  // same initial weights everywhere (DDP also broadcasts rank 0's)

  // A plain single-process setup ...
  std::shared_ptr<models::Model> model = models::makeModel(options.model);
  std::shared_ptr<torch::optim::Optimizer> optimizer = makeOptimizer(options, *model);
  data::DataLoader loader(
      models::makeDataset(options.dataset, options.model),
      {.batchSize = options.batchSize, .shuffle = options.shuffle, .dropLast = options.dropLast, .seed = options.seed});
  { auto probe = accelerator.autocast(); }  // an unsupported precision fails here, before any work
  accelerator.initTrackers("fathom-train", {{"model", options.model.name},
                                            {"dataset", options.dataset.name},
                                            {"steps", options.steps},
                                            {"batch_size", options.batchSize},
                                            {"lr", options.lr},
                                            {"optimizer", options.optimizer},
                                            {"seed", options.seed},
                                            {"num_processes", accelerator.numProcesses()},
                                            {"gradient_accumulation_steps", accelerator.gradientAccumulationSteps()},
                                            {"mixed_precision", precision::toString(accelerator.mixedPrecision())}});
  // ... made distributed in one line.
  auto [dmodel, doptimizer, dloader] = accelerator.prepare(model, optimizer, loader);
  // --profile: Accelerate's accelerator.profile(); step() after every optimizer step, stop() after the loop.
  std::optional<profile::Profiler> profiler;
  if (options.profile)
    profiler.emplace(accelerator.profile(*options.profile));

  const std::int64_t samplesPerStep = dloader->totalBatchSize() * accelerator.gradientAccumulationSteps();
  {
    std::ostringstream line;
    line << "fathom train: " << options.model.name << ", " << model->parameters().size() << " parameter tensors, "
         << accelerator.numProcesses() << " process(es) on " << accelerator.device().str() << ", "
         << precision::toString(accelerator.mixedPrecision()) << " precision, " << samplesPerStep
         << " samples per optimizer step, " << dloader->size() << " batches per epoch per process";
    emitLine(accelerator, line.str(), !options.json);
  }

  std::int64_t step = 0;
  std::int64_t epoch = 0;
  if (resume) {
    // Accelerate's load_state after prepare(): weights, optimizer, RNG and the loader's position (the next batch of
    // the saved epoch); --steps counts from the start of training.
    step = resumeTraining(accelerator, options, *resume);
    epoch = dloader->epoch();
    const std::int64_t batch = dloader->batchesConsumed();
    emitLine(accelerator,
             options.json ? nlohmann::json{{"event", "resume"},
                                           {"path", resume->folder.string()},
                                           {"step", step},
                                           {"epoch", epoch},
                                           {"batches_consumed", batch}}
                                .dump()
                          : "resumed from checkpoint " + resume->folder.string() + " at step " + std::to_string(step) +
                                ", epoch " + std::to_string(epoch) + ", batch " + std::to_string(batch),
             true);
  }
  const std::int64_t firstStep = step;
  at::Tensor lastLoss;
  TrainStats stats;  // --stats_json
  Clock::time_point loopStart;
  Clock::time_point lastLog;
  std::int64_t lastLogStep = 0;
  while (step < options.steps) {
    dloader->setEpoch(epoch++);
    for (const data::Batch& batch : *dloader) {
      if (!lastLoss.defined())
        loopStart = lastLog = Clock::now();
      auto sync = accelerator.accumulate();
      at::Tensor output;
      at::Tensor loss;
      {
        // The forward pass and the loss: a span in the profile, and what the memory timeline calls activations.
        profile::RecordFunction forward("fathom::forward", profile::Phase::Forward);
        {
          auto autocast = accelerator.autocast();
          output = dmodel->forward(batch.input);
        }
        loss = dmodel->loss(output.to(at::kFloat), batch.target);
      }
      accelerator.backward(loss);
      if (options.statsJson)
        stats.addMicroStepLoss(loss.item<double>());
      if (accelerator.syncGradients() && options.maxGradNorm > 0) {
        accelerator.clipGradNorm_(dmodel->parameters(), options.maxGradNorm);
      }
      doptimizer->step();
      doptimizer->zeroGrad();
      lastLoss = loss.detach();
      if (!accelerator.syncGradients())
        continue;

      ++step;
      stats.endStep(step);
      if (profiler)
        profiler->step();
      const bool logNow = options.logEvery > 0 && (step % options.logEvery == 0 || step == options.steps);
      if (logNow) {
        const double meanLoss = accelerator.reduce(lastLoss, train::Reduction::Mean).item<double>();
        const auto now = Clock::now();
        const double rate =
            static_cast<double>(step - lastLogStep) / std::chrono::duration<double>(now - lastLog).count();
        lastLog = now;
        lastLogStep = step;
        accelerator.log({{"loss", meanLoss}, {"steps_per_second", rate}}, step);
        const bool skipped = accelerator.optimizerStepWasSkipped();
        std::ostringstream line;
        if (options.json) {
          line << nlohmann::json{{"event", "log"},
                                 {"step", step},
                                 {"epoch", epoch - 1},
                                 {"loss", meanLoss},
                                 {"steps_per_second", rate},
                                 {"skipped", skipped},
                                 {"process_cpu_seconds", processCpuSeconds()}}
                      .dump();
        } else {
          line << "step " << step << "/" << options.steps << "  loss " << std::setprecision(6) << meanLoss << "  "
               << std::setprecision(4) << rate << " steps/s" << (skipped ? "  (step skipped: inf/NaN gradients)" : "");
        }
        emitLine(accelerator, line.str(), true, skipped ? LogLevel::Warning : LogLevel::Info);
      }
      // A memory sample (RSS, model-state bytes) and the step's collectives at every logged step and at the last
      // one, on every process (the logging reduction above already counts in the next step).
      if (logNow || step == options.steps) {
        accelerator.logMemory(step);
        accelerator.logCollectives(step);
      }
      if (checkpointDue(options, step, dloader->endOfDataloader())) {
        // Collective; the main process records the published folder as an artifact of the run.
        const std::string saved = std::filesystem::absolute(accelerator.saveState()).lexically_normal().string();
        emitLine(accelerator,
                 options.json ? nlohmann::json{{"event", "checkpoint"}, {"path", saved}, {"step", step}}.dump()
                              : "saved checkpoint " + saved + " at step " + std::to_string(step),
                 true);
      }
      if (step == options.steps)
        break;
    }
  }
  synchronizeDevice(accelerator.device());
  const double loopSeconds = std::chrono::duration<double>(Clock::now() - loopStart).count();
  std::vector<std::string> traceLines;
  if (profiler) {
    profiler->stop();  // the last window, then the merge of every rank's trace (collective)
    for (const auto& file : profiler->traceFiles())
      traceLines.push_back("profile: trace " + file.string());
    for (const auto& file : profiler->mergedTraceFiles())
      traceLines.push_back("profile: merged trace " + file.string());
    traceLines.push_back("profile: GPU activity: " + profiler->gpuStatus());
  }
  if (options.statsJson)
    stats.write(accelerator, *options.statsJson);  // collective; before the final reduce

  const double finalLoss = accelerator.reduce(lastLoss, train::Reduction::Mean).item<double>();
  // The full state dict, gathered on the main process (FSDP's FULL_STATE_DICT; collective for sharded models).
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  if (options.saveFinal) {
    for (auto& [name, tensor] : accelerator.getStateDict(dmodel, /*rank0Only=*/true))
      tensors.emplace_back(name, tensor.cpu());
  }
  if (options.saveFinal && accelerator.isMainProcess()) {
    io::writeSafetensors(*options.saveFinal, tensors,
                         {{"format", "pt"},
                          {"fathom.steps", std::to_string(step)},
                          {"fathom.model", options.model.name},
                          {"fathom.world_size", std::to_string(accelerator.numProcesses())}});
  }
  accelerator.log({{"final_loss", finalLoss}}, step);

  // The summary, built on every process: each sends it to the workspace before endTraining() closes the trackers;
  // the main process prints it after.
  std::vector<std::string> summary;
  const double stepsPerSecond = static_cast<double>(step - firstStep) / loopSeconds;
  if (options.json) {
    // A GPT sample is block_size tokens (CharTextDataset's windows); an MLP's regression rows are no tokens.
    nlohmann::json tokensPerSecond = nullptr;
    if (options.model.isGpt()) {
      tokensPerSecond = stepsPerSecond * static_cast<double>(samplesPerStep) *
                        static_cast<double>(models::resolveGptOptions(options.model).blockSize);
    }
    summary.push_back(nlohmann::json{{"event", "summary"},
                                     {"steps", step},
                                     {"loop_seconds", loopSeconds},
                                     {"steps_per_second", stepsPerSecond},
                                     {"samples_per_second", stepsPerSecond * static_cast<double>(samplesPerStep)},
                                     {"tokens_per_second", tokensPerSecond},
                                     {"final_loss", finalLoss},
                                     {"world_size", accelerator.numProcesses()},
                                     {"ddp_last_step", ddpSummary(accelerator, step)},
                                     {"memory", memorySummary(dmodel->parameters(), *optimizer)},
                                     {"cuda_memory", cudaMemoryPeaks(accelerator.device())}}
                          .dump());
  } else {
    std::ostringstream done;
    done << "done: " << step << " steps in " << std::setprecision(4) << loopSeconds << " s (" << stepsPerSecond
         << " steps/s), final loss " << std::setprecision(6) << finalLoss;
    summary.push_back(done.str());
    if (options.saveFinal)
      summary.push_back("saved final parameters to " + options.saveFinal->string());
  }
  for (const std::string& line : traceLines)
    accelerator.logLine(line);  // every rank's own trace, in the workspace
  for (const std::string& line : summary)
    accelerator.logLine(line);
  accelerator.endTraining();  // closes the trackers; nobody exits while rank 0 still writes
  if (accelerator.isMainProcess()) {
    for (const std::string& line : summary)
      std::cout << line << std::endl;
    if (!options.json) {
      for (const std::string& line : traceLines)
        std::cout << line << std::endl;
    }
  }
  return 0;
}

}  // namespace fathom::cli
