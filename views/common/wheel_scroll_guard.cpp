// SPDX-License-Identifier: Apache-2.0
#include "common/wheel_scroll_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace fathom::views {

void WheelScrollGuard::install(QWidget* form) {
  auto* guard = new WheelScrollGuard(form);
  auto guardField = [guard](QWidget* field) {
    field->setFocusPolicy(Qt::StrongFocus);  // the wheel alone does not give a field the focus (Qt::WheelFocus)
    field->installEventFilter(guard);
  };
  for (QAbstractSpinBox* spin : form->findChildren<QAbstractSpinBox*>()) {
    guardField(spin);
  }
  for (QComboBox* combo : form->findChildren<QComboBox*>()) {
    guardField(combo);
  }
}

bool WheelScrollGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Wheel && !static_cast<QWidget*>(watched)->hasFocus()) {
    // Filtered but not accepted: QApplication passes the wheel on to the parents, up to the scroll area.
    event->ignore();
    return true;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace fathom::views
