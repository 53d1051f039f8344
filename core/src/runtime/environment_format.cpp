// SPDX-License-Identifier: Apache-2.0
// Text and JSON renderings of EnvironmentReport. The text follows `accelerate env`: a paste-ready list of
// "- key: value" lines, booleans as True/False, the default config indented below its heading.
#include <fathom/runtime/environment.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace fathom::runtime {
namespace {

const char* pyBool(bool value) {
  return value ? "True" : "False";
}

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f GB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line)) {
    out << prefix << line << '\n';
  }
  return out.str();
}

}  // namespace

std::string formatEnvironmentText(const EnvironmentReport& r) {
  std::ostringstream out;
  out << "Copy-and-paste the text below in your GitHub issue\n\n";
  out << "- `Fathom` version: " << r.build.version << " (git " << r.build.gitRevision << ", " << r.build.buildType
      << ", " << r.build.compiler << ")\n";
  out << "- Platform: " << r.system.platform;
  if (!r.system.osName.empty()) {
    out << " (" << r.system.osName << ")";
  }
  out << '\n';
  if (!r.executablePath.empty()) {
    out << "- `fathom` location: " << r.executablePath << '\n';
  }
  out << "- CPU: " << (r.system.cpuModel.empty() ? "unknown model" : r.system.cpuModel) << ", " << r.system.cpuCores
      << " cores\n";
  out << "- System RAM: " << gib(r.system.ramBytes) << '\n';
  out << "- LibTorch version (GPU?): " << r.libtorchVersion << " (" << pyBool(r.libtorchCuda) << ")\n";
  out << "- c10d Gloo available: " << pyBool(r.glooAvailable) << " (" << r.glooDetail << ")\n";
  out << "- c10d NCCL available: " << pyBool(r.ncclAvailable) << " (" << r.ncclDetail << ")\n";
  out << "- CUDA devices: " << r.cudaDeviceCount() << " (" << r.cuda.driverDetail << ")\n";
  for (const auto& d : r.cuda.devices) {
    out << "  - cuda:" << d.index << ": " << d.name << ", " << gib(d.totalMemoryBytes) << ", sm_"
        << d.computeCapabilityMajor << d.computeCapabilityMinor << '\n';
  }
  out << "- CUPTI available: " << pyBool(r.cuptiAvailable) << " (" << r.cuda.cuptiDetail << ")\n";
  out << "- CUDA code paths compiled: " << pyBool(r.build.cudaPathsCompiled) << '\n';
  out << "- Qt version: " << (r.qtVersion.empty() ? std::string("CLI-only build") : r.qtVersion + " (Fathom Studio)")
      << '\n';
  if (!r.relevantVariables.empty()) {
    out << "- Distributed environment:\n";
    for (const auto& [name, value] : r.relevantVariables) {
      out << "\t" << name << "=" << value << '\n';
    }
  }
  out << "- `Fathom` default config (" << r.defaultConfigPath.string() << "):\n";
  if (r.defaultConfigExists) {
    out << (r.defaultConfigContent.empty() ? std::string("\t(empty file)\n") : indent(r.defaultConfigContent, "\t"));
  } else {
    out << "\tNot found\n";
  }
  out << "- Hardware profiles (" << r.hardwareProfilesDir.string() << "):";
  if (r.hardwareProfiles.empty()) {
    out << " none (`fathom calibrate` measures this machine and writes this-machine.yaml)\n";
  } else {
    out << '\n';
    for (const auto& p : r.hardwareProfiles) {
      out << "\t" << p.name << ": "
          << (!p.error.empty()       ? "does not load: " + p.error
              : p.measuredAt.empty() ? std::string("not calibrated")
                                     : "measured at " + p.measuredAt)
          << '\n';
    }
  }
  return out.str();
}

std::string formatEnvironmentJson(const EnvironmentReport& r, int indentWidth) {
  using nlohmann::json;
  json profiles = json::array();
  for (const auto& p : r.hardwareProfiles) {
    profiles.push_back({{"name", p.name},
                        {"path", p.path.string()},
                        {"measured_at", p.measuredAt.empty() ? json(nullptr) : json(p.measuredAt)},
                        {"error", p.error.empty() ? json(nullptr) : json(p.error)}});
  }
  json devices = json::array();
  for (const auto& d : r.cuda.devices) {
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"total_memory_bytes", d.totalMemoryBytes},
                       {"compute_capability",
                        std::to_string(d.computeCapabilityMajor) + "." + std::to_string(d.computeCapabilityMinor)}});
  }
  json j = {
      {"fathom_version", r.build.version},
      {"git_revision", r.build.gitRevision},
      {"build_type", r.build.buildType},
      {"compiler", r.build.compiler},
      {"executable", r.executablePath},
      {"platform", r.system.platform},
      {"os", r.system.osName},
      {"hostname", r.system.hostname},
      {"cpu_model", r.system.cpuModel},
      {"cpu_cores", r.system.cpuCores},
      {"ram_bytes", r.system.ramBytes},
      {"libtorch_version", r.libtorchVersion},
      {"libtorch_cuda", r.libtorchCuda},
      {"gloo_available", r.glooAvailable},
      {"gloo_detail", r.glooDetail},
      {"nccl_available", r.ncclAvailable},
      {"nccl_in_libtorch", r.ncclInLibtorch},
      {"nccl_library", r.cuda.ncclLibrary.empty() ? json(nullptr) : json(r.cuda.ncclLibrary)},
      {"nccl_version", r.cuda.ncclVersion.empty() ? json(nullptr) : json(r.cuda.ncclVersion)},
      {"nccl_detail", r.ncclDetail},
      {"cuda_driver_version", r.cuda.driverLoaded ? json(r.cuda.driverVersion) : json(nullptr)},
      {"cuda_driver_detail", r.cuda.driverDetail},
      {"cuda_device_count", r.cudaDeviceCount()},
      {"cuda_devices", devices},
      {"cupti_available", r.cuptiAvailable},
      {"cupti_library", r.cuda.cuptiLibrary.empty() ? json(nullptr) : json(r.cuda.cuptiLibrary)},
      {"cupti_api_version", r.cuptiAvailable ? json(r.cuda.cuptiApiVersion) : json(nullptr)},
      {"cupti_detail", r.cuda.cuptiDetail},
      {"cuda_paths_compiled", r.build.cudaPathsCompiled},
      {"qt_version", r.qtVersion.empty() ? json(nullptr) : json(r.qtVersion)},
      {"default_config_path", r.defaultConfigPath.string()},
      {"default_config", r.defaultConfigExists ? json(r.defaultConfigContent) : json(nullptr)},
      {"hardware_profiles_dir", r.hardwareProfilesDir.string()},
      {"hardware_profiles", profiles},
      {"environment", r.relevantVariables},
  };
  return j.dump(indentWidth);
}

}  // namespace fathom::runtime
