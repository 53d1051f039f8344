// SPDX-License-Identifier: Apache-2.0
#include "hardware_choice.h"

#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/plan/predict.h>
#include <fathom/store/workspace.h>

#include <filesystem>

namespace fathom::cli {
namespace {

/// The stored fit `row` as a profile; ConfigError naming the workspace and the fit when it does not load.
plan::HardwareSpec loadFit(const store::HardwareFitRow& row, const std::filesystem::path& workspace) {
  const std::string origin = workspace.string() + " hardware fit " + std::to_string(row.id.value);
  plan::HardwareSpec fitted = plan::parseHardware(row.fit.profileYaml, origin);
  FATHOM_CHECK(fitted.calibration && fitted.calibration->runFit, ConfigError, origin,
               " has no run_fit section: store fits with `fathom plan --calibrate_from RUN`");
  fitted.source = origin;
  return fitted;
}

std::string describeSetting(plan::RankSetting s) {
  return std::to_string(s.processes) + (s.processes == 1 ? " process" : " processes") + " x " +
         std::to_string(s.threads) + (s.threads == 1 ? " thread" : " threads");
}

}  // namespace

HardwareChoice chooseHardware(std::string_view nameOrPath, const std::string& workspaceFlag, const plan::Plan& plan) {
  HardwareChoice choice{plan::loadHardware(nameOrPath), std::nullopt, {}};
  choice.setting = plan::rankSetting(choice.spec, plan);
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
  const std::vector<store::HardwareFitRow> fits = ws.hardwareFitsOf(cal->host, cal->device, cal->measuredAt);
  if (fits.empty()) {
    return choice;
  }
  // Newest first: the newest fit at the plan's processes and threads, else the newest at its processes, else the
  // newest. A run's factors hold for the setting it ran at (how many ranks share the cores changes what the
  // microbenchmarks miss), so a fit of another setting is the fallback, and the note says so.
  std::optional<std::size_t> exact;
  std::optional<std::size_t> sameProcesses;
  std::vector<plan::HardwareSpec> loaded;
  for (std::size_t i = 0; i < fits.size() && !exact; ++i) {
    loaded.push_back(loadFit(fits[i], setting.path));
    const plan::RankSetting fitted = loaded.back().calibration->runFit->setting();
    if (fitted == choice.setting) {
      exact = i;
    } else if (!sameProcesses && fitted.processes == choice.setting.processes) {
      sameProcesses = i;
    }
  }
  const std::size_t chosen = exact.value_or(sameProcesses.value_or(0));
  choice.spec = std::move(loaded[chosen]);
  choice.fit = fits[chosen];
  return choice;
}

std::string describeFit(const HardwareChoice& choice) {
  if (!choice.fit || !choice.spec.calibration || !choice.spec.calibration->runFit) {
    return {};
  }
  const plan::RunFit& f = *choice.spec.calibration->runFit;
  const plan::RankSetting fitted = f.setting();
  std::string text = choice.spec.name + ", fitted to run " + std::to_string(f.run) +
                     (f.runName.empty() ? "" : " (" + f.runName + ")") + " at " + f.fittedAt + ", " +
                     describeSetting(fitted) + " per node";
  if (fitted != choice.setting) {
    text += "; this plan runs " + describeSetting(choice.setting) +
            ", which no stored fit of this calibration was "
            "fitted at: its factors are applied as they are (fit a profiled run of this setting with "
            "`fathom plan --calibrate_from RUN`)";
  }
  return text;
}

}  // namespace fathom::cli
