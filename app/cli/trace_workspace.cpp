// SPDX-License-Identifier: Apache-2.0
// The workspace side of `fathom trace`: a run's stored traces for `export --run`. The only part of the command that
// reaches beyond the trace library (store, config); the rest is fathom_cli_trace (trace_command.h).
#include "trace_command.h"
#include "workspace_flag.h"

#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/store/workspace.h>

#include <filesystem>
#include <memory>
#include <optional>

namespace fathom::cli {
namespace {

RunTraces openWorkspaceRun(const std::string& workspace, const std::string& runText) {
  auto ws = std::make_shared<const store::Workspace>(openExistingWorkspace(workspace, /*reconcile=*/false));
  const store::RunInfo run = ws->resolveRun(runText);
  RunTraces traces;
  traces.label = "run " + std::to_string(run.id.value) + " (" + run.name + ")";
  for (const store::TraceSummary& t : ws->traces(run.id)) {
    traces.traces.push_back({t.name, t.rank, t.bytes});
  }
  traces.read = [ws, id = run.id](const StoredTrace& t) { return ws->traceData(id, t.name, t.rank); };
  return traces;
}

}  // namespace

void addTraceCommand(CLI::App& root, CommandAction& action) {
  addTraceCommand(root, action, openWorkspaceRun);
}

}  // namespace fathom::cli
