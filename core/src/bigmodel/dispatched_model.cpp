// SPDX-License-Identifier: Apache-2.0
// Accelerate's dispatch_model (accelerate/big_modeling.py) on LibTorch: the checks of check_device_map, the main
// device and execution devices, then placement, disk offload and one set of hooks per unit (UnitScope), where
// Accelerate attaches an AlignDevicesHook to each module.
#include "fathom/bigmodel/dispatched_model.h"

#include "bigmodel/dispatch_unit_hooks.h"
#include "bigmodel/offloaded_tensor.h"

#include <fathom/bigmodel/device_map_edit.h>
#include <fathom/bigmodel/torch_module_tree.h>

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/io/safetensors.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <torch/cuda.h>

#include <algorithm>
#include <malloc.h>
#include <set>
#include <unordered_map>

namespace fathom::bigmodel {

struct DispatchedModel::State {
  std::vector<std::shared_ptr<OffloadedTensor>> offloaded;
};

namespace {

/// One tensor object of the model (a tied one has several names), where the map puts it.
struct TensorRecord {
  at::Tensor tensor;
  bool buffer = false;
  std::vector<std::string> names;    ///< qualified names, in pre-order
  std::vector<std::string> modules;  ///< the module registering each name
  std::optional<DeviceKey> device;   ///< from the most specific map entry of the first name
  std::vector<std::size_t> units;    ///< indexes into the unit list
  std::shared_ptr<OffloadedTensor> offloaded;
};

struct Unit {
  std::string module;
  const torch::nn::Module* object = nullptr;
  std::optional<c10::Device> execution;
  std::string decidedBy;  ///< the tensor that fixed `execution`, for messages
  std::vector<std::shared_ptr<OffloadedTensor>> offloaded;
  std::int64_t streamedBytes = 0;
};

std::string shown(const std::string& module) {
  return module.empty() ? std::string("(the model)") : detail::concat("'", terminalSafe(module), "'");
}

/// The dotted prefixes of `name` from the longest (itself) to "".
std::vector<std::string> prefixes(const std::string& name) {
  std::vector<std::string> out{name};
  for (auto dot = name.rfind('.'); dot != std::string::npos; dot = name.rfind('.', dot - 1)) {
    out.push_back(name.substr(0, dot));
    if (dot == 0) {
      break;
    }
  }
  if (!name.empty()) {
    out.emplace_back();
  }
  return out;
}

}  // namespace

DispatchedModel::DispatchedModel(std::shared_ptr<torch::nn::Module> model, const DeviceMap& map,
                                 DispatchOptions options)
    : m_model(std::move(model)), m_state(std::make_shared<State>()) {
  FATHOM_CHECK(m_model != nullptr, ConfigError, "dispatched model: no model");
  FATHOM_CHECK(!map.empty(), ConfigError, "dispatched model: the device map is empty");

  // ---- the model's modules and tensors -----------------------------------------------------------------------
  std::unordered_map<std::string, const torch::nn::Module*> modules;
  std::vector<std::string> moduleOrder;
  for (const auto& item : m_model->named_modules("", /*include_self=*/true)) {
    modules.emplace(item.key(), item.value().get());
    moduleOrder.push_back(item.key());
  }
  std::vector<TensorRecord> records;
  std::unordered_map<const c10::TensorImpl*, std::size_t> recordOf;
  for (const std::string& moduleName : moduleOrder) {
    const torch::nn::Module& m = *modules.at(moduleName);
    const auto add = [&](const std::string& local, const at::Tensor& t, bool buffer) {
      if (!t.defined()) {
        return;
      }
      const std::string name = moduleName.empty() ? local : moduleName + "." + local;
      const auto [it, fresh] = recordOf.emplace(t.unsafeGetTensorImpl(), records.size());
      if (fresh) {
        records.push_back({.tensor = t, .buffer = buffer});
      }
      records[it->second].names.push_back(name);
      records[it->second].modules.push_back(moduleName);
    };
    for (const auto& p : m.named_parameters(/*recurse=*/false)) {
      add(p.key(), p.value(), false);
    }
    for (const auto& b : m.named_buffers(/*recurse=*/false)) {
      add(b.key(), b.value(), true);
    }
  }

  // ---- the map against the model: names, coverage, ties (the check the Studio's editor applies too) ---------------
  m_tree = std::make_shared<const ModuleTree>(moduleTreeOf(*m_model));
  checkDeviceMap(*m_tree, map);
  m_map = map;
  m_unitClasses = options.unitClasses;

  // ---- usable devices ----------------------------------------------------------------------------------------------
  const auto cudaDevices = static_cast<int>(torch::cuda::device_count());
  std::unordered_map<std::string, DeviceKey> entries;
  std::optional<DeviceKey> firstGpu;
  bool anyDisk = false;
  for (const DeviceMapEntry& e : map) {
    FATHOM_CHECK(e.device.kind() != DeviceKey::Kind::Mps, ConfigError, "device map: ", shown(e.module),
                 " is mapped to mps, which LibTorch on Linux does not have");
    if (e.device.isGpu()) {
      FATHOM_CHECK(e.device.index() < cudaDevices, ConfigError, "device map: ", shown(e.module), " is mapped to GPU ",
                   e.device.index(), ", but LibTorch sees ", cudaDevices, " CUDA device", cudaDevices == 1 ? "" : "s",
                   cudaDevices == 0 ? " (a CPU-only LibTorch, or no GPU)" : "");
      if (!firstGpu) {
        firstGpu = e.device;
      }
    }
    anyDisk = anyDisk || e.device.kind() == DeviceKey::Kind::Disk;
    entries.emplace(e.module, e.device);
  }
  FATHOM_CHECK(
      !anyDisk || !options.offloadFolder.empty(), ConfigError,
      "device map: modules are mapped to disk but no offload folder was given (DispatchOptions::offloadFolder, "
      "--offload_folder)");
  // Accelerate: main_device is the first device of the map that is neither cpu nor disk; offloaded modules run there.
  m_mainDevice =
      firstGpu ? c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(firstGpu->index())) : c10::Device(c10::kCPU);
  const auto execution = [this](const DeviceKey& key) {
    return key.isGpu() ? c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(key.index())) : m_mainDevice;
  };
  const auto entryFor = [&entries](const std::string& name) -> std::optional<DeviceKey> {
    for (const std::string& prefix : prefixes(name)) {
      if (const auto it = entries.find(prefix); it != entries.end()) {
        return it->second;
      }
    }
    return std::nullopt;
  };

  // Where each tensor goes: the most specific entry of its first name (checkDeviceMap: every name is covered, and the
  // names of a tied tensor agree).
  for (TensorRecord& r : records) {
    r.device = entryFor(r.names.front());
    FATHOM_ASSERT(r.device.has_value(), "checkDeviceMap found every tensor placed");
  }

  // ---- units: the root and the unit classes; each tensor in its innermost unit(s) ---------------------------------
  std::vector<Unit> units;
  std::unordered_map<std::string, std::size_t> unitOf;
  std::set<std::string> matched;
  for (const std::string& name : moduleOrder) {
    const torch::nn::Module* m = modules.at(name);
    const bool isUnitClass =
        std::find(options.unitClasses.begin(), options.unitClasses.end(), m->name()) != options.unitClasses.end();
    if (name.empty() || isUnitClass) {
      if (isUnitClass) {
        matched.insert(m->name());
      }
      unitOf.emplace(name, units.size());
      units.push_back({.module = name, .object = m});
    }
  }
  for (const std::string& unitClass : options.unitClasses) {
    FATHOM_CHECK(matched.count(unitClass) > 0, ConfigError, "dispatched model: no module of the model has class '",
                 terminalSafe(unitClass), "' (DispatchOptions::unitClasses)");
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    TensorRecord& r = records[i];
    const c10::Device exec = execution(*r.device);
    for (std::size_t k = 0; k < r.names.size(); ++k) {
      std::size_t unit = 0;
      for (const std::string& prefix : prefixes(r.modules[k])) {
        if (const auto it = unitOf.find(prefix); it != unitOf.end()) {
          unit = it->second;
          break;
        }
      }
      if (std::find(r.units.begin(), r.units.end(), unit) == r.units.end()) {
        r.units.push_back(unit);
      }
      Unit& u = units[unit];
      if (!u.execution) {
        u.execution = exec;
        u.decidedBy = r.names[k];
      }
      FATHOM_CHECK(*u.execution == exec, ConfigError, "device map: '", terminalSafe(r.names[k]), "' computes on ",
                   exec.str(), " but '", terminalSafe(u.decidedBy), "' on ", u.execution->str(),
                   ", and both belong to the unit ", shown(u.module),
                   ": a unit computes on one device. Map them together, or make the module holding one of them a unit "
                   "(a class in DispatchOptions::unitClasses whose forward opens a parallel::UnitScope)");
    }
  }
  for (Unit& u : units) {
    if (!u.execution) {  // a unit with no tensor of its own computes where its map entry says
      const auto device = entryFor(u.module);
      u.execution = device ? execution(*device) : m_mainDevice;
    }
  }

  // ---- disk first: the only step that can fail on the outside world, before anything has moved -------------------
  const torch::NoGradGuard noGrad;
  std::shared_ptr<const io::MappedSafetensors> offloadFile;
  std::vector<std::pair<std::string, at::Tensor>> diskTensors;
  const auto streamed = [&options](const TensorRecord& r) { return !r.buffer || options.offloadBuffers; };
  for (const TensorRecord& r : records) {
    if (r.device->kind() == DeviceKey::Kind::Disk && streamed(r)) {
      diskTensors.emplace_back(r.names.front(), r.tensor.detach());
    }
  }
  if (!diskTensors.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.offloadFolder, ec);
    FATHOM_CHECK(!ec, StorageError, "dispatched model: cannot create the offload folder ", options.offloadFolder, ": ",
                 ec.message());
    m_offloadFile = options.offloadFolder / "offload.safetensors";
    io::writeSafetensors(m_offloadFile, diskTensors, {{"format", "pt"}, {"written_by", "fathom dispatch"}});
    diskTensors.clear();
    offloadFile = std::make_shared<io::MappedSafetensors>(m_offloadFile);
  }

  // ---- placement -------------------------------------------------------------------------------------------------
  for (TensorRecord& r : records) {
    const std::string key = r.device->toString();
    m_placedBytes[key] += static_cast<std::int64_t>(r.tensor.numel()) * r.tensor.element_size();
    const c10::Device exec = execution(*r.device);
    if (r.device->isGpu() || !streamed(r)) {
      if (r.tensor.device() != exec) {
        r.tensor.set_data(r.tensor.to(exec));
      }
      continue;
    }
    if (r.device->kind() == DeviceKey::Kind::Disk) {
      r.offloaded = OffloadedTensor::onDisk(r.names.front(), r.tensor, offloadFile, r.names.front(), exec);
    } else if (exec.is_cpu()) {
      continue;  // "cpu" computing on the CPU: nothing moves
    } else {
      at::Tensor home = r.tensor.detach().to(at::kCPU);
      home = home.is_pinned() ? home : home.pin_memory();
      r.offloaded = OffloadedTensor::inHostMemory(r.names.front(), r.tensor, home, exec);
    }
    m_state->offloaded.push_back(r.offloaded);
    for (const std::size_t unit : r.units) {
      units[unit].offloaded.push_back(r.offloaded);
      units[unit].streamedBytes += r.offloaded->bytes();
    }
  }

  if (!m_state->offloaded.empty()) {
    // The offloaded tensors' former memory is free but may sit in glibc's heap, which returns memory to the system
    // only from its top; big-model users dispatch to get that memory back now (RSS), so hand it back.
    ::malloc_trim(0);
  }

  for (std::size_t i = 0; i < units.size(); ++i) {
    const Unit& u = units[i];
    m_units.push_back({.module = u.module, .executionDevice = *u.execution, .streamedBytes = u.streamedBytes});
    parallel::registerUnitHooks(*u.object,
                                std::make_shared<DispatchUnitHooks>(u.module, *u.execution, i == 0, u.offloaded));
    m_hooked.push_back(u.object);
  }
}

DispatchRecord DispatchedModel::record(MaxMemory maxMemory, std::string modelName) const {
  return {*m_tree, m_map, std::move(maxMemory), m_unitClasses, std::move(modelName)};
}

DispatchedModel::~DispatchedModel() {
  for (const torch::nn::Module* m : m_hooked) {
    parallel::unregisterUnitHooks(*m);
  }
  try {
    for (const auto& t : m_state->offloaded) {
      t->restoreToCpu();
    }
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw; the model is then unusable, as before
  }
  if (!m_offloadFile.empty()) {
    std::error_code ec;
    std::filesystem::remove(m_offloadFile, ec);
  }
}

}  // namespace fathom::bigmodel
