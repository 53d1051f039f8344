// SPDX-License-Identifier: Apache-2.0
// The metric plot driven as a user drives it (offscreen): the key list, per rank and mean with its band, zoom by
// wheel and keys, pan by dragging, smoothing (TensorBoard's values, read back through the CSV export), log y,
// PNG/SVG/CSV export, points arriving while it is shown, and the bound on drawn points for 200,000 points. Then
// the live page's models (ranks, metric summaries) under QAbstractItemModelTester.
#include "charts/ema_smoother.h"
#include "charts/metric_plot_panel.h"
#include "runs/live_ranks_model.h"
#include "runs/metric_summary_model.h"

#include "model_dump.h"

#include <fathom/common/memory_metric_keys.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::LiveRanksModel;
using views::MetricPlot;
using views::MetricPlotPanel;
using views::MetricSeriesStore;

namespace {

store::MetricRow row(qint64 id, int rank, std::int64_t step, const std::string& key, double value, double wall = 1000) {
  return {store::MetricId{id}, store::RunId{1}, store::MetricPoint{rank, step, wall + double(step), key, value}};
}

/// `ranks` ranks logging `steps` steps of loss (decreasing, rank r offset by r / 10) and of lr.
std::vector<store::MetricRow> trainingRows(int ranks, int steps, qint64 firstId = 1, int firstStep = 0) {
  std::vector<store::MetricRow> rows;
  qint64 id = firstId;
  for (int s = firstStep; s < firstStep + steps; ++s) {
    for (int r = 0; r < ranks; ++r) {
      rows.push_back(row(id++, r, s, "loss", 5.0 / (1 + s) + r / 10.0 + ((s % 2) ? 0.05 : -0.05)));
    }
    rows.push_back(row(id++, 0, s, "lr", 0.001));
  }
  return rows;
}

QList<QByteArray> csvLines(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    return {};
  }
  return f.readAll().trimmed().split('\n');
}

}  // namespace

class TestMetricPlot : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::useFixedLocale(); }

  void panelListsKeysAndDrawsPerRankAndMean() {
    MetricSeriesStore store;
    store.append(trainingRows(2, 50));
    MetricPlotPanel panel(&store);
    panel.resize(900, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.keysChanged();
    QCOMPARE(panel.keyCombo()->count(), 2);
    QCOMPARE(panel.keyCombo()->currentText(), u"loss"_s);  // the preferred key
    MetricPlot* plot = panel.plot();
    QCOMPARE(plot->lineCount(), 2);
    QCOMPARE(plot->xRange(), qMakePair(0.0, 49.0));
    QVERIFY(plot->valuesAt(10).contains(u"rank 1"_s));

    panel.modeCombo()->setCurrentIndex(panel.modeCombo()->findData(int(MetricPlot::Mode::MeanBand)));
    QCOMPARE(plot->lineCount(), 1);
    QVERIFY(plot->valuesAt(0).startsWith(u"mean"_s));
    // The mean at step 0 of 5 - 0.05 and 5.1 - 0.05.
    QVERIFY2(plot->valuesAt(0).contains(u"5 at 0"_s), qPrintable(plot->valuesAt(0)));

    panel.keyCombo()->setCurrentIndex(panel.keyCombo()->findText(u"lr"_s));
    QCOMPARE(plot->options().key, u"lr"_s);
    QCOMPARE(plot->lineCount(), 1);

    panel.axisCombo()->setCurrentIndex(1);  // wall time: the run's first point is 0 s
    QCOMPARE(plot->options().xAxis, MetricPlot::XAxis::WallTime);
    QCOMPARE(plot->xRange(), qMakePair(0.0, 49.0));
  }

  void zoomPanAndHover() {
    MetricSeriesStore store;
    store.append(trainingRows(2, 1000));
    MetricPlotPanel panel(&store);
    panel.resize(900, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.keysChanged();
    MetricPlot* plot = panel.plot();
    plot->redrawNow();
    QCOMPARE(plot->xRange(), qMakePair(0.0, 999.0));
    QVERIFY(!plot->isZoomed());

    // The wheel zooms in around the pointer.
    const QPoint centre = plot->chart()->plotArea().center().toPoint();
    QWheelEvent wheel(centre, plot->mapToGlobal(centre), {}, QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot->viewport(), &wheel);
    QVERIFY(plot->isZoomed());
    auto [x0, x1] = plot->xRange();
    QVERIFY2(x1 - x0 < 999 * 0.7 && x0 > 0 && x1 < 999, qPrintable(u"%1 .. %2"_s.arg(x0).arg(x1)));

    // Dragging to the left moves the range to the right.
    QTest::mousePress(plot->viewport(), Qt::LeftButton, {}, centre);
    QTest::mouseMove(plot->viewport(), centre - QPoint(100, 0));
    QTest::mouseRelease(plot->viewport(), Qt::LeftButton, {}, centre - QPoint(100, 0));
    const auto [p0, p1] = plot->xRange();
    QVERIFY(p0 > x0);
    QVERIFY(std::fabs((p1 - p0) - (x1 - x0)) < 1e-6);

    // Keys: + zooms in, Left pans, Home shows everything.
    plot->setFocus();
    QTest::keyClick(plot, Qt::Key_Plus);
    QVERIFY(plot->xRange().second - plot->xRange().first < p1 - p0);
    const double before = plot->xRange().first;
    QTest::keyClick(plot, Qt::Key_Left);
    QVERIFY(plot->xRange().first < before);
    QTest::keyClick(plot, Qt::Key_Home);
    QVERIFY(!plot->isZoomed());
    QCOMPARE(plot->xRange(), qMakePair(0.0, 999.0));

    // Hover: the values nearest the pointer's x.
    plot->setXRange(100, 200);
    const QString text = plot->valuesAt(150.2);
    QVERIFY2(text.contains(u"rank 0: "_s) && text.contains(u" at 150"_s), qPrintable(text));
  }

  void smoothingLogScaleAndExport() {
    MetricSeriesStore store;
    store.append(trainingRows(1, 200));
    MetricPlotPanel panel(&store);
    panel.resize(800, 450);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.keysChanged();
    panel.smoothingSlider()->setValue(600);  // TensorBoard's default, 0.6
    QCOMPARE(panel.plot()->options().smoothing, 0.6);
    QVERIFY(panel.plot()->valuesAt(3).contains(u"smoothed"_s));

    QTemporaryDir dir;
    QString error;
    const QString csv = dir.filePath(u"loss.csv"_s);
    QVERIFY2(panel.exportTo(csv, &error), qPrintable(error));
    const QList<QByteArray> lines = csvLines(csv);
    QCOMPARE(lines.size(), 1 + 200);
    QCOMPARE(lines[0], QByteArray("run,rank,step,value,smoothed,min,max"));
    // The smoothed column is TensorBoard's smoothing of the value column.
    std::vector<double> values, smoothed;
    for (int i = 1; i < lines.size(); ++i) {
      const QList<QByteArray> cells = lines[i].split(',');
      values.push_back(cells[3].toDouble());
      smoothed.push_back(cells[4].toDouble());
    }
    const std::vector<double> expected = views::EmaSmoother::smooth(values, 0.6);
    for (std::size_t i = 0; i < values.size(); ++i) {
      QVERIFY(std::fabs(smoothed[i] - expected[i]) <= 1e-12 * std::fabs(expected[i]));
    }

    panel.logCheck()->setChecked(true);
    QVERIFY(panel.plot()->options().logY);
    QCOMPARE(panel.plot()->lineCount(), 1);

    const QString png = dir.filePath(u"loss.png"_s);
    const QString svg = dir.filePath(u"loss.svg"_s);
    QVERIFY2(panel.exportTo(png, &error), qPrintable(error));
    QVERIFY2(panel.exportTo(svg, &error), qPrintable(error));
    QImage image(png);
    QCOMPARE(image.size(), QSize(1200, 700));
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QVERIFY(svgFile.readAll().contains("<svg"));
    QVERIFY(!panel.exportTo(dir.filePath(u"missing/dir/x.csv"_s), &error));
    QVERIFY(!error.isEmpty());
  }

  void pointsArriveWhileShown() {
    MetricSeriesStore store;
    store.append(trainingRows(2, 10));
    MetricPlotPanel panel(&store);
    panel.resize(800, 450);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.keysChanged();
    panel.modeCombo()->setCurrentIndex(1);  // mean: a step is drawn once both ranks logged it
    MetricPlot* plot = panel.plot();
    plot->setWorldSize(1, 2);
    plot->rebuild();
    plot->redrawNow();
    QCOMPARE(plot->xRange(), qMakePair(0.0, 9.0));

    auto more = trainingRows(2, 5, 1000, 10);
    // Rank 0 ahead of rank 1: step 14 of rank 1 is held back.
    more.erase(std::remove_if(more.begin(), more.end(),
                              [](const store::MetricRow& r) { return r.point.rank == 1 && r.point.step == 14; }),
               more.end());
    store.append(more);
    panel.pointsAppended(more);
    plot->redrawNow();
    QCOMPARE(plot->xRange(), qMakePair(0.0, 13.0));
    const std::vector<store::MetricRow> last{row(2000, 1, 14, "loss", 1.0)};
    store.append(last);
    panel.pointsAppended(last);
    plot->redrawNow();
    QCOMPARE(plot->xRange(), qMakePair(0.0, 14.0));

    // A key seen for the first time joins the list.
    const std::vector<store::MetricRow> fresh{row(3000, 0, 14, "grad_norm", 0.5)};
    store.append(fresh);
    panel.pointsAppended(fresh);
    QVERIFY(panel.keyCombo()->findText(u"grad_norm"_s) >= 0);
    QCOMPARE(panel.keyCombo()->currentText(), u"loss"_s);
  }

  void drawsNoMorePointsThanColumns() {
    MetricSeriesStore store;
    std::vector<store::MetricRow> rows;
    for (int i = 0; i < 200'000; ++i) {
      rows.push_back(row(i + 1, 0, i, "loss", std::sin(i * 0.01) + (i % 13) * 0.1));
    }
    store.append(rows);
    MetricPlotPanel panel(&store);
    panel.resize(1000, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.keysChanged();
    panel.plot()->redrawNow();
    const int columns = int(panel.plot()->chart()->plotArea().width());
    QVERIFY(columns > 100);
    QVERIFY2(panel.plot()->drawnPoints() <= 2 * columns + 2,
             qPrintable(u"%1 points for %2 columns"_s.arg(panel.plot()->drawnPoints()).arg(columns)));
    panel.plot()->setXRange(1000, 1100);  // 101 points: all of them
    QCOMPARE(panel.plot()->drawnPoints(), 101 + 2);
  }

  void liveRanksModel() {
    LiveRanksModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    views::RunDelta d;
    d.info.id = store::RunId{1};
    d.info.status = store::RunStatus::Running;
    d.ranks = {{1, "node", 11, "cpu", std::nullopt}, {0, "node", 10, "cpu", std::nullopt}};
    d.metrics = {row(1, 0, 0, "loss", 2.5, 100), row(2, 1, 0, "loss", 2.6, 100),
                 row(3, 0, 0, std::string(kAllocatedBytesKey), 1024, 100)};
    const parallel::CollectivePosition entered{7, parallel::CommKind::Broadcast, "world", 2, 4096};
    const parallel::CollectivePosition finished{6, parallel::CommKind::AllReduce, "world", 2, 1024};
    d.heartbeats = {{0, 100.5, 0, entered, finished}};
    d.readAt = 101;
    model.apply(d);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, LiveRanksModel::RankColumn).data().toInt(), 0);
    QCOMPARE(model.index(0, LiveRanksModel::StateColumn).data().toString(), u"running"_s);
    QCOMPARE(model.index(0, LiveRanksModel::LossColumn).data().toString(), u"2.5"_s);
    QCOMPARE(model.index(0, LiveRanksModel::DeviceMemoryColumn).data().toString(), u"1.0 KiB"_s);
    QCOMPARE(model.index(0, LiveRanksModel::HeartbeatAgeColumn).data().toString(), u"500.0 ms"_s);
    QCOMPARE(model.index(1, LiveRanksModel::HeartbeatAgeColumn).data().toString(), u"–"_s);
    // The collective wavefront of the latest heartbeat: entered and finished; none before the first collective.
    QCOMPARE(model.index(0, LiveRanksModel::CollectiveEnteredColumn).data().toString(), u"broadcast #7 (world)"_s);
    QCOMPARE(model.index(0, LiveRanksModel::CollectiveFinishedColumn).data().toString(), u"all_reduce #6 (world)"_s);
    QCOMPARE(model.index(1, LiveRanksModel::CollectiveEnteredColumn).data().toString(), u"–"_s);

    // Ten steps in five seconds: 2 steps/s; a third rank appears from its metrics alone.
    views::RunDelta next;
    next.info = d.info;
    next.metrics = {row(4, 0, 10, "loss", 2.0, 95), row(5, 2, 3, "loss", 2.9, 100)};
    next.readAt = 106;
    model.apply(next);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, LiveRanksModel::StepColumn).data().toString(), u"10"_s);
    QCOMPARE(model.index(0, LiveRanksModel::StepsPerSecondColumn).data().toString(), u"2.00"_s);
    QCOMPARE(*model.stepOf(2), std::int64_t{3});
    model.setNow(110.5);
    QCOMPARE(model.index(0, LiveRanksModel::HeartbeatAgeColumn).data().toString(), u"10.0 s"_s);

    views::RunDelta done;
    done.info = d.info;
    done.info.status = store::RunStatus::Failed;
    done.ranks = {{0, "node", 10, "cpu", 0}, {1, "node", 11, "cpu", 3}};
    model.apply(done);
    QCOMPARE(fathom::test::dumpColumn(model, LiveRanksModel::StateColumn),
             (QStringList{u"exited"_s, u"failed (exit code 3)"_s, u"failed"_s}));
    QCOMPARE(model.index(1, 0).data(LiveRanksModel::ExitCodeRole).toInt(), 3);
    QCOMPARE(model.headerData(LiveRanksModel::CollectiveEnteredColumn, Qt::Horizontal).toString(),
             u"Collective entered"_s);
  }

  void metricSummariesGrowInPlace() {
    views::MetricSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.appendPoints({row(1, 1, 0, "loss", 3), row(2, 0, 0, "loss", 4), row(3, 0, 0, "acc", 0.5)});
    model.appendPoints({row(4, 0, 1, "loss", 2), row(5, 0, 1, "loss", std::nan(""))});
    QCOMPARE(fathom::test::dumpRows(model),
             (QStringList{u"acc | 0 | 1 | 0.5 | 0 | 0.5 | 0.5"_s, u"loss | 0 | 3 | NaN | 1 | 2 | 4"_s,
                          u"loss | 1 | 1 | 3 | 0 | 3 | 3"_s}));
  }
};

QTEST_MAIN(TestMetricPlot)
#include "tst_metric_plot.moc"
