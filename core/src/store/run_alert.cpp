// SPDX-License-Identifier: Apache-2.0
#include <fathom/store/run_alert.h>

#include <nlohmann/json.hpp>

#include <iomanip>
#include <sstream>

namespace fathom::store {
namespace {

std::string ranksText(const std::vector<int>& ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(ranks[i]);
  }
  return out;
}

std::string callText(const parallel::CollectivePosition& p) {
  return std::string(parallel::toString(p.kind)) + " #" + std::to_string(p.sequence);
}

template <typename T> nlohmann::json orNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

std::string_view toString(AlertKind kind) {
  return kind == AlertKind::Hang ? "hang" : "straggler";
}

std::optional<AlertKind> parseAlertKind(std::string_view text) {
  if (text == "hang") {
    return AlertKind::Hang;
  }
  if (text == "straggler") {
    return AlertKind::Straggler;
  }
  return std::nullopt;
}

std::string_view toString(AlertEnd end) {
  return end == AlertEnd::Resolved ? "resolved" : "run_ended";
}

std::optional<AlertEnd> parseAlertEnd(std::string_view text) {
  if (text == "resolved") {
    return AlertEnd::Resolved;
  }
  if (text == "run_ended") {
    return AlertEnd::RunEnded;
  }
  return std::nullopt;
}

std::vector<int> RunAlert::behind() const {
  std::vector<int> out;
  for (const AlertRank& r : ranks) {
    if (r.behind) {
      out.push_back(r.rank);
    }
  }
  return out;
}

std::string describeAlert(const RunAlert& alert) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  out << toString(alert.kind) << ": ";
  const std::vector<int> behind = alert.behind();
  if (alert.kind == AlertKind::Hang) {
    out << ranksText(behind) << " behind";
    std::string where;
    for (const AlertRank& r : alert.ranks) {
      if (r.behind) {
        where += where.empty() ? " (" : "; ";
        where +=
            "rank " + std::to_string(r.rank) + (r.entered ? " last entered " + callText(*r.entered) : " entered none");
      }
    }
    out << (where.empty() ? "" : where + ")");
    std::vector<int> waiting;
    for (const AlertRank& r : alert.ranks) {
      if (!r.behind) {
        waiting.push_back(r.rank);
      }
    }
    if (alert.waitingIn) {
      const auto& w = *alert.waitingIn;
      out << "; " << ranksText(waiting) << (waiting.size() == 1 ? " waits in " : " wait in ") << callText(w) << " ("
          << w.group << ", " << w.groupSize << " ranks, " << w.bytes << " B)";
    }
    out << " for " << alert.stalledSeconds << " s";
  } else {
    for (const AlertRank& r : alert.ranks) {
      if (r.behind && r.stepSeconds && alert.medianStepSeconds) {
        out << std::setprecision(3) << "rank " << r.rank << " takes " << *r.stepSeconds
            << " s per step outside collectives, " << std::setprecision(2)
            << (*alert.medianStepSeconds > 0 ? *r.stepSeconds / *alert.medianStepSeconds : 0.0)
            << "x the others' median " << std::setprecision(3) << *alert.medianStepSeconds << " s";
      }
    }
  }
  if (alert.resolvedAt) {
    out << std::setprecision(1)
        << (alert.end == AlertEnd::Resolved ? " (resolved after " : " (still open when the run ended, after ")
        << (*alert.resolvedAt - alert.time) << " s)";
  }
  return out.str();
}

nlohmann::json positionToJson(const std::optional<parallel::CollectivePosition>& position) {
  if (!position) {
    return nullptr;
  }
  return {{"sequence", position->sequence},
          {"kind", parallel::toString(position->kind)},
          {"group", position->group},
          {"group_size", position->groupSize},
          {"bytes", position->bytes}};
}

nlohmann::json alertToJson(const AlertRow& row) {
  const RunAlert& a = row.alert;
  nlohmann::json ranks = nlohmann::json::array();
  for (const AlertRank& r : a.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"behind", r.behind},
                     {"step", r.step},
                     {"entered", positionToJson(r.entered)},
                     {"finished", positionToJson(r.finished)},
                     {"step_seconds", orNull(r.stepSeconds)}});
  }
  return {{"id", row.id.value},
          {"run_id", row.run.value},
          {"kind", toString(a.kind)},
          {"time", a.time},
          {"stalled_seconds", a.stalledSeconds},
          {"waiting_in", positionToJson(a.waitingIn)},
          {"median_step_seconds", orNull(a.medianStepSeconds)},
          {"resolved_at", orNull(a.resolvedAt)},
          {"ended", a.resolvedAt ? nlohmann::json(toString(a.end)) : nlohmann::json(nullptr)},
          {"behind", a.behind()},
          {"ranks", std::move(ranks)}};
}

}  // namespace fathom::store
