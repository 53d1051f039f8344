// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/ddp_options.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace fathom::parallel {

void validate(const DdpOptions& options) {
  // 2^40 MiB is far beyond any model and keeps the byte count well inside int64.
  constexpr double kMaxMb = 1099511627776.0;
  FATHOM_CHECK(std::isfinite(options.bucketCapMb) && options.bucketCapMb > 0 && options.bucketCapMb <= kMaxMb,
               ConfigError, "bucket_cap_mb must be a positive number of MiB, got ", options.bucketCapMb);
  FATHOM_CHECK(std::isfinite(options.firstBucketCapMb) && options.firstBucketCapMb > 0 &&
                   options.firstBucketCapMb <= kMaxMb,
               ConfigError, "first bucket cap must be a positive number of MiB, got ", options.firstBucketCapMb);
  FATHOM_CHECK(options.commHook == GradCompression::None || options.commHook == GradCompression::Fp16 ||
                   options.commHook == GradCompression::Bf16,
               ConfigError, "comm_hook must be no, fp16 or bf16, got value ", static_cast<int>(options.commHook));
}

const char* toString(GradCompression compression) {
  switch (compression) {
  case GradCompression::None: return "no";
  case GradCompression::Fp16: return "fp16";
  case GradCompression::Bf16: return "bf16";
  }
  return "unknown";
}

std::optional<GradCompression> gradCompressionFromString(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  for (GradCompression c : {GradCompression::None, GradCompression::Fp16, GradCompression::Bf16}) {
    if (lower == toString(c)) {
      return c;
    }
  }
  return std::nullopt;
}

}  // namespace fathom::parallel
