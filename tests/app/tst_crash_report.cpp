// SPDX-License-Identifier: Apache-2.0
// fathom's crash report (app/cli/crash_report.h): a process that crashes writes the signal, the address and a stack
// to stderr, and still dies of that signal.
#include "crash_report.h"

#include <QTest>

#include <csignal>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

/// A real fault: the kernel's SIGSEGV, with its address. Hidden from UndefinedBehaviorSanitizer, whose null check would
/// report the store and stop the process itself (the sanitizer build) before the kernel raises the signal.
/// Pointer and pointee are volatile: the pointer is read at run time, so the compiler cannot see the null and drop the
/// store as undefined behaviour (GCC does, once the function is out of line).
__attribute__((noinline, no_sanitize("undefined"))) void storeThroughNull() {
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
}

}  // namespace

class TestCrashReport : public QObject {
  Q_OBJECT

private slots:
  void aCrashPrintsItsStackAndKeepsItsSignal_data() {
    QTest::addColumn<int>("signal");
    QTest::addColumn<QString>("name");
    QTest::newRow("invalid memory access") << SIGSEGV << QStringLiteral("SIGSEGV (invalid memory access)");
    QTest::newRow("arithmetic error") << SIGFPE << QStringLiteral("SIGFPE (arithmetic error)");
  }
  void aCrashPrintsItsStackAndKeepsItsSignal() {
    QFETCH(int, signal);
    QFETCH(QString, name);
    int pipeFds[2];
    QVERIFY(::pipe(pipeFds) == 0);
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
      ::dup2(pipeFds[1], STDERR_FILENO);
      ::close(pipeFds[0]);
      fathom::cli::installCrashReport();
      if (signal == SIGSEGV) {
        storeThroughNull();
      }
      ::raise(signal);
      ::_exit(0);  // not reached
    }
    ::close(pipeFds[1]);
    std::string err;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;) {
      err.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipeFds[0]);
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == signal, err.c_str());  // the exit status is unchanged
    const QString text = QString::fromStdString(err);
    QVERIFY2(text.startsWith(QStringLiteral("fathom: crashed with ") + name), err.c_str());
    if (signal == SIGSEGV) {
      QVERIFY2(text.contains(QStringLiteral(" at address 0x0;")), err.c_str());
    }
    // The frames: this executable's, with offsets addr2line reads.
    QVERIFY2(text.contains(QStringLiteral("tst_crash_report(")), err.c_str());
    QVERIFY2(text.count(u'\n') >= 3, err.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCrashReport)
#include "tst_crash_report.moc"
