// SPDX-License-Identifier: Apache-2.0
// A Chrome/Kineto trace as `fathom trace` and the Studio read it: TraceReader's chunked scanner (with a tiny chunk,
// so every boundary falls inside tokens, escapes and numbers), each event through TraceEventView (parse and
// parseStrict, the members the tools read) and nlohmann (parseEvent), and the Studio's TimelineIndex.
// Oracle: StorageError and ConfigError are good answers; anything else escaping, or a sanitizer report, is a finding;
// the event count the reader reports is the number of events it yielded.
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_event_view.h>
#include <fathom/trace/trace_input.h>
#include <fathom/trace/trace_reader.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>

namespace {

using namespace fathom;

void readAll(std::string_view bytes, bool acceptTruncatedTail) {
  trace::TraceReaderOptions options;
  options.chunkBytes = 1 + bytes.size() % 61;  // small and varying: chunk boundaries land everywhere
  options.acceptTruncatedTail = acceptTruncatedTail;
  trace::TraceReader reader(trace::TraceInput::fromBytes("fuzz.json", std::string(bytes)), options);
  trace::TraceEventView view;
  std::uint64_t events = 0;
  while (reader.next()) {
    ++events;
    if (view.parse(reader.event())) {
      view.phase();
      view.micros("ts");
      view.micros("dur");
      view.integer("pid");
      view.string("name");
    }
    if (view.parseStrict(reader.event()) == trace::TraceEventView::Strict::Object) {
      reader.parseEvent();  // strict JSON: nlohmann must read it too
    }
  }
  if (reader.eventCount() != events) {
    std::fprintf(stderr, "eventCount() %llu, but %llu events were read\n",
                 static_cast<unsigned long long>(reader.eventCount()), static_cast<unsigned long long>(events));
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::text(data, size);
  for (const bool truncated : {false, true}) {
    try {
      readAll(bytes, truncated);
    } catch (const Error&) {
    }
  }
  try {
    trace::TimelineIndex::loadBytes("fuzz.json", std::string(bytes));
  } catch (const Error&) {
  }
  return 0;
}
