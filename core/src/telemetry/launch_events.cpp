// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/json_input.h>
#include <fathom/telemetry/launch_events.h>

#include <nlohmann/json.hpp>

namespace fathom::telemetry {
namespace {

using nlohmann::json;

template <typename T> json optional(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

/// Thrown when a field of a known kind is not a whole number T can hold exactly: the line is then no event, as for a
/// missing field (nlohmann's get<int>() would cast 1.4e28 to int, undefined behaviour).
struct NotAnEvent {};

template <typename T> T integer(const json& value) {
  const std::optional<T> v = jsonInteger<T>(value);
  if (!v) {
    throw NotAnEvent{};
  }
  return *v;
}

template <typename T> T integerAt(const json& j, const char* key) {
  return integer<T>(j.at(key));
}

template <typename T> std::optional<T> optionalField(const json& j, const char* key) {
  const auto found = j.find(key);
  return found == j.end() || found->is_null() ? std::nullopt : std::optional<T>(integer<T>(*found));
}

std::vector<int> integers(const json& list) {
  std::vector<int> out;
  for (const json& item : list.get_ref<const json::array_t&>()) {
    out.push_back(integer<int>(item));
  }
  return out;
}

json toJson(const RunCreated& e) {
  return {{"event", "run"},           {"version", kLaunchEventVersion}, {"run_id", e.runId}, {"name", e.name},
          {"workspace", e.workspace}, {"world_size", e.worldSize},      {"ranks", e.ranks}};
}

json toJson(const RankStarted& e) {
  return {
      {"event", "rank_started"}, {"rank", e.rank}, {"local_rank", e.localRank}, {"attempt", e.attempt}, {"pid", e.pid}};
}

json toJson(const RankEnded& e) {
  return {{"event", "rank_ended"}, {"rank", e.rank},          {"local_rank", e.localRank},   {"attempt", e.attempt},
          {"pid", e.pid},          {"exit_code", e.exitCode}, {"signal", optional(e.signal)}};
}

json toJson(const LaunchFinished& e) {
  return {{"event", "finished"},
          {"run_id", e.runId},
          {"status", store::toString(e.status)},
          {"exit_code", e.exitCode},
          {"attempts", e.attempts},
          {"failed_rank", optional(e.failedRank)},
          {"interrupted_by", optional(e.interruptedBy)}};
}

json toJson(const LaunchError& e) {
  return {{"event", "error"}, {"message", e.message}};
}

json toJson(const SlurmJobUpdate& e) {
  return {{"event", "slurm_job"}, {"job_id", e.jobId}, {"state", e.state}};
}

LaunchEvent fromJson(const json& j, const std::string& kind) {
  if (kind == "run") {
    return RunCreated{integerAt<std::int64_t>(j, "run_id"), j.at("name").get<std::string>(),
                      j.at("workspace").get<std::string>(), integerAt<int>(j, "world_size"), integers(j.at("ranks"))};
  }
  if (kind == "rank_started") {
    return RankStarted{integerAt<int>(j, "rank"), integerAt<int>(j, "local_rank"), integerAt<int>(j, "attempt"),
                       integerAt<std::int64_t>(j, "pid")};
  }
  if (kind == "rank_ended") {
    return RankEnded{integerAt<int>(j, "rank"),      integerAt<int>(j, "local_rank"),
                     integerAt<int>(j, "attempt"),   integerAt<std::int64_t>(j, "pid"),
                     integerAt<int>(j, "exit_code"), optionalField<int>(j, "signal")};
  }
  if (kind == "finished") {
    return LaunchFinished{integerAt<std::int64_t>(j, "run_id"),
                          store::parseRunStatus(j.at("status").get<std::string>()).value_or(store::RunStatus::Failed),
                          integerAt<int>(j, "exit_code"),
                          integerAt<int>(j, "attempts"),
                          optionalField<int>(j, "failed_rank"),
                          optionalField<int>(j, "interrupted_by")};
  }
  if (kind == "slurm_job") {
    return SlurmJobUpdate{j.at("job_id").get<std::string>(), j.at("state").get<std::string>()};
  }
  return LaunchError{j.at("message").get<std::string>()};
}

}  // namespace

std::string toJsonLine(const LaunchEvent& event) {
  return std::visit([](const auto& e) { return toJson(e).dump(); }, event);
}

std::string alertJsonLine(const store::AlertRow& alert) {
  json j = store::alertToJson(alert);
  j["event"] = alert.alert.resolvedAt ? "alert_resolved" : "alert";
  return j.dump();
}

bool isEventLine(std::string_view line) {
  if (line.empty() || line.front() != '{') {
    return false;  // the common case, text for people, without a parse
  }
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return false;
  }
  const auto kind = j.find("event");
  return kind != j.end() && kind->is_string();
}

std::optional<LaunchEvent> parseLaunchEvent(std::string_view line) {
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return std::nullopt;
  }
  const auto kind = j.find("event");
  if (kind == j.end() || !kind->is_string()) {
    return std::nullopt;
  }
  const std::string name = kind->get<std::string>();
  if (name != "run" && name != "rank_started" && name != "rank_ended" && name != "finished" && name != "error" &&
      name != "slurm_job") {
    return std::nullopt;
  }
  try {
    return fromJson(j, name);
  } catch (const json::exception&) {
    return std::nullopt;  // a known kind with a field missing or of the wrong type
  } catch (const NotAnEvent&) {
    return std::nullopt;  // a number that is not a whole number in range
  }
}

}  // namespace fathom::telemetry
