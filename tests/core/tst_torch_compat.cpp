// SPDX-License-Identifier: Apache-2.0
// The compatibility layer must behave the same on LibTorch 1.13 and 2.x. These run on whichever is built.
#include "runtime/torch_compat.h"

#include <torch/torch.h>

#include <QTest>

class TestTorchCompat : public QObject {
  Q_OBJECT

private slots:
  void cpuAutocastRunsMatmulInBf16() {
    const bool wasEnabled = fathom::compat::isAutocastEnabled(c10::DeviceType::CPU);
    const auto wasDtype = fathom::compat::autocastDtype(c10::DeviceType::CPU);
    fathom::compat::setAutocastDtype(c10::DeviceType::CPU, at::kBFloat16);
    fathom::compat::setAutocastEnabled(c10::DeviceType::CPU, true);
    fathom::compat::autocastIncrementNesting();
    QVERIFY(fathom::compat::isAutocastEnabled(c10::DeviceType::CPU));
    QCOMPARE(fathom::compat::autocastDtype(c10::DeviceType::CPU), at::kBFloat16);

    auto a = torch::randn({8, 8});
    auto b = torch::randn({8, 8});
    const auto inside = torch::mm(a, b).scalar_type();

    if (fathom::compat::autocastDecrementNesting() == 0) {
      fathom::compat::autocastClearCache();
    }
    fathom::compat::setAutocastEnabled(c10::DeviceType::CPU, wasEnabled);
    fathom::compat::setAutocastDtype(c10::DeviceType::CPU, wasDtype);

    QCOMPARE(inside, at::kBFloat16);
    QCOMPARE(torch::mm(a, b).scalar_type(), at::kFloat);
    QVERIFY(!fathom::compat::isAutocastEnabled(c10::DeviceType::CPU));
  }

  void tcpStoreOptionsCarryTheirFields() {
    const auto opts = fathom::compat::tcpStoreOptions(29511, true, 4, std::chrono::seconds(5), false);
    QCOMPARE(int(opts.port), 29511);
    QVERIFY(opts.isServer);
    QVERIFY(opts.numWorkers.has_value());
    QCOMPARE(int(*opts.numWorkers), 4);
    QVERIFY(!opts.waitWorkers);
    QCOMPARE(opts.timeout.count(), 5000);
    QVERIFY(!fathom::compat::tcpStoreOptions(1, false, 0, std::chrono::seconds(1), false).numWorkers.has_value());
  }
};

QTEST_GUILESS_MAIN(TestTorchCompat)
#include "tst_torch_compat.moc"
