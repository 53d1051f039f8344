// SPDX-License-Identifier: Apache-2.0
#include "profile/window_file.h"

#include "profile/window_data.h"

#include <fathom/common/error.h>
#include <fathom/trace/chrome_trace_writer.h>
#include <fathom/trace/trace_merge.h>

#include <system_error>

namespace fathom::profile::detail {

namespace {
void createParent(const std::filesystem::path& path) {
  if (!path.has_parent_path())
    return;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  FATHOM_CHECK(!ec, StorageError, "profiler: cannot create the trace directory '", path.parent_path().string(),
               "': ", ec.message());
}
}  // namespace

std::int64_t writeWindowFile(const WindowData& window, const std::filesystem::path& path,
                             const std::function<void(std::string_view)>& onChunk, bool replaceExisting) {
  createParent(path);
  trace::TraceHeader header = window.header;
  header.traceName = path.string();
  trace::TraceFileOptions options;
  options.onChunk = onChunk;
  options.replaceExisting = replaceExisting;
  trace::ChromeTraceWriter writer(path, header, options);
  emitWindowEvents(window, [&writer](const trace::TraceEvent& event) { writer.write(event); });
  writer.finish();
  return static_cast<std::int64_t>(writer.sink().bytesOut());
}

void mergeWindowFiles(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output,
                      const std::function<void(std::string_view)>& onChunk) {
  createParent(output);
  trace::TraceMergeOptions options;
  options.file.onChunk = onChunk;
  options.file.replaceExisting = false;  // one run's merged trace never replaces another run's
  trace::mergeTraces(inputs, output, options);
}

}  // namespace fathom::profile::detail
