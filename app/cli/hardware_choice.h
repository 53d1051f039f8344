// SPDX-License-Identifier: Apache-2.0
// The hardware profile a plan of this machine uses: the one `fathom calibrate` wrote, or the newest fit of it to a
// profiled run that the workspace holds (`fathom plan --calibrate_from RUN`; docs/calibrate.md, "From a run").
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/store/records.h>

#include <optional>
#include <string>
#include <string_view>

namespace fathom::cli {

/// A profile, and the workspace's fit it came from when one applied.
struct HardwareChoice {
  plan::HardwareSpec spec;
  std::optional<store::HardwareFitRow> fit;
};

/// plan::loadHardware(nameOrPath); when `nameOrPath` is the name plan::kThisMachineProfile (given or chosen by
/// default) and the workspace named by `workspaceFlag` (resolved as --workspace is: flag, FATHOM_WORKSPACE, the
/// config's fathom.workspace, ./fathom.sqlite) exists and holds a fit of that profile (the same host, device and
/// measured_at), the newest such fit instead: after a new `fathom calibrate` the older fits no longer apply. A path
/// or a preset is taken as it is, so a what-if on exactly that file stays one. A stored fit that does not load is a
/// ConfigError naming the workspace and the fit's id.
HardwareChoice chooseHardware(std::string_view nameOrPath, const std::string& workspaceFlag);

/// "this-machine, fitted to run 12 (name) at 2026-11-28T18:02:11Z" for notes; "" without a fit.
std::string describeFit(const HardwareChoice& choice);

}  // namespace fathom::cli
