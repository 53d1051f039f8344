// SPDX-License-Identifier: Apache-2.0
// The metric plot with a 1,000,000-point series on the offscreen platform (issue 18): the first paint (from the
// points in memory to the first frame: LOD build, decimation, Qt Charts, paint), then an automated zoom/pan sweep.
// For each frame it reports the paint event alone and the whole frame (range change: decimation and series update,
// then the synchronous paint): p50, p99 and max. Then commit -> screen latency: a writer commits points to a
// workspace (as the telemetry collector does) while a RunFeed follows the run into a run page; each point's commit
// time is compared with the time its delta reached the page's models and plot. Over that load it also reports the CPU
// of the Studio's side (the process minus the writer thread, which stands for the launcher) and its memory: resident
// bytes sampled every 30 s against the points the page holds (memory must grow no faster than the points kept).
//
//   QT_QPA_PLATFORM=offscreen bench_metric_plot [--points 1000000] [--frames 300] [--latency_s 10]
// The load run: --points 0 --latency_s 300 (5 minutes of 8,000 points/s).
// Targets: every frame <= 16 ms, first paint <= 300 ms, commit -> screen <= 1 s. docs/benchmarks.md has numbers.
#include "run_feed.h"

#include "charts/metric_plot.h"
#include "runs/run_details_page.h"

#include <fathom/store/workspace.h>
#include <fathom/telemetry/process_memory.h>

#include <QApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QPaintEvent>
#include <QTemporaryDir>
#include <QTimer>
#include <QWindow>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

using namespace fathom;

namespace {

class TimedPlot : public views::MetricPlot {
public:
  using MetricPlot::MetricPlot;
  std::vector<double> paintMs;

protected:
  void paintEvent(QPaintEvent* event) override {
    QElapsedTimer t;
    t.start();
    MetricPlot::paintEvent(event);
    paintMs.push_back(double(t.nsecsElapsed()) / 1e6);
  }
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(p * double(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

void report(const char* what, const std::vector<double>& ms) {
  std::printf("%-28s n=%zu  p50 %.2f ms  p99 %.2f ms  max %.2f ms\n", what, ms.size(), percentile(ms, 0.5),
              percentile(ms, 0.99), ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end()));
}

int argument(const QStringList& args, const QString& name, int fallback) {
  const int i = static_cast<int>(args.indexOf(name));
  return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

double now() {
  return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

void plotSweep(int points, int frames) {
  views::MetricSeriesStore store;
  std::vector<store::MetricRow> rows;
  rows.reserve(static_cast<std::size_t>(points));
  for (int i = 0; i < points; ++i) {
    const double v = 3.0 * std::exp(-i / 2e5) + 0.2 * std::sin(i * 0.003) + 0.05 * ((i * 7919) % 101) / 101.0;
    rows.push_back({store::MetricId{i + 1}, store::RunId{1}, store::MetricPoint{0, i, 1e9 + i * 0.01, "loss", v}});
  }
  store.append(rows);
  rows.clear();
  rows.shrink_to_fit();

  QElapsedTimer first;
  first.start();
  TimedPlot plot(&store);
  plot.resize(1280, 720);
  views::MetricPlot::Options o;
  o.key = QStringLiteral("loss");
  plot.setOptions(o);  // builds the LOD from the points
  const double built = double(first.nsecsElapsed()) / 1e6;
  plot.show();
  while (plot.windowHandle() == nullptr || !plot.windowHandle()->isExposed()) {  // a frame can be painted now
    QCoreApplication::processEvents();
  }
  plot.redrawNow();  // at the shown size
  plot.viewport()->repaint();
  const double firstPaint = double(first.nsecsElapsed()) / 1e6;
  std::printf("points %d, plot %dx%d, %d columns\n", points, plot.width(), plot.height(),
              int(plot.chart()->plotArea().width()));
  std::printf("first paint: %.1f ms (LOD build and first decimation %.1f ms)\n", firstPaint, built);

  plot.paintMs.clear();
  std::vector<double> frameMs;
  int drawnMax = 0;
  const double full = points - 1;
  for (int f = 0; f < frames; ++f) {
    // A third zooms in (x1.03 per frame) towards the middle, a third pans across, a third zooms back out.
    QElapsedTimer t;
    t.start();
    const auto [x0, x1] = plot.xRange();
    const int phase = f * 3 / frames;
    if (phase == 0) {
      plot.zoomBy(1 / 1.03, full / 2);
    } else if (phase == 1) {
      plot.panBy(f % 40 < 20 ? 0.02 : -0.02);
    } else {
      plot.setXRange(std::max(0.0, x0 - (x1 - x0) * 0.03), std::min(full, x1 + (x1 - x0) * 0.03));
    }
    plot.viewport()->repaint();
    frameMs.push_back(double(t.nsecsElapsed()) / 1e6);
    drawnMax = std::max(drawnMax, plot.drawnPoints());
  }
  report("paint event", plot.paintMs);
  report("frame (update + paint)", frameMs);
  std::printf("most points drawn in a frame: %d\n", drawnMax);
}

void latency(double seconds) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("latency.sqlite"));
  store::RunId run;
  {
    store::Workspace ws(path.toStdString());
    run = ws.createRun({"latency", "bench_metric_plot", "", ""});
  }
  std::atomic<bool> stop{false};
  std::atomic<double> writerCpuS{0};
  // The collector's cadence: a commit every 100 ms of 8 ranks x 50 keys x 2 points (8,000 points/s).
  std::thread writer([&] {
    const auto threadCpu = [] {
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
    };
    store::Workspace ws(path.toStdString());
    std::int64_t step = 0;
    // A fixed cadence (not a sleep after each commit), so the rate stays 8,000 points/s however long a commit takes.
    auto next = std::chrono::steady_clock::now();
    while (!stop) {
      std::vector<store::MetricPoint> batch;
      const double t = now();
      for (int k = 0; k < 2; ++k, ++step) {
        for (int rank = 0; rank < 8; ++rank) {
          for (int key = 0; key < 50; ++key) {
            batch.push_back({rank, step, t, key == 0 ? "loss" : "metric_" + std::to_string(key), 1.0 / (1 + step)});
          }
        }
      }
      ws.appendMetrics(run, batch);
      writerCpuS = threadCpu();
      next += std::chrono::milliseconds(100);
      std::this_thread::sleep_until(next);
    }
  });
  views::RunDetailsPage page;
  page.resize(1280, 900);
  page.show();
  std::vector<double> delays;
  studio::RunFeed feed(path, run.value);
  QObject::connect(&feed, &studio::RunFeed::delta, &page, [&](const views::RunDelta& d) {
    page.applyDelta(d);
    page.repaint();
    const double shown = now();
    if (!d.first) {
      for (const store::MetricRow& m : d.metrics) {
        if (m.point.key == "loss" && m.point.rank == 0) {
          delays.push_back((shown - m.point.wallTime) * 1000);
        }
      }
    }
  });
  feed.start();
  // Memory: resident bytes against points held, every 30 s (and at the end), from the first sample on.
  struct Sample {
    double t;
    std::int64_t rss;
    std::size_t points;
  };
  std::vector<Sample> samples;
  QElapsedTimer clock;
  clock.start();
  const auto sample = [&] {
    samples.push_back(
        {double(clock.elapsed()) / 1000, telemetry::readProcessMemory().residentBytes, page.pointCount()});
  };
  QTimer sampler;
  QObject::connect(&sampler, &QTimer::timeout, &page, sample);
  sampler.start(std::min(30'000, int(seconds * 1000 / 4)));
  QTimer::singleShot(int(seconds * 1000), qApp, &QCoreApplication::quit);
  QElapsedTimer cpu;
  cpu.start();
  const std::clock_t c0 = std::clock();
  qApp->exec();
  const double cpuS = double(std::clock() - c0) / CLOCKS_PER_SEC;
  const double wallS = double(cpu.elapsed()) / 1000;
  sample();
  stop = true;
  writer.join();
  report("commit -> screen", delays);
  std::printf("process CPU over %.0f s: %.1f%% of one core with the writer thread, %.1f%% without it (the Studio's "
              "side); points held %zu\n",
              seconds, 100 * cpuS / wallS, 100 * (cpuS - writerCpuS) / wallS, page.pointCount());
  for (const Sample& s : samples) {
    std::printf("  t %6.1f s  resident %8.1f MiB  points held %9zu\n", s.t, double(s.rss) / (1 << 20), s.points);
  }
  if (samples.size() >= 2 && samples.back().points > samples.front().points) {
    const Sample& a = samples.front();
    const Sample& b = samples.back();
    std::printf("memory growth: %.1f bytes per point kept (%.1f MiB for %zu points, from t %.0f s to %.0f s)\n",
                double(b.rss - a.rss) / double(b.points - a.points), double(b.rss - a.rss) / (1 << 20),
                b.points - a.points, a.t, b.t);
  }
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = app.arguments();
  const int points = argument(args, QStringLiteral("--points"), 1'000'000);
  if (points > 0) {
    plotSweep(points, argument(args, QStringLiteral("--frames"), 300));
  }
  const int latencyS = argument(args, QStringLiteral("--latency_s"), 10);
  if (latencyS > 0) {
    latency(latencyS);
  }
  return 0;
}
