// SPDX-License-Identifier: Apache-2.0
// The hardware profile a plan of this machine uses: the one `fathom calibrate` wrote, or a fit of it to a profiled
// run that the workspace holds, the newest at the plan's processes and threads first (`fathom plan --calibrate_from
// RUN`; docs/calibrate.md, "From a run").
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/training_plan.h>
#include <fathom/store/records.h>

#include <optional>
#include <string>
#include <string_view>

namespace fathom::cli {

/// A profile, and the workspace's fit it came from when one applied.
struct HardwareChoice {
  plan::HardwareSpec spec;
  std::optional<store::HardwareFitRow> fit;
  plan::RankSetting setting;  ///< the plan's processes per node and threads per process on `spec` (plan::rankSetting)
};

/// plan::loadHardware(nameOrPath); when `nameOrPath` is the name plan::kThisMachineProfile (given or chosen by
/// default) and the workspace named by `workspaceFlag` (resolved as --workspace is: flag, FATHOM_WORKSPACE, the
/// config's fathom.workspace, ./fathom.sqlite) exists and holds fits of that profile (the same host, device and
/// measured_at: after a new `fathom calibrate` the older fits no longer apply), one of them instead: the newest fitted
/// at `plan`'s processes per node and threads per process, else the newest at its processes, else the newest. A path
/// or a preset is taken as it is, so a what-if on exactly that file stays one. A stored fit that does not load is a
/// ConfigError naming the workspace and the fit's id.
HardwareChoice chooseHardware(std::string_view nameOrPath, const std::string& workspaceFlag, const plan::Plan& plan);

/// "this-machine, fitted to run 12 (name) at 2026-11-28T18:02:11Z, 2 processes x 1 thread per node" for notes,
/// saying so when the plan runs another setting; "" without a fit.
std::string describeFit(const HardwareChoice& choice);

}  // namespace fathom::cli
