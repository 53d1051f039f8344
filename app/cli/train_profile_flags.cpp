// SPDX-License-Identifier: Apache-2.0
#include "train_profile_flags.h"

#include "bool_flag.h"

#include <fathom/common/error.h>

namespace fathom::cli {

void TrainProfileFlags::add(CLI::App* cmd) {
  cmd->add_flag("--profile", enabled,
                "Record a profile (fathom::profile::Profiler, Accelerate's accelerator.profile()): ATen operators, "
                "Fathom's spans (forward, backward, optimizer step, data loading, collectives), memory by category "
                "and, on CUDA, GPU activity through CUPTI. Writes Kineto-compatible Chrome traces, one per rank plus a "
                "merged one (docs/profiler.md)");
  auto add = [&](CLI::Option* option) { m_details.push_back(option->group("Profiling (with --profile)")); };
  add(cmd->add_option("--profile_dir,--profile-dir", dir,
                      "Where traces go: profile_<rank>.json per rank, merged/profile_merged.json")
          ->capture_default_str());
  add(cmd->add_option("--profile_schedule,--profile-schedule", schedule,
                      "Steps to record, torch.profiler.schedule: wait,warmup,active,repeat (or skip_first,wait,"
                      "warmup,active,repeat); repeat 0 = every cycle until the end")
          ->capture_default_str());
  add(cmd->add_option("--profile_memory,--profile-memory", memory,
                      "Record allocations and frees with a category and the memory-over-time series (true|false)")
          ->capture_default_str());
  add(cmd->add_option("--profile_cuda,--profile-cuda", cuda,
                      "GPU activity through CUPTI: auto (when training on CUDA and CUPTI can trace), true, false")
          ->capture_default_str());
  add(cmd->add_flag("--profile_record_shapes,--profile-record-shapes", recordShapes,
                    "Record operators' input shapes and dtypes"));
  add(cmd->add_flag("--profile_with_stack,--profile-with-stack", withStack,
                    "Attach the enclosing spans to each operator (\"Call stack\")"));
  add(cmd->add_flag("--profile_with_flops,--profile-with-flops", withFlops,
                    "Estimate FLOPs of matrix products and element-wise arithmetic"));
  add(cmd->add_flag("--profile_with_modules,--profile-with-modules", withModules,
                    "Attach the enclosing model units (\"Module Hierarchy\")"));
  add(cmd->add_flag("--profile_gzip,--profile-gzip", gzip, "Write .json.gz traces"));
}

std::optional<profile::ProfilerOptions> TrainProfileFlags::options() const {
  if (!enabled) {
    for (const CLI::Option* option : m_details) {
      FATHOM_CHECK(option->count() == 0, ConfigError, option->get_name(), " needs --profile");
    }
    return std::nullopt;
  }
  profile::ProfilerOptions o;
  o.schedule = profile::ProfileSchedule::parse(schedule);
  o.profileMemory = boolFlag("--profile_memory", memory);
  if (cuda == "true" || cuda == "false") {
    o.cuda = cuda == "true";
  } else {
    FATHOM_CHECK(cuda == "auto", ConfigError, "--profile_cuda '", cuda, "' is not one of: auto, true, false");
  }
  o.recordShapes = recordShapes;
  o.withStack = withStack;
  o.withFlops = withFlops;
  o.withModules = withModules;
  o.gzip = gzip;
  FATHOM_CHECK(!dir.empty(), ConfigError, "--profile_dir must not be empty");
  o.outputTraceDir = dir;
  o.validate();
  return o;
}

}  // namespace fathom::cli
