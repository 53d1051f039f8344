// SPDX-License-Identifier: Apache-2.0
// An Accelerate/Fathom configuration as `fathom launch --config_file` reads it: the YAML (or JSON) through the schema,
// the resolver with an environment and flags, the run spec, the launch options and the plan it describes. Built twice:
// fuzz_config_yaml (seeds: Accelerate's templates, YAML) and fuzz_deepspeed_json (seeds: DeepSpeed configurations in
// JSON form, which Accelerate's loader reads as YAML too). Fathom does not read DeepSpeed's own JSON file
// (deepspeed_config_file is passed through), so the DeepSpeed settings it reads are those of deepspeed_config.
//
// Input: the file, then optionally a NUL byte and `NAME=VALUE` lines; names starting with "--" are command-line flags
// (config key paths), the others environment variables.
// Oracle: a ConfigError is a good answer, anything else escaping is a finding; a file that parses must be written by
// emitConfig() so that it reads back to the same configuration (what `fathom config update` relies on).
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/config_writer.h>
#include <fathom/config/run_spec.h>
#include <fathom/launch/launch_config.h>
#include <fathom/plan/plan_file.h>

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  static fuzz::InputFile file("config.yaml");
  const fuzz::Parts parts = fuzz::splitAtNul(fuzz::text(data, size));

  // The schema alone, and the writer's round trip.
  try {
    const config::LoadedConfig loaded = config::parseConfig(parts.head, "fuzz.yaml");
    const std::string written = config::emitConfig(loaded.config);
    const config::LoadedConfig again = config::parseConfig(written, "written.yaml");
    if (!(again.config == loaded.config)) {
      std::fprintf(stderr, "emitConfig() does not read back to the same configuration:\n%s\n", written.c_str());
      std::abort();
    }
  } catch (const Error&) {
    // a clear error is a good answer
  }

  // The resolver with the file, an environment and flags, then what `fathom launch` and `fathom plan` make of it.
  try {
    config::ResolveInputs inputs;
    inputs.configFile = file.write(parts.head);
    inputs.useDefaultConfigFile = false;
    inputs.environment.emplace();
    for (const auto& [name, value] : fuzz::keyValues(parts.tail)) {
      if (name.starts_with("--")) {
        inputs.commandLine[name.substr(2)] = value;
      } else {
        (*inputs.environment)[name] = value;
      }
    }
    const config::EffectiveConfig effective = config::resolveConfig(inputs);
    const config::RunSpec spec = config::runSpecFromConfig(effective);
    launch::launchOptionsFromRunSpec(spec);
    plan::planFromRunSpec(spec);
  } catch (const Error&) {
  }
  return 0;
}
