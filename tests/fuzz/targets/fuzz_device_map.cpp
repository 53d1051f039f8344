// SPDX-License-Identifier: Apache-2.0
// A device-map request as `fathom device-map --request` reads it (a module tree under "model", one call of
// Accelerate's under "call": tests/data/device_map/accelerate_asserted_cases.json), answered by
// bigmodel::answerRequest; and the module tree alone through moduleTreeFromJson and back.
// Oracle: answerRequest returns or throws fathom's Error (ConfigError for bad input); a tree that reads writes back
// (toJson) to JSON that reads again as the same tree (the same JSON once more). Anything else is a finding.
#include "fuzz_input.h"

#include <fathom/bigmodel/device_map_json.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/common/error.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>

namespace {

/// The tree under "model" (or the whole input when it has none) read, written and read again.
void checkTreeRoundTrip(const nlohmann::json& input) {
  const nlohmann::json& model = input.is_object() && input.contains("model") ? input.at("model") : input;
  try {
    const fathom::bigmodel::ModuleTree tree = fathom::bigmodel::moduleTreeFromJson(model);
    const nlohmann::ordered_json written = fathom::bigmodel::toJson(tree);
    const std::string text = written.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict);
    const fathom::bigmodel::ModuleTree again = fathom::bigmodel::moduleTreeFromJson(nlohmann::json::parse(text));
    if (fathom::bigmodel::toJson(again) != written) {
      std::fprintf(stderr, "module tree round trip differs:\n%s\n%s\n", text.c_str(),
                   fathom::bigmodel::toJson(again).dump().c_str());
      std::abort();
    }
  } catch (const fathom::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json input = nlohmann::json::parse(fathom::fuzz::text(data, size), nullptr,
                                                     /*allow_exceptions=*/false);
  if (input.is_discarded()) {
    return 0;  // not JSON: `fathom device-map` refuses it before answerRequest sees it
  }
  checkTreeRoundTrip(input);
  try {
    (void)fathom::bigmodel::answerRequest(input);
  } catch (const fathom::Error&) {
  }
  return 0;
}
