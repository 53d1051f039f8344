// SPDX-License-Identifier: Apache-2.0
// A saved plan request as the Studio reads it back (tests/data/saved_plan_v3.input.json: a plan, transformer
// dimensions and a hardware device, each a JSON object), then the prediction for it.
// Oracle: ConfigError is a good answer; JSON that is not JSON must not escape as nlohmann's exception either.
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/plan_json.h>
#include <fathom/plan/predict.h>

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  const nlohmann::json json = nlohmann::json::parse(fuzz::text(data, size), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return 0;  // not JSON: the Studio's loader refuses it before these functions see it
  }
  // {"request": {"plan": {...}, "model": {"dims": {...}}, "hardware": {...}}}, each part optional.
  const auto member = [](const nlohmann::json& object, const char* key) -> const nlohmann::json* {
    if (!object.is_object()) {
      return nullptr;
    }
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  };
  const nlohmann::json* request = member(json, "request");
  if (request == nullptr) {
    request = &json;
  }
  try {
    const nlohmann::json* planJson = member(*request, "plan");
    const plan::Plan plan = plan::planFromJson(planJson != nullptr ? *planJson : *request, {}, "fuzz");
    const nlohmann::json* model = member(*request, "model");
    const nlohmann::json* dims = model != nullptr ? member(*model, "dims") : nullptr;
    const nlohmann::json* hardware = member(*request, "hardware");
    if (dims != nullptr) {
      const plan::ModelSpec spec = plan::modelFromDims(plan::dimsFromJson(*dims, "fuzz.dims"));
      const bool device = hardware != nullptr && hardware->is_object() && !hardware->contains("preset");
      static const plan::HardwareSpec h100 = plan::loadHardware("h100-sxm-80gb");
      plan::predict(spec, device ? plan::hardwareFromJson(*hardware, "fuzz.hardware") : h100, plan);
    }
  } catch (const Error&) {
  }
  return 0;
}
