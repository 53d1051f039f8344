// SPDX-License-Identifier: Apache-2.0
#include "studiotranslations.h"

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
  delete fathomTranslator;
  return false;
}

}  // namespace fathom::studio
