// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <string_view>

namespace fathom {

enum class LogLevel { Debug, Info, Warning, Error };

/// Receives every message the core logs. The default sink writes "fathom <level>: <message>" to stderr for
/// Info and above. The Studio installs a sink that forwards to Qt's logging categories.
using LogSink = std::function<void(LogLevel, std::string_view)>;

/// Replaces the sink (thread-safe). An empty function restores the default sink.
void setLogSink(LogSink sink);

/// Logs through the current sink (thread-safe; the sink is called outside the internal lock).
void log(LogLevel level, std::string_view message);

/// Lower-case name of a level: "debug", "info", "warning", "error".
std::string_view toString(LogLevel level);

}  // namespace fathom
