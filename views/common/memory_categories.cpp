// SPDX-License-Identifier: Apache-2.0
#include "common/memory_categories.h"

#include <QCoreApplication>

namespace fathom::views {
namespace {

struct MemoryText {
  Q_DECLARE_TR_FUNCTIONS(MemoryCategory)
};

}  // namespace

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
  case MemoryCategory::Temporaries: return MemoryText::tr("Temporaries");
  case MemoryCategory::Inputs: return MemoryText::tr("Inputs");
  case MemoryCategory::Other: return MemoryText::tr("Other");
  }
  return QString::fromUtf8(toString(category).data());
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
  case MemoryCategory::Temporaries: return {0xbb, 0xbb, 0xbb};
  case MemoryCategory::Inputs: return {0x00, 0x00, 0x00};
  case MemoryCategory::Other: return {0xdd, 0xdd, 0xdd};
  }
  return Qt::gray;
}

}  // namespace fathom::views
