// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/module_tree_json.h>

#include <fathom/common/error.h>
#include <fathom/common/json_input.h>

#include <algorithm>
#include <string>

namespace fathom::bigmodel {

namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

const json& member(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  FATHOM_CHECK(it != object.end(), ConfigError, "module tree: ", where, " has no '", key, "'");
  return *it;
}

std::string stringMember(const json& object, const char* key, const std::string& where) {
  const json& v = member(object, key, where);
  FATHOM_CHECK(v.is_string(), ConfigError, "module tree: ", where, ": '", key, "' must be a string, got ",
               quotedJson(v));
  return v.get<std::string>();
}

const json& arrayMember(const json& object, const char* key, const std::string& where) {
  const json& v = member(object, key, where);
  FATHOM_CHECK(v.is_array(), ConfigError, "module tree: ", where, ": '", key, "' must be a list, got ", quotedJson(v));
  return v;
}

TensorInfo tensorFromJson(const json& j, const std::string& moduleWhere, const char* kind, bool isBuffer) {
  FATHOM_CHECK(j.is_object(), ConfigError, "module tree: ", moduleWhere, ": each of its ", kind,
               "s must be an object, got ", quotedJson(j));
  TensorInfo t;
  t.name = stringMember(j, "name", moduleWhere + " " + kind);
  const std::string where = moduleWhere + " " + kind + " '" + t.name + "'";
  for (const json& dim : arrayMember(j, "shape", where)) {
    const auto d = jsonInteger<std::int64_t>(dim);
    FATHOM_CHECK(d.has_value(), ConfigError, "module tree: ", where, ": a dimension must be a whole number, got ",
                 quotedJson(dim));
    FATHOM_CHECK(*d >= 0, ConfigError, "module tree: ", where, " has a negative dimension (", *d, ")");
    t.shape.push_back(*d);
  }
  const std::string dtype = stringMember(j, "dtype", where);
  const auto parsed = dtypeFromName(dtype);
  FATHOM_CHECK(parsed.has_value(), ConfigError, "module tree: ", where, " has an unknown dtype '", dtype,
               "' (known: ", joined(dtypeNames()), ")");
  t.dtype = *parsed;
  if (const auto it = j.find("persistent"); it != j.end()) {
    FATHOM_CHECK(isBuffer, ConfigError, "module tree: ", where, ": only buffers have 'persistent'");
    FATHOM_CHECK(it->is_boolean(), ConfigError, "module tree: ", where, ": 'persistent' must be true or false, got ",
                 quotedJson(*it));
    t.persistent = it->get<bool>();
  }
  if (const auto it = j.find("tensor_id"); it != j.end()) {
    const auto id = jsonInteger<std::int64_t>(*it);
    FATHOM_CHECK(id.has_value() && *id >= 0, ConfigError, "module tree: ", where,
                 ": 'tensor_id' must be a whole number >= 0, got ", quotedJson(*it));
    t.tensorId = *id;
  }
  return t;
}

nlohmann::ordered_json tensorToJson(const TensorInfo& t, bool isBuffer) {
  nlohmann::ordered_json j;
  j["name"] = t.name;
  j["shape"] = t.shape;
  j["dtype"] = std::string(dtypeName(t.dtype));
  if (isBuffer) {
    j["persistent"] = t.persistent;
  }
  j["tensor_id"] = t.tensorId;
  return j;
}

}  // namespace

ModuleTree moduleTreeFromJson(const json& j) {
  FATHOM_CHECK(j.is_object(), ConfigError, "module tree: expected an object with 'modules', got ", quotedJson(j));
  std::vector<ModuleInfo> modules;
  const json& list = arrayMember(j, "modules", "the model");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& m = list[i];
    std::string where = "modules[" + std::to_string(i) + "]";
    FATHOM_CHECK(m.is_object(), ConfigError, "module tree: ", where, " must be an object, got ", quotedJson(m));
    ModuleInfo info;
    info.name = stringMember(m, "name", where);
    where = info.name.empty() ? std::string("the root module") : "module '" + info.name + "'";
    info.className = stringMember(m, "class", where);
    for (const json& child : arrayMember(m, "children", where)) {
      FATHOM_CHECK(child.is_string(), ConfigError, "module tree: ", where, ": a child must be a name, got ",
                   quotedJson(child));
      info.children.push_back(child.get<std::string>());
    }
    for (const json& p : arrayMember(m, "parameters", where)) {
      info.parameters.push_back(tensorFromJson(p, where, "parameter", false));
    }
    for (const json& b : arrayMember(m, "buffers", where)) {
      info.buffers.push_back(tensorFromJson(b, where, "buffer", true));
    }
    modules.push_back(std::move(info));
  }
  ModuleTree tree(std::move(modules));

  if (const auto it = j.find("root_class"); it != j.end()) {
    FATHOM_CHECK(it->is_string() && it->get<std::string>() == tree.root().className, ConfigError,
                 "module tree: root_class ", quotedJson(*it), " is not the root module's class '",
                 tree.root().className, "'");
  }
  if (const auto it = j.find("tied_parameters"); it != j.end()) {
    // Accelerate's own order of the groups depends on Python's string hashing: compare them as sorted lists.
    std::vector<std::vector<std::string>> given;
    bool wellFormed = it->is_array();
    for (const json& group : wellFormed ? *it : json::array()) {
      wellFormed = wellFormed && group.is_array();
      std::vector<std::string> names;
      for (const json& name : wellFormed ? group : json::array()) {
        wellFormed = wellFormed && name.is_string();
        names.push_back(name.is_string() ? name.get<std::string>() : std::string());
      }
      std::sort(names.begin(), names.end());
      given.push_back(std::move(names));
    }
    std::sort(given.begin(), given.end());
    FATHOM_CHECK(wellFormed, ConfigError, "module tree: tied_parameters must be a list of lists of names, got ",
                 quotedJson(*it));
    FATHOM_CHECK(given == tree.tiedParameters(), ConfigError, "module tree: tied_parameters ", quotedJson(*it),
                 " are not the groups the tensor ids give (", quotedJson(nlohmann::json(tree.tiedParameters())), ")");
  }
  return tree;
}

nlohmann::ordered_json toJson(const ModuleTree& tree) {
  nlohmann::ordered_json j;
  j["root_class"] = tree.root().className;
  nlohmann::ordered_json modules = nlohmann::ordered_json::array();
  for (const ModuleInfo& m : tree.modules()) {
    nlohmann::ordered_json mj;
    mj["name"] = m.name;
    mj["class"] = m.className;
    mj["children"] = m.children;
    mj["parameters"] = nlohmann::ordered_json::array();
    for (const TensorInfo& t : m.parameters) {
      mj["parameters"].push_back(tensorToJson(t, false));
    }
    mj["buffers"] = nlohmann::ordered_json::array();
    for (const TensorInfo& t : m.buffers) {
      mj["buffers"].push_back(tensorToJson(t, true));
    }
    modules.push_back(std::move(mj));
  }
  j["modules"] = std::move(modules);
  j["tied_parameters"] = tree.tiedParameters();
  return j;
}

}  // namespace fathom::bigmodel
