// SPDX-License-Identifier: Apache-2.0
// The Studio's trace timeline end to end (issue 19): a TimelineView at 1920x1080 on the offscreen platform opens a
// trace and draws it, then an automated sweep drives it with the keys a user presses. One trace per run (a fresh
// process, so that memory is the load's own); tests/bench/bench_timeline.py repeats it beside the anchors
// (Chromium's DevTools Performance panel, speedscope) on the same files.
//
// - Open to first complete paint: from TimelineView::open(path) (the window already shown) to the end of the first
//   paintEvent that draws the loaded index: the parse off the GUI thread, setIndex (rows, counters' scales) and one
//   frame of every row on screen, fitted to the whole trace. The file is read through the page cache: the driver
//   reads it once before.
// - Memory: the index's own accounting (TimelineIndex::memoryBytes) per event, and the resident-set growth from
//   before open() to after the first paint (freed memory handed back first), and its peak during the load.
// - Sweep, every frame timed from the input event to the end of the synchronous repaint (what the event costs
//   until its frame is on the backing store): F (fit); W at the cursor (37 % across the plot) down to the deepest
//   zoom (TimelineView::kMinRangeNs); 100 x D there; S back out to 1/64 of the trace (about a step, where most
//   slices are wide enough for labels: the dearest frames); A to the trace's start, then D across the whole trace
//   (10 % of the window a frame); S out to the whole trace. Reported as p50/p99/max, with the paint event alone.
//
//   QT_QPA_PLATFORM=offscreen bench_timeline_view TRACE [--size 1920x1080] [--json]
// --json prints one JSON object (the driver's input); otherwise lines for people. The platform is offscreen unless
// QT_QPA_PLATFORM is set (xcb under xvfb-run measures the same frames plus the X server's copy).
// Goals (issue 19): first paint <= 1.5 s at 1M events and <= 12 s at 10M, <= 120 bytes/event, frames <= 16 ms.
#include "bench_memory.h"

#include "timeline/timeline_view.h"

#include <fathom/trace/timeline_index.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWindow>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <sys/resource.h>
#include <time.h>

using namespace fathom;

namespace {

/// The view with its paint events timed, and the end of the first one that drew an index noted.
class TimedView : public views::TimelineView {
public:
  using TimelineView::TimelineView;
  QElapsedTimer clock;       ///< started by the caller at open()
  double firstPaintMs = -1;  ///< clock's time at the end of the first paint with an index
  std::vector<double> paintMs;

protected:
  void paintEvent(QPaintEvent* event) override {
    QElapsedTimer t;
    t.start();
    TimelineView::paintEvent(event);
    paintMs.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    if (firstPaintMs < 0 && index() != nullptr && clock.isValid())
      firstPaintMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  }
};

/// CPU time of the calling thread, ms: a frame's cost without the waits for a core of a busy machine.
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// CPU time of the whole process (every thread), ms.
double processCpuMs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

/// Nearest rank: the smallest value with at least p of the values at or below it.
double percentile(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

/// The sweep's phases, in order.
const char* const kPhases[] = {"fit",
                               "zoom in (W)",
                               "pan at the deepest zoom (D)",
                               "zoom out to 1/64 (S)",
                               "pan to the start (A)",
                               "pan across (D)",
                               "zoom out (S)"};

struct Sweep {
  std::vector<double> frameMs;  ///< input event to the end of the repaint
  std::vector<double> paintMs;  ///< the paint event alone
  std::vector<double> cpuMs;    ///< the frame's CPU time (the GUI thread's)
  std::vector<int> phase;       ///< the sweep's phase of each frame: an index into kPhases
  int maxRectangles = 0;
  int maxLabels = 0;
  int zoomInFrames = 0;
  int panFrames = 0;
  int current = 0;  ///< the phase running
};

/// Presses `key` on the view and repaints at once; true when the visible range changed (a frame was drawn).
bool press(TimedView& view, Qt::Key key, Sweep& s) {
  const trace::TimeRange before = view.visibleRange();
  const double cpu = threadCpuMs();
  QElapsedTimer t;
  t.start();
  QKeyEvent down(QEvent::KeyPress, key, Qt::NoModifier);
  QCoreApplication::sendEvent(&view, &down);
  QKeyEvent up(QEvent::KeyRelease, key, Qt::NoModifier);
  QCoreApplication::sendEvent(&view, &up);
  const trace::TimeRange after = view.visibleRange();
  if (after.startNs == before.startNs && after.endNs == before.endNs)
    return false;
  view.viewport()->repaint();
  s.frameMs.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  s.cpuMs.push_back(threadCpuMs() - cpu);
  s.phase.push_back(s.current);
  s.paintMs.push_back(view.lastPaint().milliseconds);
  s.maxRectangles = std::max(s.maxRectangles, view.lastPaint().rectangles);
  s.maxLabels = std::max(s.maxLabels, view.lastPaint().labels);
  return true;
}

std::int64_t length(trace::TimeRange r) {
  return r.endNs - r.startNs;
}

Sweep sweep(TimedView& view) {
  Sweep s;
  const trace::TimelineIndex& index = *view.index();
  const std::int64_t whole = std::max<std::int64_t>(1, index.data().endNs - index.data().startNs);
  // The cursor over the plot, 37 % across, on the first lane's row (below the ruler and the process header).
  const views::TimelineView::Options layout;  // the view was made with the default options
  const QPointF cursor(layout.headerWidth + 0.37 * view.plotWidth(),
                       layout.rulerHeight + layout.processHeight + layout.rowHeight / 2);
  QMouseEvent move(QEvent::MouseMove, cursor, view.viewport()->mapToGlobal(cursor), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QCoreApplication::sendEvent(view.viewport(), &move);
  QCoreApplication::processEvents();  // the tooltip, if any, before the clock runs
  view.fit();
  view.viewport()->repaint();
  // The first frame: fit (F) from a range that differs, so that it draws.
  view.zoomBy(0.5, index.data().startNs + whole / 2);
  press(view, Qt::Key_F, s);
  s.current = 1;
  const int limit = 100'000;  // frames; a guard against a view that stops changing its range
  for (int i = 0; i < limit && length(view.visibleRange()) > views::TimelineView::kMinRangeNs; ++i) {
    if (!press(view, Qt::Key_W, s))
      break;
    ++s.zoomInFrames;
  }
  s.current = 2;
  for (int i = 0; i < 100; ++i)
    s.panFrames += press(view, Qt::Key_D, s) ? 1 : 0;
  s.current = 3;
  for (int i = 0; i < limit && length(view.visibleRange()) < whole / 64; ++i)
    if (!press(view, Qt::Key_S, s))
      break;
  s.current = 4;
  for (int i = 0; i < limit && press(view, Qt::Key_A, s); ++i)
    ++s.panFrames;
  s.current = 5;
  for (int i = 0; i < limit && press(view, Qt::Key_D, s); ++i)
    ++s.panFrames;
  s.current = 6;
  for (int i = 0; i < limit && press(view, Qt::Key_S, s); ++i) {
  }
  return s;
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s TRACE [--size WIDTHxHEIGHT] [--json]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QString path;
  int width = 1920;
  int height = 1080;
  bool json = false;
  const QStringList args = app.arguments();
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--json")) {
      json = true;
    } else if (args[i] == QLatin1String("--size") && i + 1 < args.size()) {
      const QStringList wh = args[++i].split(u'x');
      if (wh.size() != 2 || wh[0].toInt() < 400 || wh[1].toInt() < 200)
        return usage(argv[0]);
      width = wh[0].toInt();
      height = wh[1].toInt();
    } else if (path.isEmpty() && !args[i].startsWith(QLatin1String("--"))) {
      path = args[i];
    } else {
      return usage(argv[0]);
    }
  }
  if (path.isEmpty())
    return usage(argv[0]);

  TimedView view;
  view.resize(width, height);
  view.show();
  while (view.windowHandle() == nullptr || !view.windowHandle()->isExposed())
    QCoreApplication::processEvents();
  QCoreApplication::processEvents();  // the empty view's first paint, before the clock

  bench::PeakGrowth memory;
  double loadedMs = -1;
  QString error;
  QObject::connect(&view, &views::TimelineView::loaded, &view,
                   [&] { loadedMs = static_cast<double>(view.clock.nsecsElapsed()) / 1e6; });
  QObject::connect(&view, &views::TimelineView::loadFailed, &view, [&](const QString& message) { error = message; });
  const double cpuBefore = processCpuMs();
  view.clock.start();
  view.open(path);
  while (view.firstPaintMs < 0 && error.isEmpty())
    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
  if (!error.isEmpty()) {
    std::fprintf(stderr, "bench_timeline_view: %s\n", qPrintable(error));
    return 1;
  }
  const double firstPaintMs = view.firstPaintMs;
  const double openCpuMs = processCpuMs() - cpuBefore;
  const double firstFrameMs = view.lastPaint().milliseconds;
  const long peakKiB = memory.kib();
  const long afterKiB = memory.nowKiB();
  const trace::TimelineIndex& index = *view.index();
  const double events = static_cast<double>(index.data().events);

  view.paintMs.clear();
  const Sweep s = sweep(view);
  const double frameMax = s.frameMs.empty() ? 0 : *std::max_element(s.frameMs.begin(), s.frameMs.end());
  const double paintMax = s.paintMs.empty() ? 0 : *std::max_element(s.paintMs.begin(), s.paintMs.end());

  QJsonObject out{
      {QStringLiteral("trace"), path},
      {QStringLiteral("platform"), QGuiApplication::platformName()},
      {QStringLiteral("width"), view.width()},
      {QStringLiteral("height"), view.height()},
      {QStringLiteral("plot_pixels"), view.plotWidth()},
      {QStringLiteral("events"), static_cast<qint64>(index.data().events)},
      {QStringLiteral("slices"), static_cast<qint64>(index.sliceCount())},
      {QStringLiteral("lanes"), static_cast<int>(index.lanes().size())},
      {QStringLiteral("counters"), static_cast<int>(index.counters().size())},
      {QStringLiteral("first_paint_ms"), firstPaintMs},
      {QStringLiteral("loaded_ms"), loadedMs},
      {QStringLiteral("open_cpu_ms"), openCpuMs},
      {QStringLiteral("first_frame_paint_ms"), firstFrameMs},
      {QStringLiteral("index_bytes"), static_cast<qint64>(index.memoryBytes())},
      {QStringLiteral("index_bytes_per_event"), static_cast<double>(index.memoryBytes()) / events},
      {QStringLiteral("rss_growth_bytes_per_event"), static_cast<double>(afterKiB) * 1024.0 / events},
      {QStringLiteral("rss_peak_growth_bytes_per_event"), static_cast<double>(peakKiB) * 1024.0 / events},
      {QStringLiteral("rss_growth_mib"), static_cast<double>(afterKiB) / 1024.0},
      {QStringLiteral("frames"), static_cast<int>(s.frameMs.size())},
      {QStringLiteral("zoom_in_frames"), s.zoomInFrames},
      {QStringLiteral("pan_frames"), s.panFrames},
      {QStringLiteral("frame_p50_ms"), percentile(s.frameMs, 0.5)},
      {QStringLiteral("frame_p99_ms"), percentile(s.frameMs, 0.99)},
      {QStringLiteral("frame_max_ms"), frameMax},
      {QStringLiteral("frames_over_16ms"),
       static_cast<int>(std::count_if(s.frameMs.begin(), s.frameMs.end(), [](double ms) { return ms > 16.0; }))},
      {QStringLiteral("frame_cpu_p50_ms"), percentile(s.cpuMs, 0.5)},
      {QStringLiteral("frame_cpu_p99_ms"), percentile(s.cpuMs, 0.99)},
      {QStringLiteral("frame_cpu_max_ms"), s.cpuMs.empty() ? 0 : *std::max_element(s.cpuMs.begin(), s.cpuMs.end())},
      {QStringLiteral("paint_p50_ms"), percentile(s.paintMs, 0.5)},
      {QStringLiteral("paint_p99_ms"), percentile(s.paintMs, 0.99)},
      {QStringLiteral("paint_max_ms"), paintMax},
      {QStringLiteral("max_rectangles"), s.maxRectangles},
      {QStringLiteral("max_labels"), s.maxLabels},
  };
  if (json) {
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    return 0;
  }
  std::printf("%s: %.0f events, %lld slices, %d lanes, %d counter series; %s, %dx%d (plot %d px)\n", qPrintable(path),
              events, static_cast<long long>(index.sliceCount()), out[QStringLiteral("lanes")].toInt(),
              out[QStringLiteral("counters")].toInt(), qPrintable(QGuiApplication::platformName()), view.width(),
              view.height(), view.plotWidth());
  std::printf("open to first complete paint: %.0f ms (loaded at %.0f ms, first frame's paint %.1f ms; CPU %.0f ms)\n",
              firstPaintMs, loadedMs, firstFrameMs, openCpuMs);
  std::printf(
      "memory: index %.1f bytes/event (%.1f MiB); RSS growth %.1f bytes/event (%.1f MiB), peak during load "
      "%.1f bytes/event\n",
      out[QStringLiteral("index_bytes_per_event")].toDouble(), static_cast<double>(index.memoryBytes()) / 1048576.0,
      out[QStringLiteral("rss_growth_bytes_per_event")].toDouble(), out[QStringLiteral("rss_growth_mib")].toDouble(),
      out[QStringLiteral("rss_peak_growth_bytes_per_event")].toDouble());
  std::printf("sweep: %zu frames (%d zooming in to %lld ns, %d panning), frame p50 %.2f / p99 %.2f / max %.2f ms "
              "(%d over 16 ms); paint event p50 %.2f / p99 %.2f / max %.2f ms; at most %d rectangles, %d labels\n",
              s.frameMs.size(), s.zoomInFrames, static_cast<long long>(views::TimelineView::kMinRangeNs), s.panFrames,
              percentile(s.frameMs, 0.5), percentile(s.frameMs, 0.99), frameMax,
              out[QStringLiteral("frames_over_16ms")].toInt(), percentile(s.paintMs, 0.5), percentile(s.paintMs, 0.99),
              paintMax, s.maxRectangles, s.maxLabels);
  for (int phase = 0; phase < static_cast<int>(std::size(kPhases)); ++phase) {
    std::vector<double> wall;
    std::vector<double> cpu;
    for (std::size_t f = 0; f < s.frameMs.size(); ++f) {
      if (s.phase[f] == phase) {
        wall.push_back(s.frameMs[f]);
        cpu.push_back(s.cpuMs[f]);
      }
    }
    std::printf("  %-28s %4zu frames, p50 %.2f / max %.2f ms (CPU p50 %.2f / max %.2f ms)\n", kPhases[phase],
                wall.size(), percentile(wall, 0.5), percentile(wall, 1.0), percentile(cpu, 0.5), percentile(cpu, 1.0));
  }
  std::printf("frame CPU time (GUI thread) p50 %.2f / p99 %.2f / max %.2f ms\n",
              out[QStringLiteral("frame_cpu_p50_ms")].toDouble(), out[QStringLiteral("frame_cpu_p99_ms")].toDouble(),
              out[QStringLiteral("frame_cpu_max_ms")].toDouble());
  return 0;
}
