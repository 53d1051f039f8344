// SPDX-License-Identifier: Apache-2.0
// A trace file through the tools that judge and summarize it: `fathom trace validate` (TraceValidator, which must
// never throw for problems in the file: they are findings), `fathom trace summary` (summarizeTrace) and the merge
// the Studio and `fathom trace merge` run (mergeTraceBytes, one input).
// Oracle: the validator returns a report (StorageError only for I/O); the others throw StorageError or ConfigError
// or succeed; anything else escaping, or a sanitizer report, is a finding.
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/trace/trace_merge.h>
#include <fathom/trace/trace_summary.h>
#include <fathom/trace/trace_validator.h>

#include <array>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  static fuzz::InputFile file("trace.json");
  const std::string_view bytes = fuzz::text(data, size);
  const std::filesystem::path& path = file.write(bytes);

  trace::TraceValidatorOptions options;
  options.requireDistributedInfo = size % 2 == 0;  // both rule sets (Holistic Trace Analysis's or not), by the input
  trace::TraceValidator(options).validate(path);

  try {
    trace::summarizeTrace(path);
  } catch (const Error&) {
  }
  try {
    const std::array<trace::TraceBytes, 1> inputs{{{"fuzz.json", std::string(bytes)}}};
    trace::mergeTraceBytes(inputs);
  } catch (const Error&) {
  }
  return 0;
}
