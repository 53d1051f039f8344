// SPDX-License-Identifier: Apache-2.0
// Writes a realistic multi-rank Chrome/Kineto trace of N events (tests/support/trace_generator.h) for benchmarks and
// for trying the timeline on big inputs:
//   make_trace [--events 1000000] [--ranks 8] [--seed 1] OUT.json[.gz]
// The output is accepted by `fathom trace validate` and opens in Perfetto.
#include "trace_generator.h"

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  fathom::test::TraceGeneratorOptions options;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--events" && i + 1 < argc) {
      options.events = std::stoull(argv[++i]);
    } else if (arg == "--ranks" && i + 1 < argc) {
      options.ranks = std::stoi(argv[++i]);
    } else if (arg == "--seed" && i + 1 < argc) {
      options.seed = std::stoull(argv[++i]);
    } else if (out.empty() && !arg.starts_with("--")) {
      out = arg;
    } else {
      out.clear();
      break;
    }
  }
  if (out.empty() || options.ranks < 1) {
    std::fprintf(stderr, "usage: %s [--events N] [--ranks R] [--seed S] OUT.json[.gz]\n", argv[0]);
    return 2;
  }
  try {
    const fathom::test::GeneratedTrace t = fathom::test::generateTrace(out, options);
    std::printf("%s: %llu events, %llu slices, %llu flows, %llu steps, %llu bytes\n", out.c_str(),
                static_cast<unsigned long long>(t.events), static_cast<unsigned long long>(t.slices),
                static_cast<unsigned long long>(t.flows), static_cast<unsigned long long>(t.steps),
                static_cast<unsigned long long>(t.bytes));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_trace: %s\n", e.what());
    return 1;
  }
  return 0;
}
