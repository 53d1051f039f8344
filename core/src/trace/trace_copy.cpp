// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_copy.h"

#include "event_fields.h"
#include "fathom/common/error.h"
#include "fathom/trace/trace_event_view.h"
#include "fathom/trace/trace_file_sink.h"
#include "fathom/trace/trace_reader.h"

#include <vector>

namespace fathom::trace {

std::uint64_t checkTraceEvents(TraceInput input, const TraceCopyOptions& options) {
  FATHOM_CHECK(options.progressEvery >= 1, ConfigError, "TraceCopyOptions::progressEvery must be >= 1");
  TraceReader reader(std::move(input));
  TraceEventView event;
  while (reader.next()) {
    detail::readCheckedEvent(reader, event);
    if (options.onProgress && reader.eventCount() % options.progressEvery == 0) {
      options.onProgress(reader.eventCount());
    }
  }
  return reader.eventCount();
}

TraceCopyResult copyTrace(const std::function<TraceInput()>& open, const std::filesystem::path& output,
                          const TraceCopyOptions& options) {
  TraceCopyResult result;
  result.events = checkTraceEvents(open(), options);  // everything is read before anything is written
  TraceInput input = open();
  result.gzip = options.gzip.value_or(output.extension() == ".gz");
  TraceFileSink sink(output, {.gzip = result.gzip});
  std::vector<char> block(std::size_t{1} << 20);
  while (const std::size_t n = input.read(block.data(), block.size())) {  // the text, decompressed
    sink.write(std::string_view(block.data(), n));
  }
  sink.finish();
  result.bytesWritten = sink.bytesOut();
  return result;
}

}  // namespace fathom::trace
