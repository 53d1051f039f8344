// SPDX-License-Identifier: Apache-2.0
// The metric plot's data structures, without a widget: LodSeries' min/max per pixel column against brute force
// (random series with NaN and infinities, every prefix while it grows, ranges inside and around the data, 1 to
// 2000 columns), its polyline's bound on points, and EmaSmoother against TensorBoard's formula.
#include "charts/ema_smoother.h"
#include "charts/lod_series.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using fathom::views::EmaSmoother;
using fathom::views::LodSeries;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Expected {
  std::size_t count = 0;
  std::optional<double> min, max;
};

/// Brute force: which column each point of [x0, x1] falls in, by the same edges decimate() uses.
std::vector<Expected> bruteForce(const std::vector<double>& xs, const std::vector<double>& ys, double x0, double x1,
                                 int columns) {
  std::vector<Expected> out(static_cast<std::size_t>(columns));
  std::vector<double> edges;  // edges[k]: the right edge of column k
  for (int k = 0; k < columns; ++k) {
    edges.push_back(LodSeries::columnEdge(x0, x1, columns, k + 1));
  }
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    if (x < x0 || x > x1) {
      continue;
    }
    // The first column whose right edge lies beyond x; x == x1 belongs to the last.
    const int c =
        std::min(columns - 1, static_cast<int>(std::upper_bound(edges.begin(), edges.end(), x) - edges.begin()));
    Expected& e = out[static_cast<std::size_t>(c)];
    ++e.count;
    if (std::isfinite(ys[i])) {
      e.min = e.min ? std::min(*e.min, ys[i]) : ys[i];
      e.max = e.max ? std::max(*e.max, ys[i]) : ys[i];
    }
  }
  return out;
}

void checkAgainstBruteForce(const LodSeries& lod, const std::vector<double>& xs, const std::vector<double>& ys,
                            double x0, double x1, int columns) {
  const std::vector<Expected> expected = bruteForce(xs, ys, x0, x1, columns);
  const std::vector<LodSeries::Column> got = lod.decimate(x0, x1, columns);
  std::size_t next = 0;
  for (int c = 0; c < columns; ++c) {
    const Expected& e = expected[static_cast<std::size_t>(c)];
    if (e.count == 0) {
      QVERIFY(next >= got.size() || got[next].column != c);
      continue;
    }
    QVERIFY2(next < got.size() && got[next].column == c, qPrintable(QStringLiteral("column %1 missing").arg(c)));
    const LodSeries::Column& g = got[next++];
    QCOMPARE(g.end - g.begin, e.count);
    if (e.min) {
      QCOMPARE(g.min, *e.min);  // exact: the same doubles, compared, never computed
      QCOMPARE(g.max, *e.max);
    } else {
      QVERIFY(std::isnan(g.min) && std::isnan(g.max));
    }
    QCOMPARE(g.first, ys[g.begin]);
    QCOMPARE(g.xLast, xs[g.end - 1]);
  }
  QCOMPARE(next, got.size());
}

}  // namespace

class TestLodSeries : public QObject {
  Q_OBJECT

private slots:
  void decimationIsExact_data() {
    QTest::addColumn<int>("points");
    QTest::addColumn<bool>("repeatedX");
    QTest::newRow("1") << 1 << false;
    QTest::newRow("2") << 2 << false;
    QTest::newRow("37") << 37 << false;
    QTest::newRow("1024") << 1024 << false;
    QTest::newRow("5000 repeated x") << 5000 << true;
    QTest::newRow("100000") << 100'000 << false;
  }
  void decimationIsExact() {
    QFETCH(int, points);
    QFETCH(bool, repeatedX);
    QRandomGenerator random(points);
    LodSeries lod;
    std::vector<double> xs, ys;
    double x = 0;
    for (int i = 0; i < points; ++i) {
      x += repeatedX && random.bounded(3) == 0 ? 0.0 : random.bounded(1.0) + 0.01;
      const int kind = random.bounded(100);
      const double y = kind == 0 ? kNaN : kind == 1 ? std::numeric_limits<double>::infinity() : random.bounded(2.0) - 1;
      QVERIFY(lod.append(x, y));
      xs.push_back(x);
      ys.push_back(y);
    }
    QCOMPARE(lod.size(), xs.size());
    const double lo = xs.front(), hi = xs.back();
    for (const int columns : {1, 3, 640, 2000}) {
      checkAgainstBruteForce(lod, xs, ys, lo, hi, columns);                                       // everything
      checkAgainstBruteForce(lod, xs, ys, lo - 5, hi + 5, columns);                               // around it
      checkAgainstBruteForce(lod, xs, ys, lo + (hi - lo) * 0.3, lo + (hi - lo) * 0.31, columns);  // a zoom
      checkAgainstBruteForce(lod, xs, ys, xs[xs.size() / 2], xs[xs.size() / 2], columns);         // one x
    }
    // Any range of indices, against a scan.
    for (int trial = 0; trial < 200; ++trial) {
      const auto a = static_cast<std::size_t>(random.bounded(points));
      const auto b = a + static_cast<std::size_t>(random.bounded(points - static_cast<int>(a))) + 1;
      std::optional<double> mn, mx;
      for (std::size_t i = a; i < b; ++i) {
        if (std::isfinite(ys[i])) {
          mn = mn ? std::min(*mn, ys[i]) : ys[i];
          mx = mx ? std::max(*mx, ys[i]) : ys[i];
        }
      }
      const auto got = lod.minMax(a, b);
      QCOMPARE(got.has_value(), mn.has_value());
      if (got) {
        QCOMPARE(got->first, *mn);
        QCOMPARE(got->second, *mx);
      }
    }
  }

  // Built while points arrive: after every append, the whole range decimates exactly.
  void everyPrefixIsExact() {
    QRandomGenerator random(7);
    LodSeries lod;
    std::vector<double> xs, ys;
    for (int i = 0; i < 300; ++i) {
      xs.push_back(i);
      ys.push_back(random.bounded(10.0));
      QVERIFY(lod.append(xs.back(), ys.back()));
      checkAgainstBruteForce(lod, xs, ys, 0, xs.back(), 7);
      checkAgainstBruteForce(lod, xs, ys, 0, xs.back(), 64);
    }
  }

  void refusesASmallerX() {
    LodSeries lod;
    QVERIFY(lod.append(2, 1));
    QVERIFY(lod.append(2, 5));
    QVERIFY(!lod.append(1, 0));
    QCOMPARE(lod.size(), std::size_t{2});
  }

  void polylineNeverHasMorePointsThanColumnsAllow() {
    LodSeries lod;
    for (int i = 0; i < 1'000'000; ++i) {
      lod.append(i, std::sin(i * 0.001) + (i % 97) * 0.01);
    }
    for (const int columns : {1, 100, 1920}) {
      const auto line = lod.polyline(1000, 900'000, columns);
      QVERIFY(line.size() <= std::size_t(2 * columns + 2));
      QVERIFY(line.size() >= std::size_t(columns));
      // The line runs to the edges: one point on either side of the range.
      QCOMPARE(line.front().first, 999.0);
      QCOMPARE(line.back().first, 900'001.0);
    }
    QCOMPARE(lod.nearest(10.4), std::size_t{10});
    QCOMPARE(lod.nearest(-3), std::size_t{0});
    QCOMPARE(lod.nearest(5e6), std::size_t{999'999});
  }

  // TensorBoard's classicSmoothing, written out: last = last * w + (1 - w) * v; debias = 1 - w^n.
  void smoothingIsTensorBoards() {
    const std::vector<double> values{3, 1, 4, 1, 5, kNaN, 9, 2, 6};
    for (const double w : {0.0, 0.6, 0.99, 1.0}) {
      const std::vector<double> got = EmaSmoother::smooth(values, w);
      double last = 0;
      int n = 0;
      EmaSmoother incremental(w);
      for (std::size_t i = 0; i < values.size(); ++i) {
        const double inc = incremental.add(values[i]);
        if (!std::isfinite(values[i])) {
          QVERIFY(std::isnan(got[i]) && std::isnan(inc));
          continue;
        }
        last = last * w + (1 - w) * values[i];
        ++n;
        const double expected = w == 1 ? last : last / (1 - std::pow(w, n));
        QCOMPARE(got[i], expected);
        // One point at a time, the first value is passed through while the series is constant so far: with
        // w = 1 TensorBoard's 0 differs there (its check sees the whole series); otherwise only by rounding.
        if (w < 1) {
          QVERIFY(std::fabs(inc - expected) <= 1e-12 * std::max(1.0, std::fabs(expected)));
        }
      }
    }
    // A constant series stays as it is.
    QCOMPARE(EmaSmoother::smooth({2, 2, 2}, 0.9), (std::vector<double>{2, 2, 2}));
    EmaSmoother constant(0.9);
    QCOMPARE(constant.add(2), 2.0);
    QCOMPARE(constant.add(2), 2.0);
  }
};

QTEST_APPLESS_MAIN(TestLodSeries)
#include "tst_lod_series.moc"
