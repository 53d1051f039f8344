// SPDX-License-Identifier: Apache-2.0
// The allocation tracker (core/runtime/allocation_tracker.h) and the planner's activation memory against it:
// the bytes a forward pass plus loss of Fathom's real GPT leaves allocated for backward, measured from LibTorch's
// CPU allocator, are within 10% of plan::predict's memory.activations (fp32, no recompute, dropout 0).
#include "fathom/common/error.h"
#include "fathom/models/model_factory.h"
#include "fathom/models/model_introspection.h"
#include "fathom/plan/predict.h"
#include "fathom/runtime/allocation_tracker.h"

#include "plan_test_support.h"

#include <torch/torch.h>

#include <QTest>

#include <cmath>
#include <thread>

using namespace fathom;

namespace {

struct Measured {
  std::int64_t held = 0;  ///< allocated after forward + loss, over the baseline: what backward consumes
  std::int64_t peak = 0;  ///< high-water mark during forward + loss, over the baseline
};

Measured measureForward(const models::ModelRequest& request, std::int64_t batch, std::int64_t seq) {
  torch::manual_seed(0);
  const auto model = models::makeModel(request);
  model->train();
  const auto o = models::resolveGptOptions(request);
  const at::Tensor input = torch::randint(o.vocabSize, {batch, seq}, torch::kLong);
  const at::Tensor target = torch::randint(o.vocabSize, {batch, seq}, torch::kLong);
  runtime::AllocationTracker tracker;
  tracker.start();
  Measured m;
  {
    // As in fathom train: the logits stay alive until backward, next to the loss and its graph.
    const at::Tensor output = model->forward(input);
    const at::Tensor loss = model->loss(output, target);
    m.held = tracker.currentBytes();
    m.peak = tracker.peakBytes();
  }
  // Dropping the graph frees everything forward allocated.
  const std::int64_t after = tracker.currentBytes();
  tracker.stop();
  if (after != 0) {
    qWarning("forward left %lld bytes allocated after the graph was dropped", static_cast<long long>(after));
  }
  return m;
}

double predictedActivations(const models::ModelRequest& request, int batch, std::int64_t seq) {
  const plan::ModelSpec spec = models::introspectModel(request);
  plan::Plan p;
  p.strategy = plan::Strategy::Ddp;
  p.numGpus = 1;
  p.microBatch = batch;
  p.seqLen = seq;
  p.precision = plan::Precision::Fp32;
  p.recompute = plan::Recompute::None;
  return plan::predict(spec, plantest::bigDevice(), p).memory.activations;
}

}  // namespace

class TestActivationMemory : public QObject {
  Q_OBJECT

private slots:
  void trackerCountsAllocations();
  void trackerIsThreadLocal();
  void trackerIgnoresOlderBlocks();
  void gptActivationsWithinTenPercent_data();
  void gptActivationsWithinTenPercent();
};

void TestActivationMemory::trackerCountsAllocations() {
  runtime::AllocationTracker tracker;
  QVERIFY(!tracker.isRunning());
  tracker.start();
  QVERIFY(tracker.isRunning());
  {
    const at::Tensor a = torch::empty({1000}, torch::kFloat);  // 4000 bytes
    QCOMPARE(tracker.currentBytes(), 4000LL);
    {
      const at::Tensor b = torch::empty({250}, torch::kDouble);  // 2000 bytes
      QCOMPARE(tracker.currentBytes(), 6000LL);
    }
    QCOMPARE(tracker.currentBytes(), 4000LL);
    QCOMPARE(tracker.peakBytes(), 6000LL);
    tracker.resetPeak();
    QCOMPARE(tracker.peakBytes(), 4000LL);
    QCOMPARE(tracker.allocationCount(), 2LL);
  }
  const runtime::AllocationStats s = tracker.stats();
  QCOMPARE(s.currentBytes, 0LL);
  QCOMPARE(s.allocatedBytes, 6000LL);
  QCOMPARE(s.allocations, 2LL);
  QCOMPARE(s.frees, 2LL);
  tracker.stop();
  QVERIFY(!tracker.isRunning());
  const at::Tensor c = torch::empty({10}, torch::kFloat);
  QCOMPARE(tracker.allocationCount(), 2LL);  // stopped: not counted
  tracker.start();                           // restarts from zero
  QCOMPARE(tracker.allocationCount(), 0LL);
  QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, tracker.start());
}

void TestActivationMemory::trackerIsThreadLocal() {
  runtime::AllocationTracker tracker;
  tracker.start();
  std::thread other([] { (void)torch::empty({1 << 16}, torch::kFloat); });
  other.join();
  QCOMPARE(tracker.allocationCount(), 0LL);
  tracker.stop();
}

void TestActivationMemory::trackerIgnoresOlderBlocks() {
  at::Tensor older = torch::empty({1000}, torch::kFloat);
  runtime::AllocationTracker tracker;
  tracker.start();
  older.reset();  // allocated before start(): its free is not reported
  QCOMPARE(tracker.currentBytes(), 0LL);
  tracker.stop();
}

void TestActivationMemory::gptActivationsWithinTenPercent_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<int>("nLayer");  // 0 = preset
  QTest::addColumn<int>("nHead");
  QTest::addColumn<int>("nEmbd");
  QTest::addColumn<int>("vocab");
  QTest::addColumn<int>("batch");
  QTest::addColumn<int>("seq");
  QTest::newRow("gpt-tiny b8 s64") << "gpt-tiny" << 0 << 0 << 0 << 0 << 8 << 64;
  QTest::newRow("gpt-tiny b2 s32") << "gpt-tiny" << 0 << 0 << 0 << 0 << 2 << 32;
  QTest::newRow("gpt 4x128 h4 b4 s64") << "gpt" << 4 << 4 << 128 << 0 << 4 << 64;
  QTest::newRow("gpt 2x256 h8 v512 b2 s128") << "gpt" << 2 << 8 << 256 << 512 << 2 << 128;
  QTest::newRow("gpt-small b1 s256") << "gpt-small" << 0 << 0 << 0 << 0 << 1 << 256;
}

void TestActivationMemory::gptActivationsWithinTenPercent() {
  QFETCH(QString, name);
  QFETCH(int, nLayer);
  QFETCH(int, nHead);
  QFETCH(int, nEmbd);
  QFETCH(int, vocab);
  QFETCH(int, batch);
  QFETCH(int, seq);
  models::ModelRequest request;
  request.name = name.toStdString();
  if (nLayer > 0)
    request.set(models::ModelDimension::NLayer, nLayer);
  if (nHead > 0)
    request.set(models::ModelDimension::NHead, nHead);
  if (nEmbd > 0)
    request.set(models::ModelDimension::NEmbd, nEmbd);
  if (vocab > 0)
    request.set(models::ModelDimension::VocabSize, vocab);
  if (seq > models::resolveGptOptions(request).blockSize)
    request.set(models::ModelDimension::BlockSize, seq);
  const Measured m = measureForward(request, batch, seq);
  const double predicted = predictedActivations(request, batch, seq);
  const double error = (predicted - static_cast<double>(m.held)) / static_cast<double>(m.held);
  qInfo("%s: measured held %lld B (peak %lld B), predicted %.0f B, error %+.2f%%", qPrintable(name),
        static_cast<long long>(m.held), static_cast<long long>(m.peak), predicted, 100.0 * error);
  QVERIFY2(std::abs(error) <= 0.10, "predicted activations are not within 10% of the allocator's measurement");
  // What the planner leaves out, to the byte: the fp32 mean and rstd of each of the 2L + 1 LayerNorms (8 B per
  // token each), the bool causal mask each attention builds and masked_fill keeps (s² B per layer), the int64
  // position ids (8s B), and two fp32 scalars: the loss and nll_loss's total_weight (8 B).
  const auto o = models::resolveGptOptions(request);
  const std::int64_t tokens = static_cast<std::int64_t>(batch) * seq;
  const std::int64_t neglected = 8 * tokens * (2 * o.nLayer + 1) + o.nLayer * seq * seq + 8 * seq + 8;
  QCOMPARE(m.held - static_cast<std::int64_t>(predicted), neglected);
  // Forward's transients (the raw and masked scores) are freed again; in these shapes the peak is reached at the
  // end, so the peak equals what is held for backward.
  QVERIFY(m.peak >= m.held);
}

QTEST_GUILESS_MAIN(TestActivationMemory)
#include "tst_activation_memory.moc"
