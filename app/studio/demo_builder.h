// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace fathom::studio {

class LaunchController;

/// Builds the demo workspace the README's main command opens: a real run — `fathom train` of the built-in
/// gpt-tiny on the shipped text corpus, 2 processes on the CPU, launched through `fathom launch` with telemetry, so
/// the run, its ranks, metrics and log land in the workspace as for any run — and a saved what-if comparison
/// (Llama 2 7B on 8 × H100, every strategy). The run's configuration is written by the same WizardRun the wizard
/// uses (demo.yaml beside the workspace).
class DemoBuilder : public QObject {
  Q_OBJECT

public:
  explicit DemoBuilder(QObject* parent = nullptr);
  ~DemoBuilder() override;

  /// Where `fathom-studio --demo` keeps it when no folder is given: <app data>/demo.
  static QString defaultDirectory();
  /// The workspace file of a demo folder.
  static QString workspacePath(const QString& directory);
  /// True when the workspace holds a succeeded run and a saved plan.
  static bool isComplete(const QString& workspacePath);

  /// Builds the demo in `directory` (a stale, incomplete workspace there is replaced). progress() reports each
  /// stage; finished() or failed() ends it.
  void start(const QString& directory);
  void cancel();
  bool isRunning() const { return m_running; }

  /// Optimizer steps of the demo run.
  static constexpr int kSteps = 50;

signals:
  void progress(const QString& stage, int percent);
  /// A line of the launch's output.
  void output(const QString& line);
  void finished(const QString& workspacePath);
  void failed(const QString& message, const QString& detail);

private:
  void fail(const QString& message, const QString& detail);
  void savePlan();
  /// Reads how far the run is (rank 0's last logged step in the workspace) off the GUI thread and reports it.
  void pollProgress();

  LaunchController* m_launch = nullptr;
  QString m_directory;
  QString m_log;
  bool m_running = false;
  qint64 m_run = 0;        ///< the demo run, once the launcher announced it
  QTimer m_progressTimer;  ///< pollProgress() while the run trains
  bool m_polling = false;  ///< a poll is in flight (they never overlap)
  int m_lastStep = 0;      ///< the step reported last
};

}  // namespace fathom::studio
