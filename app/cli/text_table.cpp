// SPDX-License-Identifier: Apache-2.0
#include "text_table.h"

#include <fathom/common/terminal_text.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fathom::cli {

std::string formatBinaryBytes(double bytes, int decimals) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::abs(bytes) >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.*f %s", unit == 0 ? 0 : decimals, bytes, kUnits[unit]);
  return text;
}

std::string formatSeconds(double seconds) {
  char text[48];
  std::snprintf(text, sizeof text, "%.4g s", seconds);
  return text;
}

void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& textRows, ColumnAlign align) {
  // Cells hold names from outside (run names, metric keys, paths from a workspace): terminal-safe, one line each.
  std::vector<std::vector<std::string>> rows;
  rows.reserve(textRows.size());
  for (const auto& row : textRows) {
    std::vector<std::string>& safe = rows.emplace_back();
    for (const std::string& cell : row) {
      safe.push_back(terminalSafe(cell));
    }
  }
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      const bool right = c > 0 && align == ColumnAlign::NumbersRight;
      line += (c == 0 ? "" : "  ") + (right ? pad + row[c] : row[c] + pad);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out << line << '\n';
  }
}

}  // namespace fathom::cli
