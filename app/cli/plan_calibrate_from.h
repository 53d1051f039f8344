// SPDX-License-Identifier: Apache-2.0
// `fathom plan --calibrate_from RUN` (issue 24; docs/calibrate.md, "From a run").
#pragma once

#include "plan_flags.h"

namespace fathom::cli {

/// Fits the calibrated profile the run was planned on (--hardware, else the run's own: this-machine) to the run's
/// profiled traces (calibrate::fitRun over each rank's trace::operatorClassTimes), stores the fitted profile in the
/// workspace (store::HardwareFit) and prints, per operator class and collective kind, what the run measured, what the
/// calibration predicted and the factor, then the step time measured, predicted before and after the fit. Later plans
/// of this machine by the name this-machine use the fit (hardware_choice.h). ConfigError for a run that is still
/// running, was not launched as `fathom train` by `fathom launch`, has no per-rank trace (not profiled) or whose
/// trace files are gone, and for a profile `fathom calibrate` did not write. Returns the exit status.
int calibrateFromRun(const PlanFlags& flags);

}  // namespace fathom::cli
