// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace fathom::cli {

/// What a subcommand's parse leaves behind: the action to run after CLI11 has validated every flag.
/// Returns the process exit code.
using CommandAction = std::function<int()>;

/// Each subcommand lives in its own file and registers itself on the root app, storing its action in
/// `action` when it is the one selected on the command line.
void addEnvCommand(CLI::App& root, CommandAction& action);
void addPlanCommand(CLI::App& root, CommandAction& action);  // plan_calibrate_from.cpp: with --calibrate_from

struct PlanFlags;
/// What `fathom plan --calibrate_from RUN` runs: calibrateFromRun() (plan_calibrate_from.h) in `fathom`; a fuzz
/// harness, which must not read workspaces, passes its own.
using CalibrateFromRun = int (*)(const PlanFlags& flags);
/// `fathom plan` and `fathom plan search` with `calibrateFrom` behind --calibrate_from (plan_command.cpp).
void addPlanCommandWith(CLI::App& root, CommandAction& action, CalibrateFromRun calibrateFrom);
void addEstimateMemoryCommand(CLI::App& root, CommandAction& action);
void addLaunchCommand(CLI::App& root, CommandAction& action);
void addTestCommand(CLI::App& root, CommandAction& action);
void addConfigCommand(CLI::App& root, CommandAction& action);
void addShardCommand(CLI::App& root, CommandAction& action);
void addTrainCommand(CLI::App& root, CommandAction& action);
void addRunsCommand(CLI::App& root, CommandAction& action);
void addTraceCommand(CLI::App& root, CommandAction& action);
void addDeviceMapCommand(CLI::App& root, CommandAction& action);
void addCalibrateCommand(CLI::App& root, CommandAction& action);

}  // namespace fathom::cli
