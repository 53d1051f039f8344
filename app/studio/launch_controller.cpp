// SPDX-License-Identifier: Apache-2.0
#include "launch_controller.h"

#include <fathom/telemetry/launch_events.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QStandardPaths>

#include <variant>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcLaunch, "fathom.studio.launch", QtInfoMsg)

namespace fathom::studio {

LaunchController::LaunchController(QObject* parent) : QObject(parent) {
  // Two channels: the launcher's JSON lines on stdout (--json), everything for people (its notes, every rank's
  // output) on stderr.
  m_process.setProcessChannelMode(QProcess::SeparateChannels);
  connect(&m_process, &QProcess::readyReadStandardOutput, this, &LaunchController::readEvents);
  connect(&m_process, &QProcess::readyReadStandardError, this, &LaunchController::readLog);
  connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
    readEvents();
    readLog();
    if (!m_logPartial.isEmpty()) {
      emit output(QString::fromUtf8(m_logPartial));
      m_logPartial.clear();
    }
    const int code = status == QProcess::CrashExit ? 128 + 9 : exitCode;
    qCInfo(lcLaunch) << "launch ended with" << code;
    emit finished(code, m_runId);
  });
  connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) {
      emit output(tr("Could not start %1: %2").arg(m_process.program(), m_process.errorString()));
      emit finished(127, 0);
    }
  });
}

LaunchController::~LaunchController() {
  // The owner (the main window) is being destroyed with us: a finished() now would reach its half-destroyed slots
  // (seen as a crash in MainWindow::setIdle when a test closed the window while the launcher was still exiting).
  blockSignals(true);
  if (m_process.state() != QProcess::NotRunning) {
    m_process.terminate();  // the launcher stops its workers and records the run
    if (!m_process.waitForFinished(15'000)) {
      m_process.kill();
      m_process.waitForFinished(2'000);
    }
  }
}

bool LaunchController::isRunning() const {
  return m_process.state() != QProcess::NotRunning;
}

QString LaunchController::fathomExecutable() {
  const QByteArray dir = qgetenv("FATHOM_BIN_DIR");
  if (!dir.isEmpty()) {
    const QString candidate = QDir(QString::fromLocal8Bit(dir)).filePath(u"fathom"_s);
    if (QFileInfo(candidate).isExecutable()) {
      return candidate;
    }
  }
  const QString sibling = QDir(QCoreApplication::applicationDirPath()).filePath(u"fathom"_s);
  if (QFileInfo(sibling).isExecutable()) {
    return sibling;
  }
  return QStandardPaths::findExecutable(u"fathom"_s);
}

bool LaunchController::start(const QString& configPath, const QStringList& command, const QString& workspace,
                             QString* error, const QStringList& launcherFlags) {
  if (isRunning()) {
    *error = tr("A launch is already running.");
    return false;
  }
  if (command.isEmpty()) {
    *error = tr("The configuration names no program to run.");
    return false;
  }
  const QString fathom = fathomExecutable();
  if (fathom.isEmpty()) {
    *error = tr("The fathom command was not found next to the Studio or in PATH.");
    return false;
  }
  QStringList words = command;
  if (words.front() == u"fathom"_s) {
    words.front() = fathom;
  }
  QStringList arguments{u"launch"_s, u"--json"_s, u"--config_file"_s, configPath};
  if (!workspace.isEmpty()) {
    arguments << u"--workspace"_s << workspace;
  }
  arguments << launcherFlags << words;
  m_runId = 0;
  m_eventPartial.clear();
  m_logPartial.clear();
  m_commandLine = QStringList(QStringList{fathom} + arguments).join(u' ');
  qCInfo(lcLaunch).noquote() << "starting" << m_commandLine;
  m_process.setWorkingDirectory(QFileInfo(configPath).absolutePath());
  m_process.start(fathom, arguments);
  emit started(m_commandLine);
  return true;
}

void LaunchController::stop() {
  if (isRunning()) {
    m_process.terminate();
  }
}

/// Splits `buffer` into complete lines (the rest stays for the next read).
QList<QByteArray> LaunchController::takeLines(QByteArray& buffer) {
  QList<QByteArray> lines;
  qsizetype newline;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    lines.append(buffer.left(newline));
    buffer.remove(0, newline + 1);
  }
  return lines;
}

void LaunchController::readEvents() {
  m_eventPartial += m_process.readAllStandardOutput();
  for (const QByteArray& line : takeLines(m_eventPartial)) {
    const auto event = telemetry::parseLaunchEvent(std::string_view(line.constData(), std::size_t(line.size())));
    if (!event) {
      emit output(QString::fromUtf8(line));  // not the launcher's (an older `fathom`?): shown, not lost
      continue;
    }
    if (const auto* job = std::get_if<telemetry::SlurmJobUpdate>(&*event)) {
      // A submitted SLURM job (fathom.launcher: slurm outside an allocation): its id, then each queue state.
      emit output(
          job->state == "SUBMITTED"
              ? tr("Submitted SLURM job %1; waiting for it to start.").arg(QString::fromStdString(job->jobId))
              : tr("SLURM job %1: %2").arg(QString::fromStdString(job->jobId), QString::fromStdString(job->state)));
      continue;
    }
    if (const auto* run = std::get_if<telemetry::RunCreated>(&*event); run != nullptr && m_runId == 0) {
      m_runId = run->runId;
      emit runRecorded(m_runId, QString::fromStdString(run->workspace));
    }
  }
}

void LaunchController::readLog() {
  m_logPartial += m_process.readAllStandardError();
  for (const QByteArray& line : takeLines(m_logPartial)) {
    emit output(QString::fromUtf8(line));
  }
}

}  // namespace fathom::studio
