// SPDX-License-Identifier: Apache-2.0
// A what-if comparison saved in a workspace by the release before Plan and Prediction had one JSON form in core
// (tests/data/saved_plan_v3.*.json, written byte for byte by that release's Studio: make_saved_plan_fixture.sh) still
// reads: the saved plans list shows what that release showed, the request opens, and every prediction reads into
// core's values and writes back to the same JSON.
#include "planner/plan_request.h"
#include "planner/saved_plans_model.h"

#include <fathom/plan/prediction_json.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <limits>
#include <string>

using namespace fathom;
using namespace Qt::StringLiterals;

namespace {

std::string readFixture(const char* name) {
  QFile file(QStringLiteral(FATHOM_TEST_DATA_DIR "/") + QString::fromLatin1(name));
  return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

QJsonObject object(const std::string& text) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

/// A prediction as written today, less what that release did not write: `hardware.device` (added with CPU hardware
/// presets; that release planned GPUs only, so today's value must be "gpu") and the step's breakdown by operator class
/// and its overhead (added with calibration from a run; absent from that release's JSON, so they read as 0).
nlohmann::json withoutNewKeys(nlohmann::json prediction) {
  nlohmann::json& hardware = prediction.at("hardware");
  if (hardware.value("device", "") != "gpu") {
    return {{"unexpected hardware.device", hardware.value("device", "<missing>")}};
  }
  hardware.erase("device");
  nlohmann::json& time = prediction.at("time");
  for (const char* key : {"overhead_s", "matmul_s", "attention_s", "elementwise_s", "optimizer_s"}) {
    if (time.value(key, -1.0) != 0.0) {
      return {{"unexpected time key", key}, {"value", time.value(key, -1.0)}};
    }
    time.erase(key);
  }
  return prediction;
}

}  // namespace

class TestSavedPlanFixture : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    m_input = readFixture("saved_plan_v3.input.json");
    m_prediction = readFixture("saved_plan_v3.prediction.json");
    QVERIFY(!m_input.empty() && !m_prediction.empty());
    // Through a workspace, as the Studio reads it.
    QVERIFY(m_dir.isValid());
    store::Workspace ws(m_dir.filePath(u"ws.sqlite"_s).toStdString());
    ws.savePlan(m_input, m_prediction);
    const auto plans = ws.plans();
    QCOMPARE(plans.size(), std::size_t{1});
    m_record = plans.front();
    QCOMPARE(m_record.inputJson, m_input);
  }

  void listShowsWhatThatReleaseShowed() {
    // That release's reading, by hand from the JSON: the oracle the saved plans list must agree with.
    const QJsonObject request = object(m_input).value(u"request"_s).toObject();
    int strategies = 0;
    int fitting = 0;
    double best = std::numeric_limits<double>::infinity();
    QString fastest;
    for (const QJsonValue& v : object(m_prediction).value(u"strategies"_s).toArray()) {
      const QJsonObject o = v.toObject();
      ++strategies;
      if (!o.value(u"memory"_s).toObject().value(u"fits"_s).toBool()) {
        continue;
      }
      ++fitting;
      const double step = o.value(u"time"_s).toObject().value(u"step_s"_s).toDouble();
      if (step < best) {
        best = step;
        const QJsonObject plan = o.value(u"plan"_s).toObject();
        fastest = plan.value(u"strategy"_s).toString();
        if (plan.contains(u"fsdp_sharding_strategy"_s)) {
          fastest += u"/"_s + plan.value(u"fsdp_sharding_strategy"_s).toString();
        }
      }
    }
    QCOMPARE(strategies, 8);
    QVERIFY(fitting > 0);

    const views::SavedPlanRow row = views::SavedPlanRow::fromRecord(m_record);
    QCOMPARE(row.model, request.value(u"model"_s).toObject().value(u"name"_s).toString());
    QCOMPARE(row.model, u"Llama 2 7B"_s);
    QCOMPARE(row.hardware, request.value(u"hardware"_s).toObject().value(u"preset"_s).toString());
    QCOMPARE(row.numGpus, request.value(u"plan"_s).toObject().value(u"num_gpus"_s).toInt());
    QCOMPARE(row.strategies, strategies);
    QCOMPARE(row.fitting, fitting);
    QCOMPARE(row.fastest, fastest);
    QCOMPARE(row.request, request);
  }

  void requestOpens() {
    const QJsonObject saved = object(m_input).value(u"request"_s).toObject();
    const views::PlanRequest request = views::PlanRequest::fromJson(saved);
    QVERIFY(request.model.kind == views::ModelSource::Kind::Dimensions);
    QCOMPARE(request.model.dims.layers, std::int64_t{32});
    QVERIFY(request.model.dims.arch == plan::Arch::Llama);
    QVERIFY(!request.model.dims.tiedEmbeddings);
    QVERIFY(request.plan.strategy == plan::Strategy::Fsdp);
    QCOMPARE(request.plan.seqLen, std::int64_t{4096});
    // Every key that release wrote has the same value written today (today's form adds the dimensions it left out).
    const QJsonObject again = request.toJson();
    for (const QString& part : {u"plan"_s, u"hardware"_s}) {
      QCOMPARE(again.value(part).toObject(), saved.value(part).toObject());
    }
    const QJsonObject dims = saved.value(u"model"_s).toObject().value(u"dims"_s).toObject();
    const QJsonObject dimsAgain = again.value(u"model"_s).toObject().value(u"dims"_s).toObject();
    for (auto it = dims.begin(); it != dims.end(); ++it) {
      QCOMPARE(dimsAgain.value(it.key()), it.value());
    }
  }

  void everyPredictionReadsAndWritesBackTheSame() {
    const nlohmann::json saved = nlohmann::json::parse(m_prediction);
    int read = 0;
    for (const nlohmann::json& strategy : saved.at("strategies")) {
      if (strategy.contains("error")) {
        continue;
      }
      const plan::PredictionReport report = plan::predictionReportFromJson(strategy);
      QVERIFY(report.prediction.memory.total > 0);
      QVERIFY(!report.prediction.explanations.empty());
      // Same keys, same values (and the one key added since, checked in withoutNewKeys).
      QVERIFY(withoutNewKeys(nlohmann::json::parse(plan::toJson(report).dump())) == strategy);
      ++read;
    }
    QVERIFY(read > 0);
    const plan::SearchReport search = plan::searchReportFromJson(saved.at("search"));
    QVERIFY(!search.results.empty());
    nlohmann::json searchAgain = nlohmann::json::parse(plan::toJson(search).dump());
    for (nlohmann::json& result : searchAgain.at("results")) {
      result = withoutNewKeys(std::move(result));
    }
    QVERIFY(searchAgain == saved.at("search"));
  }

private:
  QTemporaryDir m_dir;
  std::string m_input;
  std::string m_prediction;
  store::PlanRecord m_record;
};

QTEST_GUILESS_MAIN(TestSavedPlanFixture)
#include "tst_saved_plan_fixture.moc"
