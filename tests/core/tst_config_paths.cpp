// SPDX-License-Identifier: Apache-2.0
#include "env_guard.h"

#include <fathom/config/config_paths.h>

#include <QTest>

#include <cstdlib>

namespace {
using fathom::test::EnvGuard;
}  // namespace

class TestConfigPaths : public QObject {
  Q_OBJECT

private slots:
  void xdgCacheHomeWins() {
    EnvGuard xdg("XDG_CACHE_HOME", "/tmp/xdg-cache");
    QCOMPARE(QString::fromStdString(fathom::config::defaultConfigFile().string()),
             QStringLiteral("/tmp/xdg-cache/fathom/default_config.yaml"));
  }

  void relativeXdgIsIgnored() {
    // The XDG spec says relative values are invalid and must be ignored.
    EnvGuard xdg("XDG_CACHE_HOME", "relative/dir");
    EnvGuard home("HOME", "/home/alice");
    QCOMPARE(QString::fromStdString(fathom::config::defaultConfigFile().string()),
             QStringLiteral("/home/alice/.cache/fathom/default_config.yaml"));
  }

  void accelerateFallbackFollowsHfHome() {
    EnvGuard hf("HF_HOME", "/data/hf");
    QCOMPARE(QString::fromStdString(fathom::config::accelerateDefaultConfigFile().string()),
             QStringLiteral("/data/hf/accelerate/default_config.yaml"));
  }

  void accelerateFallbackUsesXdgThenHome() {
    EnvGuard hf("HF_HOME", nullptr);
    {
      EnvGuard xdg("XDG_CACHE_HOME", "/tmp/c");
      QCOMPARE(QString::fromStdString(fathom::config::accelerateDefaultConfigFile().string()),
               QStringLiteral("/tmp/c/huggingface/accelerate/default_config.yaml"));
    }
    EnvGuard xdg("XDG_CACHE_HOME", nullptr);
    EnvGuard home("HOME", "/home/bob");
    QCOMPARE(QString::fromStdString(fathom::config::accelerateDefaultConfigFile().string()),
             QStringLiteral("/home/bob/.cache/huggingface/accelerate/default_config.yaml"));
  }
};

QTEST_GUILESS_MAIN(TestConfigPaths)
#include "tst_config_paths.moc"
