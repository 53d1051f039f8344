// SPDX-License-Identifier: Apache-2.0
// Calibration from a finished run (`fathom plan --calibrate_from RUN`, issue 24; docs/calibrate.md, "From a run"):
// the run's profiled traces against the calibrated model's prediction of the same run give one factor per operator
// class and collective kind, kept in the profile as plan::RunFit.
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/prediction_json.h>
#include <fathom/trace/operator_class_times.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::calibrate {

/// What fitRun() reads.
struct RunFitInput {
  plan::HardwareSpec base;                       ///< a calibrated profile (its calibration section set)
  plan::ModelSpec model;                         ///< the run's model
  plan::PredictionReport predicted;              ///< the run planned on `base`
  std::vector<trace::OperatorClassTimes> ranks;  ///< each rank's profiled steps (at least one)
  std::int64_t runId = 0;                        ///< the run's id in its workspace, >= 1
  std::string runName;
  std::string fittedAt;  ///< UTC "YYYY-MM-DDTHH:MM:SSZ" (utcNow())
};

/// One class of the fit: seconds per optimizer step, the ranks' mean.
struct FittedClass {
  std::string name;         ///< "matmul", "attention", "elementwise", "optimizer", "overhead", or a collective kind
  double measuredS = 0.0;   ///< what the traces measured
  double predictedS = 0.0;  ///< what the calibrated model predicted (for overhead: 0, the model has none)
  double factor = 1.0;      ///< measured / predicted; 1 when either side is 0 (nothing to correct)
};

/// What fitRun() found.
struct RunFitResult {
  plan::HardwareSpec fitted;         ///< `base` with calibration.runFit set (any earlier run fit replaced)
  std::vector<FittedClass> classes;  ///< the operator classes, overhead, then the collective kinds the run called
  double measuredStepS = 0.0;        ///< the profiled steps' mean length over the ranks
  double predictedStepS = 0.0;       ///< the calibrated prediction of the step (before the fit)
  double fittedStepS = 0.0;          ///< the fitted profile's prediction of the same step
};

/// Fits `input`: for each operator class, the ranks' mean measured seconds per step (trace::OperatorClassTimes:
/// matmul = linear products, attention = batched products, optimizer, element-wise = the rest of the compute) over
/// the prediction's (TimePrediction::matmulS, ...); for each collective kind the run called, the mean seconds of its
/// spans per step over the predicted time of the kind's collectives, where the model lets no collective overlap
/// (a CPU node whose cores the ranks fill) scaled by the share of the spans that was exposed, so that compute plus
/// exposed communication is what the run measured; the overhead per micro-step is what is left of the measured step
/// once the fitted compute and exposed communication are predicted (the time neither compute nor communication, and
/// whatever the model's overlap hides that the run did not), so the fitted profile predicts the run it was fitted to.
/// A class the model predicts no time for, or the run shows none of, keeps factor 1.
/// ConfigError when `base` has no calibration or `input.ranks` is empty.
RunFitResult fitRun(const RunFitInput& input);

}  // namespace fathom::calibrate
