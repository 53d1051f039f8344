// SPDX-License-Identifier: Apache-2.0
#include "fathom/precision/mixed_precision.h"

#include "fathom/common/error.h"

#include <cctype>
#include <string>

namespace fathom::precision {

namespace {
constexpr MixedPrecision kAll[] = {MixedPrecision::No, MixedPrecision::Fp16, MixedPrecision::Bf16, MixedPrecision::Fp8};
}  // namespace

const char* toString(MixedPrecision precision) {
  switch (precision) {
  case MixedPrecision::No: return "no";
  case MixedPrecision::Fp16: return "fp16";
  case MixedPrecision::Bf16: return "bf16";
  case MixedPrecision::Fp8: return "fp8";
  }
  detail::throwInternal(__FILE__, __LINE__, "known MixedPrecision",
                        detail::concat("unknown MixedPrecision value ", static_cast<int>(precision)));
}

MixedPrecision parseMixedPrecision(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const MixedPrecision p : kAll) {
    if (lowered == toString(p)) {
      return p;
    }
  }
  throw ConfigError(detail::concat("unknown mixed_precision '", text, "': choose one of 'no', 'fp16', 'bf16', 'fp8'"));
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
