// SPDX-License-Identifier: Apache-2.0
#include "environmentcontroller.h"
#include "mainwindow.h"
#include "studiotranslations.h"

#include <fathom/common/build_info.h>
#include <fathom/common/log.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QLoggingCategory>
#include <QScreen>
#include <QTimer>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcCore, "fathom.core", QtInfoMsg)

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(u"Fathom Studio"_s);
  QApplication::setOrganizationName(u"Fathom"_s);
  QApplication::setApplicationVersion(QString::fromStdString(fathom::buildInfo().version));
  QApplication::setWindowIcon(QIcon(u":/fathom/icons/fathom.svg"_s));  // needs the Qt SVG plugin; else none

  fathom::setLogSink([](fathom::LogLevel level, std::string_view message) {
    const QString text = QString::fromUtf8(message.data(), static_cast<qsizetype>(message.size()));
    switch (level) {
    case fathom::LogLevel::Debug: qCDebug(lcCore).noquote() << text; break;
    case fathom::LogLevel::Info: qCInfo(lcCore).noquote() << text; break;
    case fathom::LogLevel::Warning: qCWarning(lcCore).noquote() << text; break;
    case fathom::LogLevel::Error: qCCritical(lcCore).noquote() << text; break;
    }
  });

  QCommandLineParser parser;
  parser.setApplicationDescription(u"Fathom Studio: plan, launch and inspect distributed PyTorch training."_s);
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption localeOption(u"locale"_s, u"Use this UI locale (e.g. de_DE) instead of the system's."_s,
                                  u"name"_s);
  QCommandLineOption screenshotOption(u"screenshot"_s,
                                      u"Save a PNG of the main window once it has loaded, then quit."_s, u"file"_s);
  parser.addOption(localeOption);
  parser.addOption(screenshotOption);
  parser.process(app);

  const QLocale locale = parser.isSet(localeOption) ? QLocale(parser.value(localeOption)) : QLocale();
  QLocale::setDefault(locale);
  fathom::studio::installTranslators(app, locale);

  fathom::studio::MainWindow window;
  window.show();

  if (parser.isSet(screenshotOption)) {
    const QString file = parser.value(screenshotOption);
    auto grab = [&window, file] {
      // Grab what the window system shows (frame included when a window manager draws one).
      QScreen* screen = window.screen();
      QPixmap pixmap = screen != nullptr ? screen->grabWindow(window.winId()) : QPixmap();
      if (pixmap.isNull()) {
        pixmap = window.grab();
      }
      const bool ok = pixmap.save(file, "PNG");
      if (!ok) {
        qCritical("could not write screenshot to %s", qPrintable(file));
      }
      QApplication::exit(ok ? 0 : 1);
    };
    QObject::connect(window.environment(), &fathom::studio::EnvironmentController::reportReady, &window,
                     [grab] { QTimer::singleShot(300, grab); });
  }
  return QApplication::exec();
}
