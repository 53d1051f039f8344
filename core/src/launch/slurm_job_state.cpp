// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/slurm_job_state.h>

#include <array>
#include <charconv>
#include <csignal>
#include <vector>

namespace fathom::launch {
namespace {

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> result;
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = line.find('|', start);
    result.push_back(line.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (bar == std::string_view::npos) {
      return result;
    }
    start = bar + 1;
  }
}

std::optional<int> number(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

/// A state name: upper-case letters and '_' only (sacct may append " by UID", which is dropped).
std::optional<std::string> stateName(std::string_view text) {
  text = text.substr(0, text.find(' '));
  if (text.empty()) {
    return std::nullopt;
  }
  for (const char c : text) {
    if (!((c >= 'A' && c <= 'Z') || c == '_')) {
      return std::nullopt;
    }
  }
  return std::string(text);
}

}  // namespace

bool SlurmJobState::ended() const {
  static constexpr std::array<std::string_view, 13> kActive{
      "PENDING",   "CONFIGURING", "RUNNING", "COMPLETING",    "SUSPENDED",   "REQUEUED",    "RESIZING",
      "SIGNALING", "STAGE_OUT",   "STOPPED", "RESV_DEL_HOLD", "REQUEUE_FED", "REQUEUE_HOLD"};
  for (const std::string_view active : kActive) {
    if (state == active) {
      return false;
    }
  }
  return !state.empty();
}

int SlurmJobState::exitCode() const {
  const int code = exit ? exit->shellCode() : 0;
  if (state == "COMPLETED") {
    return code;
  }
  if (state == "CANCELLED") {
    return exit && exit->signaled ? code : 128 + SIGTERM;
  }
  if (state == "TIMEOUT") {
    return 124;
  }
  if (state == "OUT_OF_MEMORY") {
    return 128 + SIGKILL;
  }
  return code != 0 ? code : 1;  // FAILED, NODE_FAIL, BOOT_FAIL, PREEMPTED, DEADLINE, ...: never a success
}

std::optional<SlurmJobState> SlurmJobState::fromSqueue(std::string_view line) {
  const std::vector<std::string_view> f = fields(line);
  // "STATE|STATUS|": the trailing '|' is the last field's suffix, so a third, empty field.
  if (f.size() != 3 || !f[2].empty()) {
    return std::nullopt;
  }
  const std::optional<std::string> state = stateName(f[0]);
  if (!state) {
    return std::nullopt;
  }
  SlurmJobState result{*state, std::nullopt};
  // exit_code is the batch script's wait status (0 until it ended); squeue prints "N/A" for none.
  if (const std::optional<int> status = number(f[1])) {
    result.exit = (*status & 0x7f) != 0 ? ExitStatus{true, *status & 0x7f} : ExitStatus{false, (*status >> 8) & 0xff};
  }
  return result;
}

std::optional<SlurmJobState> SlurmJobState::fromSacct(std::string_view text) {
  const std::string_view line = text.substr(0, text.find('\n'));
  const std::vector<std::string_view> f = fields(line);
  if (f.size() != 2) {
    return std::nullopt;
  }
  const std::optional<std::string> state = stateName(f[0]);
  const std::size_t colon = f[1].find(':');
  if (!state || colon == std::string_view::npos) {
    return std::nullopt;
  }
  const std::optional<int> code = number(f[1].substr(0, colon));
  const std::optional<int> signal = number(f[1].substr(colon + 1));
  if (!code || !signal) {
    return std::nullopt;
  }
  return SlurmJobState{*state, *signal != 0 ? ExitStatus{true, *signal} : ExitStatus{false, *code}};
}

}  // namespace fathom::launch
