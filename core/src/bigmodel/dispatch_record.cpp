// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/device_map_edit.h>
#include <fathom/bigmodel/device_map_json.h>
#include <fathom/bigmodel/dispatch_record.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/common/error.h>
#include <fathom/common/json_input.h>

namespace fathom::bigmodel {
namespace {

constexpr std::string_view kFormat = "fathom-dispatch-record";
constexpr int kVersion = 1;

}  // namespace

nlohmann::ordered_json toJson(const DispatchRecord& record) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["model"] = record.modelName;
  j["module_tree"] = toJson(record.tree);
  j["device_map"] = toJson(record.deviceMap);
  j["max_memory"] = toJson(record.maxMemory);
  j["no_split"] = record.noSplitClasses;
  return j;
}

DispatchRecord dispatchRecordFromJson(std::string_view text, const std::string& origin) {
  const auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  FATHOM_CHECK(!j.is_discarded(), ConfigError, origin, ": a dispatch record must be JSON");
  FATHOM_CHECK(j.is_object() && j.value("format", "") == kFormat, ConfigError, origin,
               ": not a dispatch record (its \"format\" must be \"", kFormat, "\")");
  const std::optional<int> version = j.contains("version") ? jsonInteger<int>(j.at("version")) : std::nullopt;
  FATHOM_CHECK(version.has_value() && *version >= 1, ConfigError, origin, ": \"version\" must be an integer >= 1");
  FATHOM_CHECK(*version <= kVersion, ConfigError, origin, ": a dispatch record of version ", *version,
               " was written by a newer Fathom (this one reads version ", kVersion, ")");
  for (const char* key : {"model", "module_tree", "device_map", "max_memory", "no_split"}) {
    FATHOM_CHECK(j.contains(key), ConfigError, origin, ": the dispatch record has no \"", key, "\"");
  }
  FATHOM_CHECK(j.at("model").is_string(), ConfigError, origin, ": \"model\" must be a string, got ",
               quotedJson(j.at("model")));
  FATHOM_CHECK(j.at("no_split").is_array(), ConfigError, origin, ": \"no_split\" must be a list of class names");
  std::vector<std::string> noSplit;
  for (const auto& c : j.at("no_split")) {
    FATHOM_CHECK(c.is_string(), ConfigError, origin, ": \"no_split\" holds ", quotedJson(c), ", not a class name");
    noSplit.push_back(c.get<std::string>());
  }
  try {
    DispatchRecord record{moduleTreeFromJson(j.at("module_tree")),
                          deviceMapFromJson(j.at("device_map"), "\"device_map\""),
                          maxMemoryFromJson(j.at("max_memory")), std::move(noSplit), j.at("model").get<std::string>()};
    checkDeviceMap(record.tree, record.deviceMap);
    return record;
  } catch (const ConfigError& e) {
    throw ConfigError(detail::concat(origin, ": ", e.what()));
  }
}

}  // namespace fathom::bigmodel
