// SPDX-License-Identifier: Apache-2.0
// `fathom plan` and `fathom plan search`'s command lines: the input is the words after `fathom`, one per line (the
// first usually `plan`); CLI11 parses them with the commands' own definitions (addPlanCommandWith, app/cli), then the
// action resolves the flags (PlanFlags::resolve: numbers, enumerations, the model and hardware sources, a plan file
// or configuration named by --plan/--config_file) and prints the prediction or the search.
// The environment is the fuzzer's, but HOME, the config and the cache folders point nowhere, so no default
// configuration or user hardware profile is read.
// Oracle: CLI11's errors and ConfigError are good answers; anything else escaping, or a sanitizer report, is a finding.
#include "fuzz_command.h"

#include <fathom/common/error.h>

#include <cstdlib>

namespace {

/// `fathom plan` as `fathom` registers it, but --calibrate_from refused with a ConfigError (a good answer): it reads
/// a workspace and trace files, which a fuzz input must not reach (its own targets cover those readers).
void addPlanCommandForFuzzing(CLI::App& root, fathom::cli::CommandAction& action) {
  fathom::cli::addPlanCommandWith(root, action, [](const fathom::cli::PlanFlags&) -> int {
    throw fathom::ConfigError("--calibrate_from reads a workspace: not reached from the fuzz target");
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  static const bool isolated = [] {
    ::setenv("HOME", "/nonexistent/fathom-fuzz-home", 1);
    ::setenv("XDG_CACHE_HOME", "/nonexistent/fathom-fuzz-cache", 1);
    ::setenv("XDG_CONFIG_HOME", "/nonexistent/fathom-fuzz-config", 1);  // no `this-machine` profile, no workspace
    ::setenv("HF_HOME", "/nonexistent/fathom-fuzz-hf", 1);
    return true;
  }();
  (void)isolated;
  fuzz::runCommand(&addPlanCommandForFuzzing, fuzz::split(fuzz::text(data, size), '\n'));
  return 0;
}
