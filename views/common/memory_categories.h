// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/memory_category.h>

#include <QColor>
#include <QString>

namespace fathom::views {

/// How the Studio shows a memory category (the vocabulary itself is core's, common/memory_category.h; charts stack
/// plan::kMemoryBreakdownFields' categories in that order).
/// Translated name ("Optimizer states").
QString categoryName(MemoryCategory category);
/// A colour per category, distinguishable for the common colour-vision deficiencies (Okabe–Ito palette).
QColor categoryColor(MemoryCategory category);

}  // namespace fathom::views
