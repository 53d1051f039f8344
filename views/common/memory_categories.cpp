// SPDX-License-Identifier: Apache-2.0
#include "common/memory_categories.h"

#include <QCoreApplication>

namespace fathom::views {
namespace {

struct MemoryText {
  Q_DECLARE_TR_FUNCTIONS(MemoryCategory)
};

}  // namespace

std::array<MemoryCategory, kMemoryCategoryCount> memoryCategories() {
  return {MemoryCategory::Parameters,    MemoryCategory::Gradients,        MemoryCategory::OptimizerStates,
          MemoryCategory::MasterWeights, MemoryCategory::Activations,      MemoryCategory::GatheredParameters,
          MemoryCategory::CommBuffers,   MemoryCategory::FrameworkOverhead};
}

double bytesOf(const plan::MemoryBreakdown& m, MemoryCategory category) {
  switch (category) {
  case MemoryCategory::Parameters: return m.parameters;
  case MemoryCategory::Gradients: return m.gradients;
  case MemoryCategory::OptimizerStates: return m.optimizerStates;
  case MemoryCategory::MasterWeights: return m.masterWeights;
  case MemoryCategory::Activations: return m.activations;
  case MemoryCategory::GatheredParameters: return m.gatheredParameters;
  case MemoryCategory::CommBuffers: return m.commBuffers;
  case MemoryCategory::FrameworkOverhead: return m.frameworkOverhead;
  }
  return 0.0;
}

QString categoryName(MemoryCategory category) {
  switch (category) {
  case MemoryCategory::Parameters: return MemoryText::tr("Parameters");
  case MemoryCategory::Gradients: return MemoryText::tr("Gradients");
  case MemoryCategory::OptimizerStates: return MemoryText::tr("Optimizer states");
  case MemoryCategory::MasterWeights: return MemoryText::tr("Master weights");
  case MemoryCategory::Activations: return MemoryText::tr("Activations");
  case MemoryCategory::GatheredParameters: return MemoryText::tr("Gathered parameters");
  case MemoryCategory::CommBuffers: return MemoryText::tr("Communication buffers");
  case MemoryCategory::FrameworkOverhead: return MemoryText::tr("Framework overhead");
  }
  return {};
}

const char* explanationKey(MemoryCategory category) {
  switch (category) {
  case MemoryCategory::Parameters: return "memory.parameters";
  case MemoryCategory::Gradients: return "memory.gradients";
  case MemoryCategory::OptimizerStates: return "memory.optimizer_states";
  case MemoryCategory::MasterWeights: return "memory.master_weights";
  case MemoryCategory::Activations: return "memory.activations";
  case MemoryCategory::GatheredParameters: return "memory.gathered_parameters";
  case MemoryCategory::CommBuffers: return "memory.comm_buffers";
  case MemoryCategory::FrameworkOverhead: return "memory.framework_overhead";
  }
  return "";
}

QColor categoryColor(MemoryCategory category) {
  switch (category) {
  case MemoryCategory::Parameters: return {0x00, 0x72, 0xb2};
  case MemoryCategory::Gradients: return {0xe6, 0x9f, 0x00};
  case MemoryCategory::OptimizerStates: return {0x00, 0x9e, 0x73};
  case MemoryCategory::MasterWeights: return {0x56, 0xb4, 0xe9};
  case MemoryCategory::Activations: return {0xd5, 0x5e, 0x00};
  case MemoryCategory::GatheredParameters: return {0xcc, 0x79, 0xa7};
  case MemoryCategory::CommBuffers: return {0xf0, 0xe4, 0x42};
  case MemoryCategory::FrameworkOverhead: return {0x99, 0x99, 0x99};
  }
  return Qt::gray;
}

}  // namespace fathom::views
