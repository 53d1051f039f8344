// SPDX-License-Identifier: Apache-2.0
#include <fathom/calibrate/run_fit.h>

#include <fathom/common/error.h>
#include <fathom/plan/predict.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

namespace fathom::calibrate {
namespace {

constexpr double kNsPerS = 1e9;

/// measured / predicted, or 1 when either is not positive (nothing measured, or nothing predicted to correct).
double factorOf(double measured, double predicted) {
  return measured > 0 && predicted > 0 ? measured / predicted : 1.0;
}

/// The collective kind a trace names, or nothing (barrier, send_recv: not priced by a fit). Fathom's spans and its
/// CUPTI kernels say "all_reduce"; PyTorch's NCCL kernels carry c10d's names in "Collective name": "allreduce",
/// "_allgather_base", "allgather_into_tensor_coalesced", "_reduce_scatter_base", "reduce_scatter_tensor_coalesced",
/// "broadcast". Read without underscores and without c10d's variant suffixes, each is one of the four kinds.
std::optional<plan::CollectiveKind> calibratedKind(std::string_view name) {
  auto withoutUnderscores = [](std::string_view text) {
    std::string out;
    std::copy_if(text.begin(), text.end(), std::back_inserter(out), [](char c) { return c != '_'; });
    return out;
  };
  std::string plain = withoutUnderscores(name);
  for (const std::string_view suffix : {"coalesced", "tensor", "into", "base"}) {
    if (plain.ends_with(suffix)) {
      plain.resize(plain.size() - suffix.size());
    }
  }
  for (plan::CollectiveKind k : {plan::CollectiveKind::AllReduce, plan::CollectiveKind::AllGather,
                                 plan::CollectiveKind::ReduceScatter, plan::CollectiveKind::Broadcast}) {
    if (plain == withoutUnderscores(plan::toString(k))) {
      return k;
    }
  }
  return std::nullopt;
}

}  // namespace

RunFitResult fitRun(const RunFitInput& input) {
  FATHOM_CHECK(input.base.calibration.has_value(), ConfigError, "hardware '", input.base.name,
               "' has no calibration: fitting a run refines what `fathom calibrate` measured, so run it first");
  FATHOM_CHECK(!input.ranks.empty(), ConfigError, "run ", input.runId, " has no profiled rank to fit");
  FATHOM_CHECK(input.runId >= 1, ConfigError, "a run fit needs the run's id, got ", input.runId);

  // The ranks' mean seconds per step of each measured quantity.
  const double ranks = static_cast<double>(input.ranks.size());
  auto perStep = [&](auto member) {
    double sum = 0.0;
    for (const trace::OperatorClassTimes& r : input.ranks) {
      sum += static_cast<double>(r.*member) / kNsPerS / std::max(1, r.steps);
    }
    return sum / ranks;
  };
  using T = trace::OperatorClassTimes;
  const double matmul = perStep(&T::matmulNs);
  const double attention = perStep(&T::batchedMatmulNs);
  const double optimizer = perStep(&T::optimizerNs);
  const double elementwise = perStep(&T::otherComputeNs);
  const double communication = perStep(&T::communicationNs);
  const double exposed = perStep(&T::exposedCommunicationNs);
  const double other = perStep(&T::otherNs);

  const plan::Plan& p = input.predicted.plan;
  const plan::Prediction& predicted = input.predicted.prediction;
  const plan::TimePrediction& t = predicted.time;
  const int microSteps = std::max(1, p.gradAccum);

  plan::RunFit fit;
  fit.fittedAt = input.fittedAt;
  fit.run = input.runId;
  fit.runName = input.runName;
  // The setting the calibrated prediction looked its rates up at: a later plan of the same setting prefers this fit.
  const plan::RankSetting setting = plan::rankSetting(input.base, p);
  fit.processes = setting.processes;
  fit.threads = setting.threads;
  fit.ranks = static_cast<int>(input.ranks.size());
  fit.steps = input.ranks.front().steps;
  fit.measuredStepS = perStep(&T::spanNs);
  RunFitResult result;
  result.measuredStepS = fit.measuredStepS;
  result.predictedStepS = t.stepS;
  // In RunFit::operatorClasses()' order: matmul, attention, elementwise, optimizer.
  const std::array measuredS = {matmul, attention, elementwise, optimizer};
  const std::array predictedS = {t.matmulS, t.attentionS, t.elementwiseS, t.optimizerS};
  for (std::size_t i = 0; i < measuredS.size(); ++i) {
    const auto& [name, member] = plan::RunFit::operatorClasses()[i];
    fit.*member = factorOf(measuredS[i], predictedS[i]);
    result.classes.push_back({std::string(name), measuredS[i], predictedS[i], fit.*member});
  }
  result.classes.push_back({"overhead", other, 0.0, 1.0});

  // Collectives: the spans' seconds per step of each kind against the predicted seconds of the kind's collectives.
  // Where the model lets nothing overlap, it adds every collective to the step whole; the run's spans may still
  // have run beside compute (Gloo's threads), so each kind is scaled by the exposed share of all the spans.
  std::map<plan::CollectiveKind, double> predictedByKind;
  std::map<plan::CollectiveKind, int> groupByKind;
  for (const plan::Collective& c : predicted.communication.collectives) {
    predictedByKind[c.kind] += c.timeS;
    groupByKind[c.kind] = std::max(groupByKind[c.kind], c.groupSize);
  }
  const bool modelOverlaps = t.exposedCommS < t.commS * (1.0 - 1e-9);
  const double exposedShare = communication > 0 ? exposed / communication : 1.0;
  std::map<plan::CollectiveKind, std::pair<double, double>> measuredByKind;  // seconds and calls per step
  for (const trace::OperatorClassTimes& r : input.ranks) {
    for (const trace::CollectiveStats& c : r.collectives) {
      if (const std::optional<plan::CollectiveKind> kind = calibratedKind(c.kind)) {
        auto& [seconds, calls] = measuredByKind[*kind];
        seconds += static_cast<double>(c.totalNs) / kNsPerS / std::max(1, r.steps) / ranks;
        calls += static_cast<double>(c.count) / std::max(1, r.steps) / ranks;
      }
    }
  }
  for (const auto& [kind, measured] : measuredByKind) {
    const double seconds = measured.first * (modelOverlaps ? 1.0 : exposedShare);
    const double expected = predictedByKind.contains(kind) ? predictedByKind.at(kind) : 0.0;
    const double factor = factorOf(seconds, expected);
    if (expected > 0) {
      fit.collectives.push_back(
          {kind, std::max(2, groupByKind[kind]), factor, static_cast<std::int64_t>(measured.second + 0.5)});
    }
    result.classes.push_back({std::string(plan::toString(kind)), seconds, expected, factor});
  }

  // The overhead: what the fitted compute and exposed communication leave of the measured step.
  result.fitted = input.base;
  result.fitted.calibration->runFit = fit;
  const double withoutOverhead = plan::predict(input.model, result.fitted, p).time.stepS;
  fit.overheadPerMicroStepS = std::max(0.0, fit.measuredStepS - withoutOverhead) / microSteps;
  result.fitted.calibration->runFit = fit;
  result.fittedStepS = plan::predict(input.model, result.fitted, p).time.stepS;
  result.fitted.description = input.base.description + "; fitted to run " + std::to_string(input.runId) +
                              (input.runName.empty() ? "" : " (" + input.runName + ")");
  plan::validateHardware(result.fitted);
  return result;
}

}  // namespace fathom::calibrate
