// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fathom::launch {

/// `text` as one word for a POSIX shell, whatever it holds: wrapped in single quotes, each ' written as '\''.
/// Inside single quotes sh gives no character a meaning ($, `, \, ", *, ;, newline, ...), so the word reaches the
/// program unchanged; "" gives ''. ssh hands the remote shell a single command string (`sh -c STRING` on the host),
/// so every word `fathom launch --hosts` sends goes through this function.
std::string shellQuote(std::string_view text);

/// The words quoted one by one (shellQuote) and joined with single spaces: a command line that the remote shell
/// splits back into exactly `words`.
std::string shellCommand(const std::vector<std::string>& words);

}  // namespace fathom::launch
