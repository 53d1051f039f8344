// SPDX-License-Identifier: Apache-2.0
// `fathom shard`: the JSON shape, the table, and bad input reported with exit code 2.
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
using Run = fathom::test::CliRun;
using fathom::test::runFathom;

/// The "batches" of every rank as nested int lists.
QList<QList<QList<int>>> batchesOf(const QJsonObject& o) {
  QList<QList<QList<int>>> out;
  for (const auto& rank : o.value(u"ranks"_s).toArray()) {
    QList<QList<int>> batches;
    for (const auto& batch : rank.toObject().value(u"batches"_s).toArray()) {
      QList<int> indices;
      for (const auto& index : batch.toArray()) {
        indices.append(index.toInt());
      }
      batches.append(indices);
    }
    out.append(batches);
  }
  return out;
}

QJsonObject parse(const Run& r) {
  QJsonParseError error;
  const auto doc = QJsonDocument::fromJson(r.out, &error);
  if (!doc.isObject()) {
    qWarning("%s\n%s", qPrintable(error.errorString()), r.out.constData());
  }
  return doc.object();
}
}  // namespace

class TestShardCli : public QObject {
  Q_OBJECT

private slots:
  void jsonShape() {
    const Run r = runFathom({u"shard"_s, u"--num_samples"_s, u"10"_s, u"--batch_size"_s, u"2"_s, u"--num_processes"_s,
                             u"3"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = parse(r);
    const QJsonArray ranks = o.value(u"ranks"_s).toArray();
    QCOMPARE(ranks.size(), 3);
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(ranks[i].toObject().value(u"rank"_s).toInt(), i);
    }
    const QList<QList<QList<int>>> expected{{{0, 1}, {6, 7}}, {{2, 3}, {8, 9}}, {{4, 5}, {0, 1}}};
    QCOMPARE(batchesOf(o), expected);
    QCOMPARE(o.value(u"remainder"_s).toInt(), 4);
    QCOMPARE(o.value(u"total_batch_size"_s).toInt(), 6);
  }

  void flagsReachTheSharding() {
    // Dashed spellings, uneven batches, split, skip.
    Run r = runFathom({u"shard"_s, u"--num-samples"_s, u"10"_s, u"--batch-size"_s, u"2"_s, u"--num-processes"_s, u"3"_s,
                       u"--even_batches"_s, u"false"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(batchesOf(parse(r)), (QList<QList<QList<int>>>{{{0, 1}, {6, 7}}, {{2, 3}, {8, 9}}, {{4, 5}}}));

    r = runFathom({u"shard"_s, u"--num_samples"_s, u"21"_s, u"--batch_size"_s, u"4"_s, u"--num_processes"_s, u"2"_s,
                   u"--split_batches"_s, u"--skip_batches"_s, u"4"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(batchesOf(parse(r)), (QList<QList<QList<int>>>{{{16, 17}, {20, 0}}, {{18, 19}, {1, 2}}}));

    r = runFathom({u"shard"_s, u"--num_samples"_s, u"10"_s, u"--batch_size"_s, u"2"_s, u"--num_processes"_s, u"3"_s,
                   u"--drop_last"_s, u"--iterable"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = parse(r);
    QCOMPARE(batchesOf(o), (QList<QList<QList<int>>>{{{0, 1}}, {{2, 3}}, {{4, 5}}}));
    QCOMPARE(o.value(u"remainder"_s).toInt(), -1);
    QVERIFY(o.value(u"iterable"_s).toBool());
  }

  void seededShuffleIsReproducible() {
    const QStringList args{u"shard"_s, u"--num_samples"_s, u"12"_s, u"--batch_size"_s, u"3"_s, u"--num_processes"_s,
                           u"2"_s,     u"--seed"_s,        u"42"_s, u"--json"_s};
    const Run a = runFathom(args);
    const Run b = runFathom(args);
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(a.out, b.out);
    const Run c = runFathom(args + QStringList{u"--epoch"_s, u"1"_s});
    QCOMPARE(c.exitCode, 0);
    QVERIFY(batchesOf(parse(a)) != batchesOf(parse(c)));
  }

  void table() {
    const Run r =
        runFathom({u"shard"_s, u"--num_samples"_s, u"10"_s, u"--batch_size"_s, u"2"_s, u"--num_processes"_s, u"3"_s});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("remainder 4"), r.out.constData());
    const QList<QByteArray> lines = r.out.split('\n');
    // settings, total/remainder, header, two batch rows, trailing empty
    QCOMPARE(lines.size(), 6);
    QVERIFY2(lines[2].startsWith("batch") && lines[2].contains("rank 2"), lines[2].constData());
    QCOMPARE(lines[3].simplified(), QByteArray("0 0 1 2 3 4 5"));
    QCOMPARE(lines[4].simplified(), QByteArray("1 6 7 8 9 0 1"));
    // drop_last: Accelerate's remainder is -1 (the JSON keeps it); the text says what happens instead.
    const Run dropped = runFathom({u"shard"_s, u"--num_samples"_s, u"10"_s, u"--batch_size"_s, u"2"_s,
                                   u"--num_processes"_s, u"3"_s, u"--drop_last"_s});
    QCOMPARE(dropped.exitCode, 0);
    QVERIFY2(!dropped.out.contains("-1"), dropped.out.constData());
    QVERIFY2(dropped.out.contains("total batch size 6, no remainder (drop_last: an incomplete last batch is dropped"),
             dropped.out.constData());
  }

  void badInputExitsWithTwo() {
    Run r =
        runFathom({u"shard"_s, u"--num_samples"_s, u"10"_s, u"--batch_size"_s, u"0"_s, u"--num_processes"_s, u"2"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("batch_size must be >= 1, got 0"), r.err.constData());
    QVERIFY(r.out.isEmpty());

    r = runFathom({u"shard"_s, u"--num_samples"_s, u"10"_s, u"--batch_size"_s, u"5"_s, u"--num_processes"_s, u"2"_s,
                   u"--split_batches"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("split_batches"), r.err.constData());

    r = runFathom({u"shard"_s, u"--num_samples"_s, u"10"_s, u"--batch_size"_s, u"2"_s, u"--num_processes"_s, u"0"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("num_processes"), r.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestShardCli)
#include "tst_shard_cli.moc"
