// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/prediction.h>
#include <fathom/plan/search.h>
#include <fathom/plan/training_plan.h>

#include <string>
#include <string_view>

namespace fathom::plan {

/// "31.41 GB (29.25 GiB)": decimal and binary units side by side, since the sources mix them.
std::string formatBytes(double bytes);

/// "4 GPUs", "1 GPU", or for a CPU preset "2 CPU processes", "1 CPU process": `count` ranks on `hw`.
std::string formatRanks(const HardwareSpec& hw, int count);
/// What one rank is on `hw`, for "per ..." phrases: "GPU", or "process" for a CPU preset.
std::string_view rankNoun(const HardwareSpec& hw);

/// One JSON object (the `fathom plan --json` contract): model {total_params, largest_unit_params, ...},
/// memory {per_rank_bytes {parameters, gradients, optimizer_states, master_weights, activations,
/// gathered_parameters, comm_buffers, framework_overhead, total}, cpu_bytes_per_node, fits, headroom_bytes},
/// communication {collectives [...], bytes_per_rank_per_step}, compute {model_flops_per_step,
/// hardware_flops_per_step}, time {step_s, tokens_per_s, mfu, ...}, plan, hardware, notes, explanations.
std::string formatPredictionJson(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan,
                                 const Prediction& prediction);

/// The readable table `fathom plan` prints.
std::string formatPredictionTable(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan,
                                  const Prediction& prediction);

/// `fathom plan search --json`: {evaluated, fitting, results: [prediction objects as above]}.
std::string formatSearchJson(const ModelSpec& model, const HardwareSpec& hw, const SearchOutcome& outcome);

/// `--explain`: one block per explained number (formula, inputs, source).
std::string formatExplanations(const Prediction& prediction);

/// `--explain` restricted to the numbers whose key is `key` or lies below it ("memory.activations" also brings
/// "memory.activations.per_layer"), in the order predict() explained them; empty when none is explained (the
/// prediction was made without PredictOptions::explain, or the number has no explanation).
std::string formatExplanations(const Prediction& prediction, std::string_view key);

/// One block of `--explain`: "key = value", then the formula, inputs and source lines.
std::string formatExplanation(const Explanation& explanation);

/// One line of the communication section of `fathom plan`'s table (kind, purpose, bytes × calls, group, scope,
/// bytes sent per rank, time), without indentation or newline.
std::string formatCollective(const Collective& collective);

}  // namespace fathom::plan
