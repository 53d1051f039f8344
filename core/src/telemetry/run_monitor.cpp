// SPDX-License-Identifier: Apache-2.0
#include <fathom/telemetry/run_monitor.h>

#include <fathom/common/error.h>

#include <algorithm>

namespace fathom::telemetry {
namespace {

/// Pace entries kept per rank: far more than a window needs at one heartbeat per second.
constexpr std::size_t kMaxPace = 512;

std::optional<std::uint64_t> sequenceOf(const std::optional<parallel::CollectivePosition>& p) {
  return p ? std::optional<std::uint64_t>(p->sequence) : std::nullopt;
}

/// Whether two reports of a rank differ in anything that counts as progress.
bool progressed(const RankReport& before, const RankReport& after) {
  return before.step != after.step || before.wavefront.step != after.wavefront.step ||
         sequenceOf(before.wavefront.entered) != sequenceOf(after.wavefront.entered) ||
         sequenceOf(before.wavefront.finished) != sequenceOf(after.wavefront.finished);
}

/// Inside a collective: it entered a call it has not finished.
bool waiting(const parallel::WavefrontSnapshot& w) {
  return w.entered && (!w.finished || w.finished->sequence < w.entered->sequence);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

MonitorOptions MonitorOptions::fromSpec(const config::MonitorSpec& spec) {
  MonitorOptions options;
  options.hangTimeout = std::chrono::duration<double>(spec.hangTimeoutSeconds());
  options.stragglerThreshold = spec.stragglerThresholdPercent() / 100.0;
  return options;
}

RunMonitor::RunMonitor(MonitorOptions options) : m_options(options) {
  FATHOM_CHECK(options.hangTimeout.count() >= 0, ConfigError, "the hang timeout must be >= 0 seconds, got ",
               options.hangTimeout.count());
  FATHOM_CHECK(options.stragglerThreshold >= 0, ConfigError, "the straggler threshold must be >= 0, got ",
               options.stragglerThreshold);
  FATHOM_CHECK(options.stragglerWindowSteps >= 1, ConfigError, "the straggler window must be >= 1 step, got ",
               options.stragglerWindowSteps);
}

void RunMonitor::observe(const RankReport& report, Clock::time_point at) {
  auto [it, inserted] = m_ranks.try_emplace(report.rank);
  RankState& rank = it->second;
  if (inserted || progressed(rank.last, report)) {
    m_lastProgress = at;
  }
  rank.last = report;
  rank.left = false;
  if (rank.pace.empty() || report.wavefront.step > rank.pace.back().step) {
    rank.pace.push_back({report.wavefront.step, report.wavefront.workSecondsAtStep});
    if (rank.pace.size() > kMaxPace) {
      rank.pace.pop_front();
    }
  }
}

void RunMonitor::rankLeft(int rank) {
  if (auto it = m_ranks.find(rank); it != m_ranks.end()) {
    it->second.left = true;
  }
}

std::vector<MonitorUpdate> RunMonitor::check(Clock::time_point now, double wallNow) {
  std::vector<MonitorUpdate> out;
  if (m_closed) {
    return out;
  }
  if (m_options.hangTimeout.count() > 0) {
    checkHang(now, wallNow, out);
  }
  if (m_options.stragglerThreshold > 0) {
    checkStragglers(wallNow, out);
  }
  return out;
}

std::vector<MonitorUpdate> RunMonitor::closeAll(double wallNow) {
  std::vector<MonitorUpdate> out;
  const auto close = [&](OpenAlert& open) {
    open.alert.resolvedAt = wallNow;
    open.alert.end = store::AlertEnd::RunEnded;
    out.push_back({open.key, false, open.alert});
  };
  if (m_hang) {
    close(*m_hang);
    m_hang.reset();
  }
  for (auto& [rank, open] : m_stragglers) {
    close(open);
  }
  m_stragglers.clear();
  m_closed = true;
  return out;
}

store::AlertRank RunMonitor::alertRank(const RankState& rank, bool behind) const {
  return {rank.last.rank,   behind, rank.last.step, rank.last.wavefront.entered, rank.last.wavefront.finished,
          stepSeconds(rank)};
}

void RunMonitor::checkHang(Clock::time_point now, double wallNow, std::vector<MonitorUpdate>& out) {
  if (m_hang) {
    // The episode ends with the first progress of any rank after it was raised.
    if (m_lastProgress && *m_lastProgress > m_hangRaisedAt) {
      m_hang->alert.resolvedAt = wallNow;
      out.push_back({m_hang->key, false, m_hang->alert});
      m_hang.reset();
    }
    return;
  }
  if (!m_lastProgress || now - *m_lastProgress < m_options.hangTimeout) {
    return;
  }
  std::vector<const RankState*> participants;
  for (const auto& [rank, state] : m_ranks) {
    if (!state.left && state.last.wavefront.entered) {
      participants.push_back(&state);
    }
  }
  if (participants.size() < 2) {
    return;
  }
  const RankState* ahead = participants.front();
  for (const RankState* r : participants) {
    if (r->last.wavefront.entered->sequence > ahead->last.wavefront.entered->sequence) {
      ahead = r;
    }
  }
  const std::uint64_t front = ahead->last.wavefront.entered->sequence;
  bool someoneWaits = false;
  bool someoneBehind = false;
  for (const RankState* r : participants) {
    const auto& w = r->last.wavefront;
    someoneWaits = someoneWaits || (w.entered->sequence == front && waiting(w));
    someoneBehind = someoneBehind || w.entered->sequence < front;
  }
  if (!someoneWaits || !someoneBehind) {
    return;  // the ranks agree: all finished the same call, or all wait in it together
  }
  store::RunAlert alert;
  alert.kind = store::AlertKind::Hang;
  alert.time = wallNow;
  alert.stalledSeconds = std::chrono::duration<double>(now - *m_lastProgress).count();
  alert.waitingIn = ahead->last.wavefront.entered;
  for (const RankState* r : participants) {
    alert.ranks.push_back(alertRank(*r, r->last.wavefront.entered->sequence < front));
  }
  m_hang = OpenAlert{m_nextKey++, alert};
  m_hangRaisedAt = now;
  out.push_back({m_hang->key, true, std::move(alert)});
}

std::optional<double> RunMonitor::stepSeconds(const RankState& rank) const {
  if (rank.pace.size() < 2) {
    return std::nullopt;
  }
  const Pace& newest = rank.pace.back();
  // The first entry, and any before step 2, stand for the warm-up (setup work and the first step's one-time costs,
  // which differ between ranks): never a base.
  for (auto it = rank.pace.rbegin() + 1; it != rank.pace.rend() - 1; ++it) {
    if (it->step >= 2 && newest.step - it->step >= m_options.stragglerWindowSteps) {
      return (newest.workSeconds - it->workSeconds) / static_cast<double>(newest.step - it->step);
    }
  }
  return std::nullopt;
}

void RunMonitor::checkStragglers(double wallNow, std::vector<MonitorUpdate>& out) {
  std::vector<std::pair<RankState*, double>> paced;
  for (auto& [rank, state] : m_ranks) {
    if (state.left) {
      continue;
    }
    const auto seconds = stepSeconds(state);
    if (!seconds) {
      return;  // compare only when every connected rank's window is full
    }
    paced.emplace_back(&state, *seconds);
  }
  if (paced.size() < 2) {
    return;
  }
  for (const auto& [state, seconds] : paced) {
    std::vector<double> others;
    for (const auto& [other, s] : paced) {
      if (other != state) {
        others.push_back(s);
      }
    }
    const double med = median(std::move(others));
    const bool slow =
        seconds > (1 + m_options.stragglerThreshold) * med && seconds - med >= m_options.stragglerMinExcess.count();
    const int rank = state->last.rank;
    const std::int64_t step = state->pace.back().step;
    const auto open = m_stragglers.find(rank);
    // Hysteresis: the verdict must hold in every comparison over a window of the rank's steps before it changes.
    const auto held = [&](std::optional<std::int64_t>& since) {
      if (!since) {
        since = step;
      }
      return step - *since >= m_options.stragglerWindowSteps;
    };
    if (open == m_stragglers.end()) {
      state->fastSince.reset();
      if (!slow) {
        state->slowSince.reset();
        continue;
      }
      if (!held(state->slowSince)) {
        continue;
      }
      store::RunAlert alert;
      alert.kind = store::AlertKind::Straggler;
      alert.time = wallNow;
      alert.medianStepSeconds = med;
      for (const auto& [other, s] : paced) {
        alert.ranks.push_back(alertRank(*other, other == state));
      }
      const int key = m_nextKey++;
      m_stragglers.emplace(rank, OpenAlert{key, alert});
      state->slowSince.reset();
      out.push_back({key, true, std::move(alert)});
    } else {
      state->slowSince.reset();
      if (slow) {
        state->fastSince.reset();
        continue;
      }
      if (!held(state->fastSince)) {
        continue;
      }
      open->second.alert.resolvedAt = wallNow;
      out.push_back({open->second.key, false, open->second.alert});
      m_stragglers.erase(open);
      state->fastSince.reset();
    }
  }
}

}  // namespace fathom::telemetry
