// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <vector>

namespace fathom::views {

/// What one incremental read of a run brings (RunFeed, off the GUI thread): the run's row and its small tables in
/// full, the metric points and events newer than the previous read. The first read of a feed brings the run's
/// history up to then (`first`); every later one only rows with larger ids, so nothing is read twice.
struct RunDelta {
  store::RunInfo info;
  std::vector<store::RankInfo> ranks;
  std::vector<store::Heartbeat> heartbeats;  ///< the newest of each rank
  std::vector<store::MetricRow> metrics;     ///< in id order
  std::vector<store::EventRow> events;       ///< in id order
  bool first = false;
  double readAt = 0;  ///< when the read began (seconds since the Unix epoch)
};

}  // namespace fathom::views
