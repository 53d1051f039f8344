// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/monitor_spec.h>
#include <fathom/parallel/collective_wavefront.h>
#include <fathom/store/run_alert.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace fathom::telemetry {

/// What the launcher's run monitor looks for (docs/launch.md, "Hang and straggler detection"). The defaults of the
/// configurable fields are config::MonitorSpec's.
struct MonitorOptions {
  /// A hang is reported when ranks disagree on the collective wavefront (some rank has not entered the collective
  /// others wait in) and no rank made progress for this long. Zero disables hang detection.
  /// `fathom launch --hang_timeout`, config key fathom.hang_timeout.
  std::chrono::duration<double> hangTimeout{config::MonitorSpec::kDefaultHangTimeoutSeconds};
  /// A rank is a straggler while its own seconds per step exceed the median of the other ranks' by more than this
  /// fraction (0.2 = 20 %). Zero disables straggler detection. `--straggler_threshold` (in percent).
  double stragglerThreshold = config::MonitorSpec::kDefaultStragglerThresholdPercent / 100.0;
  /// Steps each rank's own time per step is averaged over: from the newest heartbeat back to the newest older one at
  /// least this many steps earlier. A rank is compared only once its window is full, so the first steps (warm-up)
  /// and a run shorter than the window are never flagged. It is also the hysteresis: a rank is flagged only after
  /// it was slower in every comparison over this many of its steps ("stays" above), and its alert ends only after
  /// it was not slower in every comparison over as many steps, so a rank near the threshold does not flap.
  int stragglerWindowSteps = 10;
  /// ... and only when it is slower than that median by at least this much per step: below it, differences are
  /// scheduling noise (an even run of 5 ms steps must not be flagged for a 1.5 ms hiccup).
  std::chrono::duration<double> stragglerMinExcess{0.010};

  /// The options a configuration asks for: its timeout and its threshold (percent there, a fraction here), the
  /// defaults where it is silent; the fields a configuration has no key for keep their defaults.
  static MonitorOptions fromSpec(const config::MonitorSpec& spec);
};

/// What one rank reported with a heartbeat.
struct RankReport {
  int rank = 0;
  std::int64_t step = 0;                  ///< the step the trainer logged last
  parallel::WavefrontSnapshot wavefront;  ///< its collectives and its own work
};

/// An alert raised or resolved by RunMonitor::check(). `key` names the alert within the monitor (the collector
/// maps it to the workspace's AlertId).
struct MonitorUpdate {
  int key = 0;
  bool raised = true;  ///< false: the alert `key` ended; `alert.resolvedAt` says when
  store::RunAlert alert;
};

/// The hang and straggler detector, pure logic (no I/O, no threads): the collector's writer thread feeds it every
/// heartbeat with a wavefront and calls check() after each commit. Works the same for Gloo and NCCL: it only
/// compares the Comm layer's call numbering.
///
/// Hang: among the ranks that reported a wavefront and are still connected, some rank waits inside the collective
/// with the highest sequence entered while another has not entered it ("behind"), and no rank's wavefront or step
/// changed for hangTimeout. One alert per episode: it is resolved when any rank makes progress, and a new episode
/// needs a new stall.
///
/// Straggler: a rank's own time per step (RankReport::wavefront's work seconds, outside collectives) over its
/// window, against the median of the other ranks': see MonitorOptions. Compared only when every rank's window is
/// full; one alert per straggling period of a rank, raised when it stayed slower for a window of its steps and
/// resolved when it stayed not slower for as long.
class RunMonitor {
public:
  using Clock = std::chrono::steady_clock;

  explicit RunMonitor(MonitorOptions options = {});

  /// A heartbeat of a rank, received at `at`.
  void observe(const RankReport& report, Clock::time_point at);
  /// The rank disconnected (it finished, or died): it takes no further part.
  void rankLeft(int rank);
  /// Alerts raised and resolved since the last call, at monotonic `now` and wall time `wallNow` (seconds since the
  /// Unix epoch, stamped on them).
  std::vector<MonitorUpdate> check(Clock::time_point now, double wallNow);
  /// The run ended: every alert still open ends with it (store::AlertEnd::RunEnded, at `wallNow`), and nothing
  /// more is raised.
  std::vector<MonitorUpdate> closeAll(double wallNow);

private:
  struct Pace {
    std::int64_t step = 0;
    double workSeconds = 0;
  };
  struct RankState {
    RankReport last;
    bool left = false;
    std::deque<Pace> pace;  ///< one entry per distinct wavefront step, oldest first
    /// Straggler hysteresis, in the rank's wavefront steps: since when every comparison found it slower (not
    /// flagged yet), or, while flagged, since when every comparison found it not slower. Empty: not counting.
    std::optional<std::int64_t> slowSince;
    std::optional<std::int64_t> fastSince;
  };
  struct OpenAlert {
    int key = 0;
    store::RunAlert alert;
  };

  void checkHang(Clock::time_point now, double wallNow, std::vector<MonitorUpdate>& out);
  void checkStragglers(double wallNow, std::vector<MonitorUpdate>& out);
  /// The rank's own seconds per step over its window; empty while the window is not full.
  std::optional<double> stepSeconds(const RankState& rank) const;
  store::AlertRank alertRank(const RankState& rank, bool behind) const;

  MonitorOptions m_options;
  std::map<int, RankState> m_ranks;
  std::optional<Clock::time_point> m_lastProgress;  ///< the last time any rank's wavefront or step changed
  std::optional<OpenAlert> m_hang;
  Clock::time_point m_hangRaisedAt;       ///< meaningful while m_hang is set
  std::map<int, OpenAlert> m_stragglers;  ///< open straggler alerts by rank
  int m_nextKey = 1;
  bool m_closed = false;  ///< closeAll() was called
};

}  // namespace fathom::telemetry
