// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace fathom::studio {

/// Starts a run the way the command line does: `fathom launch --config_file F --workspace W PROGRAM ARGS`, as a
/// child process. The launcher spawns the workers, collects their telemetry into the workspace and records the
/// run; the Studio reads the workspace as it fills. Running the launcher in a child rather than in the Studio keeps
/// its process-wide signal handling (SIGCHLD, SIGINT forwarding) out of the GUI, and Stop is simply SIGTERM, which
/// the launcher forwards to every worker before it records the run as failed.
class LaunchController : public QObject {
  Q_OBJECT

public:
  explicit LaunchController(QObject* parent = nullptr);
  ~LaunchController() override;

  bool isRunning() const;
  /// Starts the launch; false (and `error`) when one is running or `fathom` cannot be found. A leading "fathom"
  /// in `command` is replaced by the `fathom` next to the Studio, so the workers run the same build.
  bool start(const QString& configPath, const QStringList& command, const QString& workspace, QString* error);
  /// Asks the launcher to stop (SIGTERM); it ends the workers and records the run.
  void stop();

  /// The command line of the current (or last) launch, for the log.
  QString commandLine() const { return m_commandLine; }
  /// The run id the launcher announced ("fathom launch: run N in PATH"), or 0.
  qint64 runId() const { return m_runId; }

  /// The `fathom` executable: $FATHOM_BIN_DIR/fathom, else next to this program, else from PATH; empty if none.
  static QString fathomExecutable();

signals:
  void started(const QString& commandLine);
  /// One line of the launcher's output (its own notes and every rank's "[rankN]: " lines).
  void output(const QString& line);
  /// The launcher created the run in the workspace.
  void runRecorded(qint64 runId, const QString& workspace);
  /// The launcher exited (exitCode is what `fathom launch` returned; 128 + signal when it was killed).
  void finished(int exitCode, qint64 runId);

private:
  void readOutput();

  QProcess m_process;
  QString m_commandLine;
  QByteArray m_partial;
  qint64 m_runId = 0;
};

}  // namespace fathom::studio
