// SPDX-License-Identifier: Apache-2.0
#include "fathom/precision/mixed_precision.h"

#include "fathom/common/error.h"

namespace fathom::precision {

const char* toString(MixedPrecision precision) {
  // The table's names are string literals, so data() is NUL-terminated.
  return config::kMixedPrecisions.toString(precision).data();
}

MixedPrecision parseMixedPrecision(std::string_view text) {
  return config::kMixedPrecisions.parse(text);
}

std::optional<c10::ScalarType> autocastDtype(MixedPrecision precision, c10::DeviceType device) {
  FATHOM_CHECK(device == c10::DeviceType::CPU || device == c10::DeviceType::CUDA, ConfigError, "mixed_precision '",
               toString(precision), "' on device type '", c10::DeviceTypeName(device, true),
               "': Fathom supports autocast on cpu and cuda only");
  switch (precision) {
  case MixedPrecision::No: return std::nullopt;
  case MixedPrecision::Fp16: return c10::ScalarType::Half;
  case MixedPrecision::Bf16: return c10::ScalarType::BFloat16;
  case MixedPrecision::Fp8:
    throw ConfigError(detail::concat(
        "mixed_precision 'fp8' is not supported on ", c10::DeviceTypeName(device, true),
        ": Accelerate runs fp8 through TransformerEngine, torchao or MS-AMP on CUDA devices, and Fathom has no fp8 "
        "backend; use 'bf16' or 'fp16'"));
  }
  detail::throwInternal(__FILE__, __LINE__, "known MixedPrecision",
                        detail::concat("unknown MixedPrecision value ", static_cast<int>(precision)));
}

}  // namespace fathom::precision
