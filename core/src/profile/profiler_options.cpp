// SPDX-License-Identifier: Apache-2.0
#include <fathom/profile/profiler_options.h>

#include <fathom/common/error.h>

#include <charconv>
#include <vector>

namespace fathom::profile {

std::string_view toString(ProfilerAction action) {
  switch (action) {
  case ProfilerAction::None: return "none";
  case ProfilerAction::Warmup: return "warmup";
  case ProfilerAction::Record: return "record";
  case ProfilerAction::RecordAndSave: return "record_and_save";
  }
  return "unknown";
}

ProfilerAction ProfileSchedule::action(std::int64_t step) const {
  // torch.profiler.schedule's schedule_fn, line for line.
  if (step < skipFirst)
    return ProfilerAction::None;
  step -= skipFirst;
  const std::int64_t cycle = static_cast<std::int64_t>(wait) + warmup + active;
  if (repeat > 0 && step / cycle >= repeat)
    return ProfilerAction::None;
  const std::int64_t mod = step % cycle;
  if (mod < wait)
    return ProfilerAction::None;
  if (mod < static_cast<std::int64_t>(wait) + warmup)  // in 64 bits: wait + warmup may exceed INT_MAX
    return ProfilerAction::Warmup;
  return mod < cycle - 1 ? ProfilerAction::Record : ProfilerAction::RecordAndSave;
}

void ProfileSchedule::validate() const {
  FATHOM_CHECK(skipFirst >= 0, ConfigError, "profiler schedule: skip_first must be >= 0, got ", skipFirst);
  FATHOM_CHECK(wait >= 0, ConfigError, "profiler schedule: wait must be >= 0, got ", wait);
  FATHOM_CHECK(warmup >= 0, ConfigError, "profiler schedule: warmup must be >= 0, got ", warmup);
  FATHOM_CHECK(active >= 1, ConfigError, "profiler schedule: active must be >= 1, got ", active);
  FATHOM_CHECK(repeat >= 0, ConfigError, "profiler schedule: repeat must be >= 0 (0 = no limit), got ", repeat);
}

ProfileSchedule ProfileSchedule::parse(std::string_view text) {
  std::vector<int> values;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view part = text.substr(pos, comma - pos);
    int value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    FATHOM_CHECK(!part.empty() && ec == std::errc() && end == part.data() + part.size(), ConfigError,
                 "profiler schedule '", text, "': '", part,
                 "' is not an integer (expected wait,warmup,active,repeat or skip_first,wait,warmup,active,repeat)");
    values.push_back(value);
    pos = comma + 1;
  }
  FATHOM_CHECK(values.size() == 4 || values.size() == 5, ConfigError, "profiler schedule '", text, "' has ",
               values.size(), " numbers; expected wait,warmup,active,repeat or skip_first,wait,warmup,active,repeat");
  ProfileSchedule schedule;
  std::size_t i = 0;
  if (values.size() == 5)
    schedule.skipFirst = values[i++];
  schedule.wait = values[i++];
  schedule.warmup = values[i++];
  schedule.active = values[i++];
  schedule.repeat = values[i++];
  schedule.validate();
  return schedule;
}

void ProfilerOptions::validate() const {
  FATHOM_CHECK(cpu || cuda.value_or(false), ConfigError,
               "profiler: no activity to record (cpu is off and cuda is not on)");
  if (schedule)
    schedule->validate();
}

}  // namespace fathom::profile
