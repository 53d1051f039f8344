// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/config_resolver.h>

#include <string>

namespace fathom::config {

/// `fathom config show`: the file that was read, the notes, then one line per effective value,
/// "path: value" followed by where it came from ("[config file a.yaml:3:18]", "[environment FSDP_VERSION]").
std::string formatEffectiveConfigText(const EffectiveConfig& effective);

/// `fathom config show --json`: one JSON object with Accelerate's key names; sub-dicts are nested objects, the
/// `fathom` section a nested object; values typed (true, 8, 1.0, "MULTI_GPU", [...]).
std::string formatEffectiveConfigJson(const EffectiveConfig& effective);

}  // namespace fathom::config
