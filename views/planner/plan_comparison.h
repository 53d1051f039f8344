// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_request.h"

#include <fathom/plan/prediction.h>
#include <fathom/plan/search.h>

#include <QString>

#include <optional>
#include <string_view>
#include <vector>

namespace fathom::views {

/// One plan and what the planner says about it: the prediction (with its `--explain` explanations), or the
/// validation error that kept it from being predicted.
struct PlanEvaluation {
  plan::Plan plan;
  std::optional<plan::Prediction> prediction;
  QString error;  ///< the core's message when validatePlan refused the plan

  bool ok() const { return prediction.has_value(); }
};

/// One plan evaluated for the planner panel: the request, the model and hardware as resolved, and the evaluation.
/// `error` is set (and the rest empty) when the model or the hardware could not be resolved.
struct PlanSnapshot {
  PlanRequest request;
  plan::ModelSpec model;
  plan::HardwareSpec hardware;
  PlanEvaluation evaluation;
  QString error;

  bool ok() const { return error.isEmpty() && evaluation.ok(); }
};

/// One strategy of the comparison swept over GPU counts: memory per GPU and step time at each count of
/// PlanComparison::gpuCounts (empty where the plan is invalid at that count, e.g. hybrid shard inside one node).
struct ScalingSeries {
  plan::Plan plan;  ///< the strategy (its numGpus is the request's)
  std::vector<std::optional<double>> memoryBytes;
  std::vector<std::optional<double>> stepSeconds;
  std::vector<std::optional<double>> commBytes;  ///< bytes sent per rank per step
};

/// The what-if planner's answer for one request: the model and hardware as resolved, every strategy side by side
/// at the requested GPU count, each strategy over 1 … 1,024 GPUs, and the best plans `plan search` finds.
struct PlanComparison {
  PlanRequest request;
  plan::ModelSpec model;
  plan::HardwareSpec hardware;
  std::vector<PlanEvaluation> strategies;  ///< comparedPlans(request.plan), in that order
  std::vector<int> gpuCounts;              ///< 1, 2, 4, ..., 1024
  std::vector<ScalingSeries> scaling;      ///< one per strategy, same order
  plan::SearchOutcome search;              ///< top plans (at most kSearchLimit), fitting only
  QString searchError;                     ///< when the search itself was refused
  double elapsedMs = 0;                    ///< time compare() took (model resolution excluded)

  /// The evaluation whose plan has the request's strategy (the "current" plan), or nullptr.
  const PlanEvaluation* current() const;
};

/// The plans a comparison sets side by side, derived from `base` (everything but the strategy kept): DDP,
/// FSDP full shard, shard grad op, hybrid shard, no shard, ZeRO-1, ZeRO-2, ZeRO-3. Offload is kept only for the
/// strategies that support it (FSDP, ZeRO).
std::vector<plan::Plan> comparedPlans(const plan::Plan& base);

/// GPU counts of the scaling sweep: powers of two from 1 to 1,024.
std::vector<int> scalingGpuCounts();

/// Evaluates one plan (with explanations); validation errors become PlanEvaluation::error.
PlanEvaluation evaluate(const plan::ModelSpec& model, const plan::HardwareSpec& hardware, const plan::Plan& plan);

/// Everything the what-if view shows. Pure; a few milliseconds (see docs/studio.md for measurements).
PlanComparison compare(const PlanRequest& request, const plan::ModelSpec& model, const plan::HardwareSpec& hardware);

/// The `--explain` blocks of the number `key` ("memory.gradients", "time.step_s") of an evaluation, as `fathom plan
/// --explain` prints them; the validation error when the plan could not be predicted.
QString explanation(const PlanEvaluation& evaluation, std::string_view key);
/// The communication section of `fathom plan`'s table for an evaluation: one line per collective, then the bytes a
/// rank sends per step and the exposed-communication explanation.
QString communicationExplanation(const PlanEvaluation& evaluation);

/// Results kept from `plan search`.
inline constexpr std::size_t kSearchLimit = 10;

/// The comparison as CSV (RFC 4180, '.' decimals, bytes and seconds unscaled): a "strategies" table (memory per
/// category, total, fits, communication bytes and time, step time, tokens/s, MFU) and a "scaling" table (GPU count
/// × strategy memory and step time).
QString comparisonCsv(const PlanComparison& comparison);

/// The prediction side of a saved comparison (store::Workspace::savePlan): {"strategies": [the `fathom plan --json`
/// object of each predicted strategy], "search": the `fathom plan search --json` object}.
std::string comparisonPredictionJson(const PlanComparison& comparison);
/// The input side: {"kind": "comparison", "request": PlanRequest::toJson()}.
std::string comparisonInputJson(const PlanRequest& request);

}  // namespace fathom::views
