// SPDX-License-Identifier: Apache-2.0
// A Hugging Face config.json as `fathom plan --hf_config` reads it, and the model the planner makes of it.
// Oracle: ConfigError is a good answer; a model that loads has consistent, a positive parameter count (ModelSpec's
// invariant).
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/plan/hf_config.h>

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  try {
    const plan::ModelSpec model = plan::modelFromHfConfigText(fuzz::text(data, size), "fuzz/config.json");
    if (model.totalParams <= 0) {
      std::fprintf(stderr, "parameter count not positive: %lld\n", static_cast<long long>(model.totalParams));
      std::abort();
    }
  } catch (const Error&) {
  }
  return 0;
}
