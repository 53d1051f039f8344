// SPDX-License-Identifier: Apache-2.0
// Counts the connections a TelemetryCollector refuses and says so at a bounded rate.
#pragma once

#include <fathom/telemetry/telemetry_collector.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::telemetry {

enum class RefusalReason { WrongToken, WrongVersion, Malformed, NoHello, OverLimit };

/// A flood of refused connections must not flood the launcher's stderr or the run's events: the first refusal of
/// the run is reported in full (peer and reason), later ones are counted by reason and summarised at most once per
/// interval ("telemetry: 612 connections refused since 08:40:12 UTC: 597 wrong token, 15 malformed"), and the end
/// of the run gives the rest and one total for the run's events. Not thread-safe: the collector's accept thread
/// owns it.
class RefusalLog {
public:
  using Clock = std::chrono::steady_clock;

  explicit RefusalLog(std::chrono::milliseconds interval) : m_interval(interval) {}

  /// Counts one refusal (`what`: "from 127.0.0.1:41234 (rank 1, pid 4242): wrong token"). Returns the line to
  /// report for the first refusal of the run: "telemetry: refused a connection " + what; nothing afterwards.
  std::optional<std::string> refused(RefusalReason reason, std::string_view what, Clock::time_point now);

  /// The summary of the refusals not yet reported, once `interval` has passed since the last line; else nothing.
  std::optional<std::string> due(Clock::time_point now);
  /// When due() will have a line (nothing when no refusal waits to be reported).
  std::optional<Clock::time_point> nextDue() const;

  struct Final {
    std::optional<std::string> line;   ///< the refusals not yet reported (for stderr)
    std::optional<std::string> event;  ///< the run's totals, when more than one connection was refused
  };
  /// At the end of the run.
  Final finish();

  const RefusalCounts& totals() const { return m_total; }

private:
  static std::string describe(const RefusalCounts& counts);

  std::chrono::milliseconds m_interval;
  RefusalCounts m_total;
  RefusalCounts m_unreported;      ///< counted since the last line
  double m_unreportedSince = 0;    ///< wall time of the first of them
  double m_firstAt = 0;            ///< wall time of the run's first refusal
  Clock::time_point m_lastLine{};  ///< when the last line was reported
};

}  // namespace fathom::telemetry
