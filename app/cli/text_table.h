// SPDX-License-Identifier: Apache-2.0
#pragma once
// Plain-text output shared by the commands that print tables (`fathom runs`, `fathom trace summary`).
#include <ostream>
#include <string>
#include <vector>

namespace fathom::cli {

/// "512 B", "12.5 MiB", "1.25 GiB" (binary units up to TiB; bytes without decimals).
std::string formatBinaryBytes(double bytes, int decimals);
/// "0.04641 s": seconds to four significant digits ("-" is the caller's for an unknown value).
std::string formatSeconds(double seconds);

enum class ColumnAlign { Left, NumbersRight };

/// Prints `rows` indented by two spaces, each column padded to its widest cell and two spaces apart; row 0 is
/// usually the header. NumbersRight right-aligns every column after the first. Trailing spaces are trimmed.
void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                ColumnAlign align = ColumnAlign::Left);

}  // namespace fathom::cli
