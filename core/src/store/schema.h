// SPDX-License-Identifier: Apache-2.0
// The workspace schema as an ordered list of migration steps: step i brings a file from user_version i to i + 1.
// Never edit a released step; append a new one and bump Workspace::kSchemaVersion.
#pragma once

#include <span>
#include <string_view>

namespace fathom::store::sql {
class Db;
}

namespace fathom::store::schema {

struct Migration {
  int toVersion;
  std::string_view description;
  std::string_view sql;
  /// Runs after `sql`, in the same transaction: fills what SQL alone cannot derive from older rows (nullptr: none).
  void (*upgrade)(sql::Db& db) = nullptr;
};

std::span<const Migration> migrations();

}  // namespace fathom::store::schema
