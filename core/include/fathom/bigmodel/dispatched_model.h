// SPDX-License-Identifier: Apache-2.0
// Accelerate's dispatch_model for LibTorch modules: each module where its device map says, weights of "cpu" and
// "disk" modules streamed to the execution device for their forward and released after (AlignDevicesHook with
// offload), inputs moved to where each unit computes. docs/bigmodel.md, "Dispatch".
#pragma once

#include <fathom/bigmodel/device_map.h>
#include <fathom/bigmodel/dispatch_record.h>

#include <c10/core/Device.h>
#include <torch/nn/module.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fathom::bigmodel {

struct DispatchOptions {
  /// Class names (torch::nn::Module::name()) of the modules, besides the root, whose forward opens a
  /// parallel::UnitScope: where weights are loaded and released and inputs moved (LibTorch modules have no forward
  /// hooks). A built-in model's is its repeatedBlockType(). Every name must match a module.
  std::vector<std::string> unitClasses;
  /// Where the weights of "disk" modules are written (`offload.safetensors`, created; the folder too). Required
  /// when the map names disk; the file is removed when the DispatchedModel goes.
  std::filesystem::path offloadFolder;
  /// Accelerate's offload_buffers: false moves the buffers of "cpu" and "disk" modules to the execution device for
  /// good; true streams them with the weights.
  bool offloadBuffers = false;
};

/// Where one unit computes and what it holds, for reports.
struct DispatchedUnit {
  std::string module;  ///< its dotted name; "" for the model
  c10::Device executionDevice = c10::Device(c10::kCPU);
  std::int64_t streamedBytes = 0;  ///< bytes of "cpu" and "disk" tensors it loads for each forward
};

/// A model dispatched per a device map. While it lives, every forward of the model runs as the map says:
/// - a module mapped to GPU i has its tensors on cuda:i for good;
/// - a module mapped to "cpu" computes on the main device (the first GPU the map names, else the CPU): with a GPU,
///   its tensors stay in (pinned) host memory and are copied to the GPU for each forward of their unit;
/// - a module mapped to "disk" has its tensors written to DispatchOptions::offloadFolder and memory-mapped; each
///   forward of its unit reads them (on the CPU in place, without a copy), then drops their pages;
/// - each tensor entering a unit (UnitScope::align, callUnit's arguments) moves to the unit's device, and the model's
///   output to the device of its input (Accelerate's io_same_device).
///
/// Units (the root and DispatchOptions::unitClasses) are what moves: a tensor belongs to the innermost unit holding
/// it, and all tensors of one unit compute on one device (ConfigError naming both modules otherwise: map them
/// together, or make the module a unit). A tied tensor is one tensor on one device; its names must agree.
///
/// Offloaded ("cpu" with a GPU, "disk") weights serve inference: a forward that needs them with autograd enabled
/// throws ConfigError (run it under torch::NoGradGuard), as their memory is released when the unit ends.
///
/// Checked before anything moves (ConfigError naming the entry or tensor): checkDeviceMap on the model's tree
/// (device_map_edit.h: every entry names a module or tensor, every parameter and buffer is placed by its most specific
/// entry, tied names agree), and here: GPUs exist, "mps" is refused,
/// "disk" has a folder, every unit class matches a module. The destructor unregisters the hooks and brings every
/// offloaded tensor back to the CPU (GPU tensors stay), so the model stays usable undispatched.
class DispatchedModel {
public:
  DispatchedModel(std::shared_ptr<torch::nn::Module> model, const DeviceMap& map, DispatchOptions options = {});
  ~DispatchedModel();
  DispatchedModel(const DispatchedModel&) = delete;
  DispatchedModel& operator=(const DispatchedModel&) = delete;

  /// The device "cpu" and "disk" modules compute on.
  c10::Device mainDevice() const { return m_mainDevice; }
  /// The units in pre-order, the root first.
  const std::vector<DispatchedUnit>& units() const { return m_units; }
  /// Bytes of tensor data by where the map put them: "0", "1", ... (resident on that GPU), "cpu", "disk" (each
  /// tied tensor once).
  const std::map<std::string, std::int64_t>& placedBytes() const { return m_placedBytes; }
  /// The offload file, empty when nothing went to disk.
  const std::filesystem::path& offloadFile() const { return m_offloadFile; }
  /// What this dispatch is, for the run's record (Accelerator::recordDeviceMap, SqliteTracker::deviceMap): the
  /// model's tree, the map, the unit classes as no-split classes, and `maxMemory` and `modelName` as the caller
  /// knows them.
  DispatchRecord record(MaxMemory maxMemory = {}, std::string modelName = {}) const;

  struct State;  ///< the units' shared state (dispatched_model.cpp)

private:
  std::shared_ptr<torch::nn::Module> m_model;
  std::shared_ptr<const ModuleTree> m_tree;  ///< the model's tree at dispatch, the one the map was checked on
  DeviceMap m_map;
  std::vector<std::string> m_unitClasses;
  c10::Device m_mainDevice = c10::Device(c10::kCPU);
  std::vector<DispatchedUnit> m_units;
  std::map<std::string, std::int64_t> m_placedBytes;
  std::filesystem::path m_offloadFile;
  std::vector<const torch::nn::Module*> m_hooked;
  std::shared_ptr<State> m_state;
};

}  // namespace fathom::bigmodel
