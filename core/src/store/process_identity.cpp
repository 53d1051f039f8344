// SPDX-License-Identifier: Apache-2.0
#include <fathom/store/process_identity.h>

#include <array>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <unistd.h>

namespace fathom::store {
namespace {

/// The fields of /proc/<pid>/stat after "(comm)": the comm may hold spaces and parentheses, so parse from the last
/// ')'. Field 3 is the state, field 22 the start time.
std::optional<std::string> statFieldsAfterComm(std::int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) {
    return std::nullopt;
  }
  const std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = line.rfind(')');
  if (close == std::string::npos) {
    return std::nullopt;
  }
  return line.substr(close + 1);
}

struct StatInfo {
  char state = '?';
  std::uint64_t startTime = 0;
};

std::optional<StatInfo> readStat(std::int64_t pid) {
  const auto rest = statFieldsAfterComm(pid);
  if (!rest) {
    return std::nullopt;
  }
  std::istringstream fields(*rest);
  StatInfo info;
  fields >> info.state;
  std::string field;
  for (int i = 4; i <= 22 && fields >> field; ++i) {
    if (i == 22) {
      std::from_chars(field.data(), field.data() + field.size(), info.startTime);
    }
  }
  return info;
}

}  // namespace

std::string currentHostName() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) {
    return "localhost";
  }
  return name.data();
}

ProcessIdentity ProcessIdentity::current() {
  const auto pid = static_cast<std::int64_t>(getpid());
  return {currentHostName(), pid, processStartTime(pid).value_or(0)};
}

std::optional<std::uint64_t> processStartTime(std::int64_t pid) {
  const auto info = readStat(pid);
  return info ? std::optional(info->startTime) : std::nullopt;
}

Liveness liveness(const ProcessIdentity& who) {
  if (who.host != currentHostName()) {
    return Liveness::Unknown;
  }
  if (who.pid <= 0) {
    return Liveness::Gone;
  }
  const auto info = readStat(who.pid);
  if (!info || info->state == 'Z' || info->state == 'X') {
    return Liveness::Gone;
  }
  if (who.startTime != 0 && info->startTime != who.startTime) {
    return Liveness::Gone;  // the pid was recycled by another process
  }
  return Liveness::Alive;
}

std::vector<std::string> currentArguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < raw.size()) {
    const auto end = raw.find('\0', start);
    out.push_back(raw.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return out;
}

std::string shellCommandLine(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) {
      out += ' ';
    }
    const bool plain = !word.empty() && word.find_first_of(" \t\n'\"\\$`;&|<>()*?[]#~") == std::string::npos;
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word) {
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    out += '\'';
  }
  return out;
}

}  // namespace fathom::store
