// SPDX-License-Identifier: Apache-2.0
#include "launch_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcLaunch, "fathom.studio.launch", QtInfoMsg)

namespace fathom::studio {

LaunchController::LaunchController(QObject* parent) : QObject(parent) {
  m_process.setProcessChannelMode(QProcess::MergedChannels);
  connect(&m_process, &QProcess::readyReadStandardOutput, this, &LaunchController::readOutput);
  connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
    readOutput();
    if (!m_partial.isEmpty()) {
      emit output(QString::fromUtf8(m_partial));
      m_partial.clear();
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
                             QString* error) {
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
  QStringList arguments{u"launch"_s, u"--config_file"_s, configPath};
  if (!workspace.isEmpty()) {
    arguments << u"--workspace"_s << workspace;
  }
  arguments << words;
  m_runId = 0;
  m_partial.clear();
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

void LaunchController::readOutput() {
  static const QRegularExpression announced(u"^fathom launch: run (\\d+) in (.+)$"_s);
  m_partial += m_process.readAllStandardOutput();
  qsizetype newline;
  while ((newline = m_partial.indexOf('\n')) >= 0) {
    const QString line = QString::fromUtf8(m_partial.left(newline));
    m_partial.remove(0, newline + 1);
    if (const auto match = announced.match(line); match.hasMatch() && m_runId == 0) {
      m_runId = match.captured(1).toLongLong();
      emit runRecorded(m_runId, match.captured(2));
    }
    emit output(line);
  }
}

}  // namespace fathom::studio
