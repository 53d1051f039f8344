// SPDX-License-Identifier: Apache-2.0
// A hardware file as `fathom plan --hardware FILE` reads it (resources/hardware/*.yaml: YAML or JSON).
// Oracle: ConfigError is a good answer; a file that loads passes validateHardware() and round-trips through JSON.
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/plan_json.h>

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  try {
    const plan::HardwareSpec hw = plan::parseHardware(fuzz::text(data, size), "fuzz.yaml");
    plan::validateHardware(hw);
    plan::hardwareFromJson(nlohmann::json::parse(plan::toJson(hw).dump()), "fuzz.json");
  } catch (const Error&) {
  }
  return 0;
}
