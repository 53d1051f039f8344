// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace fathom::store::sql {
class Db;
}

namespace fathom::store {

/// The upgrade of schema version 4 (schema.cpp): derives, once, each existing run's layout from what versions 1-3
/// stored, by the rules the Studio applied when it read them (docs/workspace.md, "Run layout"):
/// - `fathom launch`'s configuration JSON gives world_size, num_machines, mixed_precision and the machine rank of
///   the run's host; use_fsdp + fsdp_sharding_strategy, use_deepspeed + zero_stage, or a `--strategy X` word of its
///   `command` give the strategy; otherwise the strategy is DDP;
/// - any other run: the number of its ranks and of their distinct hosts, `mixed_precision` of a JSON configuration
///   (the hparams a program's own sqlite tracker stored), strategy DDP.
/// Runs inside the migration's transaction.
void deriveRunLayouts(sql::Db& db);

}  // namespace fathom::store
