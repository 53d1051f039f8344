// SPDX-License-Identifier: Apache-2.0
// The "one run, one workspace" check of the multi-node launch tests (tst_launch_ssh, tst_launch_slurm): the
// launcher's workspace holds the run with every host's ranks and the same metrics as the same processes launched on
// one machine. Links Fathom::core (the workspace).
#pragma once

#include <fathom/store/workspace.h>

#include <QString>

#include <string>
#include <vector>

namespace fathom::test {

/// Empty when `multiWorkspace` holds one succeeded run of hosts.size() machines and ranksPerHost ranks each, in
/// host order (ranks 0..k-1 on the first host) with their pids and exit code 0, and the same metric keys with as
/// many values per rank as the one run in `localWorkspace`; else the first difference.
inline QString multiNodeRunDifference(const QString& multiWorkspace, const QString& localWorkspace,
                                      const std::vector<std::string>& hosts, int ranksPerHost) {
  store::Workspace multi(multiWorkspace.toStdString(), {.create = false});
  store::Workspace local(localWorkspace.toStdString(), {.create = false});
  const auto runs = multi.listRuns();
  if (runs.size() != 1) {
    return QStringLiteral("%1 runs in the launcher's workspace, expected 1").arg(runs.size());
  }
  const auto& run = runs.front();
  const int world = static_cast<int>(hosts.size()) * ranksPerHost;
  if (std::string(store::toString(run.status)) != "succeeded" || run.layout.worldSize != world ||
      run.layout.numMachines != static_cast<int>(hosts.size()) || run.layout.hosts != hosts) {
    return QStringLiteral("the run: status %1, world size %2, %3 machines, %4 hosts")
        .arg(QString::fromStdString(std::string(store::toString(run.status))))
        .arg(run.layout.worldSize)
        .arg(run.layout.numMachines)
        .arg(run.layout.hosts.size());
  }
  // The recorded configuration (and the plan made from it) has the real topology: one machine per host.
  const std::string machines = "num_machines: " + std::to_string(hosts.size()) + "\n";
  if (run.runSpec.find(machines) == std::string::npos) {
    return QStringLiteral("the recorded run specification lacks '%1'").arg(QString::fromStdString(machines).trimmed());
  }
  const auto ranks = multi.ranks(run.id);
  if (static_cast<int>(ranks.size()) != world) {
    return QStringLiteral("%1 ranks recorded, expected %2").arg(ranks.size()).arg(world);
  }
  for (const auto& rank : ranks) {
    const std::string& host = hosts.at(static_cast<std::size_t>(rank.rank / ranksPerHost));
    if (rank.host != host || rank.pid <= 0 || rank.exitCode.value_or(-1) != 0) {
      return QStringLiteral("rank %1: host %2 (expected %3), pid %4, exit code %5")
          .arg(rank.rank)
          .arg(QString::fromStdString(rank.host), QString::fromStdString(host))
          .arg(rank.pid)
          .arg(rank.exitCode.value_or(-1));
    }
  }
  const auto localRun = local.listRuns().front().id;
  const auto keys = multi.metricKeys(run.id);
  if (keys.empty() || keys != local.metricKeys(localRun)) {
    return QStringLiteral("metric keys differ from the local run's (%1 keys)").arg(keys.size());
  }
  for (const std::string& key : keys) {
    for (int rank = 0; rank < world; ++rank) {
      if (multi.metricSeries(run.id, key, rank).size() != local.metricSeries(localRun, key, rank).size()) {
        return QStringLiteral("metric %1 of rank %2: %3 values, %4 locally")
            .arg(QString::fromStdString(key))
            .arg(rank)
            .arg(multi.metricSeries(run.id, key, rank).size())
            .arg(local.metricSeries(localRun, key, rank).size());
      }
    }
  }
  return {};
}

}  // namespace fathom::test
