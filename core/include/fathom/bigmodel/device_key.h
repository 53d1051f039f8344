// SPDX-License-Identifier: Apache-2.0
// Where a module can go: a GPU by index, "mps", "cpu" or "disk", and how much each may hold (Accelerate's
// max_memory). Accelerate keys GPUs by integer and the rest by name; its dicts are ordered, and so are ours: lists.
#pragma once

#include <fathom/bigmodel/dtype.h>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::bigmodel {

/// A device of a device map. Ordered as Accelerate orders max_memory (get_max_memory): GPUs by index, then mps, cpu,
/// disk.
class DeviceKey {
public:
  /// In Accelerate's device order.
  enum class Kind { Gpu, Mps, Cpu, Disk };

  /// GPU `index` (>= 0; ConfigError otherwise).
  static DeviceKey gpu(int index);
  static DeviceKey mps() { return DeviceKey(Kind::Mps, 0); }
  static DeviceKey cpu() { return DeviceKey(Kind::Cpu, 0); }
  static DeviceKey disk() { return DeviceKey(Kind::Disk, 0); }
  /// "cpu", "disk", "mps", or a GPU index written in decimal ("0", "3"); std::nullopt for anything else.
  static std::optional<DeviceKey> parse(std::string_view text);

  Kind kind() const { return m_kind; }
  bool isGpu() const { return m_kind == Kind::Gpu; }
  /// The GPU index; 0 for the named devices.
  int index() const { return m_index; }
  /// "0", "1", ..., "mps", "cpu", "disk".
  std::string toString() const;

  friend auto operator<=>(const DeviceKey&, const DeviceKey&) = default;

private:
  DeviceKey(Kind kind, int index) : m_kind(kind), m_index(index) {}

  Kind m_kind = Kind::Cpu;
  int m_index = 0;
};

/// How much one device may hold.
struct MemoryLimit {
  DeviceKey device;
  ByteCount bytes = 0;

  friend bool operator==(const MemoryLimit&, const MemoryLimit&) = default;
};

/// Accelerate's max_memory: a limit per device, in order.
using MaxMemory = std::vector<MemoryLimit>;

/// `maxMemory` in Accelerate's device order (get_max_memory): GPUs ascending, then mps, cpu, disk. ConfigError for a
/// device listed twice or a negative limit. Nothing is added: a device not listed is not used (disk aside, which
/// inferAutoDeviceMap always adds last).
MaxMemory normalizeMaxMemory(MaxMemory maxMemory);

/// The limit for `device`, or std::nullopt when it is not listed.
std::optional<ByteCount> limitOf(const MaxMemory& maxMemory, const DeviceKey& device);

/// A size written as text, as Accelerate's convert_file_size_to_int reads it: a number with a unit, "GiB", "MiB",
/// "KiB" (powers of 2) or "GB", "MB", "KB" (powers of 10), the unit in any case; a lower-case "b" at the end means
/// bits ("8Gb" is 1e9 bytes). Truncated to whole bytes. ConfigError naming the text for anything else (a bare number
/// too, as in Accelerate: bytes are written as a JSON number), or a negative size.
std::int64_t parseMemorySize(std::string_view text);

}  // namespace fathom::bigmodel
