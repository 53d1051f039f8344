// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/checkpoint/state_dict.h>

#include <torch/optim/optimizer.h>
#include <torch/optim/schedulers/lr_scheduler.h>

#include <functional>
#include <string>

namespace fathom::checkpoint {

/// An optimizer's state in torch.optim's state_dict layout, without pickle: tensor "state.<i>.<key>" for
/// parameter i (counted across the parameter groups in order) and each state key ("step", "exp_avg",
/// "exp_avg_sq", "max_exp_avg_sq" for Adam/AdamW; "momentum_buffer" for SGD; "square_avg", "grad_avg" for
/// RMSprop; "sum" for Adagrad), plus the values "optimizer" (the type) and "param_groups" (JSON: each group's
/// options and its "params" indices, as in Python) and, per parameter, its shape ("shapes", JSON). Adam, AdamW,
/// SGD, RMSprop and Adagrad (and classes derived from them); ConfigError for another optimizer type.
StateDict optimizerStateDict(const torch::optim::Optimizer& optimizer);
/// Checks what optimizerStateDict saved against an optimizer with the same type, groups, parameter counts and
/// shapes, and builds its new state; returns what assigns it (every parameter's state and every group's learning
/// rate; it cannot fail). ConfigError naming `file` and the first difference; the optimizer is not touched.
std::function<void()> stageOptimizerStateDict(torch::optim::Optimizer& optimizer, const StateDict& state,
                                              const std::string& file);
/// stageOptimizerStateDict(...)().
void loadOptimizerStateDict(torch::optim::Optimizer& optimizer, const StateDict& state, const std::string& file);

/// How many times `scheduler` stepped (LibTorch keeps it in LRScheduler::step_count_; its schedules compute the
/// next rates from it and the optimizer's current rates).
unsigned schedulerStepCount(torch::optim::LRScheduler& scheduler);
void setSchedulerStepCount(torch::optim::LRScheduler& scheduler, unsigned count);

/// This process's random number generators: tensor "torch_cpu" (the CPU generator's state, uint8) and
/// "torch_cuda_<d>" per CUDA device (Accelerate's random_states_<rank> holds the same generators).
StateDict rngStateDict();
/// Restores what rngStateDict saved. ConfigError naming `file` when a CUDA generator saved there has no device here.
void loadRngStateDict(const StateDict& state, const std::string& file);

}  // namespace fathom::checkpoint
