// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_event.h"

#include <array>

namespace fathom::trace {

namespace {
constexpr std::array<std::string_view, kTraceCategoryCount> kCategoryNames = {"cpu_op",
                                                                              "user_annotation",
                                                                              "gpu_user_annotation",
                                                                              "kernel",
                                                                              "gpu_memcpy",
                                                                              "gpu_memset",
                                                                              "cuda_runtime",
                                                                              "cuda_driver",
                                                                              "cuda_sync",
                                                                              "overhead",
                                                                              "cpu_instant_event",
                                                                              "ac2g",
                                                                              "memory",
                                                                              "Trace"};
}  // namespace

std::string_view toString(TraceCategory category) {
  const auto index = static_cast<std::size_t>(category);
  return index < kCategoryNames.size() ? kCategoryNames[index] : std::string_view("unknown");
}

}  // namespace fathom::trace
