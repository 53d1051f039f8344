// SPDX-License-Identifier: Apache-2.0
// The trace timeline driven as a user drives it (offscreen), on the repository's real 2-rank Gloo trace: loading off
// the GUI thread, the process and lane headers, zoom (W/S, wheel) at the cursor, pan (A/D, drag), F to fit, the bound
// on what one frame draws at 1920 px (at most one rectangle per pixel column and row), and a malformed file's message
// naming the file and the byte offset.
#include "timeline/time_coords.h"
#include "timeline/timeline_view.h"
#include "trace_generator.h"

#include <QApplication>
#include <QFile>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace Qt::StringLiterals;
using fathom::trace::TimeRange;
using fathom::views::TimelineView;

namespace {

const QString kTrace = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz");

/// Resizes `view` so that its plot is exactly `pixels` wide.
void setPlotWidth(TimelineView& view, int pixels, int height) {
  view.resize(pixels + 400, height);
  view.resize(view.width() + pixels - view.plotWidth(), height);
}

std::int64_t length(TimeRange r) {
  return r.endNs - r.startNs;
}

}  // namespace

class TestTimelineView : public QObject {
  Q_OBJECT

private slots:
  void init();
  void cleanup() { m_view.reset(); }
  void loadsOffTheGuiThreadWithHeaders();
  void keysZoomAtTheCentreAndPan();
  void wheelZoomsAtTheCursorAndDragPans();
  void frameAt1920PixelsIsBoundedByPixelsTimesRows();
  void generatedGpuTraceFrameIsBounded();
  void rulerTicks_data();
  void rulerTicks();
  void malformedFileNamesFileAndOffset();
  void cancelStopsLoading();

private:
  std::unique_ptr<TimelineView> m_view;
};

void TestTimelineView::init() {
  m_view = std::make_unique<TimelineView>();
  setPlotWidth(*m_view, 1000, 700);
  m_view->show();
  QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
  if (QByteArray(QTest::currentTestFunction()).startsWith("malformed") ||
      QByteArray(QTest::currentTestFunction()).startsWith("cancel") ||
      QByteArray(QTest::currentTestFunction()).startsWith("rulerTicks") ||
      QByteArray(QTest::currentTestFunction()).startsWith("generated"))
    return;
  QSignalSpy loaded(m_view.get(), &TimelineView::loaded);
  m_view->open(kTrace);
  QVERIFY(m_view->isLoading());
  QVERIFY(loaded.wait(30'000));
  QVERIFY(!m_view->isLoading());
  QVERIFY(m_view->index() != nullptr);
}

void TestTimelineView::loadsOffTheGuiThreadWithHeaders() {
  const auto* index = m_view->index();
  // Two ranks, each a CPU process with its main thread, Fathom's thread and the collectives row.
  QCOMPARE(index->processes().size(), std::size_t{2});
  QCOMPARE(m_view->laneCount(), static_cast<int>(index->lanes().size()));
  QCOMPARE(m_view->laneCount(), 6);
  const QStringList headers = m_view->headers();
  QCOMPARE(headers.size(), 2 + 6);
  QVERIFY2(headers[0].startsWith(u"rank 0"_s), qPrintable(headers.join(u'|')));
  QVERIFY2(headers[4].startsWith(u"rank 1"_s), qPrintable(headers.join(u'|')));
  QCOMPARE(headers[1], u"main thread (9389)"_s);
  QCOMPARE(headers[3], u"collectives (gloo) #0"_s);
  QCOMPARE(headers[5], u"main thread (9390)"_s);
  // Loaded means fitted: the whole trace is visible.
  QCOMPARE(m_view->visibleRange().startNs, index->data().startNs);
  QCOMPARE(m_view->visibleRange().endNs, index->data().endNs);
  // Hovering: rank 0's main thread's first depth (below the ruler and the process's header row) is its step.
  const TimelineView::Options options;
  const QPoint step(options.headerWidth + m_view->plotWidth() / 2, options.rulerHeight + options.processHeight + 8);
  const QString tip = m_view->toolTipAt(step);
  QVERIFY2(tip.startsWith(u"ProfilerStep#1\nduration "_s), qPrintable(tip));
  QVERIFY(m_view->toolTipAt({step.x(), options.rulerHeight / 2}).isEmpty());  // the ruler
  QVERIFY(m_view->toolTipAt({options.headerWidth / 2, step.y()}).isEmpty());  // the header column
}

void TestTimelineView::keysZoomAtTheCentreAndPan() {
  const TimeRange full = m_view->visibleRange();
  QSignalSpy changed(m_view.get(), &TimelineView::visibleRangeChanged);
  QTest::keyClick(m_view.get(), Qt::Key_W);  // no cursor over the plot: zooms at the centre
  TimeRange r = m_view->visibleRange();
  QCOMPARE(changed.count(), 1);
  QVERIFY(std::abs(length(r) - std::llround(length(full) * 0.8)) <= 1);
  const std::int64_t centre = full.startNs + length(full) / 2;
  QVERIFY(std::abs((r.startNs + r.endNs) / 2 - centre) <= 2);
  for (int i = 0; i < 9; ++i)
    QTest::keyClick(m_view.get(), Qt::Key_W);
  r = m_view->visibleRange();
  QVERIFY(std::abs(static_cast<double>(length(r)) / length(full) - std::pow(0.8, 10)) < 1e-3);

  const TimeRange before = r;
  QTest::keyClick(m_view.get(), Qt::Key_D);
  r = m_view->visibleRange();
  QVERIFY(std::abs(r.startNs - before.startNs - std::llround(length(before) * 0.1)) <= 1);
  QCOMPARE(length(r), length(before));
  QTest::keyClick(m_view.get(), Qt::Key_A);
  QCOMPARE(m_view->visibleRange().startNs, before.startNs);

  QTest::keyClick(m_view.get(), Qt::Key_S);
  QVERIFY(length(m_view->visibleRange()) > length(before));

  // Pan stops at the trace's ends; zoom out stops at the whole trace.
  for (int i = 0; i < 100; ++i)
    QTest::keyClick(m_view.get(), Qt::Key_A);
  QCOMPARE(m_view->visibleRange().startNs, full.startNs);
  QTest::keyClick(m_view.get(), Qt::Key_F);
  QCOMPARE(m_view->visibleRange().startNs, full.startNs);
  QCOMPARE(m_view->visibleRange().endNs, full.endNs);
  const int count = changed.count();
  QTest::keyClick(m_view.get(), Qt::Key_S);  // already whole: nothing changes, nothing is emitted
  QCOMPARE(changed.count(), count);
}

void TestTimelineView::wheelZoomsAtTheCursorAndDragPans() {
  const TimeRange full = m_view->visibleRange();
  const int pixels = m_view->plotWidth();
  const int header = m_view->viewport()->width() - pixels;
  const QPointF at(header + pixels / 4, 100);  // a quarter into the plot
  const std::int64_t under = fathom::views::pixelToTime(full, pixels, pixels / 4);
  QWheelEvent wheel(at, m_view->viewport()->mapToGlobal(at), {}, {0, 240}, Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(m_view->viewport(), &wheel);
  const TimeRange r = m_view->visibleRange();
  QVERIFY(std::abs(static_cast<double>(length(r)) / length(full) - 0.64) < 1e-6);
  // The time under the cursor stays under it (within a pixel).
  QVERIFY(std::abs(fathom::views::timeToPixel(r, pixels, under) - pixels / 4) <= 1.0);

  // Dragging 100 px to the left moves the range 100 px later.
  const QPoint from(header + pixels / 2, 100);
  QTest::mousePress(m_view->viewport(), Qt::LeftButton, {}, from);
  QMouseEvent move(QEvent::MouseMove, from - QPoint(100, 0), m_view->viewport()->mapToGlobal(from - QPoint(100, 0)),
                   Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(m_view->viewport(), &move);
  QTest::mouseRelease(m_view->viewport(), Qt::LeftButton, {}, from - QPoint(100, 0));
  const TimeRange dragged = m_view->visibleRange();
  QCOMPARE(length(dragged), length(r));
  QVERIFY(std::abs(static_cast<double>(dragged.startNs - r.startNs) - 100.0 * length(r) / pixels) <= 1.0);
}

void TestTimelineView::frameAt1920PixelsIsBoundedByPixelsTimesRows() {
  setPlotWidth(*m_view, 1920, 2000);
  QCOMPARE(m_view->plotWidth(), 1920);
  m_view->fit();
  (void)m_view->viewport()->grab();
  auto stats = m_view->lastPaint();
  QCOMPARE(stats.pixels, 1920);
  QVERIFY(stats.rows > 0);
  QVERIFY(stats.rectangles > 0);
  QVERIFY2(stats.rectangles <= stats.pixels * stats.rows,
           qPrintable(u"%1 rectangles in %2 rows"_s.arg(stats.rectangles).arg(stats.rows)));
  // The whole trace: slices are far more than what is drawn (merged per pixel column).
  std::uint64_t slices = m_view->index()->sliceCount();
  QVERIFY2(static_cast<std::uint64_t>(stats.rectangles) < slices,
           qPrintable(u"%1 rectangles, %2 slices"_s.arg(stats.rectangles).arg(slices)));
  qInfo("fit: %d rectangles, %d rows, %d labels, %.2f ms (%llu slices)", stats.rectangles, stats.rows, stats.labels,
        stats.milliseconds, static_cast<unsigned long long>(slices));

  // Zoomed in, slices are wide enough to carry their names, and the bound still holds.
  for (int i = 0; i < 20; ++i)
    QTest::keyClick(m_view.get(), Qt::Key_W);
  (void)m_view->viewport()->grab();
  stats = m_view->lastPaint();
  QVERIFY(stats.rectangles <= stats.pixels * stats.rows);
  QVERIFY2(stats.labels > 0, qPrintable(u"%1 rectangles, no label"_s.arg(stats.rectangles)));
  qInfo("zoomed: %d rectangles, %d labels, %.2f ms", stats.rectangles, stats.labels, stats.milliseconds);
}

// A larger trace with GPUs (4 ranks, each a CPU process and a GPU with a compute and an NCCL stream; ~200k events):
// the streams are lanes, loading reports its progress up to the end, and a frame of the whole trace stays within
// one rectangle per pixel column and row, far below the slices it shows.
void TestTimelineView::generatedGpuTraceFrameIsBounded() {
  QTemporaryDir dir;
  const QString path = dir.filePath(u"gpu.json.gz"_s);
  const fathom::test::GeneratedTrace generated =
      fathom::test::generateTrace(path.toStdString(), {.events = 200'000, .ranks = 4, .seed = 3, .opsPerStep = 200});
  QSignalSpy loaded(m_view.get(), &TimelineView::loaded);
  m_view->open(path);
  QVERIFY(loaded.wait(60'000));
  QCOMPARE(m_view->findChild<QProgressBar*>()->value(), 1000);
  const auto* index = m_view->index();
  QCOMPARE(index->sliceCount(), generated.slices);
  QCOMPARE(m_view->laneCount(), static_cast<int>(index->lanes().size()));
  const auto streams = std::count_if(index->lanes().begin(), index->lanes().end(),
                                     [](const auto& lane) { return lane.kind == fathom::trace::LaneKind::GpuStream; });
  QCOMPARE(streams, 4 * 2);

  setPlotWidth(*m_view, 1920, 4000);  // every row on screen
  m_view->fit();
  (void)m_view->viewport()->grab();
  const auto stats = m_view->lastPaint();
  QCOMPARE(stats.pixels, 1920);
  QVERIFY(stats.rectangles <= stats.pixels * stats.rows);
  QVERIFY2(static_cast<std::uint64_t>(stats.rectangles) * 3 < generated.slices,
           qPrintable(u"%1 rectangles for %2 slices"_s.arg(stats.rectangles).arg(generated.slices)));
  qInfo("generated: %llu slices, %d rows on screen, %d rectangles, %d labels, %.2f ms",
        static_cast<unsigned long long>(generated.slices), stats.rows, stats.rectangles, stats.labels,
        stats.milliseconds);
}

void TestTimelineView::rulerTicks_data() {
  QTest::addColumn<qint64>("length");
  QTest::addColumn<int>("pixels");
  QTest::addColumn<qint64>("step");
  QTest::addColumn<qint64>("value");
  QTest::addColumn<QString>("label");
  QTest::newRow("nanoseconds") << qint64{1000} << 1000 << qint64{100} << qint64{300} << u"300 ns"_s;
  QTest::newRow("microseconds, 2-step") << qint64{15'000} << 1000 << qint64{2000} << qint64{4000} << u"4 µs"_s;
  QTest::newRow("milliseconds with decimals")
      << qint64{10'000'000} << 1000 << qint64{1'000'000} << qint64{2'500'000} << u"2.5 ms"_s;
  QTest::newRow("seconds") << qint64{30'000'000'000} << 600 << qint64{5'000'000'000} << qint64{10'000'000'000}
                           << u"10 s"_s;
}

void TestTimelineView::rulerTicks() {
  QFETCH(qint64, length);
  QFETCH(int, pixels);
  QFETCH(qint64, step);
  QFETCH(qint64, value);
  QFETCH(QString, label);
  QCOMPARE(fathom::views::tickStep({0, length}, pixels, 100), step);
  QCOMPARE(fathom::views::formatTime(value, step == 1'000'000 ? 100'000 : step), label);
}

void TestTimelineView::malformedFileNamesFileAndOffset() {
  QTemporaryDir dir;
  const QString path = dir.filePath(u"broken.json"_s);
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  const QByteArray text = R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","ts" 5}]})";
  file.write(text);
  file.close();
  QSignalSpy failed(m_view.get(), &TimelineView::loadFailed);
  m_view->open(path);
  QVERIFY(failed.wait(30'000));
  const QString message = failed.at(0).at(0).toString();
  QVERIFY2(message.contains(path), qPrintable(message));
  QVERIFY2(message.contains(u"byte %1"_s.arg(text.indexOf("\"ts\" 5") + 5)), qPrintable(message));
  QCOMPARE(m_view->errorMessage(), message);
  QVERIFY(m_view->index() == nullptr);
}

void TestTimelineView::cancelStopsLoading() {
  QSignalSpy loaded(m_view.get(), &TimelineView::loaded);
  m_view->open(kTrace);
  QVERIFY(m_view->isLoading());
  m_view->cancelLoad();
  QVERIFY(!m_view->isLoading());
  QTest::qWait(500);  // a result arriving after the cancel is dropped
  QCOMPARE(loaded.count(), 0);
  QVERIFY(m_view->index() == nullptr);
}

QTEST_MAIN(TestTimelineView)
#include "tst_timeline_view.moc"
