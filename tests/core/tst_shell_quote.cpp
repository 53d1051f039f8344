// SPDX-License-Identifier: Apache-2.0
// The words `fathom launch --hosts` sends through ssh: shellQuote() checked against a real /bin/sh with strings a
// shell would otherwise interpret; host names checked at the front door; hostfiles (DeepSpeed's format) read with
// errors naming file and line; the agent's spec surviving its JSON round trip.
#include <fathom/common/error.h>
#include <fathom/launch/agent_spec.h>
#include <fathom/launch/host_list.h>
#include <fathom/launch/shell_quote.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace fathom::launch;

namespace {

/// Strings with everything sh gives a meaning to.
const std::vector<std::string>& nastyWords() {
  static const std::vector<std::string> words{
      "",
      "plain",
      "two words",
      "it's",
      "'",
      "''",
      "\"double\"",
      "$HOME",
      "${PATH}",
      "$(touch pwned)",
      "`touch pwned`",
      "a;touch pwned",
      "a && touch pwned || true",
      "a | cat > pwned",
      "<in >out 2>&1",
      "*",
      "?",
      "[ab]",
      "~",
      "~root",
      "\\",
      "back\\slash\\n",
      "line\nbreak",
      "tab\there",
      "#comment",
      "-n",
      "--",
      "é ü 中文",
      "!event",
      "{a,b}",
      "a=b",
      "'\"'\"'",
  };
  return words;
}

QString message(const std::function<void()>& f) {
  try {
    f();
  } catch (const fathom::ConfigError& e) {
    return QString::fromUtf8(e.what());
  }
  return QStringLiteral("accepted");
}

}  // namespace

class TestShellQuote : public QObject {
  Q_OBJECT

private slots:
  /// Each word, quoted, comes out of a real sh byte for byte; none of them runs anything (no file "pwned").
  void everyWordSurvivesSh() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::vector<std::string>& words = nastyWords();
    // printf '%s\0' WORDS... prints each argument followed by a NUL: exactly the words sh split the line into.
    const std::string line = "printf '%s\\0' " + shellCommand(words);
    QProcess sh;
    sh.setWorkingDirectory(dir.path());
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QString::fromStdString(line)});
    QVERIFY(sh.waitForFinished(10'000));
    QCOMPARE(sh.exitCode(), 0);
    const QByteArray out = sh.readAllStandardOutput();
    std::vector<std::string> got;
    std::string current;
    for (const char c : out) {
      if (c == '\0') {
        got.push_back(current);
        current.clear();
      } else {
        current += c;
      }
    }
    QCOMPARE(got.size(), words.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
      QCOMPARE(QString::fromStdString(got[i]), QString::fromStdString(words[i]));
    }
    QVERIFY2(!QFile::exists(dir.filePath(QStringLiteral("pwned"))), "a quoted word ran a command");
  }

  void quotingIsSingleQuotes() {
    QCOMPARE(shellQuote(""), std::string("''"));
    QCOMPARE(shellQuote("a b"), std::string("'a b'"));
    QCOMPARE(shellQuote("it's"), std::string("'it'\\''s'"));
    QCOMPARE(shellCommand({"a", "b c"}), std::string("'a' 'b c'"));
  }

  void hostNamesAreCheckedAtTheFrontDoor() {
    QCOMPARE(parseHostList("h1,h2").size(), std::size_t(2));
    QCOMPARE(parseHostList("user@node-1.example.org, 10.0.0.2,fe80::1")[1].host, std::string("10.0.0.2"));
    for (const char* bad :
         {"-oProxyCommand=touch pwned", "h1;touch pwned", "h 1", "$(id)", "a@-b", "@h", "h`x`", "h'", "h\nx", ""}) {
      const QString m = message([&] { validateHostName(bad, "--hosts"); });
      QVERIFY2(m.contains(QStringLiteral("is not a host name")), qPrintable(QStringLiteral("%1: %2").arg(bad, m)));
    }
    QVERIFY(message([] { parseHostList("h1,,h2"); }).contains(QStringLiteral("empty host name")));
    QVERIFY(message([] { parseHostList("h1,h1"); }).contains(QStringLiteral("named twice")));
  }

  void hostfileInDeepSpeedsFormat() {
    const auto hosts = parseHostfile("# two nodes\nworker-1 slots=2\n\nworker-2 slots=2  # second\n", "hf");
    QCOMPARE(hosts.size(), std::size_t(2));
    QCOMPARE(hosts[1].host, std::string("worker-2"));
    QCOMPARE(hosts[1].slotCount, 2);
    QCOMPARE(parseHostfile("a\n", "hf")[0].slotCount, 0);
    QCOMPARE(message([] { parseHostfile("a slots=2\nb slots=x\n", "hf"); }),
             QStringLiteral("hf:2: slots=x must be a whole number >= 1"));
    QCOMPARE(message([] { parseHostfile("a gpus=2\n", "hf"); }),
             QStringLiteral("hf:1: unexpected 'gpus=2' (expected `host slots=N`)"));
    QVERIFY(message([] { parseHostfile("a;b slots=1\n", "hf"); }).startsWith(QStringLiteral("hf:1: host 'a;b'")));
    QVERIFY(message([] { parseHostfile("# nothing\n", "hf"); }).contains(QStringLiteral("names no host")));
    QVERIFY(message([] { readHostfile("/nonexistent/hostfile"); }).contains(QStringLiteral("cannot be read")));
  }

  void agentSpecRoundTrip() {
    AgentSpec spec;
    spec.options.command = nastyWords();
    spec.options.command.front() = "/bin/prog";
    spec.options.numProcesses = 4;
    spec.options.numMachines = 2;
    spec.options.machineRank = 1;
    spec.options.mainProcessIp = "10.0.0.1";
    spec.options.mainProcessPort = 29511;
    spec.options.cpu = true;
    spec.options.gradientAccumulationSteps = 3;
    spec.options.tee = TeeStreams::Stderr;
    spec.options.logDir = "/logs/with space";
    spec.options.fathomVariables = {{"FATHOM_TRACKERS", "a b"}};
    spec.options.terminateGracePeriod = std::chrono::milliseconds(1500);
    spec.workingDirectory = "/work/dir with space";
    spec.environment = {{"FATHOM_WORKSPACE", "/x/ws.sqlite"}};
    spec.fathomVersion = "0.1.0";
    spec.tunnelSocket = "/tmp/fathom-telemetry-0123456789abcdef-1.sock";
    const AgentSpec back = agentSpecFromJson(toJson(spec));
    QCOMPARE(back.fathomVersion, spec.fathomVersion);
    QCOMPARE(back.tunnelSocket, spec.tunnelSocket);
    QCOMPARE(agentSpecVersion(toJson(spec)).value_or(""), std::string("0.1.0"));
    QVERIFY(!agentSpecVersion("{\"fathom_version\": 1}").has_value());
    QVERIFY(!agentSpecVersion("[1, 2").has_value());
    QVERIFY(back.options.command == spec.options.command);
    QCOMPARE(back.options.machineRank, 1);
    QCOMPARE(back.options.mainProcessIp, std::string("10.0.0.1"));
    QCOMPARE(back.options.mainProcessPort, std::uint16_t(29511));
    QVERIFY(back.options.cpu);
    QCOMPARE(back.options.gradientAccumulationSteps.value_or(0), 3);
    QVERIFY(back.options.tee == TeeStreams::Stderr);
    QCOMPARE(back.options.logDir.string(), std::string("/logs/with space"));
    QVERIFY(back.options.fathomVariables == spec.options.fathomVariables);
    QCOMPARE(back.options.terminateGracePeriod.count(), 1500);
    QCOMPARE(back.workingDirectory, spec.workingDirectory);
    QVERIFY(back.environment == spec.environment);
    QVERIFY(message([] { agentSpecFromJson("{\"command\":[\"x\"]}"); }).contains(QStringLiteral("num_processes")));
    QVERIFY(message([] { agentSpecFromJson("not json"); }).startsWith(QStringLiteral("agent spec: not JSON")));
    // Whole numbers are taken exactly or refused (found by fuzz_launch_spec: 4.9e19 processes was a float-to-int cast,
    // undefined behaviour; 2^32 + 2 became 2).
    nlohmann::json j = nlohmann::json::parse(toJson(spec));
    j["num_processes"] = 4.92e19;
    QCOMPARE(message([&] { agentSpecFromJson(j.dump()); }),
             QStringLiteral("agent spec: key \"num_processes\" must be an integer from -2147483648 to 2147483647, "
                            "got 4.92e+19"));
    j["num_processes"] = 4294967298ULL;
    QVERIFY(message([&] { agentSpecFromJson(j.dump()); }).endsWith(QStringLiteral("got 4294967298")));
    j["num_processes"] = 2.0;  // a whole number written as a double is one
    QCOMPARE(agentSpecFromJson(j.dump()).options.numProcesses, 2);
    j["main_process_port"] = 65536;
    QVERIFY(message([&] {
              agentSpecFromJson(j.dump());
            }).contains(QStringLiteral("\"main_process_port\" must be an integer from 0 to 65535, got 65536")));
  }
};

QTEST_GUILESS_MAIN(TestShellQuote)
#include "tst_shell_quote.moc"
