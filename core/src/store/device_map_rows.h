// SPDX-License-Identifier: Apache-2.0
// The device maps of runs in the workspace (schema 11, table run_device_maps): one row per recording. Every function
// runs inside the caller's transaction, if any.
#pragma once

#include "sqlite_db.h"

#include <fathom/store/records.h>

#include <cstdint>
#include <span>
#include <vector>

namespace fathom::store {

/// Stores each map of `run`; returns the id of the last one (none: DeviceMapId{}).
DeviceMapId insertDeviceMaps(sql::Db& db, std::int64_t run, std::span<const RunDeviceMap> maps);
/// The maps of `run` with id > `after`, in id order.
std::vector<RunDeviceMapRow> readDeviceMaps(sql::Db& db, std::int64_t run, DeviceMapId after);

}  // namespace fathom::store
