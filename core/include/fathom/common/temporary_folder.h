// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string_view>

namespace fathom {

/// A fresh private folder (mode 0700, mkdtemp) under $TMPDIR when it is an absolute path, else /tmp, named
/// `<prefix>-XXXXXX`; removed with everything in it when this object goes (errors ignored: a folder that cannot be
/// removed is left for the system's cleaner). StorageError naming the pattern when it cannot be created.
class TemporaryFolder {
public:
  explicit TemporaryFolder(std::string_view prefix);
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

}  // namespace fathom
