// SPDX-License-Identifier: Apache-2.0
// The one JSON form of the planner's values (plan_json.h, prediction_json.h): every field of a Plan, of transformer
// dimensions and of a device survives a round trip; `fathom plan --json`'s object reads back to what it was written
// from; plan files read their keys through the same field list.
#include "plan_test_support.h"

#include "error_helpers.h"

#include <fathom/common/error.h>
#include <fathom/common/memory_category.h>
#include <fathom/plan/plan_file.h>
#include <fathom/plan/plan_json.h>
#include <fathom/plan/predict.h>
#include <fathom/plan/prediction_json.h>
#include <fathom/plan/report.h>

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>

using namespace fathom;
using namespace fathom::plan;
using fathom::test::messageOf;
using nlohmann::json;

namespace {

/// A plan with every field away from its default, as JSON in toJson's key order.
const char* const kUnusualPlan = R"({"strategy":"fsdp","fsdp_sharding_strategy":"hybrid_shard",)"
                                 R"("fsdp_auto_wrap_policy":"size_based_wrap","fsdp_min_num_params":12345,)"
                                 R"("zero_bucket_size":678,"num_gpus":16,"gpus_per_node":4,"offload_optimizer":true,)"
                                 R"("offload_params":true,"tp":2,"pp":2,"sequence_parallel":true,"micro_batch":3,)"
                                 R"("gradient_accumulation_steps":5,"precision":"fp16","master_weights":"autocast",)"
                                 R"("optimizer":"sgd-momentum","recompute":"selective","flash_attention":true,)"
                                 R"("bytes_convention":"deepspeed","grad_sync":"once_per_step","seq":1024})";

/// Transformer dimensions with every field away from its default, as JSON in toJson's key order.
const char* const kUnusualDims = R"({"arch":"t5","layers":6,"decoder_layers":4,"hidden":512,"heads":8,"kv_heads":4,)"
                                 R"("head_dim":64,"ffn_hidden":2048,"vocab":32128,"max_positions":7,"type_vocab":3,)"
                                 R"("relative_buckets":16,"tied_embeddings":false,"gated_mlp":true,)"
                                 R"("attention_bias":true,"num_experts":8,"experts_per_token":2,"pooler":false,)"
                                 R"("dropout":false})";

std::string keysOf(const nlohmann::ordered_json& j) {
  std::string out;
  for (const auto& [key, value] : j.items()) {
    out += (out.empty() ? "" : " ") + key;
  }
  return out;
}

}  // namespace

class TestPlanJson : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { qunsetenv("FATHOM_HARDWARE_DIR"); }

  void everyPlanFieldRoundTrips() {
    const Plan p = planFromJson(json::parse(kUnusualPlan));
    const nlohmann::ordered_json j = toJson(p);
    QCOMPARE(j.dump(), std::string(kUnusualPlan));  // every field read, and written back in the same order
    QCOMPARE(toJson(planFromJson(json::parse(j.dump()))).dump(), j.dump());
    // The values, not only the text, came back.
    QVERIFY(p.fsdpSharding == FsdpSharding::HybridShard);
    QCOMPARE(p.seqLen, std::int64_t{1024});
    QCOMPARE(p.zeroBucketElements, std::int64_t{678});
    QVERIFY(p.gradSync == GradSync::OncePerStep);
    QVERIFY(p.optimizer == Optimizer::SgdMomentum);
    // Every key toJson writes is one planFromJson reads, and a plan file accepts.
    const auto keys = planKeys();
    for (const auto& [key, value] : j.items()) {
      QVERIFY2(std::find(keys.begin(), keys.end(), key) != keys.end(), key.c_str());
    }
  }

  void applicableFieldsFollowTheStrategy() {
    Plan p;
    QCOMPARE(keysOf(toJson(p, PlanFields::Applicable)),
             std::string("strategy num_gpus gpus_per_node offload_optimizer offload_params tp pp sequence_parallel "
                         "micro_batch gradient_accumulation_steps precision master_weights optimizer recompute "
                         "flash_attention bytes_convention grad_sync"));
    p.strategy = Strategy::Fsdp;
    QVERIFY(keysOf(toJson(p, PlanFields::Applicable))
                .starts_with("strategy fsdp_sharding_strategy fsdp_auto_wrap_policy fsdp_min_num_params num_gpus"));
    p.strategy = Strategy::Zero3;
    QVERIFY(keysOf(toJson(p, PlanFields::Applicable))
                .starts_with("strategy fsdp_auto_wrap_policy fsdp_min_num_params num_gpus"));
    p.strategy = Strategy::Zero2;
    QVERIFY(keysOf(toJson(p, PlanFields::Applicable)).starts_with("strategy zero_bucket_size num_gpus"));
    // The complete form always holds everything, seq last.
    QVERIFY(keysOf(toJson(p)).ends_with("grad_sync seq"));
  }

  void valuesMayBeTextAndAliases() {
    // YAML scalars arrive as text; Accelerate's spellings are aliases, the plan's own key wins.
    const json j = {{"num_processes", "8"},    {"num_gpus", "4"},
                    {"mixed_precision", "no"}, {"offload_params", "yes"},
                    {"micro_batch", 2},        {"fsdp_sharding_strategy", 2},
                    {"strategy", "FSDP"},      {"fsdp_min_num_params", 1e8},
                    {"unrelated", "ignored"}};
    const Plan p = planFromJson(j);
    QCOMPARE(p.numGpus, 4);
    QVERIFY(p.precision == Precision::Fp32);
    QVERIFY(p.offloadParams);
    QCOMPARE(p.microBatch, 2);
    QVERIFY(p.fsdpSharding == FsdpSharding::ShardGradOp);  // torch's enum value 2
    QCOMPARE(p.fsdpMinNumParams, std::int64_t{100'000'000});
    QCOMPARE(planFromJson(json{{"num_processes", 8}}).numGpus, 8);
    // Absent keys keep the base's values.
    Plan base;
    base.tp = 4;
    QCOMPARE(planFromJson(json{{"pp", 2}}, base).tp, 4);
  }

  void badValuesNameTheKey() {
    std::string m = messageOf([] { planFromJson(json{{"micro_batch", "four"}}, {}, "plan.yaml"); });
    QVERIFY2(m == "plan.yaml: bad value for 'micro_batch': 'four'", m.c_str());
    m = messageOf([] { planFromJson(json{{"flash_attention", "maybe"}}, {}, "x"); });
    QVERIFY2(m == "x: bad value for 'flash_attention': 'maybe'", m.c_str());
    m = messageOf([] { planFromJson(json{{"tp", 2.5}}, {}, "x"); });
    QVERIFY2(m == "x: bad value for 'tp': '2.5'", m.c_str());
    m = messageOf([] { planFromJson(json{{"strategy", "zero9"}}); });
    QVERIFY2(m.find("invalid strategy 'zero9'") != std::string::npos, m.c_str());
    QVERIFY(fathom::test::throwsType<ConfigError>([] { planFromJson(json::array()); }));
  }

  void dimensionsRoundTrip() {
    const TransformerDims d = dimsFromJson(json::parse(kUnusualDims));
    QCOMPARE(toJson(d).dump(), std::string(kUnusualDims));
    QVERIFY(d.arch == Arch::T5);
    QCOMPARE(d.relativeBuckets, std::int64_t{16});
    QVERIFY(d.gatedMlp && !d.pooler && !d.tiedEmbeddings);
    const auto keys = dimsKeys();
    QCOMPARE(std::string(keys.front()), std::string("arch"));
    QCOMPARE(keys.size(), toJson(d).size());
    // tied_embeddings defaults by family when absent.
    QVERIFY(!dimsFromJson(json{{"arch", "llama"}}).tiedEmbeddings);
    QVERIFY(dimsFromJson(json{{"arch", "gpt"}}).tiedEmbeddings);
    QVERIFY(dimsFromJson(json{{"arch", "llama"}, {"tied_embeddings", true}}).tiedEmbeddings);
  }

  void everyPresetRoundTripsThroughTheHardwareForm() {
    for (const std::string& name : hardwarePresetNames()) {
      const HardwareSpec hw = loadHardware(name);
      const HardwareSpec back = hardwareFromJson(json::parse(toJson(hw).dump()), "copy");
      QCOMPARE(toJson(back).dump(), toJson(hw).dump());
      QCOMPARE(back.memoryBytes, hw.memoryBytes);
      QCOMPARE(back.interNode.latency, hw.interNode.latency);
      QCOMPARE(back.frameworkOverheadBytes, hw.frameworkOverheadBytes);
    }
  }

  void predictionReportReadsBackWhatItWrote() {
    const ModelSpec model = plantest::gptModel(4, 512, 8);
    HardwareSpec hw = plantest::bigDevice();
    hw.source = "test";
    Plan p;
    p.strategy = Strategy::Fsdp;
    p.numGpus = 16;
    p.offloadOptimizer = true;
    p.offloadParams = true;  // FSDP offloads everything together
    const Prediction r = predict(model, hw, p, {.explain = true});
    QVERIFY(!r.explanations.empty());
    QVERIFY(!r.communication.collectives.empty());
    const std::string text = formatPredictionJson(model, hw, p, r);
    const PredictionReport back = predictionReportFromJson(json::parse(text));
    QCOMPARE(toJson(back).dump(2), text);
    QCOMPARE(back.prediction.memory.optimizerStates, std::round(r.memory.optimizerStates));
    QCOMPARE(back.prediction.communication.collectives.size(), r.communication.collectives.size());
    QVERIFY(back.prediction.communication.collectives.front().kind == r.communication.collectives.front().kind);
    QCOMPARE(back.prediction.explanations.size(), r.explanations.size());
    QCOMPARE(back.plan.seqLen, r.seqLen);  // the resolved length
    QCOMPARE(strategyLabel(back.plan), strategyLabel(p));
    // The breakdown is keyed by the memory vocabulary: one key per planned category, then the total.
    std::string expected;
    for (const auto& field : kMemoryBreakdownFields) {
      expected += std::string(toString(field.category)) + " ";
    }
    QCOMPARE(keysOf(nlohmann::ordered_json::parse(text)["memory"]["per_rank_bytes"]), expected + "total");
    // ... and `--explain` explains each category's number under that key.
    for (const auto& field : kMemoryBreakdownFields) {
      if (r.memory.*field.member > 0) {
        QVERIFY2(!formatExplanations(r, explanationKey(field.category)).empty(),
                 std::string(toString(field.category)).c_str());
      }
    }

    const SearchOutcome found = search(model, hw, p, {.limit = 3});
    const std::string searched = formatSearchJson(model, hw, found);
    QCOMPARE(toJson(searchReportFromJson(json::parse(searched))).dump(2), searched);
    QVERIFY(fathom::test::throwsType<ConfigError>([] {
      predictionReportFromJson(json{{"memory", {{"fits", "yes"}}}});
    }));
  }

  void planFilesReadThePlanKeys() {
    const PlanInputs in =
        parsePlanText("strategy: zero3\nnum_processes: 8\nmicro_batch: '2'\nprecision: fp16\narch: llama\nlayers: 2\n"
                      "hidden: 256\nheads: 4\nvocab: 1000\ngated_mlp: true\nfsdp_sharding_strategy: 1\n",
                      "t.yaml", ".");
    QVERIFY(in.plan.strategy == Strategy::Zero3);
    QCOMPARE(in.plan.numGpus, 8);
    QCOMPARE(in.plan.microBatch, 2);
    QVERIFY(in.plan.precision == Precision::Fp16);
    QVERIFY(in.dims.has_value());
    QVERIFY(in.dims->gatedMlp);
    QVERIFY(!in.dims->tiedEmbeddings);
    const std::string m = messageOf([] { parsePlanText("strategy: ddp\nmicro_batchh: 2\n", "t.yaml", "."); });
    QVERIFY2(m == "t.yaml: unknown key 'micro_batchh'", m.c_str());
  }
};

QTEST_GUILESS_MAIN(TestPlanJson)
#include "tst_plan_json.moc"
