// SPDX-License-Identifier: Apache-2.0
// Private helpers shared by the reader, the value parser and the resolver: one message format for every
// configuration error, "<where>: key '<path>': <what>; allowed values: <list>".
#pragma once

#include <fathom/config/config_schema.h>

#include <string>
#include <string_view>

namespace fathom::config::detail {

/// "allowed values: NO, MULTI_CPU, ..." / "allowed values: true, false" / "allowed values: integers 0..65535".
std::string allowedText(const KeySpec& key);

/// Throws ConfigError "<where>: key '<path>': <detail> '<value>'; <allowedText>".
[[noreturn]] void throwValueError(std::string_view where, const KeySpec& key, std::string_view value,
                                  std::string_view detail);

/// Throws ConfigError "<where>: key '<path>': not valid UTF-8: '<value, escaped>'; ..." unless `text` is UTF-8.
void requireUtf8(const KeySpec& key, std::string_view text, std::string_view origin);

/// The canonical spelling of `text` for an Enum/EnumList/BoolOrEnum key, or empty when it is not allowed.
std::string matchEnum(const KeySpec& key, std::string_view text);

/// Joins with ", ".
std::string join(const std::vector<std::string>& items);

}  // namespace fathom::config::detail
