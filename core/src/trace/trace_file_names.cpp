// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_file_names.h"

namespace fathom::trace {
namespace {

constexpr std::string_view kMergedDirectory = "merged";

const char* extension(bool gzip) {
  return gzip ? ".json.gz" : ".json";
}

}  // namespace

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

}  // namespace fathom::trace
