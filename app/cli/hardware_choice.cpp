// SPDX-License-Identifier: Apache-2.0
#include "hardware_choice.h"

#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/store/workspace.h>

#include <filesystem>

namespace fathom::cli {

HardwareChoice chooseHardware(std::string_view nameOrPath, const std::string& workspaceFlag) {
  HardwareChoice choice{plan::loadHardware(nameOrPath), std::nullopt};
  const std::optional<plan::HardwareCalibration>& cal = choice.spec.calibration;
  if (nameOrPath != plan::kThisMachineProfile || !cal) {
    return choice;
  }
  const config::WorkspaceSetting setting =
      config::resolveWorkspace(workspaceFlag.empty() ? std::nullopt : std::optional(workspaceFlag));
  if (!std::filesystem::exists(setting.path)) {
    return choice;
  }
  store::Workspace::Options options = store::Workspace::readerOptions(setting.path);
  options.reconcile = false;
  const store::Workspace ws(setting.path, options);
  std::optional<store::HardwareFitRow> row = ws.latestHardwareFit(cal->host, cal->device, cal->measuredAt);
  if (!row) {
    return choice;
  }
  const std::string origin = setting.path.string() + " hardware fit " + std::to_string(row->id.value);
  plan::HardwareSpec fitted = plan::parseHardware(row->fit.profileYaml, origin);
  FATHOM_CHECK(fitted.calibration && fitted.calibration->runFit, ConfigError, origin,
               " has no run_fit section: store fits with `fathom plan --calibrate_from RUN`");
  fitted.source = origin;
  choice.spec = std::move(fitted);
  choice.fit = std::move(row);
  return choice;
}

std::string describeFit(const HardwareChoice& choice) {
  if (!choice.fit || !choice.spec.calibration || !choice.spec.calibration->runFit) {
    return {};
  }
  const plan::RunFit& f = *choice.spec.calibration->runFit;
  return choice.spec.name + ", fitted to run " + std::to_string(f.run) +
         (f.runName.empty() ? "" : " (" + f.runName + ")") + " at " + f.fittedAt;
}

}  // namespace fathom::cli
