// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLocale>

class QCoreApplication;

namespace fathom::studio {

/// Installs Qt's own translations (qtbase) and Fathom's (embedded under :/i18n) for `locale` on `app`.
/// Returns whether Fathom's catalogue for that locale was found. Without one the UI is English and the English
/// plural forms (fathom_en) are installed instead.
bool installTranslators(QCoreApplication& app, const QLocale& locale);

}  // namespace fathom::studio
