// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/hardware.h>

#include "hardware_calibration_yaml.h"

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/config/config_paths.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#ifndef FATHOM_HARDWARE_DIR_DEFAULT
#define FATHOM_HARDWARE_DIR_DEFAULT "resources/hardware"
#endif

namespace fathom::plan {
namespace {

double number(const YAML::Node& node, const std::string& key, const std::string& origin, bool required) {
  if (!node || node.IsNull()) {
    FATHOM_CHECK(!required, ConfigError, origin, ": missing '", key, "'");
    return 0.0;
  }
  try {
    return node.as<double>();
  } catch (const YAML::Exception&) {
    throw ConfigError(detail::concat(origin, ": '", key, "' must be a number, got '", node.Scalar(), "'"));
  }
}

/// A byte count or a count: a whole number that fits `T`, or ConfigError naming the file, line, key and value
/// (1e30 bytes of memory used to become -9223372036854775808).
template <typename T>
T whole(const YAML::Node& node, const std::string& key, const std::string& origin, bool required) {
  const double value = number(node, key, origin, required);
  const std::string where = node && !node.Mark().is_null()
                                ? detail::concat(origin, ":", node.Mark().line + 1, ": '", key, "'")
                                : detail::concat(origin, ": '", key, "'");
  return checkedNarrow<T>(value, where, T{0});  // counts and sizes: never negative (validateHardware says more)
}

LinkSpec link(const YAML::Node& node, const std::string& key, const std::string& origin) {
  FATHOM_CHECK(node && node.IsMap(), ConfigError, origin, ": missing '", key, "' (a map with bandwidth and latency)");
  return {number(node["bandwidth"], key + ".bandwidth", origin, true),
          number(node["latency"], key + ".latency", origin, true)};
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  FATHOM_CHECK(in.good(), ConfigError, "cannot read hardware file '", path.string(), "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool isPresetFile(const std::filesystem::path& p) {
  const auto ext = p.extension();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

std::vector<std::string> aliasesOf(const std::string& text) {
  std::vector<std::string> names;
  const YAML::Node root = YAML::Load(text);
  if (root["name"]) {
    names.push_back(root["name"].as<std::string>());
  }
  if (const YAML::Node aliases = root["aliases"]; aliases && aliases.IsSequence()) {
    for (const auto& a : aliases) {
      names.push_back(a.as<std::string>());
    }
  }
  return names;
}

DeviceKind deviceKind(const YAML::Node& node, const std::string& origin) {
  if (!node || node.IsNull()) {
    return DeviceKind::Gpu;
  }
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  if (text == "gpu") {
    return DeviceKind::Gpu;
  }
  FATHOM_CHECK(text == "cpu", ConfigError, origin, ": 'device' must be gpu or cpu, got '", text, "'");
  return DeviceKind::Cpu;
}

}  // namespace

std::string_view toString(DeviceKind kind) {
  return kind == DeviceKind::Cpu ? "cpu" : "gpu";
}

std::filesystem::path hardwareDir() {
  if (const char* env = std::getenv("FATHOM_HARDWARE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return FATHOM_HARDWARE_DIR_DEFAULT;
}

std::vector<std::string> hardwarePresetNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(hardwareDir(), ec)) {
    if (entry.is_regular_file() && isPresetFile(entry.path())) {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

void validateHardware(const HardwareSpec& hw) {
  const std::string& o = hw.source.empty() ? hw.name : hw.source;
  FATHOM_CHECK(!hw.name.empty(), ConfigError, o, ": 'name' must not be empty");
  // The name and description are printed and written into JSON (`fathom plan --json`, the Studio's saved requests).
  FATHOM_CHECK(isValidUtf8(hw.name), ConfigError, hw.source, ": 'name' is not UTF-8 text");
  FATHOM_CHECK(isValidUtf8(hw.description), ConfigError, o, ": 'description' is not UTF-8 text");
  FATHOM_CHECK(hw.memoryBytes > 0, ConfigError, o, ": memory_bytes must be > 0, got ", hw.memoryBytes);
  FATHOM_CHECK(hw.peak.fp32 > 0, ConfigError, o, ": peak_flops.fp32 must be > 0, got ", hw.peak.fp32);
  const double others[] = {hw.peak.tf32, hw.peak.fp16, hw.peak.bf16, hw.peak.fp8, hw.peak.int8};
  for (double v : others) {
    FATHOM_CHECK(v >= 0, ConfigError, o, ": peak_flops values must be >= 0, got ", v);
  }
  FATHOM_CHECK(hw.memoryBandwidth > 0, ConfigError, o, ": memory_bandwidth must be > 0, got ", hw.memoryBandwidth);
  FATHOM_CHECK(hw.gpusPerNode >= 1, ConfigError, o, ": gpus_per_node must be >= 1, got ", hw.gpusPerNode);
  FATHOM_CHECK(hw.intraNode.bandwidth > 0 && hw.interNode.bandwidth > 0, ConfigError, o,
               ": intra_node.bandwidth and inter_node.bandwidth must be > 0");
  FATHOM_CHECK(hw.intraNode.latency >= 0 && hw.interNode.latency >= 0, ConfigError, o, ": link latencies must be >= 0");
  FATHOM_CHECK(hw.hostMemoryBytes >= 0 && hw.hostToDeviceBandwidth >= 0 && hw.frameworkOverheadBytes >= 0, ConfigError,
               o, ": host_memory_bytes, host_to_device_bandwidth and framework_overhead_bytes must be >= 0");
}

HardwareSpec parseHardware(std::string_view text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw ConfigError(detail::concat(origin, ": not valid YAML/JSON: ", e.what()));
  }
  FATHOM_CHECK(root.IsMap(), ConfigError, origin, ": a hardware file must be a map");
  HardwareSpec hw;
  hw.source = origin;
  try {
    hw.name = root["name"] ? root["name"].as<std::string>() : std::string();
    hw.description = root["description"] ? root["description"].as<std::string>() : hw.name;
  } catch (const YAML::Exception&) {
    throw ConfigError(detail::concat(origin, ": 'name' and 'description' must be strings"));
  }
  hw.device = deviceKind(root["device"], origin);
  hw.memoryBytes = whole<std::int64_t>(root["memory_bytes"], "memory_bytes", origin, true);
  const YAML::Node peak = root["peak_flops"];
  FATHOM_CHECK(peak && peak.IsMap(), ConfigError, origin, ": missing 'peak_flops' (a map of dtype: FLOP/s)");
  hw.peak.fp32 = number(peak["fp32"], "peak_flops.fp32", origin, true);
  hw.peak.tf32 = number(peak["tf32"], "peak_flops.tf32", origin, false);
  hw.peak.fp16 = number(peak["fp16"], "peak_flops.fp16", origin, false);
  hw.peak.bf16 = number(peak["bf16"], "peak_flops.bf16", origin, false);
  hw.peak.fp8 = number(peak["fp8"], "peak_flops.fp8", origin, false);
  hw.peak.int8 = number(peak["int8"], "peak_flops.int8", origin, false);
  hw.memoryBandwidth = number(root["memory_bandwidth"], "memory_bandwidth", origin, true);
  hw.gpusPerNode = whole<int>(root["gpus_per_node"], "gpus_per_node", origin, true);
  hw.intraNode = link(root["intra_node"], "intra_node", origin);
  hw.interNode = link(root["inter_node"], "inter_node", origin);
  hw.hostMemoryBytes = whole<std::int64_t>(root["host_memory_bytes"], "host_memory_bytes", origin, false);
  hw.hostToDeviceBandwidth = number(root["host_to_device_bandwidth"], "host_to_device_bandwidth", origin, false);
  hw.frameworkOverheadBytes =
      whole<std::int64_t>(root["framework_overhead_bytes"], "framework_overhead_bytes", origin, false);
  if (const YAML::Node calibration = root["calibration"]; calibration && !calibration.IsNull()) {
    hw.calibration = calibration_yaml::parseCalibration(calibration, origin);
  }
  validateHardware(hw);
  return hw;
}

std::filesystem::path userHardwareDir() {
  return config::configHome() / "fathom" / "hardware";
}

std::vector<UserHardwareProfile> userHardwareProfiles() {
  std::vector<UserHardwareProfile> profiles;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(userHardwareDir(), ec)) {
    if (!entry.is_regular_file() || !isPresetFile(entry.path())) {
      continue;
    }
    UserHardwareProfile p{entry.path().stem().string(), entry.path(), {}, {}};
    try {
      const HardwareSpec hw = parseHardware(readFile(entry.path()), entry.path().string());
      p.measuredAt = hw.calibration ? hw.calibration->measuredAt : std::string();
    } catch (const Error& e) {
      p.error = e.what();
    }
    profiles.push_back(std::move(p));
  }
  std::sort(profiles.begin(), profiles.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return profiles;
}

HardwareSpec loadHardware(std::string_view nameOrPath) {
  const std::string arg(nameOrPath);
  FATHOM_CHECK(!arg.empty(), ConfigError, "hardware must name a preset or a file");
  const std::filesystem::path asPath(arg);
  if (arg.find('/') != std::string::npos || isPresetFile(asPath)) {
    return parseHardware(readFile(asPath), asPath.string());
  }
  const auto dir = hardwareDir();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || !isPresetFile(entry.path())) {
      continue;
    }
    const std::string text = readFile(entry.path());
    std::vector<std::string> names;
    try {
      names = aliasesOf(text);
    } catch (const YAML::Exception& e) {
      throw ConfigError(detail::concat(entry.path().string(), ": not a valid hardware file: ", e.what()));
    }
    if (entry.path().stem() == arg || std::find(names.begin(), names.end(), arg) != names.end()) {
      return parseHardware(text, entry.path().string());
    }
  }
  // The user's profiles come after the shipped presets: a shipped name always means the preset.
  const auto userDir = userHardwareDir();
  for (const char* ext : {".yaml", ".yml", ".json"}) {
    const auto file = userDir / (arg + ext);
    if (std::filesystem::is_regular_file(file, ec)) {
      return parseHardware(readFile(file), file.string());
    }
  }
  FATHOM_CHECK(arg != kThisMachineProfile, ConfigError, "no hardware profile '", arg, "' in ", userDir.string(),
               ": run `fathom calibrate` to measure this machine and write it");
  std::string known;
  for (const auto& n : hardwarePresetNames()) {
    known += (known.empty() ? "" : ", ") + n;
  }
  for (const auto& p : userHardwareProfiles()) {
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw ConfigError(detail::concat("unknown hardware '", arg, "' (presets in ", dir.string(), ": ",
                                   known.empty() ? "none found" : known, "; or pass a YAML/JSON file path)"));
}

std::string formatHardwareYaml(const HardwareSpec& hw) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << hw.name;
  out << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << hw.description;
  out << YAML::Key << "device" << YAML::Value << std::string(toString(hw.device));
  out << YAML::Key << "memory_bytes" << YAML::Value << hw.memoryBytes;
  out << YAML::Key << "peak_flops" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] :
       {std::pair{"fp32", hw.peak.fp32}, std::pair{"tf32", hw.peak.tf32}, std::pair{"fp16", hw.peak.fp16},
        std::pair{"bf16", hw.peak.bf16}, std::pair{"fp8", hw.peak.fp8}, std::pair{"int8", hw.peak.int8}}) {
    out << YAML::Key << key << YAML::Value << value;
  }
  out << YAML::EndMap;
  out << YAML::Key << "memory_bandwidth" << YAML::Value << hw.memoryBandwidth;
  out << YAML::Key << "gpus_per_node" << YAML::Value << hw.gpusPerNode;
  for (const auto& [key, link] : {std::pair{"intra_node", hw.intraNode}, std::pair{"inter_node", hw.interNode}}) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap << YAML::Key << "bandwidth" << YAML::Value
        << link.bandwidth << YAML::Key << "latency" << YAML::Value << link.latency << YAML::EndMap;
  }
  out << YAML::Key << "host_memory_bytes" << YAML::Value << hw.hostMemoryBytes;
  out << YAML::Key << "host_to_device_bandwidth" << YAML::Value << hw.hostToDeviceBandwidth;
  out << YAML::Key << "framework_overhead_bytes" << YAML::Value << hw.frameworkOverheadBytes;
  if (hw.calibration) {
    out << YAML::Key << "calibration" << YAML::Value;
    calibration_yaml::emitCalibration(out, *hw.calibration);
  }
  out << YAML::EndMap;
  FATHOM_ASSERT(out.good(), "cannot write hardware YAML: ", out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace fathom::plan
