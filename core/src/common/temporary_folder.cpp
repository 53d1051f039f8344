// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/common/temporary_folder.h>

#include <cstdlib>
#include <string>
#include <system_error>

namespace fathom {

TemporaryFolder::TemporaryFolder(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") + "/" + std::string(prefix) + "-XXXXXX";
  FATHOM_CHECK(::mkdtemp(pattern.data()) != nullptr, StorageError, "cannot create a folder like ", pattern);
  m_path = pattern;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

}  // namespace fathom
