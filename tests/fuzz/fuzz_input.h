// SPDX-License-Identifier: Apache-2.0
// What the fuzz targets share: the input as text, split into parts, and written to a file for the readers that take
// a path. Header-only and inline: every target is also compiled into tst_fuzz_replay, next to the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace fathom::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// The input before the first NUL byte and after it (empty when there is none). Targets that read a file and some
/// settings take the file from the first part and the settings from the second, so one input drives both.
struct Parts {
  std::string_view head;
  std::string_view tail;
};
inline Parts splitAtNul(std::string_view input) {
  const std::size_t nul = input.find('\0');
  if (nul == std::string_view::npos) {
    return {input, {}};
  }
  return {input.substr(0, nul), input.substr(nul + 1)};
}

/// `text` cut at `separator` (empty pieces kept).
inline std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(separator, begin), text.size());
    out.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

/// `KEY=VALUE` lines as a map (lines without '=' are skipped): an environment or a set of flags from the input.
inline std::map<std::string, std::string> keyValues(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const std::string& line : split(text, '\n')) {
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos && eq > 0) {
      out[line.substr(0, eq)] = line.substr(eq + 1);
    }
  }
  return out;
}

/// A file this process owns, rewritten with each input, for the readers that take a path (a config file, a trace, a
/// safetensors file). One per process and name; removed with its folder when the process exits normally.
class InputFile {
public:
  /// `name` is the file name (its extension matters to some readers: ".json.gz", ".yaml").
  explicit InputFile(const std::string& name) {
    std::error_code ec;
    m_dir = std::filesystem::temp_directory_path(ec) / ("fathom-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(m_dir, ec);
    m_path = m_dir / name;
  }
  ~InputFile() {
    std::error_code ec;
    std::filesystem::remove(m_path, ec);
    std::filesystem::remove(m_dir, ec);  // only once empty: another InputFile of this process may still use it
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// Replaces the file's content with `bytes`; returns its path.
  const std::filesystem::path& write(std::string_view bytes) {
    std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return m_path;
  }
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_dir;
  std::filesystem::path m_path;
};

}  // namespace fathom::fuzz
