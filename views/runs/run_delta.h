// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/calibrate/run_fit_report.h>
#include <fathom/plan/hardware_calibration.h>
#include <fathom/plan/plan_vs_actual.h>
#include <fathom/store/records.h>
#include <fathom/store/run_alert.h>

#include <QString>

#include <optional>

#include <vector>

namespace fathom::views {

/// A run's stored plan against what its ranks measured (plan::comparePlanToRun, as `fathom runs plan-vs-actual`).
struct RunPlanComparison {
  bool stored = false;                           ///< the run has a plan (made at launch, or computed later)
  std::string source;                            ///< "launch" or "computed"
  std::optional<plan::PlanVsActual> comparison;  ///< empty when not stored or unreadable
  QString error;                                 ///< why a stored plan could not be compared
};

/// What "Calibrate from this run" brought back (`fathom plan --calibrate_from RUN --json`).
struct RunFitOutcome {
  std::optional<calibrate::RunFitReport> report;  ///< empty when it failed
  QString error;                                  ///< why it failed
};

/// The newest hardware fit stored from this run (store::HardwareFit, `fathom plan --calibrate_from RUN`), as a page
/// opened later shows it.
struct StoredRunFit {
  qint64 id = 0;                    ///< the fit's id in the workspace
  double createdAt = 0;             ///< seconds since the Unix epoch
  std::optional<plan::RunFit> fit;  ///< its run_fit section; empty when the stored profile did not read
  QString error;                    ///< why it did not read
};

/// What one incremental read of a run brings (RunFeed, off the GUI thread): the run's row and its small tables in
/// full, the metric points and events newer than the previous read. The first read of a feed brings the run's
/// history up to then (`first`); every later one only rows with larger ids, so nothing is read twice.
struct RunDelta {
  store::RunInfo info;
  std::vector<store::RankInfo> ranks;
  std::vector<store::Heartbeat> heartbeats;  ///< the newest of each rank
  std::vector<store::MetricRow> metrics;     ///< in id order
  std::vector<store::EventRow> events;       ///< in id order
  std::vector<store::AlertRow> alerts;       ///< every alert of the run, in id order (few; a resolution changes one)
  std::vector<store::RunDeviceMapRow> deviceMaps;  ///< the device maps recorded since the previous read, in id order
  /// Read on the first read and on the one that finds the run finished (the comparison reads every metric).
  std::optional<RunPlanComparison> plan;
  /// Read on the first read: the run's newest hardware fit, when it has one.
  std::optional<StoredRunFit> fit;
  bool first = false;
  double readAt = 0;  ///< when the read began (seconds since the Unix epoch)
};

}  // namespace fathom::views
