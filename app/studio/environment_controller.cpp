// SPDX-License-Identifier: Apache-2.0
#include "environment_controller.h"

#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace fathom::studio {

EnvironmentController::EnvironmentController(QObject* parent) : QObject(parent) {
  connect(&m_watcher, &QFutureWatcher<runtime::EnvironmentReport>::finished, this, [this] {
    m_report = m_watcher.result();
    m_hasReport = true;
    emit reportReady(m_report);
  });
}

EnvironmentController::~EnvironmentController() {
  m_watcher.waitForFinished();
}

void EnvironmentController::refresh() {
  if (m_watcher.isRunning()) {
    return;
  }
  m_watcher.setFuture(QtConcurrent::run([] { return runtime::collectEnvironment(); }));
}

QString EnvironmentController::summary(const runtime::EnvironmentReport& r) {
  QString devices;
  if (r.cuda.devices.empty()) {
    devices = tr("CPU only");
  } else {
    devices = tr("%n × %1", nullptr, r.cudaDeviceCount()).arg(QString::fromStdString(r.cuda.devices.front().name));
  }
  return tr("LibTorch %1 · %2 · %n CPU core(s)", nullptr, r.system.cpuCores)
      .arg(QString::fromStdString(r.libtorchVersion), devices);
}

}  // namespace fathom::studio
