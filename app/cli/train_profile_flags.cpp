// SPDX-License-Identifier: Apache-2.0
#include "train_profile_flags.h"

#include "bool_flag.h"

#include <fathom/common/error.h>

#include <algorithm>

namespace fathom::cli {
namespace {

bool given(const CLI::Option* option) {
  return option != nullptr && option->count() > 0;
}

/// A switch given on the command line, else the configuration's value, else off.
bool choose(const CLI::Option* option, bool flag, const std::optional<bool>& launched) {
  return given(option) ? flag : launched.value_or(false);
}

}  // namespace

void TrainProfileFlags::add(CLI::App* cmd) {
  m_enabled = cmd->add_flag(
      "--profile", enabled,
      "Record a profile (fathom::profile::Profiler, Accelerate's accelerator.profile()): ATen operators, Fathom's "
      "spans (forward, backward, optimizer step, data loading, collectives), memory by category and, on CUDA, GPU "
      "activity through CUPTI. Writes Kineto-compatible Chrome traces, one per rank plus a merged one "
      "(docs/profiler.md). Under `fathom launch --config_file F`, fathom.profiler.enabled does the same");
  auto add = [&](CLI::Option* option) {
    m_details.push_back(option->group("Profiling (with --profile)"));
    return option;
  };
  m_dir = add(cmd->add_option("--profile_dir,--profile-dir", dir,
                              "Where traces go: profile_<rank>.json per rank, merged/profile_merged.json")
                  ->capture_default_str());
  m_schedule = add(cmd->add_option("--profile_schedule,--profile-schedule", schedule,
                                   "Steps to record, torch.profiler.schedule: wait,warmup,active,repeat (or "
                                   "skip_first,wait,warmup,active,repeat); repeat 0 = every cycle until the end")
                       ->capture_default_str());
  m_memory = add(cmd->add_option("--profile_memory,--profile-memory", memory,
                                 "Record allocations and frees with a category and the memory-over-time series "
                                 "(true|false)")
                     ->capture_default_str());
  m_cuda = add(cmd->add_option("--profile_cuda,--profile-cuda", cuda,
                               "GPU activity through CUPTI: auto (when training on CUDA and CUPTI can trace), true, "
                               "false")
                   ->capture_default_str());
  m_recordShapes = add(cmd->add_flag("--profile_record_shapes,--profile-record-shapes", recordShapes,
                                     "Record operators' input shapes and dtypes"));
  m_withStack = add(cmd->add_flag("--profile_with_stack,--profile-with-stack", withStack,
                                  "Attach the enclosing spans to each operator (\"Call stack\")"));
  m_withFlops = add(cmd->add_flag("--profile_with_flops,--profile-with-flops", withFlops,
                                  "Estimate FLOPs of matrix products and element-wise arithmetic"));
  m_withModules = add(cmd->add_flag("--profile_with_modules,--profile-with-modules", withModules,
                                    "Attach the enclosing model units (\"Module Hierarchy\")"));
  add(cmd->add_flag("--profile_gzip,--profile-gzip", gzip, "Write .json.gz traces"));
}

std::optional<profile::ProfilerOptions> TrainProfileFlags::options(const config::ProfilerSpec& launched) const {
  if (!choose(m_enabled, enabled, launched.enabled)) {
    for (const CLI::Option* option : m_details) {
      FATHOM_CHECK(option->count() == 0, ConfigError, option->get_name(), " needs --profile");
    }
    return std::nullopt;
  }
  profile::ProfilerOptions o;
  const bool launchedSchedule = launched.scheduleSkipFirst || launched.scheduleWait || launched.scheduleWarmup ||
                                launched.scheduleActive || launched.scheduleRepeat;
  if (!given(m_schedule) && launchedSchedule) {
    // The fields the configuration leaves out take --profile_schedule's defaults (1,1,3,1).
    profile::ProfileSchedule s = profile::ProfileSchedule::parse(schedule);
    s.skipFirst = launched.scheduleSkipFirst.value_or(s.skipFirst);
    s.wait = launched.scheduleWait.value_or(s.wait);
    s.warmup = launched.scheduleWarmup.value_or(s.warmup);
    s.active = launched.scheduleActive.value_or(s.active);
    s.repeat = launched.scheduleRepeat.value_or(s.repeat);
    o.schedule = s;
  } else {
    o.schedule = profile::ProfileSchedule::parse(schedule);
  }
  o.profileMemory =
      !given(m_memory) && launched.profileMemory ? *launched.profileMemory : boolFlag("--profile_memory", memory);
  if (!given(m_cuda) && !launched.activities.empty()) {
    // Listed activities: CPU only when `cpu` is listed; `cuda` records the GPU where the run is on CUDA and CUPTI
    // can trace (as --profile_cuda auto), so one configuration serves CPU and GPU machines.
    const auto listed = [&](config::ProfilerActivity a) {
      return std::find(launched.activities.begin(), launched.activities.end(), a) != launched.activities.end();
    };
    o.cpu = listed(config::ProfilerActivity::Cpu);
    o.cuda = listed(config::ProfilerActivity::Cuda) ? std::nullopt : std::optional<bool>(false);
  } else if (cuda == "true" || cuda == "false") {
    o.cuda = cuda == "true";
  } else {
    FATHOM_CHECK(cuda == "auto", ConfigError, "--profile_cuda '", cuda, "' is not one of: auto, true, false");
  }
  o.recordShapes = choose(m_recordShapes, recordShapes, launched.recordShapes);
  o.withStack = choose(m_withStack, withStack, launched.withStack);
  o.withFlops = choose(m_withFlops, withFlops, launched.withFlops);
  o.withModules = choose(m_withModules, withModules, launched.withModules);
  o.gzip = gzip;
  const std::string traceDir = !given(m_dir) && launched.outputTraceDir ? *launched.outputTraceDir : dir;
  FATHOM_CHECK(!traceDir.empty(), ConfigError, "--profile_dir must not be empty");
  o.outputTraceDir = traceDir;
  o.validate();
  return o;
}

}  // namespace fathom::cli
