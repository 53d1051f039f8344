// SPDX-License-Identifier: Apache-2.0
// The what-if planner, offscreen, through the main window and the real PlannerController: it opens on a comparison;
// changing the model updates all four charts, the three tables and the Planner dock to the new model's numbers;
// hovering explains each figure with the `fathom plan --explain` text; the comparison exports as PNG, SVG and CSV;
// at 1600×1000 the wheel scrolls the inputs and the Top plans table shows every column.
#include "main_window.h"
#include "studio_test_mode.h"

#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/scaling_chart.h"
#include "planner/plan_search_model.h"
#include "planner/planner_panel.h"
#include "planner/strategy_comparison_model.h"
#include "planner/what_if_view.h"

#include <fathom/plan/predict.h>
#include <fathom/plan/report.h>

#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QImage>
#include <QJsonObject>
#include <QLabel>
#include <QLineSeries>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSpontaneKeyEvent>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace Qt::StringLiterals;
using namespace fathom;
using studio::MainWindow;
using views::WhatIfView;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Every number every chart plots, in order: what "the charts show" means for this test.
QList<double> chartValues(const QChart* chart) {
  QList<double> out;
  for (QAbstractSeries* series : chart->series()) {
    if (auto* bars = qobject_cast<QAbstractBarSeries*>(series)) {
      for (QBarSet* set : bars->barSets()) {
        for (int i = 0; i < set->count(); ++i) {
          out << set->at(i);
        }
      }
    } else if (auto* xy = qobject_cast<QXYSeries*>(series)) {
      for (const QPointF& p : xy->points()) {
        out << p.x() << p.y();
      }
    }
  }
  return out;
}

struct Shown {
  QList<double> memory, memoryScaling, comm, timeScaling;
  QString topPlan;
  double ddpTotal = 0;
  QString plannerDock;
};

Shown shown(MainWindow& window) {
  WhatIfView* view = window.whatIfView();
  Shown s;
  s.memory = chartValues(view->findChild<views::MemoryChart*>(u"memoryChart"_s)->chart());
  s.memoryScaling = chartValues(view->findChild<views::ScalingChart*>(u"memoryScalingChart"_s)->chart());
  s.comm = chartValues(view->findChild<views::CommChart*>(u"commChart"_s)->chart());
  s.timeScaling = chartValues(view->findChild<views::ScalingChart*>(u"stepTimeScalingChart"_s)->chart());
  const QAbstractItemModel* search = view->findChild<QTableView*>(u"searchTable"_s)->model();
  s.topPlan = search->index(0, views::PlanSearchModel::TokensPerSecondColumn).data().toString();
  const QAbstractItemModel* strategies = view->findChild<QTableView*>(u"strategiesTable"_s)->model();
  s.ddpTotal = strategies->index(0, views::StrategyComparisonModel::TotalColumn)
                   .data(views::StrategyComparisonModel::ValueRole)
                   .toDouble();
  s.plannerDock =
      window.findChild<views::PlannerPanel*>(u"plannerPanel"_s)->findChild<QLabel*>(u"plannerTotal"_s)->text();
  return s;
}

/// The what-if planner in a 1600×1000 main window, once it shows a comparison; null if it never does.
WhatIfView* showAt1600x1000(MainWindow& window) {
  window.resize(1600, 1000);
  window.show();
  WhatIfView* view = window.showPlanner();
  if (!QTest::qWaitForWindowExposed(&window) ||
      !QTest::qWaitFor([view] { return view->comparison().has_value(); }, 20'000)) {
    return nullptr;
  }
  return view;
}

}  // namespace

class TestWhatIfView : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void changingTheModelUpdatesAllCharts() {
    MainWindow window;
    window.show();
    WhatIfView* view = window.showPlanner();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY_WITH_TIMEOUT(view->comparison().has_value(), 20'000);
    QCOMPARE(QString::fromStdString(view->comparison()->model.name), u"Llama 2 7B"_s);
    const Shown before = shown(window);
    // The memory chart: 8 strategies × 8 categories of GiB per GPU, then the capacity line (2 points).
    QCOMPARE(before.memory.size(), 8 * 8 + 4);
    const views::PlanComparison& first = *view->comparison();
    QCOMPARE(before.memory.at(0), first.strategies[0].prediction->memory.parameters / kGiB);
    QCOMPARE(before.ddpTotal, first.strategies[0].prediction->memory.total);
    QVERIFY(!before.memoryScaling.isEmpty() && !before.comm.isEmpty() && !before.timeScaling.isEmpty());
    QVERIFY(!before.topPlan.isEmpty());

    // Half the layers: a different model, so every chart and table changes.
    auto* layers = view->findChild<QSpinBox*>(u"layers"_s);
    layers->setFocus();
    layers->selectAll();
    QTest::keyClicks(layers, u"16"_s);
    QTRY_VERIFY_WITH_TIMEOUT(view->comparison()->model.dims.layers == 16, 20'000);
    const Shown after = shown(window);
    QVERIFY(after.memory != before.memory);
    QVERIFY(after.memoryScaling != before.memoryScaling);
    QVERIFY(after.comm != before.comm);
    QVERIFY(after.timeScaling != before.timeScaling);
    QVERIFY(after.topPlan != before.topPlan);
    QVERIFY(after.ddpTotal < before.ddpTotal);
    QVERIFY(after.plannerDock != before.plannerDock);
    // ... to exactly what the planner predicts for the new model.
    const views::PlanComparison& now = *view->comparison();
    const plan::Prediction direct = plan::predict(now.model, now.hardware, now.strategies[1].plan);
    QCOMPARE(after.memory.at(1), direct.memory.parameters / kGiB);  // FSDP full shard's parameters segment
  }

  void hoverExplainsEachFigure() {
    MainWindow window;
    WhatIfView* view = window.showPlanner();
    QTRY_VERIFY_WITH_TIMEOUT(view->comparison().has_value(), 20'000);
    const views::PlanComparison& c = *view->comparison();
    auto* memory = view->findChild<views::MemoryChart*>(u"memoryChart"_s);
    const QString tip = memory->segmentTip(2, 1);  // optimizer states of FSDP full shard
    QVERIFY2(tip.startsWith(u"<b>FSDP full shard · Optimizer states: "_s), qPrintable(tip));
    const QString explain =
        QString::fromStdString(plan::formatExplanations(*c.strategies[1].prediction, "memory.optimizer_states"))
            .trimmed()
            .toHtmlEscaped();
    QVERIFY2(tip.contains(explain), qPrintable(tip));
    const QString point = view->findChild<views::ScalingChart*>(u"stepTimeScalingChart"_s)->pointTip(0, 64);
    QVERIFY2(point.contains(u"time.step_s = "_s), qPrintable(point));
    const QString comm = view->findChild<views::CommChart*>(u"commChart"_s)->strategyTip(0);
    QVERIFY2(comm.contains(u"all_reduce"_s), qPrintable(comm));
    const QAbstractItemModel* strategies = view->findChild<QTableView*>(u"strategiesTable"_s)->model();
    QVERIFY(strategies->index(0, views::StrategyComparisonModel::StepTimeColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith(u"time.step_s = "_s));
  }

  // At 1600×1000 the inputs are taller than the room beside the charts: the mouse wheel over them scrolls down to
  // the Training group, wherever the pointer rests, and changes no value on the way (an unfocused spin box or combo
  // box leaves the wheel to the form).
  void wheelScrollsTheInputsToTheTrainingGroup() {
    MainWindow window;
    WhatIfView* view = showAt1600x1000(window);
    QVERIFY(view != nullptr);
    auto* scroll = view->findChild<QScrollArea*>(u"whatIfInputs"_s);
    auto* training = view->findChild<QGroupBox*>(u"trainingGroup"_s);
    QVERIFY(scroll != nullptr && training != nullptr);
    auto bottomInViewport = [&] { return training->mapTo(scroll->viewport(), QPoint(0, training->height())).y(); };
    QVERIFY2(bottomInViewport() > scroll->viewport()->height(), "the window is tall enough: nothing to scroll");
    const QJsonObject before = view->request().toJson();

    // The pointer rests over the fields' column; the form moves under it, so each notch lands on another field.
    const QPoint pointer(scroll->viewport()->width() * 2 / 3, scroll->viewport()->height() / 3);
    QScrollBar* bar = scroll->verticalScrollBar();
    for (int notch = 0; notch < 40 && bar->value() < bar->maximum(); ++notch) {
      QWidget* under = scroll->viewport()->childAt(pointer);
      QVERIFY(under != nullptr);
      const QPoint local = under->mapFrom(scroll->viewport(), pointer);
      QWheelEvent wheel(local, under->mapToGlobal(local), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                        Qt::NoScrollPhase, false);
      // As the window system delivers it (sendEvent would mark it synthetic, and Qt passes those to no parent).
      QSpontaneKeyEvent::setSpontaneous(&wheel);
      qApp->notify(under, &wheel);
    }
    QCOMPARE(view->request().toJson(), before);
    QCOMPARE(bar->value(), bar->maximum());
    QVERIFY2(
        bottomInViewport() <= scroll->viewport()->height(),
        qPrintable(u"the Training group ends at %1 of %2"_s.arg(bottomInViewport()).arg(scroll->viewport()->height())));
  }

  // At 1600×1000 the Top plans table shows every column in full: no header is cut, nothing is scrolled out of view,
  // and the strategy names wrap instead.
  void topPlansShowEveryColumn() {
    MainWindow window;
    WhatIfView* view = showAt1600x1000(window);
    QVERIFY(view != nullptr);
    view->findChild<QTabWidget*>(u"whatIfTabs"_s)->setCurrentIndex(4);
    auto* table = view->findChild<QTableView*>(u"searchTable"_s);
    QVERIFY(table->isVisible());
    QTRY_VERIFY(table->model()->rowCount() > 0);
    QHeaderView* header = table->horizontalHeader();
    for (int column = 0; column < header->count(); ++column) {
      QVERIFY2(header->sectionSize(column) >= header->sectionSizeHint(column),
               qPrintable(table->model()->headerData(column, Qt::Horizontal).toString()));
    }
    QVERIFY2(header->length() <= table->viewport()->width(),
             qPrintable(u"%1 px of columns in %2 px"_s.arg(header->length()).arg(table->viewport()->width())));
    QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
    for (int row = 0; row < table->model()->rowCount(); ++row) {
      // Wrapped names are shown whole (QTableView hides the public QAbstractItemView::sizeHintForRow).
      QVERIFY(table->rowHeight(row) >= static_cast<QAbstractItemView*>(table)->sizeHintForRow(row));
    }
  }

  void exportsPngSvgAndCsv() {
    MainWindow window;
    window.show();
    WhatIfView* view = window.showPlanner();
    QTRY_VERIFY_WITH_TIMEOUT(view->comparison().has_value(), 20'000);
    QTemporaryDir dir;
    QString error;
    QVERIFY2(view->exportImage(dir.filePath(u"c.png"_s), &error), qPrintable(error));
    const QImage png(dir.filePath(u"c.png"_s));
    QVERIFY(!png.isNull() && png.width() > 300);
    QVERIFY2(view->exportImage(dir.filePath(u"c.svg"_s), &error), qPrintable(error));
    QFile svg(dir.filePath(u"c.svg"_s));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray svgText = svg.readAll();
    QVERIFY(svgText.contains("<svg"));
    QVERIFY(svgText.contains("Memory per GPU by strategy"));  // the charts are vector text, not a bitmap
    QVERIFY2(view->exportCsv(dir.filePath(u"c.csv"_s), &error), qPrintable(error));
    QFile csv(dir.filePath(u"c.csv"_s));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readLine(), QByteArray("# model,Llama 2 7B,parameters,6738415616\n"));
  }
};

QTEST_MAIN(TestWhatIfView)
#include "tst_what_if_view.moc"
