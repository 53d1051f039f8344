// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/vocabulary.h>

#include <optional>

namespace fathom::config {

/// The launcher's run monitor as a configuration states it (docs/launch.md, "Hang and straggler detection"): the keys
/// fathom.hang_timeout, fathom.straggler_threshold and fathom.hang_action, which `fathom launch` also takes as
/// --hang_timeout, --straggler_threshold and --hang_action. Unset fields stay std::nullopt, so toConfig() writes back
/// only what was set.
///
/// The defaults below are the one definition of what an unset key means: the schema's and the CLI's help, the run
/// monitor's own options (telemetry::MonitorOptions) and the Studio's wizard all read them. Invariant (checked by the
/// schema wherever a value enters: file, environment, flag, code): both numbers are finite and >= 0; 0 disables.
struct MonitorSpec {
  /// Seconds without progress, ranks disagreeing on the collective wavefront, before a hang is reported.
  static constexpr double kDefaultHangTimeoutSeconds = 60.0;
  /// Percent by which a rank's own time per step may exceed the others' median before it is a straggler.
  static constexpr double kDefaultStragglerThresholdPercent = 20.0;
  static constexpr HangAction kDefaultHangAction = HangAction::Report;

  std::optional<double> hangTimeout;         ///< hang_timeout: seconds, 0 disables hang detection
  std::optional<double> stragglerThreshold;  ///< straggler_threshold: percent, 0 disables straggler detection
  std::optional<HangAction> hangAction;      ///< hang_action

  /// The values in effect: the field, else its default.
  double hangTimeoutSeconds() const { return hangTimeout.value_or(kDefaultHangTimeoutSeconds); }
  double stragglerThresholdPercent() const { return stragglerThreshold.value_or(kDefaultStragglerThresholdPercent); }
  HangAction effectiveHangAction() const { return hangAction.value_or(kDefaultHangAction); }

  bool operator==(const MonitorSpec&) const = default;
};

}  // namespace fathom::config
