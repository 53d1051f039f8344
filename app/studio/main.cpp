// SPDX-License-Identifier: Apache-2.0
#include "demo_builder.h"
#include "environment_controller.h"
#include "main_window.h"
#include "open_file.h"
#include "planner/what_if_view.h"
#include "screenshot_director.h"
#include "studio_settings.h"
#include "studio_translations.h"
#include "timeline_start.h"
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

#include <csignal>
#include <memory>
#include <optional>
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

/// The Studio's command line. Built before any application object exists, so main() can decide whether this
/// start needs a display at all.
struct CommandLine {
  QCommandLineParser parser;
  QCommandLineOption help = parser.addHelpOption();
  QCommandLineOption version = parser.addVersionOption();
  QCommandLineOption locale{u"locale"_s, u"Use this UI locale (e.g. de_DE) instead of the settings'."_s, u"name"_s};
  QCommandLineOption workspace{u"workspace"_s, u"Open this workspace (fathom.sqlite)."_s, u"file"_s};
  QCommandLineOption demo{u"demo"_s, u"Open the demo workspace, building it first when it is missing."_s};
  QCommandLineOption demoDir{u"demo-dir"_s, u"Folder of the demo workspace (default: the app data folder)."_s,
                             u"dir"_s};
  QCommandLineOption createDemo{
      u"create-demo"_s,
      u"Build the demo workspace in this folder without a window (unless it is complete), then exit."_s, u"dir"_s};
  QCommandLineOption config{u"config"_s, u"Open this configuration file in the wizard."_s, u"file"_s};
  QCommandLineOption open{u"open"_s,
                          u"Open this trace (.json, .json.gz, .pt.trace.json) in a timeline tab (or a workspace, "
                          u"like FILE)."_s,
                          u"trace"_s};
  QCommandLineOption plan{u"plan"_s, u"Show this plan (the output of fathom plan --json) on the --open trace."_s,
                          u"file"_s};
  QCommandLineOption range{
      u"range"_s,
      u"Show this range of the first trace: FROM,TO in microseconds on the trace's clock (as fathom "
      u"trace summary --from/--to) or step:N (ProfilerStep#N)."_s,
      u"range"_s};
  QCommandLineOption select{u"select"_s,
                            u"Select the first slice of the first trace whose name matches this regex (its details, "
                            u"flows and kernels)."_s,
                            u"regex"_s};
  QCommandLineOption area{u"area"_s,
                          u"Select an area of the first trace: FROM,TO or step:N, then optionally ,RANK (that rank's "
                          u"lanes; all lanes without)."_s,
                          u"range"_s};
  QCommandLineOption show{
      u"show"_s,
      u"Open this view first: main, planner[:TAB] (TAB: 0-4, or device-map), run:ID[:TAB] (TAB: 0-7, timeline, or device-map), compare:ID,ID[,...], wizard:PAGE (0-6), settings."_s,
      u"target"_s, u"main"_s};
  QCommandLineOption screenshot{u"screenshot"_s, u"Save a PNG of the --show target once it has loaded, then quit."_s,
                                u"file"_s};
  QCommandLineOption size{u"size"_s, u"Main window size, WIDTHxHEIGHT (screenshots)."_s, u"size"_s};

  CommandLine() {
    parser.setApplicationDescription(u"Fathom Studio: plan, launch and inspect distributed PyTorch training."_s);
    for (const auto* o : {&locale, &workspace, &demo, &demoDir, &createDemo, &config, &open, &plan, &range, &select,
                          &area, &show, &screenshot, &size}) {
      parser.addOption(*o);
    }
    parser.addPositionalArgument(
        u"file"_s,
        u"Traces to open in timeline tabs (.json, .json.gz, torch.profiler's .pt.trace.json) or a workspace "
        u"(.sqlite). A missing file or one that is neither exits with code 2 and names it."_s,
        u"[file...]"_s);
  }

  /// Whether this start opens a window. Help, the version and --create-demo need no display, so they run on a
  /// QCoreApplication (a QApplication without a display aborts). Decided by a first parse of the raw arguments with
  /// the same options; Qt's own (-platform, -reverse, …) are not known yet, so their errors are ignored here and
  /// single-dash words are read as long names (`-reverse` is not `-r -e -v`).
  bool needsDisplay(int argc, char** argv) {
    QStringList arguments;
    for (int i = 0; i < argc; ++i) {
      arguments << QString::fromLocal8Bit(argv[i]);
    }
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.parse(arguments);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    return !parser.isSet(help) && !parser.isSet(u"help-all"_s) && !parser.isSet(version) && !parser.isSet(createDemo);
  }
};

}  // namespace

int main(int argc, char** argv) {
  // As `fathom` (app/cli/main.cpp): at the file size limit a write fails with EFBIG and is reported, instead of
  // SIGXFSZ killing the Studio mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  CommandLine cli;
  std::unique_ptr<QCoreApplication> application;
  if (cli.needsDisplay(argc, argv)) {
    application = std::make_unique<QApplication>(argc, argv);
    QApplication::setWindowIcon(QIcon(u":/fathom/icons/fathom.svg"_s));  // needs the Qt SVG plugin; else none
  } else {
    application = std::make_unique<QCoreApplication>(argc, argv);
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

  QCommandLineParser& parser = cli.parser;
  parser.process(app);  // prints --help or --version and exits 0; a bad option exits 1 with the error

  const QString language = fathom::studio::settings::language();
  const QLocale locale = parser.isSet(cli.locale) ? QLocale(parser.value(cli.locale))
                         : language.isEmpty()     ? QLocale()
                                                  : QLocale(language);
  QLocale::setDefault(locale);
  fathom::studio::installTranslators(app, locale);

  if (parser.isSet(cli.createDemo)) {
    return createDemoHeadless(parser.value(cli.createDemo));
  }

  // Files from the command line and the desktop (`fathom-studio %F`): traces and at most one workspace, each checked
  // before any window opens, so a wrong file is a message naming it and exit code 2, not an empty window.
  QStringList traces;
  QString workspaceFile = parser.value(cli.workspace);
  for (const QString& file : parser.values(cli.open) + parser.positionalArguments()) {
    QString error;
    const std::optional<fathom::studio::OpenFileKind> kind = fathom::studio::classifyOpenFile(file, &error);
    if (kind == fathom::studio::OpenFileKind::Workspace && !workspaceFile.isEmpty() && workspaceFile != file) {
      error = QCoreApplication::translate("main", "%1: only one workspace can be opened (%2 is one already)")
                  .arg(QDir::toNativeSeparators(file), QDir::toNativeSeparators(workspaceFile));
    }
    if (!error.isEmpty()) {
      QTextStream(stderr) << "fathom-studio: " << error << Qt::endl;
      return 2;
    }
    if (kind == fathom::studio::OpenFileKind::Workspace) {
      workspaceFile = file;
    } else {
      traces << file;
    }
  }

  fathom::studio::MainWindow window;
  if (parser.isSet(cli.size)) {
    const QStringList wh = parser.value(cli.size).split(u'x');
    if (wh.size() == 2) {
      window.resize(wh[0].toInt(), wh[1].toInt());
    }
  }
  window.show();

  bool openingWorkspace = true;
  if (parser.isSet(cli.demo)) {
    window.openDemo(parser.value(cli.demoDir));
  } else if (!workspaceFile.isEmpty()) {
    window.openWorkspace(workspaceFile);
  } else if (const QString last = fathom::studio::settings::lastWorkspace();
             !parser.isSet(cli.screenshot) && !last.isEmpty() && QFileInfo::exists(last)) {
    window.openWorkspace(last);
  } else {
    openingWorkspace = false;
  }
  if (parser.isSet(cli.config)) {
    window.openConfiguration(parser.value(cli.config));
  }
  const fathom::studio::TimelineStart start{parser.value(cli.range), parser.value(cli.select), parser.value(cli.area)};
  if (const QString error = fathom::studio::checkTimelineStart(start); !error.isEmpty()) {
    QTextStream(stderr) << "fathom-studio: " << error << Qt::endl;
    return 2;
  }
  if ((parser.isSet(cli.plan) || !start.empty()) && traces.isEmpty()) {
    qCritical("--plan, --range, --select and --area need a trace (--open TRACE or FILE)");
    return 2;
  }
  for (qsizetype i = 0; i < traces.size(); ++i) {
    fathom::views::TimelineView* view = window.openTrace(traces[i]);
    if (i == 0 && parser.isSet(cli.plan)) {
      window.openTracePlan(view, parser.value(cli.plan));  // the plan goes with the first trace
    }
    if (i == 0) {
      fathom::studio::applyTimelineStartWhenLoaded(view, start);
    }
  }

  if (parser.isSet(cli.screenshot)) {
    auto* director = new fathom::studio::ScreenshotDirector(&window, parser.value(cli.show),
                                                            parser.value(cli.screenshot), openingWorkspace);
    if (!director->start()) {
      qCritical("unknown --show target %s", qPrintable(parser.value(cli.show)));
      return 2;
    }
  } else if (parser.isSet(cli.show)) {
    const QString show = parser.value(cli.show);
    if (show == u"planner:device-map"_s) {
      window.showPlanner()->showDeviceMap();
    } else if (show.startsWith(u"planner"_s)) {
      window.showPlanner();
    } else if (show.startsWith(u"wizard"_s)) {
      window.newConfiguration();
    } else if (show.startsWith(u"run:"_s)) {
      QObject::connect(window.workspace(), &fathom::studio::WorkspaceController::opened, &window,
                       [&window, show] { window.openRun(show.section(u':', 1, 1).toLongLong()); });
    }
  }
  return QApplication::exec();
}
