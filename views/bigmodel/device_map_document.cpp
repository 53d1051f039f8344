// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/device_map_document.h"

#include "bigmodel/device_palette.h"

#include <fathom/bigmodel/device_load.h>
#include <fathom/bigmodel/device_map_edit.h>
#include <fathom/bigmodel/device_map_json.h>
#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace fathom::views {

namespace bm = bigmodel;

namespace {

/// Whether `name` is `holder` or lies under it ("" holds everything): a move of `holder` replaces the moves of these.
bool holds(const std::string& holder, const std::string& name) {
  return holder.empty() || name == holder || name.starts_with(holder + ".");
}

}  // namespace

DeviceMapDocument::DeviceMapDocument(QObject* parent) : QObject(parent) {
  m_options.maxMemory = {{bm::DeviceKey::cpu(), 0}};
}

void DeviceMapDocument::setModel(const LoadedModelTree& model) {
  m_model = model;
  m_options.noSplitModuleClasses = model.noSplitClasses;
  m_moves.clear();
  m_moveError.clear();
  emit modelChanged();
  replan();
}

void DeviceMapDocument::setStrategy(bm::DeviceMapStrategy strategy) {
  if (strategy != m_strategy) {
    m_strategy = strategy;
    replan();
  }
}

void DeviceMapDocument::setMaxMemory(const bm::MaxMemory& maxMemory) {
  if (maxMemory != m_options.maxMemory) {
    m_options.maxMemory = maxMemory;
    replan();
  }
}

void DeviceMapDocument::setDtype(std::optional<bm::Dtype> dtype) {
  if (dtype != m_options.dtype) {
    m_options.dtype = dtype;
    replan();
  }
}

void DeviceMapDocument::setNoSplitClasses(const std::vector<std::string>& classes) {
  if (classes != m_options.noSplitModuleClasses) {
    m_options.noSplitModuleClasses = classes;
    replan();
  }
}

bool DeviceMapDocument::isMoved(const std::string& name) const {
  return bm::hasEntry(m_moves, name);
}

bool DeviceMapDocument::moveModule(const std::string& name, const bm::DeviceKey& device) {
  m_moveError.clear();
  const std::vector<bm::DeviceKey> usable = usableDevices();
  if (!hasPlan()) {
    m_moveError = tr("There is no device map to change.");
  } else if (std::find(usable.begin(), usable.end(), device) == usable.end()) {
    m_moveError = tr("%1 is not one of the devices.").arg(deviceLabel(device));
  } else {
    try {
      m_map = bm::moveToDevice(*m_model.tree, m_map, name, device);
    } catch (const Error& e) {
      m_moveError = QString::fromStdString(e.what());
    }
  }
  if (!m_moveError.isEmpty()) {
    emit moveRefused(m_moveError);
    return false;
  }
  std::erase_if(m_moves, [&name](const bm::DeviceMapEntry& e) { return holds(name, e.module); });
  m_moves.push_back({name, device});
  m_loads = bm::deviceLoads(*m_model.tree, m_map, m_options);
  emit planChanged();
  return true;
}

void DeviceMapDocument::clearMoves() {
  m_moveError.clear();
  if (!m_moves.empty()) {
    m_moves.clear();
    replan();
  }
}

bm::DeviceLoad DeviceMapDocument::loadOf(const bm::DeviceKey& device) const {
  for (const bm::DeviceLoad& load : m_loads.devices) {
    if (load.device == device) {
      return load;
    }
  }
  return {.device = device};
}

std::vector<bm::DeviceKey> DeviceMapDocument::devices() const {
  return usableDevices();
}

std::optional<bm::ByteCount> DeviceMapDocument::limitOf(const bm::DeviceKey& device) const {
  return bm::limitOf(m_options.maxMemory, device);
}

std::vector<bm::DeviceKey> DeviceMapDocument::devicesOf(const std::string& name) const {
  return bm::devicesOf(m_map, name);
}

std::vector<bm::DeviceKey> DeviceMapDocument::usableDevices() const {
  std::vector<bm::DeviceKey> out;
  for (const bm::MemoryLimit& limit : m_options.maxMemory) {
    out.push_back(limit.device);
  }
  std::sort(out.begin(), out.end());
  if (std::find(out.begin(), out.end(), bm::DeviceKey::disk()) == out.end()) {
    out.push_back(bm::DeviceKey::disk());  // infer_auto_device_map always adds it
  }
  return out;
}

void DeviceMapDocument::replan() {
  m_planned.reset();
  m_gain.reset();
  m_map.clear();
  m_loads = {};
  m_sizes = {};
  m_planError.clear();
  m_dropped.clear();
  if (!hasModel()) {
    emit planChanged();
    return;
  }
  const bm::ModuleTree& tree = *m_model.tree;
  try {
    m_sizes = bm::computeModuleSizes(tree, m_options.dtype, m_options.specialDtypes);
    m_planned = bm::planDeviceMap(tree, m_strategy, m_options);
  } catch (const Error& e) {
    m_planError = QString::fromStdString(e.what());
    emit planChanged();
    return;
  }
  if (m_strategy == bm::DeviceMapStrategy::Optimal) {
    try {
      m_gain = bm::strategyGain(*m_planned, bm::planDeviceMap(tree, bm::DeviceMapStrategy::Balanced, m_options));
    } catch (const Error&) {
      // balanced refuses these inputs: optimal has no rival to be compared with
    }
  }
  m_map = m_planned->result.deviceMap;
  const std::vector<bm::DeviceKey> usable = usableDevices();
  bm::DeviceMap kept;
  for (const bm::DeviceMapEntry& move : m_moves) {
    if (std::find(usable.begin(), usable.end(), move.device) == usable.end()) {
      m_dropped << tr("%1 is no longer moved to %2: the device is gone.")
                       .arg(move.module.empty() ? tr("The model") : QString::fromStdString(move.module),
                            deviceLabel(move.device));
      continue;
    }
    try {
      m_map = bm::moveToDevice(tree, m_map, move.module, move.device);
      kept.push_back(move);
    } catch (const Error& e) {
      m_dropped << QString::fromStdString(e.what());
    }
  }
  m_moves = std::move(kept);
  m_loads = bm::deviceLoads(tree, m_map, m_options);
  emit planChanged();
}

bool DeviceMapDocument::exportJson(const QString& path, QString* error) const {
  if (!hasPlan()) {
    *error = tr("There is no device map to export.");
    return false;
  }
  try {
    AtomicFile::writeWhole(std::filesystem::path(path.toStdString()), bm::toHfJson(m_map).dump(2) + "\n",
                           {.what = "device map"});
  } catch (const Error& e) {
    *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

}  // namespace fathom::views
