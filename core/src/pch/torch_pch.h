// SPDX-License-Identifier: Apache-2.0
// Precompiled header for fathom_core and the test executables that use LibTorch. Only stable, heavy
// third-party headers belong here; Fathom's own headers never do (editing them must not rebuild the PCH).
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
