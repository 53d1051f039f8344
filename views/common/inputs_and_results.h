// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

class QScrollArea;
class QWidget;

namespace fathom::views {

/// The planner pages' layout: `inputs` in a frameless scroll area on the left, as wide as they need (the wheel scrolls
/// them rather than editing a field in passing: WheelScrollGuard), `results` on the right taking the rest, both in a
/// splitter filling `page`. Returns the scroll area (object name `inputsName`), which a page may hide.
QScrollArea* layOutInputsAndResults(QWidget* page, QWidget* inputs, QWidget* results, const QString& inputsName);

}  // namespace fathom::views
