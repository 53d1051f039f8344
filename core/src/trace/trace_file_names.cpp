// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_file_names.h"

#include "fathom/common/error.h"

#include <algorithm>
#include <charconv>
#include <system_error>

namespace fathom::trace {
namespace {

constexpr std::string_view kMergedDirectory = "merged";

const char* extension(bool gzip) {
  return gzip ? ".json.gz" : ".json";
}

}  // namespace

std::string runTraceDirectoryName(std::int64_t runId) {
  return "run_" + std::to_string(runId);
}

std::string rankTraceFileName(int rank, bool gzip) {
  return "profile_" + std::to_string(rank) + extension(gzip);
}

std::string mergedTraceFileName(bool gzip) {
  return std::string(kMergedDirectory) + "/profile_merged" + extension(gzip);
}

bool isMergedTraceName(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  if (slash == std::string_view::npos) {
    return false;
  }
  const std::string_view directory = name.substr(0, slash);
  const std::size_t parent = directory.rfind('/');
  return directory.substr(parent == std::string_view::npos ? 0 : parent + 1) == kMergedDirectory;
}

StoredTraceName parseStoredTraceName(std::string_view name) {
  StoredTraceName out;
  out.group = std::string(name);
  std::string_view rest = name;
  std::optional<int> window;
  constexpr std::string_view kWindow = "window_";
  if (rest.substr(0, kWindow.size()) == kWindow) {
    const std::size_t slash = rest.find('/');
    int n = -1;
    const char* first = rest.data() + kWindow.size();
    const char* last = rest.data() + (slash == std::string_view::npos ? rest.size() : slash);
    const auto [end, error] = std::from_chars(first, last, n);
    if (slash == std::string_view::npos || error != std::errc() || end != last || n < 0) {
      return out;
    }
    window = n;
    rest.remove_prefix(slash + 1);
  }
  const auto isExtension = [](std::string_view e) { return e == extension(false) || e == extension(true); };
  const std::string merged = "merged/profile_merged";
  if (rest.substr(0, merged.size()) == merged && isExtension(rest.substr(merged.size()))) {
    out.merged = true;
  } else {
    constexpr std::string_view kProfile = "profile_";
    if (rest.substr(0, kProfile.size()) != kProfile) {
      return out;
    }
    const std::string_view digits = rest.substr(kProfile.size());
    const std::size_t dot = digits.find('.');
    if (dot == 0 || dot == std::string_view::npos) {
      return out;  // checked before from_chars: data() + npos is no pointer into the name
    }
    int rank = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + dot, rank);
    if (error != std::errc() || end != digits.data() + dot || !isExtension(digits.substr(dot))) {
      return out;
    }
  }
  out.profile = true;
  out.window = window;
  out.group = window ? std::string(kWindow) + std::to_string(*window) : std::string();
  return out;
}

bool isPartialTraceFile(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.ends_with(kPartialTraceSuffix);
}

TraceDirectoryListing listTraceDirectory(const std::filesystem::path& directory) {
  TraceDirectoryListing listing;
  std::error_code error;
  std::filesystem::directory_iterator it(directory, error);
  for (; !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file(error)) {
      continue;
    }
    const std::string name = it->path().filename().string();
    const std::string_view whole = std::string_view(name).substr(
        0, isPartialTraceFile(name) ? name.size() - kPartialTraceSuffix.size() : name.size());
    if (!whole.ends_with(".json") && !whole.ends_with(".json.gz")) {
      continue;
    }
    (whole.size() == name.size() ? listing.traces : listing.partial).push_back(it->path());
  }
  FATHOM_CHECK(!error, StorageError, "cannot list the traces in ", directory.string(), ": ", error.message());
  std::sort(listing.traces.begin(), listing.traces.end());
  std::sort(listing.partial.begin(), listing.partial.end());
  return listing;
}

}  // namespace fathom::trace
