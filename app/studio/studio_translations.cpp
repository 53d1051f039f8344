// SPDX-License-Identifier: Apache-2.0
#include "studio_translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

using namespace Qt::StringLiterals;

namespace fathom::studio {

bool installTranslators(QCoreApplication& app, const QLocale& locale) {
  auto* qtTranslator = new QTranslator(&app);
  if (qtTranslator->load(locale, u"qtbase"_s, u"_"_s, QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
    QCoreApplication::installTranslator(qtTranslator);
  } else {
    delete qtTranslator;
  }
  auto* fathomTranslator = new QTranslator(&app);
  if (fathomTranslator->load(locale, u"fathom"_s, u"_"_s, u":/i18n"_s)) {
    QCoreApplication::installTranslator(fathomTranslator);
    return true;
  }
  // No catalogue for this locale (the C locale of a bare shell, a language Fathom is not translated to): the UI
  // stays English, with English plural forms ("1 run", "2 runs") rather than the sources' "run(s)".
  if (fathomTranslator->load(u"fathom_en"_s, u":/i18n"_s)) {
    QCoreApplication::installTranslator(fathomTranslator);
  } else {
    delete fathomTranslator;
  }
  return false;
}

}  // namespace fathom::studio
