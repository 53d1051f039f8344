// SPDX-License-Identifier: Apache-2.0
// The wizard's value (views::WizardRun) over core's config::RunSpec, and its pages' lists over core's vocabulary:
// every list offered is the supported entries of core's table (the trackers exactly; each FSDP sharding strategy is
// accepted by the engine's parser and planned); the plan the panel shows is the saved file's, without YAML in
// between; a file read and saved keeps the keys the spec has no field for; a file the spec refuses is reported
// with the file, the key and the value; the Monitoring fields edit core's run-monitor keys (config::MonitorSpec), show
// its defaults where a file is silent, and a file's values survive the wizard.
#include "widget_lookup.h"
#include "wizard/config_wizard.h"
#include "wizard/wizard_environment_page.h"
#include "wizard/wizard_paradigm_page.h"
#include "wizard/wizard_run.h"
#include "wizard/wizard_tools_page.h"

#include <fathom/common/error.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/config_writer.h>
#include <fathom/parallel/fsdp_options.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/plan_file.h>
#include <fathom/plan/plan_json.h>
#include <fathom/plan/predict.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::WizardRun;

using fathom::test::child;

namespace {

/// The values a combo box offers, as the enumerators its items hold.
template <typename E> std::vector<E> offered(const QComboBox* combo) {
  std::vector<E> values;
  for (int i = 0; i < combo->count(); ++i) {
    values.push_back(static_cast<E>(combo->itemData(i).toInt()));
  }
  return values;
}

/// Checks that `combo` offers exactly the supported values of `table`, in its order, each named as core names it.
template <typename E, std::size_t N> void offersTheSupported(const QComboBox* combo, const NameTable<E, N>& table) {
  const std::vector<E> values = offered<E>(combo);
  QVERIFY2(values == table.supportedValues(), qPrintable(combo->objectName()));
}

}  // namespace

class TestWizardRun : public QObject {
  Q_OBJECT

private slots:
  void trackersAreTheSupportedOnes() {
    views::WizardToolsPage page;
    page.load(WizardRun{});
    QStringList names;
    for (const QCheckBox* box : page.findChildren<QCheckBox*>()) {
      if (box->objectName().startsWith(u"tracker_"_s)) {
        names << box->objectName().mid(8);
      }
    }
    QStringList supported;
    for (const std::string& name : config::kTrackers.supportedNames()) {
      supported << QString::fromStdString(name);
    }
    QCOMPARE(names, supported);
    for (const QString& refused : {u"wandb"_s, u"comet_ml"_s, u"aim"_s, u"clearml"_s}) {
      QVERIFY2(!names.contains(refused), qPrintable(refused));
    }
    // Checked in the page, written in the spec as the enumerators, the workspace's first as before.
    child<QCheckBox>(&page, u"tracker_tensorboard"_s)->setChecked(true);
    WizardRun run;
    page.store(run);
    QVERIFY((run.spec.fathom.trackers == std::vector{config::Tracker::Sqlite, config::Tracker::Tensorboard}));
  }

  void listsAreCoreTables() {
    views::WizardParadigmPage paradigm;
    paradigm.load(WizardRun{});
    offersTheSupported(child<QComboBox>(&paradigm, u"fsdpShardingStrategy"_s), config::kFsdpShardingStrategies);
    offersTheSupported(child<QComboBox>(&paradigm, u"fsdpAutoWrapPolicy"_s), config::kFsdpWrapPolicies);
    offersTheSupported(child<QComboBox>(&paradigm, u"fsdpBackwardPrefetch"_s), config::kFsdpBackwardPrefetches);
    offersTheSupported(child<QComboBox>(&paradigm, u"fsdpStateDictType"_s), config::kFsdpStateDictTypes);
    offersTheSupported(child<QComboBox>(&paradigm, u"zeroStage"_s), config::kZeroStages);
    offersTheSupported(child<QComboBox>(&paradigm, u"offloadOptimizerDevice"_s), config::kOffloadDevices);
    offersTheSupported(child<QComboBox>(&paradigm, u"offloadParamDevice"_s), config::kOffloadDevices);
    // Nothing Fathom refuses: LOCAL_STATE_DICT, NVMe offload, ZeRO stage 0.
    QCOMPARE(child<QComboBox>(&paradigm, u"fsdpStateDictType"_s)->findText(u"LOCAL_STATE_DICT"_s), -1);
    QCOMPARE(child<QComboBox>(&paradigm, u"offloadOptimizerDevice"_s)->findText(u"nvme"_s), -1);
    views::WizardEnvironmentPage environment;
    environment.load(WizardRun{});
    offersTheSupported(child<QComboBox>(&environment, u"launcher"_s), config::kLaunchers);
  }

  // Every strategy offered runs in the engine (its parser accepts the name shown) and is planned: HYBRID_SHARD_ZERO2
  // included, on 2 machines of 4 GPUs.
  void everyShardingStrategyOfferedRunsAndIsPlanned() {
    views::WizardParadigmPage page;
    WizardRun run;
    run.setParadigm(WizardRun::Paradigm::Fsdp);
    run.target = WizardRun::Target::RemoteHosts;
    run.spec.numMachines = 2;
    run.spec.numProcesses = 8;
    page.load(run);
    auto* combo = child<QComboBox>(&page, u"fsdpShardingStrategy"_s);
    QVERIFY(combo->findText(u"HYBRID_SHARD_ZERO2"_s) >= 0);
    const plan::HardwareSpec hw = plan::loadHardware("h100-sxm-80gb");
    plan::TransformerDims dims;
    dims.arch = plan::Arch::Gpt;
    dims.layers = 12;
    dims.hidden = 768;
    dims.heads = 12;
    dims.vocab = 50257;
    dims.maxPositions = 1024;
    const plan::ModelSpec model = plan::modelFromDims(dims);
    for (int i = 0; i < combo->count(); ++i) {
      const auto strategy = static_cast<config::FsdpShardingStrategy>(combo->itemData(i).toInt());
      QCOMPARE(parallel::parseFsdpShardingStrategy(combo->itemText(i).toStdString()), strategy);
      combo->setCurrentIndex(i);
      page.store(run);
      QVERIFY(run.spec.fsdp.shardingStrategy == strategy);
      const views::PlanRequest request = run.planRequest();
      QVERIFY(request.plan.strategy == plan::Strategy::Fsdp);
      QVERIFY(request.plan.fsdpSharding == strategy);
      QCOMPARE(request.plan.gpusPerNode, 4);
      try {
        const plan::Prediction prediction = plan::predict(model, hw, request.plan);
        QVERIFY(prediction.memory.total > 0);
      } catch (const Error& e) {
        QFAIL(qPrintable(combo->itemText(i) + u": "_s + QString::fromUtf8(e.what())));
      }
    }
  }

  // The panel's plan is planFromRunSpec of the spec; `fathom plan --config_file` of the saved file plans the same.
  void planIsTheSavedFilesPlan() {
    WizardRun run;
    run.setParadigm(WizardRun::Paradigm::DeepSpeed);
    run.spec.numProcesses = 4;
    run.spec.mixedPrecision = config::MixedPrecision::Bf16;
    run.spec.deepspeed.zeroStage = config::ZeroStage::Parameters;
    run.spec.deepspeed.offloadOptimizerDevice = config::OffloadDevice::Cpu;
    run.spec.fathom.planner.gradientAccumulationSteps = 4;
    run.spec.fathom.planner.seq = 512;
    QTemporaryDir dir;
    const std::string path = dir.filePath(u"zero3.yaml"_s).toStdString();
    config::saveConfigFile(run.toConfig(), path);
    const plan::Plan fromFile = plan::loadPlanFile(path).plan;
    const plan::Plan panel = run.planRequest().plan;
    QCOMPARE(QString::fromStdString(plan::toJson(panel).dump()), QString::fromStdString(plan::toJson(fromFile).dump()));
    QVERIFY(panel.strategy == plan::Strategy::Zero3);
    QCOMPARE(panel.gradAccum, 4);
    QVERIFY(panel.offloadOptimizer);
  }

  // Read, edited and written again: keys the spec has no field for (Accelerate's rdzv_backend, same_network,
  // fp8_config, a planner key the wizard does not edit) keep their values; the edited key changes.
  void roundTripKeepsKeysTheSpecDoesNotKnow() {
    const config::AccelerateConfig original = config::parseConfig("distributed_type: MULTI_GPU\n"
                                                                  "num_processes: 4\n"
                                                                  "num_machines: 1\n"
                                                                  "mixed_precision: bf16\n"
                                                                  "rdzv_backend: c10d\n"
                                                                  "same_network: true\n"
                                                                  "fp8_config:\n"
                                                                  "  backend: TE\n"
                                                                  "  margin: 0\n"
                                                                  "fathom:\n"
                                                                  "  planner:\n"
                                                                  "    recompute: full\n",
                                                                  "test.yaml")
                                                  .config;
    QStringList notes;
    WizardRun run = WizardRun::fromConfig(original, &notes);
    QVERIFY(run.paradigm() == WizardRun::Paradigm::Ddp);
    QCOMPARE(run.processes(), 4);
    run.spec.numProcesses = 2;
    const config::AccelerateConfig saved = run.toConfig(original);
    for (const auto& [key, value] : original.values()) {
      const config::ConfigValue* now = saved.find(key);
      QVERIFY2(now != nullptr, key.c_str());
      if (key != "num_processes") {
        QVERIFY2(*now == value, key.c_str());
      }
    }
    QCOMPARE(saved.numProcesses(), std::int64_t{2});
    // Saved and read again: the same spec.
    const WizardRun again = WizardRun::fromConfig(saved);
    QVERIFY(again.toRunSpec() == run.toRunSpec());
  }

  // The Monitoring group on the trackers page: core's defaults where nothing is set (and no key written for them);
  // 0 shows "Off"; the three fields set, saved and read back through core's reader are the values the launcher runs.
  void monitorFieldsAreSavedAsCoreKeys() {
    views::ConfigWizard wizard;
    auto* timeout = child<QDoubleSpinBox>(&wizard, u"hangTimeout"_s);
    auto* threshold = child<QDoubleSpinBox>(&wizard, u"stragglerThreshold"_s);
    auto* action = child<QComboBox>(&wizard, u"hangAction"_s);
    offersTheSupported(action, config::kHangActions);
    QCOMPARE(timeout->value(), config::MonitorSpec::kDefaultHangTimeoutSeconds);
    QCOMPARE(threshold->value(), config::MonitorSpec::kDefaultStragglerThresholdPercent);
    QVERIFY(static_cast<config::HangAction>(action->currentData().toInt()) == config::MonitorSpec::kDefaultHangAction);
    QTemporaryDir dir;
    const auto saved = [&](const QString& name) {
      wizard.setSavePath(dir.filePath(name));
      QString error;
      if (!wizard.save(&error)) {
        qWarning("%s", qPrintable(error));
        return config::LoadedConfig{};
      }
      return config::loadConfigFile(dir.filePath(name).toStdString());
    };
    const config::LoadedConfig silent = saved(u"defaults.yaml"_s);
    QVERIFY(!silent.source.empty());
    for (const char* key : {"fathom.hang_timeout", "fathom.straggler_threshold", "fathom.hang_action"}) {
      QVERIFY2(!silent.config.contains(key), key);
    }

    timeout->setValue(0);
    threshold->setValue(0);
    QCOMPARE(timeout->text(), u"Off"_s);
    QCOMPARE(threshold->text(), u"Off"_s);
    const config::MonitorSpec off = config::runSpecFromConfig(saved(u"off.yaml"_s).config).fathom.monitor;
    QCOMPARE(off.hangTimeout, std::optional<double>(0));
    QCOMPARE(off.stragglerThreshold, std::optional<double>(0));

    timeout->setValue(45);
    threshold->setValue(35);
    action->setCurrentIndex(action->findData(static_cast<int>(config::HangAction::Abort)));
    const config::LoadedConfig set = saved(u"monitor.yaml"_s);
    const config::MonitorSpec m = config::runSpecFromConfig(set.config).fathom.monitor;
    QCOMPARE(m.hangTimeout, std::optional<double>(45));
    QCOMPARE(m.stragglerThreshold, std::optional<double>(35));
    QVERIFY(m.hangAction == config::HangAction::Abort);
    QVERIFY(set.locations.count("fathom.hang_timeout"));  // real keys of the file, not defaults
  }

  // A file with the run monitor's keys fills the fields and, saved again untouched, keeps every value exactly (a
  // timeout with more decimals than the box shows included).
  void monitorKeysRoundTripThroughTheWizard() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"monitor.yaml"_s);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("distributed_type: MULTI_CPU\nnum_processes: 2\nfathom:\n  hang_timeout: 2.25\n"
            "  straggler_threshold: 12.5\n  hang_action: abort\n");
    f.close();
    views::ConfigWizard wizard;
    QString error;
    QVERIFY2(wizard.openFile(path, &error), qPrintable(error));
    QVERIFY(qAbs(child<QDoubleSpinBox>(&wizard, u"hangTimeout"_s)->value() - 2.25) <= 0.05);
    QCOMPARE(child<QDoubleSpinBox>(&wizard, u"stragglerThreshold"_s)->value(), 12.5);
    auto* action = child<QComboBox>(&wizard, u"hangAction"_s);
    QVERIFY(static_cast<config::HangAction>(action->currentData().toInt()) == config::HangAction::Abort);
    const QString again = dir.filePath(u"again.yaml"_s);
    wizard.setSavePath(again);
    QVERIFY2(wizard.save(&error), qPrintable(error));
    const config::AccelerateConfig original = config::loadConfigFile(path.toStdString()).config;
    const config::AccelerateConfig saved = config::loadConfigFile(again.toStdString()).config;
    for (const char* key : {"fathom.hang_timeout", "fathom.straggler_threshold", "fathom.hang_action"}) {
      QVERIFY2(saved.find(key) != nullptr && *saved.find(key) == *original.find(key), key);
    }
    // Back to the default action: the key the file had stays, now saying `report`.
    action->setCurrentIndex(action->findData(static_cast<int>(config::HangAction::Report)));
    QVERIFY2(wizard.save(&error), qPrintable(error));
    const config::RunSpec edited = config::runSpecFromConfig(config::loadConfigFile(again.toStdString()).config);
    QVERIFY(edited.fathom.monitor.hangAction == config::HangAction::Report);
    QCOMPARE(edited.fathom.monitor.hangTimeout, std::optional<double>(2.25));
  }

  // A file the spec refuses: the wizard says which file, key and value, and edits nothing.
  void refusedFileSaysWhy() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"zero.yaml"_s);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("distributed_type: MULTI_GPU\nnum_processes: 0\n");
    f.close();
    views::ConfigWizard wizard;
    const config::AccelerateConfig before = wizard.config();
    QString error;
    QVERIFY(!wizard.openFile(path, &error));
    QVERIFY2(error.contains(path + u":2:"_s), qPrintable(error));
    QVERIFY2(error.contains(u"num_processes"_s) && error.contains(u"got 0"_s), qPrintable(error));
    QVERIFY(wizard.config().values() == before.values());
  }
};

QTEST_MAIN(TestWizardRun)
#include "tst_wizard_run.moc"
