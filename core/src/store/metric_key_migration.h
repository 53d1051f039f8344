// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace fathom::store::sql {
class Db;
}

namespace fathom::store {

/// The upgrade of schema version 4 (schema.cpp): renames every stored metric key an earlier release spelled
/// differently to its current name (fathom::currentMetricKey, common/memory_metric_keys.h): the profiler's
/// `profile/memory/<device>/peak_parameter_bytes` becomes `…/peak_parameters_bytes`, the engines'
/// `memory/peak_gathered_parameters_bytes` becomes `memory/device/peak_gathered_parameters_bytes`. A run that holds
/// both spellings of a key keeps one key with the points of both. Runs inside the migration's transaction.
void renameLegacyMemoryMetricKeys(sql::Db& db);

}  // namespace fathom::store
