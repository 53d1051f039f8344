// SPDX-License-Identifier: Apache-2.0
// The run details page's models: ranks, metric summaries (bytes for memory/ keys) and the event log with its
// incremental tail. Each under QAbstractItemModelTester, compared as printed dumps.
#include "runs/event_log_model.h"
#include "runs/metric_summary_model.h"
#include "runs/ranks_model.h"

#include "model_dump.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::EventLogModel;
using views::MetricSummaryModel;
using views::RanksModel;

namespace {

store::EventRow eventRow(qint64 id, int rank, LogLevel level, double time, const char* text) {
  return {store::EventId{id}, store::RunId{1}, {rank, time, level, text}};
}

}  // namespace

class TestRunDetailModels : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::useFixedLocale(); }

  void ranks() {
    RanksModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRanks({{0, "node1", 4242, "cpu", 0}, {1, "node1", 4243, "", std::nullopt}, {2, "node2", 77, "cuda:1", 9}});
    QCOMPARE(fathom::test::dumpRows(model),
             (QStringList{u"0 | node1 | 4242 | cpu | 0"_s, u"1 | node1 | 4243 | – | running"_s,
                          u"2 | node2 | 77 | cuda:1 | 9"_s}));
    QCOMPARE(model.index(1, RanksModel::ExitCodeColumn).data(RanksModel::SortRole).toInt(), -1);
    QCOMPARE(model.headerData(RanksModel::PidColumn, Qt::Horizontal).toString(), u"PID"_s);
    model.setRanks({});
    QCOMPARE(model.rowCount(), 0);
  }

  void metricSummaries() {
    MetricSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSummaries({{"final_loss", 0, 1, 50, 2.2512345, 2.2512345, 2.2512345},
                        {"loss", 1, 10, 50, 2.3, 2.1, 4.75},
                        {"memory/peak_rss_bytes", 0, 3, 50, 3.0 * (1 << 30), 1.5 * (1 << 20), 3.0 * (1 << 30)}});
    QCOMPARE(
        fathom::test::dumpRows(model),
        (QStringList{u"final_loss | 0 | 1 | 2.251 | 50 | 2.251 | 2.251"_s, u"loss | 1 | 10 | 2.3 | 50 | 2.1 | 4.75"_s,
                     u"memory/peak_rss_bytes | 0 | 3 | 3.0 GiB | 50 | 1.5 MiB | 3.0 GiB"_s}));
    QCOMPARE(model.index(2, MetricSummaryModel::LastColumn).data(MetricSummaryModel::SortRole).toDouble(),
             3.0 * (1 << 30));
  }

  void eventLogAppendsNewerEventsOnly() {
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.lastEventId(), 0);
    model.setEvents({eventRow(3, 0, LogLevel::Info, 1700000000.25, "step 10 loss 2.5"),
                     eventRow(4, -1, LogLevel::Error, 1700000001.5, "rank 1 exited with 3")});
    QCOMPARE(fathom::test::dumpRows(model), (QStringList{u"22:13:20.250 | 0 | info | step 10 loss 2.5"_s,
                                                         u"22:13:21.500 | launcher | error | rank 1 exited with 3"_s}));
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.appendEvents({eventRow(4, -1, LogLevel::Error, 1700000001.5, "rank 1 exited with 3"),
                        eventRow(5, 1, LogLevel::Warning, 1700000002, "skipped step"),
                        eventRow(6, 1, LogLevel::Debug, 1700000003, "bye")});
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.lastEventId(), 6);
    QCOMPARE(model.index(2, EventLogModel::LevelColumn).data().toString(), u"warning"_s);
    QCOMPARE(model.index(2, 0).data(EventLogModel::LevelRole).toInt(), int(LogLevel::Warning));
    model.appendEvents({eventRow(6, 1, LogLevel::Debug, 1700000003, "bye")});
    QCOMPARE(inserted.count(), 1);
  }
};

QTEST_GUILESS_MAIN(TestRunDetailModels)
#include "tst_run_detail_models.moc"
