// SPDX-License-Identifier: Apache-2.0
#include "refusal_log.h"

#include <fathom/common/clock.h>

#include <ctime>

namespace fathom::telemetry {
namespace {

/// "08:40:12 UTC".
std::string utcTime(double unixSeconds) {
  const auto seconds = static_cast<std::time_t>(unixSeconds);
  std::tm parts{};
  ::gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%H:%M:%S UTC", &parts);
  return text;
}

std::uint64_t& counter(RefusalCounts& counts, RefusalReason reason) {
  switch (reason) {
  case RefusalReason::WrongToken: return counts.wrongToken;
  case RefusalReason::WrongVersion: return counts.wrongVersion;
  case RefusalReason::Malformed: return counts.malformed;
  case RefusalReason::NoHello: return counts.noHello;
  case RefusalReason::OverLimit: break;
  }
  return counts.overLimit;
}

}  // namespace

std::string RefusalLog::describe(const RefusalCounts& counts) {
  std::string out;
  const auto part = [&](std::uint64_t n, const char* what) {
    if (n > 0) {
      out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    }
  };
  part(counts.wrongToken, "wrong token");
  part(counts.wrongVersion, "unsupported version");
  part(counts.malformed, "malformed");
  part(counts.noHello, "without a hello");
  part(counts.overLimit, "over the connection limits");
  return out;
}

std::optional<std::string> RefusalLog::refused(RefusalReason reason, std::string_view what, Clock::time_point now) {
  const bool first = m_total.total() == 0;
  ++counter(m_total, reason);
  if (first) {
    m_firstAt = unixNowSeconds();
    m_lastLine = now;
    return "telemetry: refused a connection " + std::string(what);
  }
  if (m_unreported.total() == 0) {
    m_unreportedSince = unixNowSeconds();
  }
  ++counter(m_unreported, reason);
  return std::nullopt;
}

std::optional<RefusalLog::Clock::time_point> RefusalLog::nextDue() const {
  if (m_unreported.total() == 0) {
    return std::nullopt;
  }
  return m_lastLine + m_interval;
}

std::optional<std::string> RefusalLog::due(Clock::time_point now) {
  const auto when = nextDue();
  if (!when || now < *when) {
    return std::nullopt;
  }
  std::string line = "telemetry: " + std::to_string(m_unreported.total()) + " connections refused since " +
                     utcTime(m_unreportedSince) + ": " + describe(m_unreported);
  m_unreported = {};
  m_lastLine = now;
  return line;
}

RefusalLog::Final RefusalLog::finish() {
  Final out;
  if (m_unreported.total() > 0) {
    out.line = "telemetry: " + std::to_string(m_unreported.total()) + " connections refused since " +
               utcTime(m_unreportedSince) + ": " + describe(m_unreported);
    m_unreported = {};
  }
  if (m_total.total() > 1) {
    out.event = "telemetry: " + std::to_string(m_total.total()) + " connections refused during the run (the first at " +
                utcTime(m_firstAt) + "): " + describe(m_total);
  }
  return out;
}

}  // namespace fathom::telemetry
