// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>

class QWidget;

namespace fathom::views {

/// Keeps the mouse wheel for scrolling in a form that scrolls (a QScrollArea full of fields): over a spin box or
/// combo box that does not have the keyboard focus, the wheel scrolls the form instead of changing the field's value.
/// A field takes the wheel once it has the focus (clicked or tabbed into). Without it, the wheel over such a form
/// changes whatever value lies under the pointer, and a form made mostly of fields cannot be wheel-scrolled at all.
class WheelScrollGuard : public QObject {
  Q_OBJECT

public:
  /// Guards every spin box and combo box below `form` at the time of the call; the guard is a child of `form`.
  static void install(QWidget* form);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  explicit WheelScrollGuard(QObject* parent) : QObject(parent) {}
};

}  // namespace fathom::views
