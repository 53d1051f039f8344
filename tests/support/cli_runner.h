// SPDX-License-Identifier: Apache-2.0
// Runs the real `fathom` executable the way a user does, for the tests under tests/app/.
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QtGlobal>

namespace fathom::test {

struct CliRun {
  int exitCode = -1;  ///< -1 when the process crashed or timed out
  QByteArray out;
  QByteArray err;
};

/// Points FATHOM_WORKSPACE at `dir`/fathom.sqlite for this test process and every `fathom` it starts (they inherit
/// the environment), so no `fathom train` or `fathom launch` of the test writes ./fathom.sqlite into the directory
/// the test runs in. Call it from initTestCase() with a QTemporaryDir member; an explicit --workspace still wins.
inline void useWorkspaceIn(const QTemporaryDir& dir) {
  qputenv("FATHOM_WORKSPACE", dir.filePath(QStringLiteral("fathom.sqlite")).toLocal8Bit());
}

/// The test's environment without a launcher's variables (ACCELERATE_*, FSDP_*, RANK, WORLD_SIZE, LOCAL_RANK,
/// MASTER_PORT), so a `fathom` it starts decides its strategy from its own flags and config only.
inline QProcessEnvironment launcherFreeEnvironment() {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const QString& name : env.keys()) {
    if (name.startsWith(QStringLiteral("ACCELERATE_")) || name.startsWith(QStringLiteral("FSDP_")) ||
        name == QStringLiteral("RANK") || name == QStringLiteral("WORLD_SIZE") ||
        name == QStringLiteral("LOCAL_RANK") || name == QStringLiteral("MASTER_PORT")) {
      env.remove(name);
    }
  }
  return env;
}

/// <build>/bin/fathom, or $FATHOM_BIN_DIR/fathom (CTest sets it).
inline QString fathomExecutable() {
  return qEnvironmentVariable("FATHOM_BIN_DIR", QStringLiteral(FATHOM_BINARY_DIR "/bin")) + QStringLiteral("/fathom");
}

/// Runs `fathom args...` with `env`, writes `stdinText` to its standard input and closes it, and waits up to
/// `timeoutMs`; a process still running then is killed and reported with exit code -1.
inline CliRun runFathom(const QStringList& args,
                        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                        const QByteArray& stdinText = {}, int timeoutMs = 60'000) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(fathomExecutable(), args);
  p.write(stdinText);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n[timed out]"};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
          p.readAllStandardError()};
}

/// Standard output and error of a run, for QVERIFY2 messages.
inline QString describe(const CliRun& r) {
  return QString::fromUtf8(r.out + "\n--- stderr ---\n" + r.err);
}

/// Standard output as a JSON document; a null document (and a warning with the parse error) when it is not one.
inline QJsonDocument stdoutJson(const CliRun& r) {
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
  if (doc.isNull()) {
    qWarning("%s\n%s\n%s", qPrintable(error.errorString()), r.out.constData(), r.err.constData());
  }
  return doc;
}

/// The `{"event":EVENT,...}` objects in the output of `fathom train --json` (alone, or under `fathom launch`, whose
/// "[rankN]: " prefix is skipped), in order.
inline QList<QJsonObject> trainEvents(const QByteArray& out, const QString& event) {
  QList<QJsonObject> found;
  for (const QByteArray& line : out.split('\n')) {
    const qsizetype brace = line.indexOf('{');
    if (brace < 0)
      continue;
    const QJsonObject o = QJsonDocument::fromJson(line.mid(brace)).object();
    if (o.value(QStringLiteral("event")).toString() == event)
      found << o;
  }
  return found;
}

/// The last `{"event":"summary",...}` object in the output of `fathom train --json`; an empty object when there is
/// none.
inline QJsonObject trainSummary(const QByteArray& out) {
  const QList<QJsonObject> summaries = trainEvents(out, QStringLiteral("summary"));
  return summaries.isEmpty() ? QJsonObject() : summaries.back();
}

/// What is wrong with the "ranks" array of a `fathom train --stats_json` file for a run of `worldSize` ranks: not
/// exactly one entry per rank (a count that differs, an id missing, out of range or seen twice); an empty string when
/// nothing is. A gather that wrote rank 0's entry twice would pass a check of the count alone.
inline QString statsRanksProblem(const QJsonArray& ranks, int worldSize) {
  if (ranks.size() != worldSize) {
    return QStringLiteral("%1 rank entries for %2 ranks").arg(ranks.size()).arg(worldSize);
  }
  QSet<int> seen;
  for (const QJsonValue& entry : ranks) {
    const QJsonValue id = entry.toObject().value(QStringLiteral("rank"));
    if (!id.isDouble() || id.toDouble() != static_cast<double>(id.toInt()) || id.toInt() < 0 ||
        id.toInt() >= worldSize) {
      return QStringLiteral("a rank entry with id %1, not 0..%2")
          .arg(QString::fromUtf8(QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact)))
          .arg(worldSize - 1);
    }
    if (seen.contains(id.toInt())) {
      return QStringLiteral("rank %1 appears twice").arg(id.toInt());
    }
    seen.insert(id.toInt());
  }
  return {};
}

}  // namespace fathom::test
