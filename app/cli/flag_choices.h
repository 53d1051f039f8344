// SPDX-License-Identifier: Apache-2.0
// --help texts list a flag's choices from the vocabulary's tables (config/vocabulary.h, plan/training_plan.h), so the
// CLI offers exactly what the YAML schema, the engines and the wizard accept.
#pragma once

#include <fathom/common/name_table.h>

#include <string>

namespace fathom::cli {

/// Which of a table's values a flag's help lists.
enum class Offered {
  Supported,  ///< the values Fathom runs (a flag of a command that runs them)
  All,        ///< every value (the planner plans what Fathom cannot run, e.g. fp8 on an H100)
};

/// "A | B | C", as a flag's help lists the choices.
template <typename E, std::size_t N>
std::string choices(const NameTable<E, N>& table, Offered offered = Offered::Supported) {
  std::string out;
  for (const std::string& name : offered == Offered::All ? table.names() : table.supportedNames()) {
    out += out.empty() ? "" : " | ";
    out += name;
  }
  return out;
}

}  // namespace fathom::cli
