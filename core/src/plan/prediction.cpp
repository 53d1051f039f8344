// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/prediction.h>

namespace fathom::plan {

double bytesOf(const MemoryBreakdown& memory, MemoryCategory category) {
  return categoryValue(memory, kMemoryBreakdownFields, category).value_or(0.0);
}

std::string explanationKey(MemoryCategory category) {
  return "memory." + std::string(toString(category));
}

}  // namespace fathom::plan
