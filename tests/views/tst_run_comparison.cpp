// SPDX-License-Identifier: Apache-2.0
// Run comparison on a real workspace: core's diff of the runs' recorded specifications (only the keys that differ,
// a key one run leaves unset included), the summary (steps/s, final loss, peak
// memory per rank, strategy, world size), and the comparison page showing it: the overlaid plot, the diff and
// summary models (under QAbstractItemModelTester).
#include "charts/metric_plot_panel.h"
#include "runs/config_diff_model.h"
#include "runs/run_comparison_page.h"
#include "runs/run_summary_model.h"

#include "model_dump.h"

#include <fathom/common/error.h>
#include <fathom/common/memory_metric_keys.h>
#include <fathom/store/run_comparison.h>
#include <fathom/store/workspace.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using store::Workspace;

namespace {

store::RunId addRun(Workspace& ws, const std::string& name, const std::string& spec, double lossScale,
                    double stepsPerSecond, std::int64_t peak) {
  store::NewRun run;
  run.name = name;
  run.commandLine = "fathom launch " + name;
  run.runSpec = spec;
  run.layout.worldSize = 2;
  run.layout.strategy = store::RunStrategy{plan::Strategy::Ddp};
  const store::RunId id = ws.createRun(run);
  std::vector<store::MetricPoint> points;
  for (int rank = 0; rank < 2; ++rank) {
    ws.upsertRank(id, {rank, "node", 100 + rank, "cpu", std::nullopt});
    for (int step = 0; step < 10; ++step) {
      points.push_back({rank, step, 1000.0 + step, "loss", lossScale / (1 + step)});
      points.push_back({rank, step, 1000.0 + step, "steps_per_second", stepsPerSecond + (step % 2 ? 1 : -1)});
      points.push_back({rank, step, 1000.0 + step, std::string(kPeakAllocatedBytesKey), double(peak * (rank + 1))});
      points.push_back({rank, step, 1000.0 + step, std::string(kRssBytesKey), double(step * 1024)});
    }
  }
  points.push_back({0, 9, 1010, "final_loss", lossScale / 10});
  ws.appendMetrics(id, points);
  ws.finishRun(id, store::RunStatus::Succeeded, 0);
  return id;
}

}  // namespace

class TestRunComparison : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    fathom::test::useFixedLocale();
    QVERIFY(m_dir.isValid());
    Workspace ws(m_dir.filePath(u"compare.sqlite"_s).toStdString());
    m_a = addRun(ws, "base", "distributed_type: MULTI_CPU\nnum_processes: 2\nmixed_precision: 'no'\n", 4, 10, 1000);
    // num_processes differs, mixed_precision is the same, main_process_port is set in this run only.
    m_b = addRun(ws, "wide",
                 "distributed_type: MULTI_CPU\nnum_processes: 4\nmixed_precision: 'no'\n"
                 "main_process_port: 29600\n",
                 2, 20, 2000);
    m_c = addRun(ws, "broken", "distributed_type: [\n", 3, 5, 10);
  }

  void diffShowsOnlyTheKeysThatDiffer() {
    const Workspace ws(m_dir.filePath(u"compare.sqlite"_s).toStdString());
    const store::RunComparison c = store::compareRuns(ws, {m_a, m_b});
    QCOMPARE(c.runs.size(), std::size_t{2});
    std::vector<std::string> keys;
    for (const auto& d : c.configDifferences) {
      keys.push_back(d.key);
    }
    QString shown;
    for (const auto& d : c.configDifferences) {
      shown += QString::fromStdString(d.key) + u' ';
    }
    QVERIFY2(keys == (std::vector<std::string>{"main_process_port", "num_processes"}), qPrintable(shown));
    QVERIFY(!c.configDifferences[0].values[0].has_value());
    QCOMPARE(*c.configDifferences[0].values[1], std::string("29600"));
    QCOMPARE(*c.configDifferences[1].values[0], std::string("2"));
    QCOMPARE(*c.configDifferences[1].values[1], std::string("4"));

    const store::RunSummary& a = c.runs[0];
    QCOMPARE(a.worldSize, 2);
    QCOMPARE(a.strategy, std::string("ddp"));
    QCOMPARE(*a.stepsPerSecond, 10.0);
    QCOMPARE(*a.finalLoss, 0.4);
    QCOMPARE(*a.lastStep, std::int64_t{9});
    QCOMPARE(a.peakMemory.size(), std::size_t{2});
    QCOMPARE(*a.peakMemory[1].deviceBytes, 2000.0);
    QCOMPARE(*a.peakMemory[1].hostBytes, 9.0 * 1024);

    // The same runs: nothing differs. A run whose specification does not parse takes part as one that sets nothing.
    QVERIFY(store::compareRuns(ws, {m_a, m_a}).configDifferences.empty());
    const store::RunComparison broken = store::compareRuns(ws, {m_a, m_c});
    QVERIFY(!broken.runs[1].configError.empty());
    QCOMPARE(broken.configDifferences.size(), std::size_t{3});
    QVERIFY_THROWS_EXCEPTION(Error, store::compareRuns(ws, {m_a, store::RunId{999}}));
  }

  void pageShowsTheComparison() {
    const Workspace ws(m_dir.filePath(u"compare.sqlite"_s).toStdString());
    views::RunComparisonData data;
    data.comparison = store::compareRuns(ws, {m_a, m_b});
    for (const store::RunId id : {m_a, m_b}) {
      ws.forEachMetric(id, [&](const store::MetricRow& m) { data.metrics.push_back(m); });
    }
    views::RunComparisonPage page;
    QAbstractItemModelTester diffTester(page.diffModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester summaryTester(page.summaryModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    page.resize(1200, 800);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.setData(data);
    QCOMPARE(page.runIds(), (QList<qint64>{m_a.value, m_b.value}));
    QCOMPARE(fathom::test::dumpRows(*page.diffModel()),
             (QStringList{u"main_process_port | (not set) | 29600"_s, u"num_processes | 2 | 4"_s}));
    QCOMPARE(page.diffModel()->headerData(1, Qt::Horizontal).toString(), u"Run %1: base"_s.arg(m_a.value));
    QVERIFY(page.diffNote()->text().contains(u"2"_s));
    QCOMPARE(page.summaryModel()->rowCount(), 2);
    QCOMPARE(page.summaryModel()->index(1, views::RunSummaryModel::StepsPerSecondColumn).data().toString(), u"20.00"_s);
    QCOMPARE(page.summaryModel()->index(0, views::RunSummaryModel::StrategyColumn).data().toString(), u"DDP"_s);
    QCOMPARE(page.summaryModel()->index(0, views::RunSummaryModel::PeakDeviceColumn).data().toString(),
             u"0: 1,000 bytes · 1: 2.0 KiB"_s);
    // Overlaid: one mean line per run, named by run.
    views::MetricPlot* plot = page.plotPanel()->plot();
    QCOMPARE(page.plotPanel()->keyCombo()->currentText(), u"loss"_s);
    QCOMPARE(plot->lineCount(), 2);
    QVERIFY(plot->valuesAt(0).contains(u"run %1, mean"_s.arg(m_b.value)));
  }

private:
  QTemporaryDir m_dir;
  store::RunId m_a, m_b, m_c;
};

QTEST_MAIN(TestRunComparison)
#include "tst_run_comparison.moc"
