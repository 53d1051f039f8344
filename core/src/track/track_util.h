// SPDX-License-Identifier: Apache-2.0
// Helpers the built-in trackers share.
#pragma once

#include <fathom/track/tracker.h>

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <utility>
#include <vector>

namespace fathom::track::detail {

/// Flattens a configuration into (key, value) pairs, nested keys joined with '/' ("optimizer/lr"), arrays
/// kept as their JSON text, strings without quotes. A non-object configuration becomes one pair ("config", text).
std::vector<std::pair<std::string, std::string>> flattenConfig(const nlohmann::json& config);

/// The value as a double when it is a number.
std::optional<double> numeric(const LogValue& value);

/// Shortest text that reads back as the same double ("0.1", "1e-05", "nan", "inf").
std::string formatDouble(double value);

/// The host name, or "localhost".
std::string hostName();

/// A metric key as a relative path inside a tracker's directory: empty components dropped, "." and ".."
/// replaced by "_", so a key can never escape the directory; "_" for a key with nothing left.
std::string safeRelativePath(const std::string& key);

}  // namespace fathom::track::detail
