// SPDX-License-Identifier: Apache-2.0
// A run's layout (store::RunLayout) in the workspace: the typed columns of `runs` (world_size, num_machines,
// strategy, fsdp_sharding, mixed_precision) and the rows of `run_hosts`. Shared by Workspace and by the migration to
// schema version 4, so both write the same thing. Every function runs inside the caller's transaction, if any.
#pragma once

#include "sqlite_db.h"

#include <fathom/store/records.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fathom::store {

/// The layout columns, in the order readLayoutColumns() expects them, to append to a SELECT list of `runs`.
inline constexpr std::string_view kLayoutColumns = "world_size, num_machines, strategy, fsdp_sharding, mixed_precision";

/// Reads the columns of kLayoutColumns starting at `first` (hosts are not among them: see readRunHosts()). A
/// strategy or sharding this build does not know reads as unknown.
RunLayout readLayoutColumns(const sql::Statement& s, int first);

/// Every run's hosts by run id (each by machine rank, "" for machines not recorded).
std::map<std::int64_t, std::vector<std::string>> readRunHosts(sql::Db& db);
/// One run's hosts by machine rank.
std::vector<std::string> readRunHosts(sql::Db& db, std::int64_t run);

/// Writes `layout` over run `run`'s layout columns and hosts.
void writeRunLayout(sql::Db& db, std::int64_t run, const RunLayout& layout);
/// Replaces run `run`'s strategy and precision with rank 0's report.
void writeRunSetup(sql::Db& db, std::int64_t run, const RunSetup& setup);

}  // namespace fathom::store
