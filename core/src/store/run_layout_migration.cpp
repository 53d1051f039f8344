// SPDX-License-Identifier: Apache-2.0
#include "run_layout_migration.h"

#include "run_layout_rows.h"
#include "sqlite_db.h"

#include <fathom/common/error.h>

#include <nlohmann/json.hpp>

#include <set>

namespace fathom::store {
namespace {

struct OldRun {
  std::int64_t id = 0;
  std::string host;
  std::string configFormat;
  std::string configText;
};

/// The value of `--strategy X` (or `--strategy=X`) among the words of a launch's command, if it names a strategy.
std::optional<plan::Strategy> strategyWord(const nlohmann::json& command) {
  if (!command.is_array()) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (!command[i].is_string()) {
      continue;
    }
    const std::string word = command[i].get<std::string>();
    std::string value;
    if (word == "--strategy" && i + 1 < command.size() && command[i + 1].is_string()) {
      value = command[i + 1].get<std::string>();
    } else if (word.rfind("--strategy=", 0) == 0) {
      value = word.substr(11);
    } else {
      continue;
    }
    try {
      return plan::parseStrategy(value);
    } catch (const ConfigError&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

RunStrategy launchStrategy(const nlohmann::json& config) {
  RunStrategy out;
  if (config.value("use_fsdp", false)) {
    out.strategy = plan::Strategy::Fsdp;
    try {
      out.fsdpSharding = plan::parseFsdpSharding(config.value("fsdp_sharding_strategy", std::string("FULL_SHARD")));
    } catch (const ConfigError&) {
    }
    return out;
  }
  if (config.value("use_deepspeed", false)) {
    return zeroStageStrategy(config.value("zero_stage", 2));
  }
  out.strategy = strategyWord(config.value("command", nlohmann::json())).value_or(plan::Strategy::Ddp);
  return out;
}

std::string precisionOf(const nlohmann::json& config) {
  const auto found = config.find("mixed_precision");
  if (found == config.end() || !found->is_string()) {
    return {};
  }
  return found->get<std::string>();  // written by precision::toString: Accelerate's spelling
}

RunLayout deriveLayout(sql::Db& db, const OldRun& run) {
  RunLayout layout;
  std::set<std::string> hosts;
  int ranks = 0;
  {
    sql::Statement s(db, "SELECT host FROM ranks WHERE run_id = ?");
    s.bind(1, run.id);
    while (s.step()) {
      ++ranks;
      hosts.insert(s.text(0));
    }
  }
  nlohmann::json config;
  if (run.configFormat == "json") {
    config = nlohmann::json::parse(run.configText, nullptr, /*allow_exceptions=*/false);
  }
  if (!config.is_object()) {
    config = nlohmann::json::object();
  }
  layout.mixedPrecision = precisionOf(config);
  layout.strategy = RunStrategy{};  // DDP, as the Studio showed a run that said nothing else
  const auto worldSize = config.find("world_size");
  if (worldSize != config.end() && worldSize->is_number_integer()) {
    // The configuration `fathom launch` recorded (docs/workspace.md of schema version 3).
    layout.worldSize = worldSize->get<int>();
    layout.numMachines = config.value("num_machines", 1);
    layout.strategy = launchStrategy(config);
    const int machineRank = config.value("machine_rank", 0);
    if (!run.host.empty() && machineRank >= 0 && machineRank < layout.numMachines) {
      layout.hosts.resize(static_cast<std::size_t>(machineRank) + 1);
      layout.hosts.back() = run.host;
    }
    return layout;
  }
  layout.worldSize = ranks;
  layout.numMachines = static_cast<int>(hosts.size());
  if (!run.host.empty()) {
    layout.hosts = {run.host};
  }
  return layout;
}

}  // namespace

void deriveRunLayouts(sql::Db& db) {
  std::vector<OldRun> runs;
  {
    sql::Statement s(db, "SELECT id, host, config_format, config_text FROM runs ORDER BY id");
    while (s.step()) {
      runs.push_back({s.int64(0), s.text(1), s.text(2), s.text(3)});
    }
  }
  for (const OldRun& run : runs) {
    writeRunLayout(db, run.id, deriveLayout(db, run));
  }
}

}  // namespace fathom::store
