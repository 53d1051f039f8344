// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace fathom::studio {

/// Starts a run the way the command line does: `fathom launch --json --config_file F --workspace W PROGRAM ARGS`,
/// as a child process. The launcher spawns the workers, collects their telemetry into the workspace and records the
/// run; the Studio reads the workspace as it fills. The run id comes from the launcher's JSON lines on its stdout
/// (fathom/telemetry/launch_events.h), never from its messages for people, which arrive with the workers' output on
/// its stderr and go to the log as they are. Running the launcher in a child rather than in the Studio keeps
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
  /// `launcherFlags` go to `fathom launch` before PROGRAM (e.g. "--quiet", "--run_name", "NAME").
  bool start(const QString& configPath, const QStringList& command, const QString& workspace, QString* error,
             const QStringList& launcherFlags = {});
  /// Asks the launcher to stop (SIGTERM); it ends the workers and records the run.
  void stop();

  /// The command line of the current (or last) launch, for the log.
  QString commandLine() const { return m_commandLine; }
  /// The run id the launcher announced (its "run" JSON line), or 0.
  qint64 runId() const { return m_runId; }

  /// The `fathom` executable: $FATHOM_BIN_DIR/fathom, else next to this program, else from PATH; empty if none.
  static QString fathomExecutable();

signals:
  void started(const QString& commandLine);
  /// One line of the launcher's output for people (its own notes and every rank's "[rankN]: " lines).
  void output(const QString& line);
  /// The launcher created the run in the workspace.
  void runRecorded(qint64 runId, const QString& workspace);
  /// The launcher exited (exitCode is what `fathom launch` returned; 128 + signal when it was killed).
  void finished(int exitCode, qint64 runId);

private:
  static QList<QByteArray> takeLines(QByteArray& buffer);
  void readEvents();
  void readLog();

  QProcess m_process;
  QString m_commandLine;
  QByteArray m_eventPartial;  ///< stdout: JSON lines
  QByteArray m_logPartial;    ///< stderr: lines for the log
  qint64 m_runId = 0;
};

}  // namespace fathom::studio
