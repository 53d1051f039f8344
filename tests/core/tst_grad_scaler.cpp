// SPDX-License-Identifier: Apache-2.0
// fathom::precision::GradScaler against torch.amp.GradScaler's rules, on CPU.
#include "fathom/common/error.h"
#include "fathom/precision/autocast_guard.h"
#include "fathom/precision/grad_scaler.h"
#include "runtime/torch_compat.h"

#include <torch/torch.h>

#include <QTest>

#include <cmath>
#include <limits>

using fathom::precision::GradScaler;
using fathom::precision::GradScalerOptions;
using fathom::precision::GradScalerState;

namespace {

/// One float32 parameter vector and an SGD optimizer (lr 0.5) over it.
struct Fixture {
  torch::Tensor weight = torch::tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  torch::optim::SGD sgd{std::vector<torch::Tensor>{weight}, torch::optim::SGDOptions(0.5)};

  /// Backward of scaler.scale(sum(weight * coeff)), so weight.grad = coeff * scale.
  void backward(const GradScaler& scaler, const torch::Tensor& coeff) {
    sgd.zero_grad();
    scaler.scale((weight * coeff).sum()).backward();
  }
  void backward(const GradScaler& scaler) { backward(scaler, torch::tensor({1.0f, -1.0f, 0.5f})); }
  /// Overwrites one gradient element, as an overflow in backward would.
  void inject(float value) {
    torch::NoGradGuard noGrad;
    weight.mutable_grad()[1] = value;
  }
  /// One full iteration with good gradients.
  bool goodStep(GradScaler& scaler) {
    backward(scaler);
    const bool stepped = scaler.step(sgd);
    scaler.update();
    return stepped;
  }
};

GradScalerOptions small(double initScale, std::int64_t interval) {
  GradScalerOptions o;
  o.initScale = initScale;
  o.growthInterval = interval;
  return o;
}

template <typename Fn> std::string messageOf(Fn&& fn) {
  try {
    fn();
  } catch (const fathom::Error& e) {
    return e.what();
  }
  return "<no exception>";
}

}  // namespace

class TestGradScaler : public QObject {
  Q_OBJECT

private slots:
  void acceleratesDefaults() {
    const GradScaler scaler;
    QCOMPARE(scaler.getScale(), 65536.0);
    QCOMPARE(scaler.options().growthFactor, 2.0);
    QCOMPARE(scaler.options().backoffFactor, 0.5);
    QCOMPARE(scaler.options().growthInterval, std::int64_t(2000));
    QVERIFY(scaler.isEnabled());
    QCOMPARE(scaler.growthTracker(), std::int64_t(0));
    const auto loss = torch::tensor(1.5f);
    QCOMPARE(scaler.scale(loss).item<float>(), 1.5f * 65536.0f);
  }

  void scaleGrowsAfterIntervalAndBacksOffOnOverflow() {
    GradScaler scaler(small(8.0, 3));
    Fixture f;
    QVERIFY(f.goodStep(scaler));
    QCOMPARE(scaler.growthTracker(), std::int64_t(1));
    QVERIFY(f.goodStep(scaler));
    QCOMPARE(scaler.getScale(), 8.0);
    QVERIFY(f.goodStep(scaler));  // third good step: ×2
    QCOMPARE(scaler.getScale(), 16.0);
    QCOMPARE(scaler.growthTracker(), std::int64_t(0));
    QVERIFY(f.goodStep(scaler));
    QCOMPARE(scaler.growthTracker(), std::int64_t(1));

    f.backward(scaler);
    f.inject(std::numeric_limits<float>::infinity());
    QVERIFY(!scaler.step(f.sgd));
    scaler.update();  // overflow: ×0.5, tracker reset
    QCOMPARE(scaler.getScale(), 8.0);
    QCOMPARE(scaler.growthTracker(), std::int64_t(0));
    for (int i = 0; i < 3; ++i) {
      QVERIFY(f.goodStep(scaler));
    }
    QCOMPARE(scaler.getScale(), 16.0);
  }

  void growthStopsBeforeFloatOverflow() {
    GradScalerOptions o = small(std::ldexp(1.0, 127), 1);
    GradScaler scaler(o);
    Fixture f;
    f.backward(scaler, torch::tensor({0.0f, 0.0f, 0.0f}));
    QVERIFY(scaler.step(f.sgd));
    scaler.update();  // 2^128 is inf in float32: kept at 2^127, tracker reset
    QCOMPARE(scaler.getScale(), std::ldexp(1.0, 127));
    QCOMPARE(scaler.growthTracker(), std::int64_t(0));
  }

  void infGradientSkipsTheStepAndHalvesTheScale() {
    GradScaler scaler;
    Fixture f;
    const auto before = f.weight.detach().clone();
    f.backward(scaler);
    f.inject(std::numeric_limits<float>::infinity());
    QVERIFY(!scaler.step(f.sgd));
    QVERIFY(scaler.stepWasSkipped(f.sgd));
    QVERIFY(torch::equal(f.weight.detach(), before));
    scaler.update();
    QCOMPARE(scaler.getScale(), 32768.0);

    QVERIFY(f.goodStep(scaler));  // the next good iteration steps again
    QVERIFY(!scaler.stepWasSkipped(f.sgd));
    QVERIFY(!torch::equal(f.weight.detach(), before));
    QCOMPARE(scaler.getScale(), 32768.0);
  }

  void nanGradientSkipsTheStepAndHalvesTheScale() {
    GradScaler scaler;
    Fixture f;
    const auto before = f.weight.detach().clone();
    f.backward(scaler);
    f.inject(std::numeric_limits<float>::quiet_NaN());
    QVERIFY(!scaler.step(f.sgd));
    QVERIFY(torch::equal(f.weight.detach(), before));
    scaler.update();
    QCOMPARE(scaler.getScale(), 32768.0);
  }

  void overflowInBackwardIsDetected() {
    // A finite loss whose scaled gradient overflows float32: 1e35 × 65536 > FLT_MAX.
    GradScaler scaler;
    Fixture f;
    const auto before = f.weight.detach().clone();
    f.backward(scaler, torch::tensor({1e35f, 1.0f, 1.0f}));
    QVERIFY(std::isinf(f.weight.grad()[0].item<float>()));
    QVERIFY(!scaler.step(f.sgd));
    QVERIFY(torch::equal(f.weight.detach(), before));
  }

  void autocastTrainingLoopSkipsTheInjectedInfStep() {
    // The loop Accelerator::backward/step will run: forward under autocast (fp16 where CPU supports it, bf16
    // on LibTorch 1.13), scaled backward, step, update; one iteration gets an inf gradient injected.
    const auto dtype = fathom::compat::kCpuAutocastSupportsFp16 ? at::kHalf : at::kBFloat16;
    torch::manual_seed(0);
    torch::nn::Linear model(4, 2);
    torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
    GradScaler scaler(small(1024.0, 2));
    const auto x = torch::randn({8, 4});
    const auto y = torch::randn({8, 2});
    const auto snapshot = [&] { return torch::cat({model->weight.detach().flatten(), model->bias.detach()}); };
    for (int i = 0; i < 4; ++i) {
      sgd.zero_grad();
      at::Tensor loss;
      {
        fathom::precision::AutocastGuard autocast(c10::DeviceType::CPU, dtype);
        const auto out = model(x);
        QCOMPARE(out.scalar_type(), dtype);
        loss = torch::mse_loss(out.to(torch::kFloat), y);
      }
      scaler.scale(loss).backward();
      QCOMPARE(model->weight.grad().scalar_type(), at::kFloat);
      if (i == 2) {
        torch::NoGradGuard noGrad;
        model->bias.mutable_grad()[0] = std::numeric_limits<float>::infinity();
      }
      const auto before = snapshot();
      const bool stepped = scaler.step(sgd);
      scaler.update();
      QCOMPARE(stepped, i != 2);
      QCOMPARE(scaler.stepWasSkipped(sgd), i == 2);
      QCOMPARE(torch::equal(snapshot(), before), i == 2);
      QVERIFY(torch::isfinite(snapshot()).all().item<bool>());
    }
    // 1024 → 2048 after two good steps, → 1024 on the inf step, then one good step (tracker 1).
    QCOMPARE(scaler.getScale(), 1024.0);
    QCOMPARE(scaler.growthTracker(), std::int64_t(1));
  }

  void unscaleDividesGradientsExactly() {
    GradScaler scaler;
    Fixture f;
    const auto coeff = torch::tensor({0.1f, -3.7f, 1e-3f});
    f.backward(scaler, coeff);
    QVERIFY(torch::equal(f.weight.grad(), coeff * 65536.0f));
    scaler.unscale_(f.sgd);
    QVERIFY(torch::equal(f.weight.grad(), coeff));
    // step() after unscale_() uses the unscaled gradients: SGD moves weight by lr × coeff.
    const auto expected = f.weight.detach() - 0.5f * coeff;
    QVERIFY(scaler.step(f.sgd));
    QVERIFY(torch::equal(f.weight.detach(), expected));
    scaler.update();

    // A scale that is not a power of two: multiply by the float32 reciprocal taken in double, as PyTorch does.
    scaler.update(3.0);
    f.backward(scaler, coeff);
    const auto scaled = f.weight.grad().clone();
    scaler.unscale_(f.sgd);
    QVERIFY(torch::equal(f.weight.grad(), scaled * static_cast<float>(1.0 / 3.0)));
  }

  void misuseIsReportedLikePyTorch() {
    GradScaler scaler;
    Fixture f;
    f.backward(scaler);
    QVERIFY(messageOf([&] { scaler.update(); }).find("No inf checks") != std::string::npos);
    scaler.unscale_(f.sgd);
    QVERIFY(messageOf([&] { scaler.unscale_(f.sgd); }).find("already been called") != std::string::npos);
    QVERIFY(scaler.step(f.sgd));
    QVERIFY(messageOf([&] { scaler.unscale_(f.sgd); }).find("after step()") != std::string::npos);
    QVERIFY(messageOf([&] { scaler.step(f.sgd); }).find("step() has already been called") != std::string::npos);
    scaler.update();
    f.backward(scaler);
    scaler.unscale_(f.sgd);  // allowed again after update()
    QVERIFY(scaler.step(f.sgd));
  }

  void halfGradientsAreRejected() {
    GradScaler scaler;
    auto w = torch::ones({2}, torch::kHalf).requires_grad_();
    torch::optim::SGD sgd({w}, torch::optim::SGDOptions(0.1));
    w.mutable_grad() = torch::ones({2}, torch::kHalf);
    QVERIFY(messageOf([&] { scaler.unscale_(sgd); }).find("FP16 gradients") != std::string::npos);
  }

  void oneOverflowingOptimizerBacksOffTheSharedScale() {
    GradScaler scaler;
    Fixture a;
    Fixture b;
    const auto beforeB = b.weight.detach().clone();
    a.backward(scaler);
    b.backward(scaler);
    b.inject(std::numeric_limits<float>::infinity());
    QVERIFY(scaler.step(a.sgd));
    QVERIFY(!scaler.step(b.sgd));
    QVERIFY(!scaler.stepWasSkipped(a.sgd));
    QVERIFY(scaler.stepWasSkipped(b.sgd));
    QVERIFY(torch::equal(b.weight.detach(), beforeB));
    scaler.update();
    QCOMPARE(scaler.getScale(), 32768.0);
  }

  void disabledScalerIsAPassThrough() {
    GradScalerOptions o;
    o.enabled = false;
    GradScaler scaler(o);
    QVERIFY(!scaler.isEnabled());
    QCOMPARE(scaler.getScale(), 1.0);
    const auto loss = torch::tensor(2.5f);
    QVERIFY(scaler.scale(loss).is_same(loss));
    Fixture f;
    f.backward(scaler);
    const auto grad = f.weight.grad().clone();
    scaler.unscale_(f.sgd);
    scaler.unscale_(f.sgd);  // no bookkeeping when disabled
    QVERIFY(torch::equal(f.weight.grad(), grad));
    f.inject(std::numeric_limits<float>::infinity());
    QVERIFY(scaler.step(f.sgd));  // steps even on inf, as torch's disabled scaler does
    QVERIFY(!scaler.stepWasSkipped(f.sgd));
    QVERIFY(std::isinf(f.weight[1].item<float>()));
    scaler.update();
    QCOMPARE(scaler.getScale(), 1.0);
    QVERIFY(!scaler.stateDict().valid);
  }

  void stateRoundTrips() {
    GradScaler scaler(small(1024.0, 5));
    Fixture f;
    QVERIFY(f.goodStep(scaler));
    QVERIFY(f.goodStep(scaler));
    const GradScalerState saved = scaler.stateDict();
    QVERIFY(saved.valid);
    QCOMPARE(saved.scale, 1024.0);
    QCOMPARE(saved.growthTracker, std::int64_t(2));
    QCOMPARE(saved.growthInterval, std::int64_t(5));

    GradScaler restored;  // defaults, overwritten by the state
    restored.loadStateDict(saved);
    QCOMPARE(restored.getScale(), 1024.0);
    QCOMPARE(restored.growthTracker(), std::int64_t(2));
    QCOMPARE(restored.options().growthInterval, std::int64_t(5));
    for (int i = 0; i < 3; ++i) {  // both grow on the same step
      QVERIFY(f.goodStep(scaler));
      QVERIFY(f.goodStep(restored));
    }
    QCOMPARE(scaler.getScale(), 2048.0);
    QCOMPARE(restored.getScale(), 2048.0);

    QVERIFY(messageOf([&] { restored.loadStateDict(GradScalerState{}); }).find("disabled") != std::string::npos);
    GradScalerState bad = saved;
    bad.growthFactor = 0.75;
    QVERIFY(messageOf([&] { restored.loadStateDict(bad); }).find("0.75") != std::string::npos);
    QCOMPARE(restored.getScale(), 2048.0);  // a rejected state changes nothing
  }

  void badOptionsAreRejectedNamingTheValue_data() {
    QTest::addColumn<double>("initScale");
    QTest::addColumn<double>("growthFactor");
    QTest::addColumn<double>("backoffFactor");
    QTest::addColumn<qint64>("growthInterval");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("init_scale 0") << 0.0 << 2.0 << 0.5 << qint64(2000) << "init_scale must be finite and > 0, got 0";
    QTest::newRow("init_scale -4") << -4.0 << 2.0 << 0.5 << qint64(2000) << "got -4";
    QTest::newRow("init_scale inf") << std::numeric_limits<double>::infinity() << 2.0 << 0.5 << qint64(2000)
                                    << "got inf";
    QTest::newRow("init_scale 1e300") << 1e300 << 2.0 << 0.5 << qint64(2000) << "1e+300";
    QTest::newRow("growth_factor 1") << 65536.0 << 1.0 << 0.5 << qint64(2000) << "growth_factor must be";
    QTest::newRow("growth_factor 0.9") << 65536.0 << 0.9 << 0.5 << qint64(2000) << "got 0.9";
    QTest::newRow("backoff_factor 1") << 65536.0 << 2.0 << 1.0 << qint64(2000) << "backoff_factor must be";
    QTest::newRow("backoff_factor -0.5") << 65536.0 << 2.0 << -0.5 << qint64(2000) << "got -0.5";
    QTest::newRow("growth_interval 0") << 65536.0 << 2.0 << 0.5 << qint64(0) << "growth_interval must be >= 1, got 0";
  }
  void badOptionsAreRejectedNamingTheValue() {
    QFETCH(double, initScale);
    QFETCH(double, growthFactor);
    QFETCH(double, backoffFactor);
    QFETCH(qint64, growthInterval);
    QFETCH(QString, mentions);
    GradScalerOptions o;
    o.initScale = initScale;
    o.growthFactor = growthFactor;
    o.backoffFactor = backoffFactor;
    o.growthInterval = growthInterval;
    try {
      GradScaler scaler(o);
      QFAIL("bad options accepted");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find(mentions.toStdString()) != std::string::npos, e.what());
    }
  }

  void badNewScaleIsRejected() {
    GradScaler scaler;
    QVERIFY(messageOf([&] { scaler.update(0.0); }).find("got 0") != std::string::npos);
    QCOMPARE(scaler.getScale(), 65536.0);
  }
};

QTEST_GUILESS_MAIN(TestGradScaler)
#include "tst_grad_scaler.moc"
