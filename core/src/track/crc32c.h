// SPDX-License-Identifier: Apache-2.0
// CRC-32C (Castagnoli), table-driven, and TFRecord's masking of it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace fathom::track::detail {

/// CRC-32C of `data` (reflected polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF), one table
/// lookup per byte. crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(std::string_view data);

/// TFRecord's masked CRC: rotate right by 15 bits and add 0xa282ead8.
inline std::uint32_t maskedCrc32c(std::string_view data) {
  const std::uint32_t crc = crc32c(data);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

}  // namespace fathom::track::detail
