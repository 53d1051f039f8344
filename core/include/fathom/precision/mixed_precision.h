// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/vocabulary.h>

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <optional>
#include <string_view>

namespace fathom::precision {

/// Accelerate's PrecisionType (utils/dataclasses.py): the run configuration's vocabulary (config/vocabulary.h).
using MixedPrecision = config::MixedPrecision;

/// "no", "fp16", "bf16", "fp8" (config::kMixedPrecisions).
const char* toString(MixedPrecision precision);

/// Parses a `mixed_precision` value case-insensitively, as AcceleratorState lower-cases it. Throws
/// fathom::ConfigError "invalid mixed_precision '<text>' (expected no, fp16, bf16 or fp8)" for anything else.
MixedPrecision parseMixedPrecision(std::string_view text);

/// The autocast dtype for `precision` on `device`: std::nullopt for `no` (no autocast region), kHalf for fp16,
/// kBFloat16 for bf16. Throws fathom::ConfigError for fp8 (Accelerate runs fp8 through TransformerEngine,
/// torchao or MS-AMP on CUDA devices; Fathom has no fp8 backend) and for a device type autocast does not
/// support. Does not check that the device exists; AutocastGuard does.
std::optional<c10::ScalarType> autocastDtype(MixedPrecision precision, c10::DeviceType device);

}  // namespace fathom::precision
