// SPDX-License-Identifier: Apache-2.0
// `fathom runs watch RUN [--once] [--json] [--interval S]`: reads the workspace the launcher's collector writes and
// redraws one frame per interval: each rank's state, step, steps/s, last loss, heartbeat age and collective
// wavefront, then the run's hang and straggler alerts. It only reads (the collector stays the single writer) and
// exits when the run is no longer running, or on Ctrl-C.
#include "runs_watch.h"
#include "text_table.h"
#include "workspace_flag.h"

#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <deque>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

namespace fathom::cli {
namespace {

using nlohmann::json;

struct WatchFlags {
  std::string workspace;
  std::string run;
  bool once = false;
  bool json = false;
  double interval = 1.0;
};

/// Seconds of heartbeats the steps/s of a rank is measured over.
constexpr double kRateWindowSeconds = 10.0;
/// A rank whose last heartbeat is older than this is shown as silent (heartbeats come every second).
constexpr double kSilentSeconds = 10.0;

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) {
  g_interrupted = true;
}

/// One rank's line of a frame.
struct RankView {
  int rank = 0;
  std::string state;
  std::string host;
  std::int64_t pid = 0;
  std::optional<int> exitCode;
  std::optional<std::int64_t> step;
  std::optional<double> stepsPerSecond;
  std::optional<double> loss;
  std::optional<double> heartbeatAge;
  std::optional<parallel::CollectivePosition> entered;
  std::optional<parallel::CollectivePosition> finished;
  std::vector<std::string> alerts;  ///< kinds of the open alerts that name this rank
};

/// The frames of one watch: keeps each rank's heartbeat history between frames for its steps/s.
class Watcher {
public:
  Watcher(store::Workspace& ws, store::RunId run) : m_ws(ws), m_run(run) {}

  /// Reads the run now; returns the frame and whether the run is still running.
  std::pair<json, bool> frame();

private:
  std::optional<double> rate(int rank) const;

  store::Workspace& m_ws;
  store::RunId m_run;
  std::map<int, std::deque<std::pair<double, std::int64_t>>> m_history;  ///< rank -> (heartbeat time, step)
};

std::optional<double> Watcher::rate(int rank) const {
  const auto it = m_history.find(rank);
  if (it == m_history.end() || it->second.size() < 2) {
    return std::nullopt;
  }
  const auto& [t0, s0] = it->second.front();
  const auto& [t1, s1] = it->second.back();
  return t1 > t0 ? std::optional<double>(static_cast<double>(s1 - s0) / (t1 - t0)) : std::nullopt;
}

json positionOrNull(const std::optional<parallel::CollectivePosition>& p) {
  return store::positionToJson(p);
}

template <typename T> json orNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::pair<json, bool> Watcher::frame() {
  const auto info = m_ws.run(m_run);
  FATHOM_CHECK(info.has_value(), ConfigError, "run ", m_run.value, " is gone from the workspace");
  const double now = unixNowSeconds();
  const auto alerts = m_ws.alerts(m_run);
  std::map<int, RankView> ranks;
  for (const store::RankInfo& r : m_ws.ranks(m_run)) {
    RankView& v = ranks[r.rank];
    v.rank = r.rank;
    v.host = r.host;
    v.pid = r.pid;
    v.exitCode = r.exitCode;
  }
  for (const store::Heartbeat& h : m_ws.heartbeats(m_run)) {
    RankView& v = ranks[h.rank];
    v.rank = h.rank;
    v.step = h.step;
    v.heartbeatAge = std::max(0.0, now - h.time);
    v.entered = h.entered;
    v.finished = h.finished;
    auto& history = m_history[h.rank];
    if (history.empty() || history.back().first < h.time) {
      history.emplace_back(h.time, h.step);
    }
    while (history.size() > 2 && history.back().first - history.front().first > kRateWindowSeconds) {
      history.pop_front();
    }
  }
  for (const store::MetricSummary& m : m_ws.metricSummaries(m_run)) {
    auto it = ranks.find(m.rank);
    if (it == ranks.end()) {
      continue;
    }
    if (m.key == "loss" && std::isfinite(m.last)) {
      it->second.loss = m.last;
    } else if (m.key == "steps_per_second" && std::isfinite(m.last)) {
      it->second.stepsPerSecond = m.last;  // what the trainer measured; replaced by the heartbeats' rate below
    }
  }
  for (const store::AlertRow& a : alerts) {
    if (a.alert.resolvedAt) {
      continue;
    }
    for (int rank : a.alert.behind()) {
      if (auto it = ranks.find(rank); it != ranks.end()) {
        it->second.alerts.emplace_back(store::toString(a.alert.kind));
      }
    }
  }
  const bool running = info->status == store::RunStatus::Running;
  json out = {{"run", m_run.value}, {"name", info->name},     {"status", store::toString(info->status)},
              {"time", now},        {"ranks", json::array()}, {"alerts", json::array()}};
  for (auto& [rank, v] : ranks) {
    if (const auto r = rate(rank)) {
      v.stepsPerSecond = r;
    }
    const bool inCollective = v.entered && (!v.finished || v.finished->sequence < v.entered->sequence);
    if (v.exitCode) {
      v.state = "exited " + std::to_string(*v.exitCode);
    } else if (!running) {
      v.state = "ended";
    } else if (!v.heartbeatAge) {
      v.state = "starting";
    } else if (*v.heartbeatAge > kSilentSeconds) {
      v.state = "silent";
    } else {
      v.state = inCollective ? "in collective" : "running";
    }
    out["ranks"].push_back({{"rank", v.rank},
                            {"state", v.state},
                            {"host", v.host},
                            {"pid", v.pid},
                            {"exit_code", orNull(v.exitCode)},
                            {"step", orNull(v.step)},
                            {"steps_per_second", orNull(v.stepsPerSecond)},
                            {"loss", orNull(v.loss)},
                            {"heartbeat_age", orNull(v.heartbeatAge)},
                            {"entered", positionOrNull(v.entered)},
                            {"finished", positionOrNull(v.finished)},
                            {"alerts", v.alerts}});
  }
  for (const store::AlertRow& a : alerts) {
    json j = store::alertToJson(a);
    j["description"] = store::describeAlert(a.alert);
    out["alerts"].push_back(std::move(j));
  }
  return {std::move(out), running};
}

std::string fixed(const json& v, int decimals, const char* suffix = "") {
  if (v.is_null()) {
    return "-";
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(decimals) << v.get<double>() << suffix;
  return out.str();
}

std::string positionText(const json& p) {
  if (p.is_null()) {
    return "-";
  }
  return p["kind"].get<std::string>() + " #" + std::to_string(p["sequence"].get<std::uint64_t>()) + " " +
         p["group"].get<std::string>() + " " + formatBinaryBytes(p["bytes"].get<double>(), 1);
}

void printFrame(std::ostream& out, const json& frame) {
  out << "Run " << frame["run"] << " \"" << frame["name"].get<std::string>()
      << "\": " << frame["status"].get<std::string>() << '\n';
  std::vector<std::vector<std::string>> rows{
      {"RANK", "STATE", "STEP", "STEPS/S", "LOSS", "HEARTBEAT", "ENTERED", "FINISHED", "ALERT"}};
  for (const json& r : frame["ranks"]) {
    std::string alerts;
    for (const json& a : r["alerts"]) {
      if (!alerts.empty()) {
        alerts += ',';  // appended piecewise: GCC 12's -Wrestrict misreads "" + std::string here
      }
      alerts += a.get<std::string>();
    }
    rows.push_back({std::to_string(r["rank"].get<int>()), r["state"].get<std::string>(),
                    r["step"].is_null() ? "-" : std::to_string(r["step"].get<std::int64_t>()),
                    fixed(r["steps_per_second"], 2), r["loss"].is_null() ? "-" : fixed(r["loss"], 4),
                    fixed(r["heartbeat_age"], 1, " s ago"), positionText(r["entered"]), positionText(r["finished"]),
                    alerts.empty() ? "-" : alerts});
  }
  printTable(out, rows);
  out << "Alerts\n";
  if (frame["alerts"].empty()) {
    out << "  (none)\n";
  }
  for (const json& a : frame["alerts"]) {
    out << "  #" << a["id"] << (a["resolved_at"].is_null() ? " OPEN  " : " ended ")
        << a["description"].get<std::string>() << '\n';
  }
}

int watchRun(const WatchFlags& flags) {
  FATHOM_CHECK(flags.interval > 0 && flags.interval <= 1.0, ConfigError, "--interval must be in (0, 1] seconds, got ",
               flags.interval);
  store::Workspace ws = openExistingWorkspace(flags.workspace);
  Watcher watcher(ws, ws.resolveRun(flags.run).id);
  g_interrupted = false;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  struct sigaction previous {};
  sigaction(SIGINT, &action, &previous);
  const bool redraw = !flags.once && !flags.json && ::isatty(STDOUT_FILENO) == 1;
  for (;;) {
    const auto [frame, running] = watcher.frame();
    if (flags.json) {
      std::cout << frame.dump() << std::endl;
    } else {
      if (redraw) {
        std::cout << "\033[H\033[2J";  // home and clear: the terminal shows one frame
      }
      printFrame(std::cout, frame);
      std::cout << std::flush;
    }
    if (flags.once || !running || g_interrupted) {
      break;
    }
    // Sleep in small slices so Ctrl-C ends the watch at once.
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(flags.interval);
    while (!g_interrupted && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (g_interrupted) {
      break;
    }
  }
  sigaction(SIGINT, &previous, nullptr);
  return 0;
}

}  // namespace

void addRunsWatchCommand(CLI::App& runs, CommandAction& action) {
  auto flags = std::make_shared<WatchFlags>();
  CLI::App* watch = runs.add_subcommand(
      "watch", "Live view of a run: per rank state, step, steps/s, loss, heartbeat age, the last collective entered "
               "and finished, and hang/straggler alerts; refreshed every second until the run ends (or Ctrl-C)");
  watch->add_option("run", flags->run, "Run id or name (the newest run of that name)")->required();
  addWorkspaceOption(*watch, flags->workspace);
  watch->add_flag("--once", flags->once, "Print one frame and exit (for scripts and tests)");
  watch->add_flag("--json", flags->json, "One JSON object per frame, one per line (docs/cli.md)");
  watch->add_option("--interval", flags->interval, "Seconds between frames, at most 1 (default 1)");
  watch->callback([flags, &action] { action = [flags] { return watchRun(*flags); }; });
}

}  // namespace fathom::cli
