// SPDX-License-Identifier: Apache-2.0
// Writing a window to a trace file, and merging the ranks' files. Private to core/profile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

namespace fathom::profile {
struct WindowData;
}

namespace fathom::profile::detail {

/// Writes `window` as a Kineto-compatible Chrome trace to `path` (gzip when it ends in .gz; atomically: a failure
/// leaves no file under that name; synced to disk before it is renamed). `onChunk` receives every block of bytes as
/// written. With `replaceExisting` false an existing file at `path` is never replaced (StorageError "it exists").
/// Returns the file's size. StorageError naming the file.
std::int64_t writeWindowFile(const WindowData& window, const std::filesystem::path& path,
                             const std::function<void(std::string_view)>& onChunk, bool replaceExisting = true);

/// Merges one trace per rank into `output` (created with its directory), never over an existing file; `onChunk` as
/// for writeWindowFile.
void mergeWindowFiles(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output,
                      const std::function<void(std::string_view)>& onChunk);

}  // namespace fathom::profile::detail
