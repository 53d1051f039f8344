// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/runtime/environment.h>

#include <QFutureWatcher>
#include <QObject>

namespace fathom::studio {

/// Collects the EnvironmentReport off the GUI thread (forming a Gloo group and dlopening CUDA libraries can
/// take tens of milliseconds, more on a cold disk) and hands it back as a value on the GUI thread.
class EnvironmentController : public QObject {
  Q_OBJECT

public:
  explicit EnvironmentController(QObject* parent = nullptr);
  ~EnvironmentController() override;

  /// Starts a collection unless one is running.
  void refresh();
  bool isBusy() const { return m_watcher.isRunning(); }
  bool hasReport() const { return m_hasReport; }
  const runtime::EnvironmentReport& report() const { return m_report; }

  /// One line for the status bar, e.g. "LibTorch 1.13.0 · CPU only · 0 CUDA devices · 2 CPU cores".
  static QString summary(const runtime::EnvironmentReport& report);

signals:
  void reportReady(const fathom::runtime::EnvironmentReport& report);

private:
  QFutureWatcher<runtime::EnvironmentReport> m_watcher;
  runtime::EnvironmentReport m_report;
  bool m_hasReport = false;
};

}  // namespace fathom::studio
