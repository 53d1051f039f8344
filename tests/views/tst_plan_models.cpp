// SPDX-License-Identifier: Apache-2.0
// The planner's item models: strategies side by side (values, explanations as tooltips), the collectives of one
// plan, the plan search's best plans, and the saved plans of a workspace. Each under QAbstractItemModelTester.
#include "common/formatting.h"
#include "planner/collectives_model.h"
#include "planner/plan_comparison.h"
#include "planner/plan_search_model.h"
#include "planner/saved_plans_model.h"
#include "planner/strategy_comparison_model.h"

#include <fathom/plan/report.h>

#include "model_dump.h"

#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::CollectivesModel;
using views::PlanSearchModel;
using views::SavedPlansModel;
using views::StrategyComparisonModel;

namespace {

views::PlanRequest gpt2Request() {
  views::PlanRequest r;
  r.model.kind = views::ModelSource::Kind::Dimensions;
  r.model.dimsName = u"GPT-2 small"_s;
  r.model.dims.arch = plan::Arch::Gpt;
  r.model.dims.layers = 12;
  r.model.dims.hidden = 768;
  r.model.dims.heads = 12;
  r.model.dims.vocab = 50257;
  r.model.dims.maxPositions = 1024;
  r.hardware.preset = u"a100-40gb"_s;
  r.plan.numGpus = 4;
  r.plan.microBatch = 8;
  return r;
}

views::PlanComparison comparison() {
  const views::PlanRequest r = gpt2Request();
  return views::compare(r, r.model.resolve(), r.hardware.resolve());
}

}  // namespace

class TestPlanModels : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

  void strategiesSideBySide() {
    StrategyComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    const views::PlanComparison c = comparison();
    model.setComparison(c);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(fathom::test::dumpColumn(model, StrategyComparisonModel::StrategyColumn),
             (QStringList{u"DDP"_s, u"FSDP full shard"_s, u"FSDP shard grad op"_s, u"FSDP hybrid shard"_s,
                          u"FSDP no shard"_s, u"ZeRO-1"_s, u"ZeRO-2"_s, u"ZeRO-3"_s}));
    for (int row = 0; row < model.rowCount(); ++row) {
      const views::PlanEvaluation& e = c.strategies[std::size_t(row)];
      if (!e.ok()) {
        // Hybrid shard inside one 8-GPU node with 4 GPUs: the core's message, and dashes.
        QCOMPARE(row, 3);
        QCOMPARE(model.index(row, StrategyComparisonModel::StrategyColumn).data(Qt::ToolTipRole).toString(), e.error);
        QCOMPARE(model.index(row, StrategyComparisonModel::TotalColumn).data().toString(), u"invalid plan"_s);
        QVERIFY(
            !model.index(row, StrategyComparisonModel::TotalColumn).data(StrategyComparisonModel::ValueRole).isValid());
        continue;
      }
      const plan::Prediction& p = *e.prediction;
      const QModelIndex total = model.index(row, StrategyComparisonModel::TotalColumn);
      QCOMPARE(total.data(StrategyComparisonModel::ValueRole).toDouble(), p.memory.total);
      QCOMPARE(total.data().toString(), views::format::bytes(p.memory.total));
      QCOMPARE(total.data(StrategyComparisonModel::FitsRole).toBool(), p.fits);
      QCOMPARE(model.index(row, StrategyComparisonModel::OptimizerStatesColumn)
                   .data(StrategyComparisonModel::ValueRole)
                   .toDouble(),
               p.memory.optimizerStates);
      QCOMPARE(
          model.index(row, StrategyComparisonModel::StepTimeColumn).data(StrategyComparisonModel::ValueRole).toDouble(),
          p.time.stepS);
      // Hover text: exactly the --explain block of that number.
      QCOMPARE(model.index(row, StrategyComparisonModel::GradientsColumn).data(Qt::ToolTipRole).toString(),
               QString::fromStdString(plan::formatExplanations(p, "memory.gradients")).trimmed());
      QVERIFY(model.index(row, StrategyComparisonModel::MfuColumn)
                  .data(StrategyComparisonModel::ExplanationRole)
                  .toString()
                  .startsWith(u"time.mfu = "_s));
    }
    QCOMPARE(model.headerData(StrategyComparisonModel::OptimizerStatesColumn, Qt::Horizontal).toString(),
             u"Optimizer states"_s);
  }

  void collectivesOfOnePlan() {
    CollectivesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const views::PlanComparison c = comparison();
    const plan::Prediction& fsdp = *c.strategies[1].prediction;
    model.setCollectives(fsdp.communication.collectives);
    QCOMPARE(model.rowCount(), int(fsdp.communication.collectives.size()));
    QStringList rows;
    for (int r = 0; r < model.rowCount(); ++r) {
      rows << u"%1 | %2 | %3 | %4 | %5"_s.arg(model.index(r, CollectivesModel::KindColumn).data().toString(),
                                              model.index(r, CollectivesModel::PurposeColumn).data().toString(),
                                              model.index(r, CollectivesModel::GroupColumn).data().toString(),
                                              model.index(r, CollectivesModel::ScopeColumn).data().toString(),
                                              model.index(r, CollectivesModel::OverlapColumn).data().toString());
      const plan::Collective& k = fsdp.communication.collectives[std::size_t(r)];
      QCOMPARE(model.index(r, CollectivesModel::BytesColumn).data(CollectivesModel::ValueRole).toDouble(), k.bytes);
      QCOMPARE(model.index(r, 0).data(Qt::ToolTipRole).toString(), QString::fromStdString(plan::formatCollective(k)));
    }
    QCOMPARE(rows.size(), 3);
    QVERIFY2(rows.at(0).startsWith(u"all_gather | parameters (forward) | 4 | intra-node"_s),
             qPrintable(rows.join(u'\n')));
    QVERIFY2(rows.at(2).startsWith(u"reduce_scatter | gradients | 4 | intra-node | overlapped"_s),
             qPrintable(rows.at(2)));
  }

  void searchResultsBestFirst() {
    PlanSearchModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const views::PlanComparison c = comparison();
    model.setOutcome(c.search);
    QCOMPARE(model.rowCount(), int(c.search.results.size()));
    QVERIFY(model.rowCount() > 0);
    QCOMPARE(model.index(0, PlanSearchModel::RankColumn).data().toInt(), 1);
    for (int r = 0; r < model.rowCount(); ++r) {
      const plan::SearchResult& s = c.search.results[std::size_t(r)];
      QCOMPARE(model.index(r, PlanSearchModel::StrategyColumn).data(PlanSearchModel::ValueRole).toString(),
               QString::fromStdString(plan::strategyLabel(s.plan)));
      QCOMPARE(model.index(r, PlanSearchModel::TokensPerSecondColumn).data(PlanSearchModel::ValueRole).toDouble(),
               s.prediction.time.tokensPerS);
      QCOMPARE(model.index(r, PlanSearchModel::MicroBatchColumn).data().toInt(), s.plan.microBatch);
    }
  }

  void savedPlansSummariseComparisons() {
    SavedPlansModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const views::PlanComparison c = comparison();
    store::PlanRecord saved{store::PlanId{7}, 1700000000.0, views::comparisonInputJson(c.request),
                            views::comparisonPredictionJson(c)};
    store::PlanRecord foreign{store::PlanId{8}, 1700000100.0, R"({"model":"gpt2"})", R"({"step_ms":12})"};
    model.setPlans({views::SavedPlanRow::fromRecord(saved), views::SavedPlanRow::fromRecord(foreign)});
    QCOMPARE(model.rowCount(), 2);
    int fitting = 0;
    for (const auto& e : c.strategies) {
      fitting += e.ok() && e.prediction->fits ? 1 : 0;
    }
    const QStringList row0{model.index(0, SavedPlansModel::IdColumn).data().toString(),
                           model.index(0, SavedPlansModel::ModelColumn).data().toString(),
                           model.index(0, SavedPlansModel::HardwareColumn).data().toString(),
                           model.index(0, SavedPlansModel::GpusColumn).data().toString(),
                           model.index(0, SavedPlansModel::FittingColumn).data().toString()};
    QCOMPARE(row0, (QStringList{u"7"_s, u"GPT-2 small"_s, u"a100-40gb"_s, u"4"_s, u"%1 of 8"_s.arg(fitting)}));
    QVERIFY(!model.index(0, SavedPlansModel::FastestColumn).data().toString().isEmpty());
    const QJsonObject request = model.index(0, 0).data(SavedPlansModel::RequestRole).toJsonObject();
    QCOMPARE(views::PlanRequest::fromJson(request).toJson(), c.request.toJson());
    // A record the what-if planner did not write: what it names, dashes elsewhere, no request.
    QCOMPARE(model.index(1, SavedPlansModel::ModelColumn).data().toString(), u"gpt2"_s);
    QCOMPARE(model.index(1, SavedPlansModel::FittingColumn).data().toString(), u"–"_s);
    QVERIFY(model.index(1, 0).data(SavedPlansModel::RequestRole).toJsonObject().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestPlanModels)
#include "tst_plan_models.moc"
