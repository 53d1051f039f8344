// SPDX-License-Identifier: Apache-2.0
#include "calibration_task.h"

#include <fathom/common/error.h>

#include <array>
#include <fstream>
#include <sstream>

namespace fathom::calibrate::detail {
namespace {

plan::CollectiveKind kindFromName(const std::string& name) {
  for (auto k : {plan::CollectiveKind::AllReduce, plan::CollectiveKind::AllGather, plan::CollectiveKind::ReduceScatter,
                 plan::CollectiveKind::Broadcast}) {
    if (name == plan::toString(k)) {
      return k;
    }
  }
  throw Error(fathom::detail::concat("calibration result: unknown collective '", name, "'"));
}

}  // namespace

int CalibrationTask::totalSteps() const {
  const auto grid = processes.size() * threads.size() * (dtypes.size() * shapes.size() * layouts.size() + 2);
  const auto comm = rankCounts.size() * 4 * messageBytes.size();
  return static_cast<int>(grid + 1 + comm);
}

nlohmann::json toJson(const CalibrationTask& t) {
  return {{"device", t.device},
          {"mode", t.mode},
          {"cpu_cores", t.cpuCores},
          {"processes", t.processes},
          {"threads", t.threads},
          {"dtypes", t.dtypes},
          {"shapes", t.shapes},
          {"layouts", t.layouts},
          {"elementwise_elements", t.elementwiseElements},
          {"optimizer_parameters", t.optimizerParameters},
          {"matmul_seconds", t.matmulSeconds},
          {"memory_bytes", t.memoryBytes},
          {"memory_repeats", t.memoryRepeats},
          {"rank_counts", t.rankCounts},
          {"message_bytes", t.messageBytes},
          {"repeats", t.repeats},
          {"passes", t.passes},
          {"seconds_per_size", t.secondsPerSize},
          {"timeout_ms", t.timeoutMs}};
}

CalibrationTask taskFromJson(const nlohmann::json& j) {
  try {
    CalibrationTask t;
    t.device = j.at("device").get<std::string>();
    t.mode = j.at("mode").get<std::string>();
    t.cpuCores = j.at("cpu_cores").get<int>();
    t.processes = j.at("processes").get<std::vector<int>>();
    t.threads = j.at("threads").get<std::vector<int>>();
    t.dtypes = j.at("dtypes").get<std::vector<std::string>>();
    t.shapes = j.at("shapes").get<std::vector<std::array<std::int64_t, 3>>>();
    t.layouts = j.at("layouts").get<std::vector<std::string>>();
    t.elementwiseElements = j.at("elementwise_elements").get<std::int64_t>();
    t.optimizerParameters = j.at("optimizer_parameters").get<std::int64_t>();
    t.matmulSeconds = j.at("matmul_seconds").get<double>();
    t.memoryBytes = j.at("memory_bytes").get<std::int64_t>();
    t.memoryRepeats = j.at("memory_repeats").get<int>();
    t.rankCounts = j.at("rank_counts").get<std::vector<int>>();
    t.messageBytes = j.at("message_bytes").get<std::vector<std::int64_t>>();
    t.repeats = j.at("repeats").get<int>();
    t.passes = j.at("passes").get<int>();
    t.secondsPerSize = j.at("seconds_per_size").get<double>();
    t.timeoutMs = j.at("timeout_ms").get<std::int64_t>();
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fathom::detail::concat("calibration task: ", e.what()));
  }
}

nlohmann::json toJson(const RawResult& r) {
  nlohmann::json matmul = nlohmann::json::array();
  for (const auto& m : r.matmul) {
    matmul.push_back(rateJson<nlohmann::json>(m));
  }
  nlohmann::json elementwise = nlohmann::json::array();
  for (const auto& e : r.elementwise) {
    elementwise.push_back(rateJson<nlohmann::json>(e));
  }
  nlohmann::json optimizer = nlohmann::json::array();
  for (const auto& o : r.optimizer) {
    optimizer.push_back(rateJson<nlohmann::json>(o));
  }
  nlohmann::json collectives = nlohmann::json::array();
  for (const auto& s : r.collectives) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.points) {
      points.push_back({p.bytes, p.seconds});
    }
    collectives.push_back(
        {{"kind", plan::toString(s.kind)}, {"ranks", s.ranks}, {"path", s.path}, {"points", std::move(points)}});
  }
  return {{"matmul", std::move(matmul)},       {"elementwise", std::move(elementwise)},
          {"optimizer", std::move(optimizer)}, {"memory_copy", r.memoryCopy},
          {"memory_add", r.memoryAdd},         {"collectives", std::move(collectives)},
          {"resident_bytes", r.residentBytes}, {"device_name", r.deviceName}};
}

RawResult resultFromJson(const nlohmann::json& j) {
  try {
    RawResult r;
    for (const auto& m : j.at("matmul")) {
      const auto layout = plan::parseMatmulLayout(m.at("layout").get<std::string>());
      if (!layout) {
        throw Error("calibration result: unknown matmul layout " + m.at("layout").dump());
      }
      r.matmul.push_back({m.at("dtype").get<std::string>(), *layout, m.at("processes").get<int>(),
                          m.at("threads").get<int>(), m.at("m").get<std::int64_t>(), m.at("k").get<std::int64_t>(),
                          m.at("n").get<std::int64_t>(), m.at("flops").get<double>()});
    }
    for (const auto& e : j.at("elementwise")) {
      r.elementwise.push_back({e.at("processes").get<int>(), e.at("threads").get<int>(),
                               e.at("seconds_per_element").get<double>(), e.at("seconds_per_call").get<double>()});
    }
    for (const auto& o : j.at("optimizer")) {
      r.optimizer.push_back({o.at("name").get<std::string>(), o.at("processes").get<int>(), o.at("threads").get<int>(),
                             o.at("seconds_per_parameter").get<double>()});
    }
    r.memoryCopy = j.at("memory_copy").get<double>();
    r.memoryAdd = j.at("memory_add").get<double>();
    for (const auto& c : j.at("collectives")) {
      RawResult::Series s;
      s.kind = kindFromName(c.at("kind").get<std::string>());
      s.ranks = c.at("ranks").get<int>();
      s.path = c.at("path").get<std::string>();
      for (const auto& p : c.at("points")) {
        s.points.push_back({p.at(0).get<std::int64_t>(), p.at(1).get<double>()});
      }
      r.collectives.push_back(std::move(s));
    }
    r.residentBytes = j.at("resident_bytes").get<std::int64_t>();
    r.deviceName = j.at("device_name").get<std::string>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fathom::detail::concat("calibration result: ", e.what()));
  }
}

nlohmann::json readJsonFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  FATHOM_CHECK(in.good(), StorageError, "cannot read ", path.string());
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(fathom::detail::concat(path.string(), ": not JSON: ", e.what()));
  }
}

void writeJsonFile(const std::filesystem::path& path, const nlohmann::json& j) {
  const auto temporary = std::filesystem::path(path.string() + ".partial");
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << j.dump();
    FATHOM_CHECK(out.good(), StorageError, "cannot write ", temporary.string());
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  FATHOM_CHECK(!ec, StorageError, "cannot write ", path.string(), ": ", ec.message());
}

}  // namespace fathom::calibrate::detail
