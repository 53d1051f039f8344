// SPDX-License-Identifier: Apache-2.0
// The gzip path of trace files (`.json.gz`, and traces stored compressed in the workspace): TraceInput's inflater
// (gzip magic sniffed, concatenated members, a stream that ends early, with and without setAcceptTruncatedStream),
// then TraceReader over the decompressed text.
// Oracle: StorageError is a good answer; anything else escaping, or a sanitizer report, is a finding; the inflater
// never returns more bytes than asked for.
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/trace/trace_input.h>
#include <fathom/trace/trace_reader.h>

#include <array>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  const std::string_view bytes = fuzz::text(data, size);
  for (const bool acceptTruncated : {false, true}) {
    try {
      trace::TraceInput input = trace::TraceInput::fromBytes("fuzz.json.gz", std::string(bytes));
      input.setAcceptTruncatedStream(acceptTruncated);
      std::array<char, 4096> buffer{};
      const std::size_t capacity = 1 + size % buffer.size();
      std::uint64_t total = 0;
      for (std::size_t got; (got = input.read(buffer.data(), capacity)) != 0;) {
        if (got > capacity) {
          std::fprintf(stderr, "read() returned %zu bytes for a capacity of %zu\n", got, capacity);
          std::abort();
        }
        total += got;
        if (total > (std::uint64_t{64} << 20)) {
          break;  // a gzip bomb: inflating further only measures memcpy
        }
      }
    } catch (const Error&) {
    }
  }
  try {
    trace::TraceReaderOptions options;
    options.maxValueBytes = std::size_t{16} << 20;
    trace::TraceReader reader(trace::TraceInput::fromBytes("fuzz.json.gz", std::string(bytes)), options);
    while (reader.next()) {
    }
  } catch (const Error&) {
  }
  return 0;
}
