// SPDX-License-Identifier: Apache-2.0
// What `fathom plan --calibrate_from RUN --json` prints, and what the Studio's "Calibrate from this run" reads back:
// one definition for the writer and the reader (docs/calibrate.md, "From a run").
#pragma once

#include <fathom/calibrate/run_fit.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::calibrate {

/// A run fit as stored and reported.
struct RunFitReport {
  std::int64_t run = 0;  ///< the run fitted
  std::string runName;
  std::int64_t fitId = 0;  ///< the workspace's hardware fit row
  std::string workspace;   ///< the workspace's absolute path
  std::string hardware;    ///< the profile's name
  std::string measuredAt;  ///< its calibration's measured_at
  std::string host;        ///< its calibration's host
  int traces = 0;          ///< rank traces read
  int steps = 0;           ///< profiled steps per trace
  std::vector<FittedClass> classes;
  double measuredStepS = 0.0;    ///< the profiled steps' mean length
  double calibratedStepS = 0.0;  ///< predicted on the calibration alone
  double fittedStepS = 0.0;      ///< predicted on the fitted profile
};

/// The report of `fit`, stored as `fitId` in `workspace`.
RunFitReport makeRunFitReport(const RunFitResult& fit, std::int64_t fitId, const std::string& workspace);

nlohmann::ordered_json toJson(const RunFitReport& report);
/// Reads what toJson() wrote; ConfigError naming `origin` and the key for a missing or mistyped value.
RunFitReport runFitReportFromJson(const nlohmann::json& json, const std::string& origin);

}  // namespace fathom::calibrate
