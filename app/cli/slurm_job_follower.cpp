// SPDX-License-Identifier: Apache-2.0
#include "slurm_job_follower.h"

#include <fathom/common/error.h>
#include <fathom/launch/worker_process.h>
#include <fathom/telemetry/launch_events.h>

#include <array>
#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace fathom::cli {
namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_signal = 0;

extern "C" void onFollowSignal(int signal) {
  g_signal = signal;
}

/// SIGINT and SIGTERM set g_signal while following; the previous dispositions come back on destruction.
class FollowSignals {
public:
  FollowSignals() {
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = onFollowSignal;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      ::sigaction(kSignals[i], &action, &m_previous[i]);
    }
  }
  ~FollowSignals() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      ::sigaction(kSignals[i], &m_previous[i], nullptr);
    }
  }
  FollowSignals(const FollowSignals&) = delete;
  FollowSignals& operator=(const FollowSignals&) = delete;

private:
  static constexpr std::array<int, 2> kSignals{SIGINT, SIGTERM};
  std::array<struct sigaction, 2> m_previous{};
};

/// Where the job's output goes: all of it to `out`, or (--json) its event lines to `out` and the rest to stderr,
/// split at line ends (a line still being written waits for its end).
class OutputCopy {
public:
  OutputCopy(std::ostream& out, bool json) : m_out(out), m_json(json) {}

  void write(const char* data, std::size_t size) {
    if (!m_json) {
      m_out.write(data, static_cast<std::streamsize>(size));
      return;
    }
    m_partial.append(data, size);
    std::size_t start = 0;
    for (std::size_t end; (end = m_partial.find('\n', start)) != std::string::npos; start = end + 1) {
      const std::string_view line(m_partial.data() + start, end - start);
      (telemetry::isEventLine(line) ? m_out : std::cerr) << line << '\n';
    }
    m_partial.erase(0, start);
  }
  /// The job has ended: a last line without its newline is written as it is.
  void finish() {
    if (!m_partial.empty()) {
      write("\n", 1);
    }
    m_out.flush();
  }
  void flush() { m_out.flush(); }

private:
  std::ostream& m_out;
  bool m_json;
  std::string m_partial;
};

/// Copies what was appended to `file` since `offset`; returns whether anything was.
bool copyNewOutput(const std::filesystem::path& file, std::streamoff& offset, OutputCopy& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return false;  // not created yet: the job has not started
  }
  in.seekg(offset);
  char chunk[8192];
  bool any = false;
  while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) {
    out.write(chunk, static_cast<std::size_t>(in.gcount()));
    offset += in.gcount();
    any = true;
  }
  if (any) {
    out.flush();
  }
  return any;
}

/// Sleeps `interval` in 20 ms steps, returning early once a signal has arrived (Ctrl-C acted on at once).
void pause(std::chrono::milliseconds interval) {
  const auto until = Clock::now() + interval;
  while (Clock::now() < until && g_signal == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int followSlurmJob(const launch::SlurmClient& client, const std::string& jobId, const std::filesystem::path& outputFile,
                   std::ostream& out, const SlurmFollowOptions& options) {
  const FollowSignals signals;
  OutputCopy copy(out, options.json);
  std::streamoff offset = 0;
  std::optional<launch::SlurmJobState> last;
  std::optional<int> interruptedBy;
  std::optional<Clock::time_point> cancelled;
  int misses = 0;
  constexpr int kMaxMisses = 20;  // squeue not knowing a job it just accepted: 20 polls (10 s) before giving up
  for (;;) {
    if (g_signal != 0 && !interruptedBy) {
      interruptedBy = static_cast<int>(g_signal);
      std::cerr << "fathom launch: " << launch::signalName(*interruptedBy) << ": cancelling job " << jobId
                << " (scancel)\n";
      client.cancel(jobId);
      cancelled = Clock::now();
    }
    copyNewOutput(outputFile, offset, copy);
    const std::optional<launch::SlurmJobState> state = client.queueState(jobId);
    if (state) {
      misses = 0;
      if (!last || last->state != state->state) {
        if (!options.quiet) {
          std::cerr << "fathom launch: job " << jobId << " " << state->state << "\n";
        }
        if (options.json) {
          out << telemetry::toJsonLine(telemetry::SlurmJobUpdate{jobId, state->state}) << std::endl;
        }
      }
      last = state;
      if (state->ended()) {
        break;
      }
    } else if (last || ++misses > kMaxMisses) {
      break;  // purged from slurmctld's memory (MinJobAge) since the last poll, or never known: sacct may say
    }
    if (cancelled && Clock::now() - *cancelled > options.cancelWait) {
      std::cerr << "fathom launch: job " << jobId << " has not ended " << options.cancelWait.count()
                << " s after scancel; leaving it to SLURM\n";
      return 128 + *interruptedBy;
    }
    pause(options.pollInterval);
  }
  // The record of the end: sacct's when the cluster keeps accounting (it outlives slurmctld's memory), else squeue's.
  std::optional<launch::SlurmJobState> final = client.accountingState(jobId);
  if (!final || !final->ended()) {
    final = last;
  }
  FATHOM_CHECK(final && final->ended(), Error, "SLURM lost track of job ", jobId,
               ": squeue no longer knows it and sacct has no record (no accounting?); see ", outputFile.string());
  // The output file may still grow (a shared file system's delay): read until it stays the same for 0.5 s, 3 s at most.
  const auto until = Clock::now() + std::chrono::seconds(3);
  auto quietSince = Clock::now();
  while (Clock::now() < until && Clock::now() - quietSince < std::chrono::milliseconds(500)) {
    if (copyNewOutput(outputFile, offset, copy)) {
      quietSince = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  copy.finish();
  const int code = interruptedBy ? 128 + *interruptedBy : final->exitCode();
  if (!options.quiet) {
    std::cerr << "fathom launch: job " << jobId << " ended " << final->state
              << (final->exit ? " (" + final->exit->describe() + ")" : std::string()) << "; exit code " << code << "\n";
  }
  return code;
}

}  // namespace fathom::cli
