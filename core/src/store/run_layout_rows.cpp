// SPDX-License-Identifier: Apache-2.0
#include "run_layout_rows.h"

#include <fathom/common/error.h>

namespace fathom::store {
namespace {

std::optional<RunStrategy> parseStrategyColumns(const std::string& strategy, const std::string& sharding) {
  if (strategy.empty()) {
    return std::nullopt;
  }
  try {
    RunStrategy out;
    out.strategy = plan::parseStrategy(strategy);
    if (out.strategy == plan::Strategy::Fsdp && !sharding.empty()) {
      out.fsdpSharding = plan::parseFsdpSharding(sharding);
    }
    return out;
  } catch (const ConfigError&) {
    return std::nullopt;  // a name this build does not know: unknown, as for a run that never said
  }
}

void placeHost(std::vector<std::string>& hosts, std::int64_t machineRank, std::string host) {
  if (machineRank < 0 || machineRank > 1 << 20) {
    return;  // not a machine rank this build would have written
  }
  const auto index = static_cast<std::size_t>(machineRank);
  if (hosts.size() <= index) {
    hosts.resize(index + 1);
  }
  hosts[index] = std::move(host);
}

}  // namespace

RunLayout readLayoutColumns(const sql::Statement& s, int first) {
  RunLayout layout;
  layout.worldSize = static_cast<int>(s.int64(first));
  layout.numMachines = static_cast<int>(s.int64(first + 1));
  layout.strategy = parseStrategyColumns(s.text(first + 2), s.text(first + 3));
  layout.mixedPrecision = s.text(first + 4);
  return layout;
}

std::map<std::int64_t, std::vector<std::string>> readRunHosts(sql::Db& db) {
  sql::Statement s(db, "SELECT run_id, machine_rank, host FROM run_hosts ORDER BY run_id, machine_rank");
  std::map<std::int64_t, std::vector<std::string>> out;
  while (s.step()) {
    placeHost(out[s.int64(0)], s.int64(1), s.text(2));
  }
  return out;
}

std::vector<std::string> readRunHosts(sql::Db& db, std::int64_t run) {
  sql::Statement s(db, "SELECT machine_rank, host FROM run_hosts WHERE run_id = ? ORDER BY machine_rank");
  s.bind(1, run);
  std::vector<std::string> out;
  while (s.step()) {
    placeHost(out, s.int64(0), s.text(1));
  }
  return out;
}

void writeRunLayout(sql::Db& db, std::int64_t run, const RunLayout& layout) {
  sql::Statement s(db, "UPDATE runs SET world_size = ?, num_machines = ?, strategy = ?, fsdp_sharding = ?, "
                       "mixed_precision = ? WHERE id = ?");
  const bool fsdp = layout.strategy && layout.strategy->strategy == plan::Strategy::Fsdp;
  s.bind(1, layout.worldSize)
      .bind(2, layout.numMachines)
      .bind(3, layout.strategy ? plan::toString(layout.strategy->strategy) : std::string_view(""))
      .bind(4, fsdp ? plan::toString(layout.strategy->fsdpSharding) : std::string_view(""))
      .bind(5, std::string_view(layout.mixedPrecision))
      .bind(6, run);
  s.run();
  sql::Statement clear(db, "DELETE FROM run_hosts WHERE run_id = ?");
  clear.bind(1, run).run();
  sql::Statement insert(db, "INSERT INTO run_hosts (run_id, machine_rank, host) VALUES (?, ?, ?)");
  for (std::size_t machine = 0; machine < layout.hosts.size(); ++machine) {
    if (!layout.hosts[machine].empty()) {
      insert.bind(1, run).bind(2, static_cast<std::int64_t>(machine)).bind(3, std::string_view(layout.hosts[machine]));
      insert.run();
    }
  }
}

void writeRunSetup(sql::Db& db, std::int64_t run, const RunSetup& setup) {
  sql::Statement s(db, "UPDATE runs SET strategy = ?, fsdp_sharding = ?, mixed_precision = ? WHERE id = ?");
  const bool fsdp = setup.strategy.strategy == plan::Strategy::Fsdp;
  s.bind(1, plan::toString(setup.strategy.strategy))
      .bind(2, fsdp ? plan::toString(setup.strategy.fsdpSharding) : std::string_view(""))
      .bind(3, std::string_view(setup.mixedPrecision))
      .bind(4, run);
  s.run();
}

}  // namespace fathom::store
