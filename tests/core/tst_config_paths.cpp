// SPDX-License-Identifier: Apache-2.0
#include <fathom/config/config_paths.h>

#include <QTest>

#include <cstdlib>

namespace {
// Sets (or unsets, for nullptr) a variable for one scope and restores it afterwards.
class EnvGuard {
public:
  EnvGuard(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) {
      m_old = old;
      m_had = true;
    }
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~EnvGuard() { m_had ? setenv(m_name, m_old.c_str(), 1) : unsetenv(m_name); }

private:
  const char* m_name;
  std::string m_old;
  bool m_had = false;
};
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
