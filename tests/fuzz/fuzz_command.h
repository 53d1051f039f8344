// SPDX-License-Identifier: Apache-2.0
// Runs a `fathom` subcommand on a command line from a fuzz input, as main() does: CLI11 parses the words with the
// command's own definitions, then the action it left runs with its output captured (the fuzzer's stays readable).
#pragma once

#include "command.h"
#include "fuzz_input.h"

#include <fathom/common/error.h>

#include <iostream>
#include <sstream>

namespace fathom::fuzz {

/// `words` are the arguments after the program name. CLI11's parse errors and fathom::Error are good answers;
/// anything else escapes to the fuzzer.
inline void runCommand(void (*addCommand)(CLI::App&, cli::CommandAction&), const std::vector<std::string>& words) {
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 pops arguments from the back
  CLI::App root("fathom");
  cli::CommandAction action;
  addCommand(root, action);
  try {
    root.parse(reversed);
  } catch (const CLI::Error&) {
    return;
  } catch (const Error&) {
    return;
  }
  if (!action) {
    return;
  }
  std::ostringstream out, err;
  std::streambuf* savedOut = std::cout.rdbuf(out.rdbuf());
  std::streambuf* savedErr = std::cerr.rdbuf(err.rdbuf());
  try {
    action();
  } catch (const Error&) {
  }
  std::cout.rdbuf(savedOut);
  std::cerr.rdbuf(savedErr);
}

}  // namespace fathom::fuzz
