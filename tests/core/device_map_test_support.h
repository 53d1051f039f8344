// SPDX-License-Identifier: Apache-2.0
// Shared by the device-map tests (tst_device_map, tst_device_map_strategy, tst_device_map_optimal): the cases
// Accelerate's tests assert (tests/data/device_map/accelerate_asserted_cases.json), a one-call request helper, and a
// compact way to write module trees in their JSON form.
#pragma once

#include <fathom/bigmodel/device_map_json.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace devicemaptest {

using nlohmann::json;

inline const std::vector<json>& cases() {
  static const std::vector<json> loaded = [] {
    std::ifstream in(FATHOM_TEST_DATA_DIR "/device_map/accelerate_asserted_cases.json");
    return json::parse(in).get<std::vector<json>>();
  }();
  return loaded;
}

inline const json& caseById(const std::string& id) {
  for (const json& c : cases()) {
    if (c.at("id") == id) {
      return c;
    }
  }
  throw std::runtime_error("no case " + id);
}

inline json plain(const nlohmann::ordered_json& j) {
  return json::parse(j.dump());
}

/// Answers `model` with a call of `function`.
inline json ask(const json& model, const std::string& function, const json& args) {
  return plain(
      fathom::bigmodel::answerRequest(json{{"model", model}, {"call", {{"function", function}, {"args", args}}}}));
}

/// One module of a tree's JSON: {name, class, children, parameters, buffers}.
inline json module(const std::string& name, const std::string& cls, const std::vector<std::string>& children,
                   const json& parameters = json::array(), const json& buffers = json::array()) {
  return {{"name", name}, {"class", cls}, {"children", children}, {"parameters", parameters}, {"buffers", buffers}};
}

/// One tensor; tensors with the same id are one tensor object (tied).
inline json tensor(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& dtype,
                   std::int64_t id) {
  return {{"name", name}, {"shape", shape}, {"dtype", dtype}, {"tensor_id", id}};
}

/// Sequential(linear1, linear2, linear3), each Linear(10, 10), linear3's weight tied to linear1's.
inline json tiedThreeLinears() {
  return {
      {"modules",
       {module("", "Sequential", {"linear1", "linear2", "linear3"}),
        module("linear1", "Linear", {}, {tensor("weight", {10, 10}, "float32", 0), tensor("bias", {10}, "float32", 1)}),
        module("linear2", "Linear", {}, {tensor("weight", {10, 10}, "float32", 2), tensor("bias", {10}, "float32", 3)}),
        module("linear3", "Linear", {},
               {tensor("weight", {10, 10}, "float32", 0), tensor("bias", {10}, "float32", 4)})}}};
}

}  // namespace devicemaptest
