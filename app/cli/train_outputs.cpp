// SPDX-License-Identifier: Apache-2.0
#include "train_outputs.h"
#include "train_resume.h"

#include <fathom/telemetry/telemetry_sender.h>
#include <fathom/train/accelerator_options.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace fathom::cli {
namespace {

/// Whether this process is the run's main process (rank 0, or no launcher): a malformed RANK is left to the
/// Accelerator, which names it.
bool mainProcess() {
  const char* rank = std::getenv("RANK");
  return rank == nullptr || *rank == '\0' || std::strcmp(rank, "0") == 0;
}

}  // namespace

std::vector<OutputLocation> trainOutputLocations(const TrainOptions& options) {
  using Kind = OutputLocation::Kind;
  std::vector<OutputLocation> out;
  const bool main = mainProcess();
  if (options.saveFinal && main) {
    out.push_back({*options.saveFinal, "--save_final file", Kind::File});
  }
  if (options.statsJson && main) {
    out.push_back({*options.statsJson, "--stats_json file", Kind::File});
  }
  if (options.profile && !options.profile->outputTraceDir.empty()) {
    out.push_back({options.profile->outputTraceDir, "trace folder (--profile_dir)", Kind::Folder});
  }
  if (options.checkpointing) {
    // Every process writes its own files into the checkpoint's staging folder there (docs/checkpoint.md).
    out.push_back({trainCheckpointsFolder(options), "checkpoints folder (--project_dir)", Kind::Folder});
  }
  if (!telemetry::TelemetryEndpoint::fromEnvironment()) {
    // Alone, the run's own `sqlite` tracker writes the workspace (and SQLite its -wal and -shm files beside it).
    const auto env = [](const std::string& name) -> std::optional<std::string> {
      const char* value = std::getenv(name.c_str());
      return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
    };
    const train::ResolvedAcceleratorOptions resolved = train::resolveAcceleratorOptions(options.accelerator, env);
    out.push_back({resolved.workspace, "workspace", Kind::File});
  }
  if (!options.accelerator.logWith.empty() && main) {
    out.push_back({options.accelerator.projectDir, "trackers' project folder (--project_dir)", Kind::Folder});
    if (!options.accelerator.loggingDir.empty()) {
      out.push_back({options.accelerator.loggingDir, "trackers' logging folder (logging_dir)", Kind::Folder});
    }
  }
  return out;
}

void checkTrainOutputs(const TrainOptions& options) {
  checkOutputLocations(trainOutputLocations(options));
}

}  // namespace fathom::cli
