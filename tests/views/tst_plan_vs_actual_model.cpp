// SPDX-License-Identifier: Apache-2.0
// views::PlanVsActualModel over core's plan-vs-actual comparison: rows per rank and quantity, "exact" where equal,
// signed differences, unknown sides, and QAbstractItemModelTester's checks through a reset.
#include "planner/plan_vs_actual_model.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace fathom;
using namespace Qt::StringLiterals;
using views::PlanVsActualModel;

namespace {

plan::PlanVsActual comparison() {
  plan::Prediction p;
  p.memory.parameters = 1000;
  p.memory.gradients = 1000;
  p.memory.optimizerStates = 2000;
  p.memory.activations = 500;
  p.memory.total = 4500;
  p.communication.collectives = {{plan::CollectiveKind::AllGather, "parameters", 8000, 4}};
  p.time.stepS = 0.5;
  plan::MeasuredRank m;
  m.rank = 0;
  m.memory = {{MemoryCategory::Parameters, 1000},
              {MemoryCategory::Gradients, 1200},
              {MemoryCategory::OptimizerStates, 2000},
              {MemoryCategory::MasterWeights, 0}};
  m.collectiveStep = 3;
  m.collectives = {{plan::CollectiveKind::AllGather, {4, 8000}}, {plan::CollectiveKind::AllReduce, {1, 4}}};
  m.stepSeconds = 0.25;
  plan::MeasuredRank other = m;
  other.rank = 1;
  return plan::comparePlanToRun(5, p, {m, other});
}

int rowOf(const PlanVsActualModel& model, int rank, const QString& key) {
  for (int r = 0; r < model.rowCount(); ++r) {
    if (model.index(r, PlanVsActualModel::RankColumn).data(PlanVsActualModel::ValueRole).toInt() == rank &&
        model.index(r, PlanVsActualModel::QuantityColumn).data(PlanVsActualModel::ValueRole).toString() == key) {
      return r;
    }
  }
  return -1;
}

}  // namespace

class TestPlanVsActualModel : public QObject {
  Q_OBJECT

private slots:
  void rowsPerRankAndQuantity() {
    PlanVsActualModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setComparison(comparison());
    // Per rank: 5 memory categories, total, all_reduce and all_gather, step time.
    QCOMPARE(model.rowCount(), 2 * 9);
    QCOMPARE(model.columnCount(), int(PlanVsActualModel::ColumnCount));

    const int params = rowOf(model, 0, u"parameters"_s);
    QVERIFY(params >= 0);
    QVERIFY(model.index(params, 0).data(PlanVsActualModel::ExactRole).toBool());
    QCOMPARE(model.index(params, PlanVsActualModel::DifferenceColumn).data().toString(),
             PlanVsActualModel::tr("exact"));

    const int grads = rowOf(model, 1, u"gradients"_s);
    QCOMPARE(model.index(grads, PlanVsActualModel::DifferenceColumn).data(PlanVsActualModel::ValueRole).toDouble(),
             200.0);
    QVERIFY(model.index(grads, PlanVsActualModel::DifferenceColumn).data().toString().startsWith(u'+'));

    // No profile: activations unmeasured, no difference.
    const int activations = rowOf(model, 0, u"activations"_s);
    QVERIFY(!model.index(activations, PlanVsActualModel::MeasuredColumn).data(PlanVsActualModel::ValueRole).isValid());
    QVERIFY(!model.index(activations, 0).data(PlanVsActualModel::ExactRole).toBool());

    const int gather = rowOf(model, 0, u"all_gather"_s);
    QVERIFY(model.index(gather, 0).data(PlanVsActualModel::ExactRole).toBool());
    const int reduce = rowOf(model, 0, u"all_reduce"_s);  // measured only: a logging reduction
    QVERIFY(!model.index(reduce, PlanVsActualModel::PredictedColumn).data(PlanVsActualModel::ValueRole).isValid());
    QCOMPARE(model.index(reduce, PlanVsActualModel::DifferenceColumn).data(PlanVsActualModel::ValueRole).toDouble(),
             4.0);

    const int step = rowOf(model, 1, u"step_s"_s);
    QCOMPARE(model.index(step, PlanVsActualModel::DifferenceColumn).data(PlanVsActualModel::ValueRole).toDouble(),
             -0.25);
    QVERIFY(!model.headerData(PlanVsActualModel::MeasuredColumn, Qt::Horizontal).toString().isEmpty());

    model.setComparison({});
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(TestPlanVsActualModel)
#include "tst_plan_vs_actual_model.moc"
