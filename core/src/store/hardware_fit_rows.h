// SPDX-License-Identifier: Apache-2.0
// The hardware profiles fitted to runs (schema 12, table hardware_fits). Every function runs inside the caller's
// transaction, if any.
#pragma once

#include "sqlite_db.h"

#include <fathom/store/records.h>

#include <string_view>
#include <vector>

namespace fathom::store {

HardwareFitId insertHardwareFit(sql::Db& db, const HardwareFit& fit);
/// Workspace::hardwareFitsOf(): newest first.
std::vector<HardwareFitRow> readHardwareFitsOf(sql::Db& db, std::string_view host, std::string_view device,
                                               std::string_view baseMeasuredAt);
/// The fits of `run`, in id order.
std::vector<HardwareFitRow> readHardwareFits(sql::Db& db, std::int64_t run);

}  // namespace fathom::store
