// SPDX-License-Identifier: Apache-2.0
// Collects a worker rank's failed checks, so a multi-process test reports every mismatch of a rank at once
// (on stderr, prefixed with the rank) instead of stopping at the first.
#pragma once

#include <fathom/common/error.h>

#include <exception>
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

/// A worker's whole life as an exit code: runs `body(checker)`, then 0 after printing "rank R ok<okSuffix>" on
/// stdout, 4 after reporting failed checks, 3 for a fathom::Error and 5 for any other exception (with the
/// message on stderr). The tests assert on these codes and lines.
template <typename Body> int runRankChecks(int rank, Body&& body, const std::string& okSuffix = {}) {
  RankChecker c(rank);
  try {
    body(c);
  } catch (const fathom::Error& e) {
    std::cerr << "rank " << rank << ": " << e.what() << std::endl;
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "rank " << rank << ": unexpected " << e.what() << std::endl;
    return 5;
  }
  if (!c.ok()) {
    c.report();
    return 4;
  }
  std::cout << "rank " << rank << " ok" << okSuffix << std::endl;
  return 0;
}

}  // namespace fathom::test
