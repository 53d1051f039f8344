// SPDX-License-Identifier: Apache-2.0
// `fathom plan` and `fathom plan search`'s command lines: the input is the words after `fathom`, one per line (the
// first usually `plan`); CLI11 parses them with the commands' own definitions (addPlanCommand, app/cli), then the
// action resolves the flags (PlanFlags::resolve: numbers, enumerations, the model and hardware sources, a plan file
// or configuration named by --plan/--config_file) and prints the prediction or the search.
// The environment is the fuzzer's, but HOME and the cache folders point nowhere, so no default configuration is read.
// Oracle: CLI11's errors and ConfigError are good answers; anything else escaping, or a sanitizer report, is a finding.
#include "fuzz_command.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  static const bool isolated = [] {
    ::setenv("HOME", "/nonexistent/fathom-fuzz-home", 1);
    ::setenv("XDG_CACHE_HOME", "/nonexistent/fathom-fuzz-cache", 1);
    ::setenv("HF_HOME", "/nonexistent/fathom-fuzz-hf", 1);
    return true;
  }();
  (void)isolated;
  fuzz::runCommand(&cli::addPlanCommand, fuzz::split(fuzz::text(data, size), '\n'));
  return 0;
}
