// SPDX-License-Identifier: Apache-2.0
// A plan file as `fathom plan --plan FILE` reads it (a flat Fathom plan in YAML or JSON, or a configuration with
// distributed_type), then the prediction `fathom plan` prints for it on the file's hardware (a preset, else H100).
// Oracle: ConfigError is a good answer, anything else escaping is a finding (and ASan/UBSan on the arithmetic).
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/plan_file.h>
#include <fathom/plan/predict.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  static const plan::HardwareSpec h100 = plan::loadHardware("h100-sxm-80gb");
  try {
    const plan::PlanInputs in = plan::parsePlanText(std::string(fuzz::text(data, size)), "fuzz.yaml", "/nonexistent");
    plan::ModelSpec model;
    if (in.dims) {
      model = plan::modelFromDims(*in.dims);
    } else if (in.params > 0) {
      model = plan::modelFromParams(in.params);
    } else {
      return 0;  // a built-in model or an hf_config file: other targets read those
    }
    // Only preset names: a path in the input must not make the fuzzer read files of this machine.
    const bool preset = !in.hardware.empty() && in.hardware.find('/') == std::string::npos;
    const plan::HardwareSpec hw = preset ? plan::loadHardware(in.hardware) : h100;
    plan::predict(model, hw, in.plan);
  } catch (const Error&) {
  }
  return 0;
}
