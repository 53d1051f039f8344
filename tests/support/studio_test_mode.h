// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every Studio widget test does first and last. The windows save their layout, recent workspaces and
// language in QSettings: test mode moves those settings to a throwaway location, starting from a clean slate and
// clearing it at the end leaves nothing for the next test executable, and an English default locale makes the
// formatted numbers the tests compare independent of the machine's locale.
#include <QLocale>
#include <QSettings>
#include <QStandardPaths>

namespace fathom::test {

inline void enterStudioTestMode() {
  QStandardPaths::setTestModeEnabled(true);
  QSettings().clear();
  QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

inline void leaveStudioTestMode() {
  QSettings().clear();
}

}  // namespace fathom::test
