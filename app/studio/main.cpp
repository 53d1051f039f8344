// SPDX-License-Identifier: Apache-2.0
#include "demo_builder.h"
#include "environment_controller.h"
#include "main_window.h"
#include "screenshot_director.h"
#include "studio_settings.h"
#include "studio_translations.h"
#include "workspace_controller.h"

#include <fathom/common/build_info.h>
#include <fathom/common/log.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QLoggingCategory>
#include <QTextStream>
#include <QTimer>

#include <memory>
#include <string_view>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcCore, "fathom.core", QtInfoMsg)

namespace {

/// `--create-demo DIR`: builds the demo workspace without a window (the README's main command without a display)
/// and prints each stage.
int createDemoHeadless(const QString& directory) {
  QTextStream out(stdout);
  const QString workspace = fathom::studio::DemoBuilder::workspacePath(directory);
  if (fathom::studio::DemoBuilder::isComplete(workspace)) {
    out << QCoreApplication::translate("main", "Demo workspace ready: %1").arg(QDir::toNativeSeparators(workspace))
        << Qt::endl;
    return 0;
  }
  fathom::studio::DemoBuilder builder;
  QObject::connect(&builder, &fathom::studio::DemoBuilder::progress, [&out](const QString& stage, int percent) {
    out << u"[%1%] %2"_s.arg(percent, 3).arg(stage) << Qt::endl;
  });
  QObject::connect(&builder, &fathom::studio::DemoBuilder::finished, [&out](const QString& path) {
    out << QCoreApplication::translate("main", "Demo workspace ready: %1").arg(QDir::toNativeSeparators(path))
        << Qt::endl;
    QCoreApplication::exit(0);
  });
  QObject::connect(&builder, &fathom::studio::DemoBuilder::failed, [](const QString& message, const QString& detail) {
    QTextStream err(stderr);
    err << message << Qt::endl << detail << Qt::endl;
    QCoreApplication::exit(1);
  });
  QTimer::singleShot(0, &builder, [&builder, directory] { builder.start(directory); });
  return QCoreApplication::exec();
}

/// `--create-demo` needs no display: it runs on a QCoreApplication.
bool headless(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--create-demo" || std::string_view(argv[i]).rfind("--create-demo=", 0) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::unique_ptr<QCoreApplication> application;
  if (headless(argc, argv)) {
    application = std::make_unique<QCoreApplication>(argc, argv);
  } else {
    application = std::make_unique<QApplication>(argc, argv);
    QApplication::setWindowIcon(QIcon(u":/fathom/icons/fathom.svg"_s));  // needs the Qt SVG plugin; else none
  }
  QCoreApplication& app = *application;
  QCoreApplication::setApplicationName(u"Fathom Studio"_s);
  QCoreApplication::setOrganizationName(u"Fathom"_s);
  QCoreApplication::setApplicationVersion(QString::fromStdString(fathom::buildInfo().version));

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
  QCommandLineOption localeOption(u"locale"_s, u"Use this UI locale (e.g. de_DE) instead of the settings'."_s,
                                  u"name"_s);
  QCommandLineOption workspaceOption(u"workspace"_s, u"Open this workspace (fathom.sqlite)."_s, u"file"_s);
  QCommandLineOption demoOption(u"demo"_s, u"Open the demo workspace, building it first when it is missing."_s);
  QCommandLineOption demoDirOption(u"demo-dir"_s, u"Folder of the demo workspace (default: the app data folder)."_s,
                                   u"dir"_s);
  QCommandLineOption createDemoOption(
      u"create-demo"_s,
      u"Build the demo workspace in this folder without a window (unless it is complete), then exit."_s, u"dir"_s);
  QCommandLineOption configOption(u"config"_s, u"Open this configuration file in the wizard."_s, u"file"_s);
  QCommandLineOption showOption(u"show"_s,
                                u"Open this view first: main, planner[:TAB], run:ID, wizard:PAGE (0-6), settings."_s,
                                u"target"_s, u"main"_s);
  QCommandLineOption screenshotOption(u"screenshot"_s,
                                      u"Save a PNG of the --show target once it has loaded, then quit."_s, u"file"_s);
  QCommandLineOption sizeOption(u"size"_s, u"Main window size, WIDTHxHEIGHT (screenshots)."_s, u"size"_s);
  for (const auto* o : {&localeOption, &workspaceOption, &demoOption, &demoDirOption, &createDemoOption, &configOption,
                        &showOption, &screenshotOption, &sizeOption}) {
    parser.addOption(*o);
  }
  parser.process(app);

  const QString language = fathom::studio::settings::language();
  const QLocale locale = parser.isSet(localeOption) ? QLocale(parser.value(localeOption))
                         : language.isEmpty()       ? QLocale()
                                                    : QLocale(language);
  QLocale::setDefault(locale);
  fathom::studio::installTranslators(app, locale);

  if (parser.isSet(createDemoOption)) {
    return createDemoHeadless(parser.value(createDemoOption));
  }

  fathom::studio::MainWindow window;
  if (parser.isSet(sizeOption)) {
    const QStringList wh = parser.value(sizeOption).split(u'x');
    if (wh.size() == 2) {
      window.resize(wh[0].toInt(), wh[1].toInt());
    }
  }
  window.show();

  bool openingWorkspace = true;
  if (parser.isSet(demoOption)) {
    window.openDemo(parser.value(demoDirOption));
  } else if (parser.isSet(workspaceOption)) {
    window.openWorkspace(parser.value(workspaceOption));
  } else if (const QString last = fathom::studio::settings::lastWorkspace();
             !parser.isSet(screenshotOption) && !last.isEmpty() && QFileInfo::exists(last)) {
    window.openWorkspace(last);
  } else {
    openingWorkspace = false;
  }
  if (parser.isSet(configOption)) {
    window.openConfiguration(parser.value(configOption));
  }

  if (parser.isSet(screenshotOption)) {
    auto* director = new fathom::studio::ScreenshotDirector(&window, parser.value(showOption),
                                                            parser.value(screenshotOption), openingWorkspace);
    if (!director->start()) {
      qCritical("unknown --show target %s", qPrintable(parser.value(showOption)));
      return 2;
    }
  } else if (parser.isSet(showOption)) {
    const QString show = parser.value(showOption);
    if (show.startsWith(u"planner"_s)) {
      window.showPlanner();
    } else if (show.startsWith(u"wizard"_s)) {
      window.newConfiguration();
    } else if (show.startsWith(u"run:"_s)) {
      QObject::connect(window.workspace(), &fathom::studio::WorkspaceController::opened, &window,
                       [&window, show] { window.openRun(show.mid(4).toLongLong()); });
    }
  }
  return QApplication::exec();
}
