// SPDX-License-Identifier: Apache-2.0
// RunsModel: rows built from workspace records (the typed world size and strategy, the final loss), the merge that
// keeps selections across refreshes, and sorting/filtering through a QSortFilterProxyModel as the runs browser does.
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

/// A run from a one-line fixture: "id;name;status;start;end;strategy;world size" (end empty = none; the strategy as
/// `fathom runs` labels it, "fsdp/shard_grad_op", empty = the record does not say).
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
  r.commandLine = "fathom launch fathom train";
  if (!f[5].isEmpty()) {
    const QStringList label = f[5].split(u'/');
    fathom::store::RunStrategy strategy;
    strategy.strategy = fathom::plan::parseStrategy(label[0].toStdString());
    if (label.size() > 1) {
      strategy.fsdpSharding = fathom::plan::parseFsdpSharding(label[1].toStdString());
    }
    r.layout.strategy = strategy;
  }
  r.layout.worldSize = f[6].toInt();
  return r;
}

MetricSummary metric(const char* key, int rank, double last) {
  return {key, rank, 10, 50, last, last, last + 1};
}

QList<RunRow> fixture() {
  return {
      RunRow::fromStore(run(u"1;ddp;succeeded;1700000000;1700000012.5;ddp;2"_s), 2,
                        {metric("loss", 0, 2.5), metric("final_loss", 0, 2.25), metric("final_loss", 1, 9)}),
      RunRow::fromStore(run(u"2;fsdp;failed;1700000100;1700000190;fsdp/shard_grad_op;4"_s), 4,
                        {metric("loss", 0, 3.125)}),
      RunRow::fromStore(run(u"3;zero;lost;1700000200;;zero3;8"_s), 8, {}),
      RunRow::fromStore(run(u"4;probe;succeeded;1700000300;1700003999;zero2;1"_s), 1, {}),
      // No world size recorded: the ranks count.
      RunRow::fromStore(run(u"5;single;succeeded;1700000400;1700000401;ddp;0"_s), 1, {}),
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
        u"1 | ddp | succeeded | 11/14/23 10:13 PM | 12.5 s | 2 | DDP | 2.25 | –"_s,
        u"2 | fsdp | failed (exit code 3) | 11/14/23 10:15 PM | 1 min 30 s | 4 | FSDP shard grad op | 3.125 | –"_s,
        u"3 | zero | lost | 11/14/23 10:16 PM | – | 8 | ZeRO-3 | – | –"_s,
        u"4 | probe | succeeded | 11/14/23 10:18 PM | 1 h 01 min | 1 | ZeRO-2 | – | –"_s,
        u"5 | single | succeeded | 11/14/23 10:20 PM | 1.00 s | 1 | Single process | – | –"_s,
    };
    QCOMPARE(fathom::test::dumpRows(model), expected);
    QCOMPARE(model.headerData(RunsModel::FinalLossColumn, Qt::Horizontal).toString(), u"Final loss"_s);
    QCOMPARE(model.index(1, 0).data(RunsModel::StatusRole).toInt(), int(RunStatus::Failed));
    QCOMPARE(model.index(2, 0).data(RunsModel::RunIdRole).toLongLong(), 3);
    QCOMPARE(model.rowOfRun(4), 3);
    QCOMPARE(model.rowOfRun(42), -1);
  }

  // The run monitor's alerts mark the run in the browser: each kind, "(open)" while it lasts, in red; the tooltip
  // is core's description of each.
  void alertsColumnMarksHangsAndStragglers() {
    RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const fathom::parallel::CollectivePosition waiting{12, fathom::parallel::CommKind::AllReduce, "world", 2, 4};
    fathom::store::RunAlert hang;
    hang.kind = fathom::store::AlertKind::Hang;
    hang.stalledSeconds = 6;
    hang.waitingIn = waiting;
    hang.ranks = {{0, false, 12, waiting, std::nullopt, std::nullopt}, {1, true, 11, std::nullopt, std::nullopt, {}}};
    fathom::store::RunAlert straggler;
    straggler.kind = fathom::store::AlertKind::Straggler;
    straggler.medianStepSeconds = 0.02;
    straggler.resolvedAt = 1700000010.0;
    straggler.ranks = {{0, false, 40, std::nullopt, std::nullopt, 0.02},
                       {1, true, 40, std::nullopt, std::nullopt, 0.1}};
    const RunInfo info = run(u"1;ddp;running;1700000000;;ddp;2"_s);
    model.setRuns({RunRow::fromStore(
        info, 2, {}, {{fathom::store::AlertId{1}, info.id, hang}, {fathom::store::AlertId{2}, info.id, straggler}})});
    const QModelIndex cell = model.index(0, RunsModel::AlertsColumn);
    QCOMPARE(cell.data().toString(), u"hang (open), straggler"_s);
    QCOMPARE(cell.data(Qt::ToolTipRole).toString(), QString::fromStdString(fathom::store::describeAlert(hang) + "\n" +
                                                                           fathom::store::describeAlert(straggler)));
    QVERIFY(cell.data(Qt::ForegroundRole).isValid());
    QCOMPARE(model.headerData(RunsModel::AlertsColumn, Qt::Horizontal).toString(), u"Alerts"_s);

    // Resolved: no longer open, no longer red; a refresh with the change is a dataChanged, not a reset.
    hang.resolvedAt = 1700000020.0;
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setRuns({RunRow::fromStore(info, 2, {}, {{fathom::store::AlertId{1}, info.id, hang}})});
    QCOMPARE(changed.count(), 1);
    QCOMPARE(cell.data().toString(), u"hang"_s);
    QVERIFY(!cell.data(Qt::ForegroundRole).isValid());
    model.setRuns({RunRow::fromStore(info, 2, {})});
    QCOMPARE(cell.data().toString(), u"–"_s);
  }

  // The strategy is the record's typed layout, never guessed: a run whose record does not say shows none, whatever
  // its configuration text or command line hold.
  void strategyComesFromTheLayoutOnly() {
    RunInfo info = run(u"7;guess;succeeded;1700000500;1700000501;;0"_s);
    info.configFormat = "json";
    info.configText = R"({"world_size": 4, "use_fsdp": true, "command": ["fathom", "train", "--strategy", "zero2"]})";
    info.commandLine = "fathom launch --use_fsdp fathom train --strategy zero2";
    const RunRow row = RunRow::fromStore(info, 2, {});
    QCOMPARE(row.worldSize, 2);
    QVERIFY(row.strategy.isEmpty());
    info.layout.worldSize = 4;
    info.layout.strategy = fathom::store::RunStrategy{fathom::plan::Strategy::Zero2, {}};
    QCOMPARE(RunRow::fromStore(info, 2, {}).strategy, u"ZeRO-2"_s);
    QCOMPARE(RunRow::fromStore(info, 2, {}).worldSize, 4);
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
