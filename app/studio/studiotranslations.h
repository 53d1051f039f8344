// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLocale>

class QCoreApplication;

namespace fathom::studio {

/// Installs Qt's own translations (qtbase) and Fathom's (embedded under :/i18n) for `locale` on `app`.
/// Returns whether Fathom's catalogue for that locale was found; English needs none and returns false.
bool installTranslators(QCoreApplication& app, const QLocale& locale);

}  // namespace fathom::studio
