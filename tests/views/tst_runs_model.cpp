// SPDX-License-Identifier: Apache-2.0
// RunsModel: rows derived from workspace records (world size, strategy, final loss), the merge that keeps
// selections across refreshes, and sorting/filtering through a QSortFilterProxyModel as the runs browser does.
#include "runs/runs_model.h"

#include "model_dump.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::store::MetricSummary;
using fathom::store::RunInfo;
using fathom::store::RunStatus;
using fathom::views::RunRow;
using fathom::views::RunsModel;

namespace {

/// A run from a one-line fixture: "id;name;status;start;end;config-json" (end empty = none).
RunInfo run(const QString& fixture) {
  const QStringList f = fixture.split(u';');
  RunInfo r;
  r.id = fathom::store::RunId{f[0].toLongLong()};
  r.name = f[1].toStdString();
  r.status = *fathom::store::parseRunStatus(f[2].toStdString());
  r.createdAt = f[3].toDouble();
  r.startedAt = f[3].toDouble();
  if (!f[4].isEmpty()) {
    r.endedAt = f[4].toDouble();
  }
  r.exitCode = r.status == RunStatus::Failed ? std::optional<int>(3) : std::optional<int>();
  r.configFormat = "json";
  r.configText = f.mid(5).join(u';').toStdString();
  r.commandLine = "fathom launch fathom train";
  return r;
}

MetricSummary metric(const char* key, int rank, double last) {
  return {key, rank, 10, 50, last, last, last + 1};
}

QList<RunRow> fixture() {
  return {
      RunRow::fromStore(
          run(u"1;ddp;succeeded;1700000000;1700000012.5;{\"world_size\": 2, \"command\": [\"fathom\"]}"_s), 2,
          {metric("loss", 0, 2.5), metric("final_loss", 0, 2.25), metric("final_loss", 1, 9)}),
      RunRow::fromStore(run(u"2;fsdp;failed;1700000100;1700000190;{\"world_size\": 4, \"use_fsdp\": true, "
                            "\"fsdp_sharding_strategy\": \"SHARD_GRAD_OP\"}"_s),
                        4, {metric("loss", 0, 3.125)}),
      RunRow::fromStore(
          run(u"3;zero;lost;1700000200;;{\"world_size\": 8, \"use_deepspeed\": true, \"zero_stage\": 3}"_s), 8, {}),
      RunRow::fromStore(run(u"4;probe;succeeded;1700000300;1700003999;{\"world_size\": 1, \"command\": "
                            "[\"fathom\", \"train\", \"--strategy\", \"zero2\"]}"_s),
                        1, {}),
      RunRow::fromStore(run(u"5;single;succeeded;1700000400;1700000401;"_s), 1, {}),
  };
}

}  // namespace

class TestRunsModel : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::useFixedLocale(); }

  void rowsDeriveFromTheWorkspace() {
    RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setRuns(fixture());
    const QStringList expected = {
        u"1 | ddp | succeeded | 11/14/23 10:13 PM | 12.5 s | 2 | DDP | 2.25"_s,
        u"2 | fsdp | failed (exit code 3) | 11/14/23 10:15 PM | 1 min 30 s | 4 | FSDP (SHARD_GRAD_OP) | 3.125"_s,
        u"3 | zero | lost | 11/14/23 10:16 PM | – | 8 | ZeRO-3 | –"_s,
        u"4 | probe | succeeded | 11/14/23 10:18 PM | 1 h 01 min | 1 | ZeRO-2 | –"_s,
        u"5 | single | succeeded | 11/14/23 10:20 PM | 1.00 s | 1 | Single process | –"_s,
    };
    QCOMPARE(fathom::test::dumpRows(model), expected);
    QCOMPARE(model.headerData(RunsModel::FinalLossColumn, Qt::Horizontal).toString(), u"Final loss"_s);
    QCOMPARE(model.index(1, 0).data(RunsModel::StatusRole).toInt(), int(RunStatus::Failed));
    QCOMPARE(model.index(2, 0).data(RunsModel::RunIdRole).toLongLong(), 3);
    QCOMPARE(model.rowOfRun(4), 3);
    QCOMPARE(model.rowOfRun(42), -1);
  }

  void mergeKeepsRowsThatStay() {
    RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<RunRow> rows = fixture();
    model.setRuns(rows);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    // The same snapshot again: nothing happens.
    model.setRuns(rows);
    QCOMPARE(changed.count() + removed.count() + inserted.count() + resets.count(), 0);

    // Run 2 deleted, run 3 changes status, run 6 appears.
    QList<RunRow> next = rows;
    next.removeAt(1);
    next[1].info.status = RunStatus::Failed;
    RunRow six = rows.last();
    six.info.id = fathom::store::RunId{6};
    six.info.name = "new";
    next.append(six);
    model.setRuns(next);
    QCOMPARE(resets.count(), 0);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(removed.at(0).at(1).toInt(), 1);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 1);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 4);
    QStringList ids;
    for (int r = 0; r < model.rowCount(); ++r) {
      ids << model.index(r, RunsModel::IdColumn).data().toString() + u":"_s +
                 model.index(r, RunsModel::StatusColumn).data().toString();
    }
    QCOMPARE(ids, (QStringList{u"1:succeeded"_s, u"3:failed"_s, u"4:succeeded"_s, u"5:succeeded"_s, u"6:succeeded"_s}));
  }

  void sortsByValueAndFilters() {
    RunsModel model;
    model.setRuns(fixture());
    QSortFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunsModel::SortRole);
    proxy.setFilterKeyColumn(-1);
    proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
    auto column = [&proxy](int c) { return fathom::test::dumpColumn(proxy, c); };
    // Durations sort as numbers (1.00 s < 12.5 s < 1 min 30 s < 1 h), the unknown one first.
    proxy.sort(RunsModel::DurationColumn, Qt::AscendingOrder);
    QCOMPARE(column(RunsModel::IdColumn), (QStringList{u"3"_s, u"5"_s, u"1"_s, u"2"_s, u"4"_s}));
    // Losses as numbers, runs without a loss last.
    proxy.sort(RunsModel::FinalLossColumn, Qt::AscendingOrder);
    QCOMPARE(column(RunsModel::IdColumn).mid(0, 2), (QStringList{u"1"_s, u"2"_s}));
    proxy.sort(RunsModel::WorldSizeColumn, Qt::DescendingOrder);
    QCOMPARE(column(RunsModel::WorldSizeColumn), (QStringList{u"8"_s, u"4"_s, u"2"_s, u"1"_s, u"1"_s}));
    // The filter matches any column: a strategy, a status.
    proxy.setFilterFixedString(u"zero"_s);
    QCOMPARE(proxy.rowCount(), 2);
    proxy.setFilterFixedString(u"FAILED"_s);
    QCOMPARE(column(RunsModel::NameColumn), QStringList{u"fsdp"_s});
  }
};

QTEST_GUILESS_MAIN(TestRunsModel)
#include "tst_runs_model.moc"
