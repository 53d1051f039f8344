// SPDX-License-Identifier: Apache-2.0
// The run monitor's alerts as the run page shows them: a hang and a straggler, appended incrementally by id, the
// hang's resolution updating its row in place. Under QAbstractItemModelTester, compared as printed dumps.
#include "runs/alerts_model.h"

#include "model_dump.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::AlertsModel;

namespace {

store::AlertRow hang(qint64 id) {
  const parallel::CollectivePosition waiting{12, parallel::CommKind::AllReduce, "world", 2, 4};
  const parallel::CollectivePosition behind{11, parallel::CommKind::AllReduce, "world", 2, 4};
  store::RunAlert a;
  a.kind = store::AlertKind::Hang;
  a.time = 1700000000.0;
  a.stalledSeconds = 61.4;
  a.waitingIn = waiting;
  a.ranks = {{0, false, 12, waiting, behind, std::nullopt}, {1, true, 11, behind, behind, std::nullopt}};
  return {store::AlertId{id}, store::RunId{1}, a};
}

store::AlertRow straggler(qint64 id) {
  store::RunAlert a;
  a.kind = store::AlertKind::Straggler;
  a.time = 1700000005.0;
  a.medianStepSeconds = 0.02;
  a.ranks = {{0, false, 40, std::nullopt, std::nullopt, 0.02}, {1, true, 40, std::nullopt, std::nullopt, 0.1}};
  return {store::AlertId{id}, store::RunId{1}, a};
}

}  // namespace

class TestAlertsModel : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::useFixedLocale(); }

  void appendsByIdAndUpdatesResolutions() {
    AlertsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.lastAlertId(), 0);
    QCOMPARE(model.headerData(AlertsModel::BehindColumn, Qt::Horizontal).toString(), u"Ranks behind"_s);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.appendAlerts({hang(3)});
    model.appendAlerts({hang(3), straggler(5)});  // the held one unchanged: nothing but the new row
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(fathom::test::dumpRows(model),
             (QStringList{u"22:13:20 | hang | 1 | all_reduce #12 (world) | stalled 61.4 s | open"_s,
                          u"22:13:25 | straggler | 1 | – | 0.100 s per step (others 0.020 s) | open"_s}));
    QCOMPARE(model.lastAlertId(), 5);
    QCOMPARE(model.openCount(), 2);
    QCOMPARE(model.index(0, 0).data(AlertsModel::BehindRanksRole).value<QList<int>>(), QList<int>{1});
    QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().startsWith(u"hang: rank 1 behind"_s));
    // The hang ends: its row changes in place, no row is added.
    auto resolved = hang(3);
    resolved.alert.resolvedAt = 1700000070.0;
    model.appendAlerts({resolved});
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.index(0, AlertsModel::StatusColumn).data().toString(), u"resolved"_s);
    QVERIFY(model.index(0, 0).data(AlertsModel::ResolvedRole).toBool());
    QCOMPARE(model.openCount(), 1);
    // The run ends with the straggler still open: the collector closes it, saying so.
    QCOMPARE(model.index(1, 0).data(AlertsModel::AlertIdRole).toLongLong(), 5);
    auto closed = straggler(5);
    closed.alert.resolvedAt = 1700000090.0;
    closed.alert.end = store::AlertEnd::RunEnded;
    model.appendAlerts({closed});
    QCOMPARE(model.index(1, AlertsModel::StatusColumn).data().toString(), u"open at the run's end"_s);
    QCOMPARE(model.openCount(), 0);
    model.setAlerts({});
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_GUILESS_MAIN(TestAlertsModel)
#include "tst_alerts_model.moc"
