// SPDX-License-Identifier: Apache-2.0
// Input as a user gives it, for the Studio's widget tests (the configuration wizard's pages).
#pragma once

#include <QAbstractButton>
#include <QSpinBox>
#include <QTest>

namespace fathom::test {

/// Types `value` into a spin box as a user would (select all, type; no Enter, which is the wizard's Next).
inline void typeInto(QSpinBox* spin, int value) {
  spin->setFocus();
  spin->selectAll();
  QTest::keyClicks(spin, QString::number(value));
  QCOMPARE(spin->value(), value);
}

/// Clicks a radio button or check box on its indicator (its centre may lie past the label, outside the hit area).
inline void click(QAbstractButton* button) {
  QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(8, button->height() / 2));
}

}  // namespace fathom::test
