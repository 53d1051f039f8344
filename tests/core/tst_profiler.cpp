// SPDX-License-Identifier: Apache-2.0
// fathom::profile::Profiler on real LibTorch work in one process: windows follow the schedule, ATen operators,
// Fathom's spans and ProfilerStep#N are captured with their arguments, one profiler at a time, and the memory
// timeline of a real training step (Accelerator, MLP, AdamW) has exactly the model states' bytes by category.
#include "fathom/common/error.h"
#include "fathom/io/safetensors.h"
#include "fathom/models/model_factory.h"
#include "fathom/profile/annotations.h"
#include "fathom/profile/profiler.h"
#include "fathom/train/accelerator.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace fathom;
using namespace fathom::profile;

namespace {

std::optional<std::string> noEnv(const std::string&) {
  return std::nullopt;
}

/// A few operators inside a Fathom span.
void work() {
  RecordFunction span("fathom::forward", Phase::Forward);
  const at::Tensor a = torch::ones({8, 16});
  const at::Tensor b = torch::ones({16, 4});
  const at::Tensor c = torch::mm(a, b);
  QCOMPARE(c.sum().item<float>(), 8.0f * 4 * 16);
}

nlohmann::json readJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::int64_t bytesOf(const at::Tensor& t) {
  return t.numel() * static_cast<std::int64_t>(t.element_size());
}

}  // namespace

class TestProfiler : public QObject {
  Q_OBJECT

private slots:
  void windowsFollowTheSchedule();
  void recordsOperatorsSpansAndSteps();
  void oneProfilerAtATime();
  void existingTracesAreNeverOverwritten();
  void cudaRequestedWithoutCudaIsAClearError();
  void memoryTimelineOfATrainingStep();
};

void TestProfiler::windowsFollowTheSchedule() {
  std::vector<std::pair<std::int64_t, std::int64_t>> windows;
  std::vector<std::int64_t> ops;
  {
    ProfilerOptions options;
    options.schedule = ProfileSchedule{0, 1, 1, 2, 2};  // .wrS.wrS..
    options.onTraceReady = [&](const TraceWindow& w) {
      windows.emplace_back(w.firstStep(), w.lastStep());
      ops.push_back(w.stats().cpuOps);
      QCOMPARE(w.stats().steps, std::int64_t(2));
    };
    Profiler profiler(options);
    for (int step = 0; step < 10; ++step) {
      work();
      profiler.step();
    }
  }
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected{{2, 3}, {6, 7}};
  QCOMPARE(windows, expected);
  // Two steps of work() per window: ones, ones, mm, sum (+ item's internals) twice; warm-up steps are dropped.
  for (std::int64_t n : ops)
    QVERIFY2(n >= 8 && n < 40, std::to_string(n).c_str());
}

void TestProfiler::recordsOperatorsSpansAndSteps() {
  QTemporaryDir dir;
  const std::filesystem::path trace = dir.filePath(QStringLiteral("window.json")).toStdString();
  bool ready = false;
  {
    ProfilerOptions options;
    options.recordShapes = true;
    options.withFlops = true;
    options.withStack = true;
    options.onTraceReady = [&](const TraceWindow& w) {
      ready = true;
      QCOMPARE(w.index(), 0);
      QCOMPARE(w.firstStep(), 0);
      QCOMPARE(w.lastStep(), 2);
      QVERIFY(w.traceFile().empty());  // no outputTraceDir
      w.exportChromeTrace(trace);
    };
    Profiler profiler(options);
    for (int step = 0; step < 2; ++step) {
      work();
      profiler.step();
    }
    work();
    // Checkpoint I/O is a Fathom span too.
    io::writeSafetensors(dir.filePath(QStringLiteral("w.safetensors")).toStdString(), {{"w", torch::ones({4})}});
  }
  QVERIFY(ready);
  const nlohmann::json json = readJson(trace);
  std::map<std::string, int> names;
  bool mmChecked = false;
  for (const auto& e : json.at("traceEvents")) {
    if (e.at("ph") != "X")
      continue;
    const std::string name = e.at("name");
    ++names[name];
    if (name == "aten::mm") {
      QCOMPARE(e.at("cat").get<std::string>(), std::string("cpu_op"));
      QCOMPARE(e.at("args").at("Input Dims").dump(), std::string("[[8,16],[16,4]]"));
      QCOMPARE(e.at("args").at("flops").get<std::int64_t>(), 2 * 8 * 16 * 4);
      QCOMPARE(e.at("args").at("Call stack").get<std::string>().substr(0, 14), std::string("fathom::forwar"));
      QVERIFY(e.at("args").at("External id").get<std::int64_t>() > 0);
      mmChecked = true;
    }
    if (name.rfind("ProfilerStep#", 0) == 0)
      QCOMPARE(e.at("cat").get<std::string>(), std::string("user_annotation"));
  }
  QVERIFY(mmChecked);
  QCOMPARE(names["aten::mm"], 3);
  QCOMPARE(names["fathom::forward"], 3);
  // Steps 0 and 1 ended by step(), step 2 by the profiler's end.
  QCOMPARE(names["ProfilerStep#0"], 1);
  QCOMPARE(names["ProfilerStep#1"], 1);
  QCOMPARE(names["ProfilerStep#2"], 1);
  QCOMPARE(names["fathom::checkpoint_write"], 1);
  QCOMPARE(json.at("distributedInfo").at("rank").get<int>(), 0);
}

void TestProfiler::oneProfilerAtATime() {
  Profiler first(ProfilerOptions{});
  try {
    Profiler second(ProfilerOptions{});
    QFAIL("a second profiler was accepted");
  } catch (const ProfilerError& e) {
    QVERIFY2(std::string(e.what()).find("already running") != std::string::npos, e.what());
  }
  first.stop();
  Profiler third(ProfilerOptions{});  // the first one stopped: fine now
  QCOMPARE(third.stepNum(), std::int64_t(0));
}

// Issue 20: a run's traces never overwrite another's. With a workspace run they go to run_<id>/; without one, a
// profile directory that already holds the first trace file is refused before anything is recorded.
void TestProfiler::existingTracesAreNeverOverwritten() {
  QTemporaryDir dir;
  const std::filesystem::path root = dir.path().toStdString();
  { std::ofstream(root / "profile_0.json") << "an earlier run's trace"; }
  ProfilerOptions options;
  options.outputTraceDir = root;
  try {
    Profiler profiler(options);
    QFAIL("a profiler that would overwrite profile_0.json was accepted");
  } catch (const ConfigError& e) {
    QVERIFY2(std::string(e.what()).find((root / "profile_0.json").string() + " exists") != std::string::npos, e.what());
  }
  ProfilerContext context;
  context.runId = 7;
  {
    Profiler profiler(options, context);
    work();
    profiler.stop();
  }
  QVERIFY(std::filesystem::is_regular_file(root / "run_7" / "profile_0.json"));
  std::ifstream earlier(root / "profile_0.json");
  std::string text;
  std::getline(earlier, text);
  QCOMPARE(text, std::string("an earlier run's trace"));
  // The same run id again (another workspace's run 7): refused too, run_7's trace kept.
  QVERIFY_THROWS_EXCEPTION(ConfigError, Profiler(options, context));
}

void TestProfiler::cudaRequestedWithoutCudaIsAClearError() {
  if (torch::cuda::is_available())
    QSKIP("this machine has CUDA; the error path is for machines without it");
  ProfilerOptions options;
  options.cuda = true;
  try {
    Profiler profiler(options);
    QFAIL("cuda=true was accepted without CUDA");
  } catch (const ProfilerError& e) {
    QVERIFY2(std::string(e.what()).find("CUDA activity was requested but") != std::string::npos, e.what());
  }
}

void TestProfiler::memoryTimelineOfATrainingStep() {
  // One process, the real Accelerator: an MLP and AdamW, three steps recorded (the first allocates AdamW's
  // states inside the window).
  train::Accelerator accelerator({}, runtime::ProcessState::fromVariables(noEnv));
  models::ModelRequest request;
  request.name = "mlp";
  request.set(models::ModelDimension::Hidden, 64).set(models::ModelDimension::Layers, 2);
  torch::manual_seed(0);
  std::shared_ptr<models::Model> model = models::makeModel(request);
  auto optimizer = std::make_shared<torch::optim::AdamW>(model->parameters(), torch::optim::AdamWOptions(1e-3));
  auto [dmodel, doptimizer] = accelerator.prepare(model, optimizer);
  std::int64_t paramBytes = 0;
  for (const at::Tensor& p : dmodel->parameters())
    paramBytes += bytesOf(p);

  std::optional<MemoryTimeline> timeline;
  {
    ProfilerOptions options;
    options.profileMemory = true;
    options.onTraceReady = [&](const TraceWindow& w) { timeline = *w.memory(); };
    Profiler profiler = accelerator.profile(options);
    for (int step = 0; step < 3; ++step) {
      const at::Tensor x = torch::randn({32, 64});
      at::Tensor loss;
      {
        RecordFunction forward("fathom::forward", Phase::Forward);
        loss = dmodel->forward(x).pow(2).mean();
      }
      accelerator.backward(loss);
      doptimizer->step();
      doptimizer->zeroGrad();
      profiler.step();
    }
  }
  QVERIFY(timeline.has_value());
  const DeviceMemorySeries* cpu = timeline->series(MemoryDevice{0, -1});
  QVERIFY(cpu != nullptr);
  // Parameters: known before the window (preexisting); gradients and AdamW's two states are allocated in step 1
  // and kept: exactly the bytes the planner counts for them.
  QCOMPARE(cpu->atEnd[MemoryCategory::Parameters], paramBytes);
  QCOMPARE(cpu->atEnd[MemoryCategory::Gradients], paramBytes);
  QCOMPARE(cpu->atEnd[MemoryCategory::OptimizerStates], 2 * paramBytes);
  // Forward keeps the inputs of every layer for backward: at least the 32x64 activations of each block.
  QVERIFY2(cpu->peak[MemoryCategory::Activations] >= 2 * 32 * 64 * 4,
           std::to_string(cpu->peak[MemoryCategory::Activations]).c_str());
  QVERIFY(cpu->peak[MemoryCategory::Temporaries] > 0);
  QCOMPARE(cpu->atEnd[MemoryCategory::Activations], 0);  // backward released them
}

QTEST_GUILESS_MAIN(TestProfiler)
#include "tst_profiler.moc"
