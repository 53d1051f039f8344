// SPDX-License-Identifier: Apache-2.0
// fathom::precision::AutocastGuard and MixedPrecision on CPU (CUDA cases run only where a device exists).
#include "fathom/common/error.h"
#include "fathom/precision/autocast_guard.h"
#include "fathom/precision/mixed_precision.h"
#include "runtime/torch_compat.h"

#include <torch/torch.h>

#include <QTest>

using fathom::precision::AutocastGuard;
using fathom::precision::AutocastOptions;
using fathom::precision::MixedPrecision;

namespace {
constexpr auto kCpu = c10::DeviceType::CPU;

at::ScalarType matmulDtype() {
  const auto a = torch::randn({4, 4});
  return torch::mm(a, a).scalar_type();
}
}  // namespace

class TestAutocastGuard : public QObject {
  Q_OBJECT

private slots:
  void init() {
    // Every test starts from LibTorch's defaults and must leave them behind.
    QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
    QCOMPARE(fathom::compat::autocastDtype(kCpu), at::kBFloat16);
    QVERIFY(fathom::compat::isAutocastCacheEnabled());
  }
  void cleanup() {
    QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
    QCOMPARE(fathom::compat::autocastDtype(kCpu), at::kBFloat16);
    QVERIFY(fathom::compat::isAutocastCacheEnabled());
  }

  void cpuBf16MatmulInsideAndOutside() {
    QCOMPARE(matmulDtype(), at::kFloat);
    {
      AutocastGuard guard(kCpu, at::kBFloat16);
      QVERIFY(guard.enabled());
      QCOMPARE(guard.dtype(), at::kBFloat16);
      QVERIFY(fathom::compat::isAutocastEnabled(kCpu));
      QCOMPARE(matmulDtype(), at::kBFloat16);
    }
    QCOMPARE(matmulDtype(), at::kFloat);
  }

  void nestedRegionsRestoreTheOuterState() {
    AutocastGuard outer(kCpu, at::kBFloat16);
    QCOMPARE(matmulDtype(), at::kBFloat16);
    {
      AutocastGuard off(kCpu, at::kBFloat16, AutocastOptions{false, false});
      QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
      QVERIFY(!fathom::compat::isAutocastCacheEnabled());
      QCOMPARE(matmulDtype(), at::kFloat);
      {
        AutocastGuard inner(kCpu, at::kBFloat16);
        QCOMPARE(matmulDtype(), at::kBFloat16);
        QVERIFY(!fathom::compat::isAutocastCacheEnabled());  // cache flag inherited when not given
      }
      QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
      QCOMPARE(matmulDtype(), at::kFloat);
    }
    QVERIFY(fathom::compat::isAutocastEnabled(kCpu));
    QVERIFY(fathom::compat::isAutocastCacheEnabled());
    QCOMPARE(matmulDtype(), at::kBFloat16);
  }

  void outermostExitClearsTheCastCache() {
    // Autocast caches the bf16 copy of a leaf tensor that requires grad (a weight) for the whole region. Changing
    // the weight in place inside the region is therefore not seen (the stale copy is used) until the outermost
    // region exits and clears the cache; leaving a nested region must not clear it.
    auto weight = torch::ones({4, 4}, torch::requires_grad());
    const auto x = torch::ones({4, 4});
    const auto changeWeight = [&](double value) {
      torch::NoGradGuard noGrad;
      weight.fill_(value);
    };
    {
      AutocastGuard outer(kCpu, at::kBFloat16);
      {
        AutocastGuard inner(kCpu, at::kBFloat16);
        QCOMPARE(torch::mm(x, weight).sum().item<float>(), 64.0f);
      }
      changeWeight(2.0);
      QCOMPARE(torch::mm(x, weight).sum().item<float>(), 64.0f);  // cached copy survives the inner exit
    }
    {
      AutocastGuard again(kCpu, at::kBFloat16);
      QCOMPARE(torch::mm(x, weight).sum().item<float>(), 128.0f);  // cleared by the outermost exit
    }
    {
      AutocastGuard noCache(kCpu, at::kBFloat16, AutocastOptions{true, false});
      QCOMPARE(torch::mm(x, weight).sum().item<float>(), 128.0f);
      changeWeight(3.0);
      QCOMPARE(torch::mm(x, weight).sum().item<float>(), 192.0f);  // cache_enabled=false: no stale copy
    }
  }

  void exceptionLeavesTheRegion() {
    try {
      AutocastGuard guard(kCpu, at::kBFloat16);
      QVERIFY(fathom::compat::isAutocastEnabled(kCpu));
      throw std::runtime_error("boom");
    } catch (const std::runtime_error&) {
    }
    QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
    QCOMPARE(matmulDtype(), at::kFloat);
  }

  void outerDtypeIsRestored() {
    // Needs two dtypes on one device type: CPU fp16 (LibTorch >= 2.3; 1.13 rejects any CPU autocast dtype but
    // bfloat16) or a CUDA device.
    c10::DeviceType device = kCpu;
    if (!fathom::compat::kCpuAutocastSupportsFp16) {
      if (!at::hasCUDA()) {
        QSKIP("LibTorch 1.13 without CUDA: only one CPU autocast dtype exists");
      }
      device = c10::DeviceType::CUDA;
    }
    AutocastGuard outer(device, at::kHalf);
    {
      AutocastGuard inner(device, at::kBFloat16);
      QCOMPARE(fathom::compat::autocastDtype(device), at::kBFloat16);
    }
    QCOMPARE(fathom::compat::autocastDtype(device), at::kHalf);
    QVERIFY(fathom::compat::isAutocastEnabled(device));
  }

  void unsupportedRequestsThrowBeforeChangingState() {
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, AutocastGuard(kCpu, at::kFloat));
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, AutocastGuard(c10::DeviceType::Meta, at::kBFloat16));
    if (!at::hasCUDA()) {
      QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, AutocastGuard(c10::DeviceType::CUDA, at::kHalf));
    }
    if (!fathom::compat::kCpuAutocastSupportsFp16) {
      try {
        AutocastGuard guard(kCpu, at::kHalf);
        QFAIL("CPU fp16 autocast accepted on a LibTorch without it");
      } catch (const fathom::ConfigError& e) {
        QVERIFY2(std::string(e.what()).find("2.3") != std::string::npos, e.what());
      }
      // A disabled region still sets the dtype, which this LibTorch would reject: refused up front as well.
      QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, AutocastGuard(kCpu, at::kHalf, AutocastOptions{false, {}}));
    } else {
      AutocastGuard guard(kCpu, at::kHalf);
      QCOMPARE(matmulDtype(), at::kHalf);
    }
  }

  void cudaRegionsWhereADeviceExists() {
    if (!at::hasCUDA()) {
      QSKIP("no CUDA device");
    }
    const auto a = torch::randn({4, 4}, torch::kCUDA);
    for (const auto dtype : {at::kHalf, at::kBFloat16}) {
      AutocastGuard guard(c10::DeviceType::CUDA, dtype);
      QCOMPARE(torch::mm(a, a).scalar_type(), dtype);
      QCOMPARE(matmulDtype(), at::kFloat);  // CPU autocast untouched
    }
    QCOMPARE(torch::mm(a, a).scalar_type(), at::kFloat);
  }

  void mixedPrecisionSpellings() {
    using fathom::precision::parseMixedPrecision;
    QCOMPARE(parseMixedPrecision("no"), MixedPrecision::No);
    QCOMPARE(parseMixedPrecision("FP16"), MixedPrecision::Fp16);
    QCOMPARE(parseMixedPrecision("bf16"), MixedPrecision::Bf16);
    QCOMPARE(parseMixedPrecision("fp8"), MixedPrecision::Fp8);
    for (auto p : {MixedPrecision::No, MixedPrecision::Fp16, MixedPrecision::Bf16, MixedPrecision::Fp8}) {
      QCOMPARE(parseMixedPrecision(fathom::precision::toString(p)), p);
    }
    try {
      parseMixedPrecision("fp32");
      QFAIL("fp32 accepted");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("'fp32'") != std::string::npos, e.what());
    }
  }

  void mixedPrecisionDtypes() {
    using fathom::precision::autocastDtype;
    QVERIFY(!autocastDtype(MixedPrecision::No, kCpu).has_value());
    QCOMPARE(*autocastDtype(MixedPrecision::Bf16, kCpu), at::kBFloat16);
    QCOMPARE(*autocastDtype(MixedPrecision::Fp16, c10::DeviceType::CUDA), at::kHalf);
    try {
      autocastDtype(MixedPrecision::Fp8, kCpu);
      QFAIL("fp8 accepted on cpu");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("fp8") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestAutocastGuard)
#include "tst_autocast_guard.moc"
