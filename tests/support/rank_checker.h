// SPDX-License-Identifier: Apache-2.0
// Collects a worker rank's failed checks, so a multi-process test reports every mismatch of a rank at once
// (on stderr, prefixed with the rank) instead of stopping at the first.
#pragma once

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fathom::test {

class RankChecker {
public:
  explicit RankChecker(int rank) : m_rank(rank) {}
  /// Records a failure made of `parts` when `ok` is false.
  template <typename... Parts> void check(bool ok, Parts&&... parts) {
    if (!ok) {
      std::ostringstream line;
      line << "rank " << m_rank << ": ";
      (line << ... << parts);
      m_failures.push_back(line.str());
    }
  }
  bool ok() const { return m_failures.empty(); }
  /// Prints the failures to stderr.
  void report() const {
    for (const auto& f : m_failures) {
      std::cerr << f << '\n';
    }
  }

private:
  int m_rank;
  std::vector<std::string> m_failures;
};

}  // namespace fathom::test
