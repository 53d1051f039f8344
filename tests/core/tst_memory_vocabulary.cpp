// SPDX-License-Identifier: Apache-2.0
// The one memory-category vocabulary (common/memory_category.h) and the metric keys made from it
// (common/memory_metric_keys.h): every category named once, every key parsed back to what it names, the earlier
// spellings read as the current ones, and a workspace written by the release before it
// (tests/data/workspace_v3.sqlite) opening with every memory metric under its current key and the same points.
#include <fathom/common/memory_category.h>
#include <fathom/common/memory_metric_keys.h>
#include <fathom/plan/prediction.h>
#include <fathom/store/workspace.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace fathom;
using namespace Qt::StringLiterals;

namespace {

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// The JSON values of a file holding several, one after another (`fathom runs list --json`, then `runs show`).
QJsonArray concatenatedJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    return {};
  }
  const QByteArray text = file.readAll();
  QJsonArray out;
  qsizetype start = 0;
  int depth = 0;
  bool inString = false;
  for (qsizetype i = 0; i < text.size(); ++i) {
    const char c = text.at(i);
    if (inString) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (depth++ == 0) {
        start = i;
      }
    } else if ((c == '}' || c == ']') && --depth == 0) {
      const QJsonDocument doc = QJsonDocument::fromJson(text.mid(start, i - start + 1));
      out.append(doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object()));
    }
  }
  return out;
}

}  // namespace

class TestMemoryVocabulary : public QObject {
  Q_OBJECT

private slots:
  void everyCategoryHasOneKey() {
    QSet<QString> keys;
    for (std::size_t i = 0; i < kMemoryCategoryCount; ++i) {
      const auto category = static_cast<MemoryCategory>(i);
      const QString key = qs(toString(category));
      QVERIFY2(!key.isEmpty() && !keys.contains(key), qPrintable(key));
      keys.insert(key);
      QCOMPARE(memoryCategoryFromString(toString(category)), std::optional(category));
    }
    QVERIFY(!memoryCategoryFromString("parameterz").has_value());
    QVERIFY(!memoryCategoryFromString("total").has_value());  // a sum, not a category
  }

  void earlierSpellingsReadAsTheCurrentOnes() {
    // What the profiler's memory timeline wrote before the vocabulary was one (trace counters, metric keys).
    const std::pair<const char*, MemoryCategory> legacy[] = {{"parameter", MemoryCategory::Parameters},
                                                             {"gradient", MemoryCategory::Gradients},
                                                             {"optimizer_state", MemoryCategory::OptimizerStates},
                                                             {"activation", MemoryCategory::Activations},
                                                             {"temporary", MemoryCategory::Temporaries},
                                                             {"input", MemoryCategory::Inputs}};
    for (const auto& [text, category] : legacy) {
      QCOMPARE(memoryCategoryFromString(text), std::optional(category));
    }
  }

  void plannedAndMeasuredCategoriesShareTheirKeys() {
    // The planner's breakdown keys are `fathom plan --json`'s contract: the vocabulary took them.
    QStringList planned;
    for (const auto& field : plan::kMemoryBreakdownFields) {
      planned << qs(toString(field.category));
    }
    QCOMPARE(planned,
             QStringList({u"parameters"_s, u"gradients"_s, u"optimizer_states"_s, u"master_weights"_s, u"activations"_s,
                          u"gathered_parameters"_s, u"comm_buffers"_s, u"framework_overhead"_s}));
    QStringList profiled;
    for (const MemoryCategory c : kProfiledMemoryCategories) {
      profiled << qs(toString(c));
    }
    QCOMPARE(profiled, QStringList({u"parameters"_s, u"gradients"_s, u"optimizer_states"_s, u"master_weights"_s,
                                    u"activations"_s, u"temporaries"_s, u"inputs"_s, u"other"_s}));
    // What offloading moves is a model state the planner predicts on the device and the profiler classifies.
    for (const auto& field : plan::kOffloadedFields) {
      QVERIFY(plan::explanationKey(field.category) == "memory." + std::string(toString(field.category)));
      QVERIFY(std::find(kProfiledMemoryCategories.begin(), kProfiledMemoryCategories.end(), field.category) !=
              kProfiledMemoryCategories.end());
      QVERIFY(std::any_of(plan::kMemoryBreakdownFields.begin(), plan::kMemoryBreakdownFields.end(),
                          [&](const auto& f) { return f.category == field.category; }));
    }
  }

  void metricKeysAreMadeFromTheTable() {
    QCOMPARE(qs(memoryMetricKey(MemoryPlace::Device, MemoryCategory::Parameters)), u"memory/device/parameters_bytes"_s);
    QCOMPARE(qs(memoryMetricKey(MemoryPlace::Host, MemoryCategory::OptimizerStates)),
             u"memory/host/optimizer_states_bytes"_s);
    QCOMPARE(qs(peakMemoryMetricKey(MemoryPlace::Device, MemoryCategory::GatheredParameters)),
             u"memory/device/peak_gathered_parameters_bytes"_s);
    QCOMPARE(qs(profiledPeakMetricKey("cuda:0", MemoryCategory::Activations)),
             u"profile/memory/cuda:0/peak_activations_bytes"_s);
    QCOMPARE(qs(profiledPeakTotalMetricKey("cpu")), u"profile/memory/cpu/peak_total_bytes"_s);
  }

  void metricKeysParseBackToWhatTheyName() {
    using Kind = MemoryMetricName::Kind;
    std::vector<MemoryMetricName> names;
    for (const auto& entry : kMemoryCategoryNames) {
      for (const MemoryPlace place : {MemoryPlace::Device, MemoryPlace::Host}) {
        names.push_back({Kind::Current, place, {}, entry.category});
        names.push_back({Kind::Peak, place, {}, entry.category});
      }
      for (const char* device : {"cpu", "cuda:0", "cuda:12"}) {
        names.push_back({Kind::ProfiledPeak, MemoryPlace::Device, device, entry.category});
      }
    }
    names.push_back({Kind::ProfiledPeak, MemoryPlace::Device, "cuda:1", std::nullopt});
    for (const MemoryMetricName& name : names) {
      const std::string key = name.kind == Kind::Current ? memoryMetricKey(name.place, *name.category)
                              : name.kind == Kind::Peak  ? peakMemoryMetricKey(name.place, *name.category)
                              : name.category            ? profiledPeakMetricKey(name.device, *name.category)
                                                         : profiledPeakTotalMetricKey(name.device);
      QVERIFY2(parseMemoryMetricKey(key) == name, key.c_str());
    }
    // Keys that name no category, earlier spellings (currentMetricKey renames them first) and near misses.
    for (const char* other :
         {"loss", "memory/rss_bytes", "memory/peak_rss_bytes", "memory/allocated_bytes", "memory/peak_allocated_bytes",
          "memory/peak_gathered_parameters_bytes", "memory/gpu/parameters_bytes", "memory/device/parameter_bytes",
          "memory/device/parameters", "memory/device/peak_bytes", "memory/device/total_bytes",
          "profile/memory/cpu/peak_parameter_bytes", "profile/memory/cpu/parameters_bytes",
          "profile/memory//peak_parameters_bytes", "profile/memory/peak_parameters_bytes",
          "profile/memory/cpu/x/peak_parameters_bytes", "memory/device/parameters_bytes/x"}) {
      QVERIFY2(!parseMemoryMetricKey(other).has_value(), other);
    }
  }

  void earlierMetricKeysMapToTheCurrentOnes() {
    const std::pair<const char*, const char*> renamed[] = {
        {"profile/memory/cpu/peak_parameter_bytes", "profile/memory/cpu/peak_parameters_bytes"},
        {"profile/memory/cuda:1/peak_optimizer_state_bytes", "profile/memory/cuda:1/peak_optimizer_states_bytes"},
        {"profile/memory/cpu/peak_temporary_bytes", "profile/memory/cpu/peak_temporaries_bytes"},
        {"profile/memory/cpu/peak_input_bytes", "profile/memory/cpu/peak_inputs_bytes"},
        {"memory/peak_gathered_parameters_bytes", "memory/device/peak_gathered_parameters_bytes"},
    };
    for (const auto& [old, current] : renamed) {
      QCOMPARE(currentMetricKey(old), std::optional<std::string>(current));
      QVERIFY(!currentMetricKey(current).has_value());  // current keys stay
    }
    for (const char* unchanged :
         {"loss", "memory/rss_bytes", "memory/device/parameters_bytes", "profile/memory/cpu/peak_total_bytes",
          "profile/memory/cpu/peak_master_weights_bytes", "profile/memory/cpu/peak_other_bytes",
          "profile/memory/peak_parameter_bytes", "profile/memory/cpu/peak_parameter", "profile/memory/cpu/x_bytes"}) {
      QVERIFY2(!currentMetricKey(unchanged).has_value(), unchanged);
    }
  }

  void workspaceOfThePreviousReleaseReadsWithTheCurrentKeys() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.filePath(u"workspace_v3.sqlite"_s).toStdString();
    std::filesystem::copy_file(FATHOM_TEST_DATA_DIR "/workspace_v3.sqlite", path);
    // `fathom runs list --json`, then `fathom runs show ID --json` of every run, as that release printed them.
    const QJsonArray expected = concatenatedJson(QStringLiteral(FATHOM_TEST_DATA_DIR "/workspace_v3.expected"));
    QVERIFY(expected.size() >= 2);

    store::Workspace ws(path);
    QCOMPARE(ws.schemaVersion(), store::Workspace::kSchemaVersion);
    int renamedSeen = 0;
    for (qsizetype i = 1; i < expected.size(); ++i) {
      const QJsonObject show = expected.at(i).toObject();
      const store::RunId run{show.value(u"id"_s).toInteger()};
      std::map<std::pair<std::string, int>, store::MetricSummary> now;
      for (const store::MetricSummary& s : ws.metricSummaries(run)) {
        QVERIFY2(!currentMetricKey(s.key).has_value(), s.key.c_str());  // nothing left under an old name
        now.emplace(std::pair(s.key, s.rank), s);
      }
      const QJsonArray metrics = show.value(u"metrics"_s).toArray();
      QCOMPARE(now.size(), static_cast<std::size_t>(metrics.size()));
      for (const QJsonValue& v : metrics) {
        const QJsonObject m = v.toObject();
        const std::string old = m.value(u"key"_s).toString().toStdString();
        const std::optional<std::string> current = currentMetricKey(old);
        renamedSeen += current ? 1 : 0;
        const auto it = now.find(std::pair(current.value_or(old), m.value(u"rank"_s).toInt()));
        QVERIFY2(it != now.end(), old.c_str());
        const store::MetricSummary& s = it->second;
        QCOMPARE(s.count, m.value(u"count"_s).toInteger());
        QCOMPARE(s.lastStep, m.value(u"last_step"_s).toInteger());
        QCOMPARE(s.last, m.value(u"last"_s).toDouble());
        QCOMPARE(s.min, m.value(u"min"_s).toDouble());
        QCOMPARE(s.max, m.value(u"max"_s).toDouble());
      }
    }
    // The fixture holds both kinds of renamed keys: the profiler's peaks and the engines' gathered-parameter peak.
    QVERIFY2(renamedSeen > 0, "the fixture holds no key an earlier release spelled differently");
    const store::RunId profiled{4};
    const std::vector<std::string> keys = ws.metricKeys(profiled);
    const std::set<std::string> keySet(keys.begin(), keys.end());
    QVERIFY(keySet.count("profile/memory/cpu/peak_parameters_bytes") == 1);
    QVERIFY(keySet.count("profile/memory/cpu/peak_parameter_bytes") == 0);
    QVERIFY(keySet.count("memory/device/peak_gathered_parameters_bytes") == 1);
    QVERIFY(!ws.metricSeries(profiled, "profile/memory/cpu/peak_activations_bytes").empty());
  }
};

QTEST_GUILESS_MAIN(TestMemoryVocabulary)
#include "tst_memory_vocabulary.moc"
