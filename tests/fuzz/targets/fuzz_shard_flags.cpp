// SPDX-License-Identifier: Apache-2.0
// `fathom shard`'s command line: the input is the words after `fathom shard`, one per line; CLI11 parses them with
// the command's own flag definitions (addShardCommand, app/cli/shard_command.cpp), then the plan is computed and
// formatted (JSON and table) as the command prints it.
// Oracle: CLI11's ParseError and ConfigError are good answers; anything else escaping, or a sanitizer report, is a
// finding.
#include "fuzz_command.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  std::vector<std::string> words{"shard"};
  for (std::string& word : fuzz::split(fuzz::text(data, size), '\n')) {
    words.push_back(std::move(word));
  }
  fuzz::runCommand(&cli::addShardCommand, words);
  return 0;
}
