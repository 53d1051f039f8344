// SPDX-License-Identifier: Apache-2.0
// Selection and analysis on the trace timeline, driven as a user drives it (offscreen): a click selects a slice and
// the details panel shows it (checked against the trace file itself, parsed here); a CPU op's flow to its kernel on a
// Kineto GPU trace (the arrow drawn, the kernel listed; the kernel's launcher listed back); a Shift+drag selects an
// area whose per-step breakdown equals what the real `fathom trace summary --rank R --from X --to Y --json` prints on
// the same range; ProfilerStep bands, instants, Esc, F and revealing a slice.
#include "cli_runner.h"
#include "timeline/area_name_model.h"
#include "timeline/area_panel.h"
#include "timeline/slice_details_panel.h"
#include "timeline/time_coords.h"
#include "timeline/timeline_overlays.h"
#include "timeline/timeline_panels.h"
#include "timeline/timeline_view.h"
#include "trace_generator.h"
#include "widget_lookup.h"

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <cmath>
#include <map>
#include <numeric>

using namespace Qt::StringLiterals;
using fathom::test::child;
using fathom::trace::SliceRef;
using fathom::trace::TimelineIndex;
using fathom::trace::TimelineLane;
using fathom::trace::TimeRange;
using fathom::views::AreaNameModel;
using fathom::views::AreaPanel;
using fathom::views::SliceDetailsPanel;
using fathom::views::TimelineView;

namespace {

const QString kGloo = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz");
const QString kKineto = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/kineto_good_rank0.json");

/// The view and its two panels side by side, wired as the Studio wires them.
struct Harness {
  explicit Harness(AreaPanel::Options areaOptions = {}) : area(areaOptions) {
    auto* layout = new QHBoxLayout(&window);
    view = new TimelineView(&window);
    layout->addWidget(view, 3);
    layout->addWidget(&details, 1);
    layout->addWidget(&area, 1);
    details.setParent(&window);
    area.setParent(&window);
    fathom::views::connectTimelinePanels(view, &details, &area);
    window.resize(1800, 800);
    window.show();
  }
  bool open(const QString& path) {
    QSignalSpy loaded(view, &TimelineView::loaded);
    view->open(path);
    return loaded.wait(30'000);
  }
  // Declared first: destroyed last (the panels are its children once laid out).
  QWidget window;
  SliceDetailsPanel details;
  AreaPanel area;
  TimelineView* view = nullptr;
};

/// The trace's events, parsed here from the file (gzip through the system's gzip), independent of the index.
nlohmann::json readTrace(const QString& path) {
  QByteArray text;
  if (path.endsWith(u".gz"_s)) {
    QProcess gzip;
    gzip.start(u"gzip"_s, {u"-dc"_s, path});
    gzip.waitForFinished(30'000);
    text = gzip.readAllStandardOutput();
  } else {
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
      text = file.readAll();
  }
  return nlohmann::json::parse(text.toStdString());
}

/// The complete event of `lane` named `name` at `startNs` in the file.
nlohmann::json findEvent(const nlohmann::json& trace, const TimelineLane& lane, const std::string& name,
                         std::int64_t startNs) {
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "X" && e.value("name", "") == name &&
        std::llround(e["ts"].get<double>() * 1000) == startNs && e["pid"].dump() + "/" + e["tid"].dump() == lane.key)
      return e;
  }
  return {};
}

/// The lane ids of `rank`'s processes.
std::vector<std::uint32_t> lanesOfRank(const TimelineIndex& index, int rank) {
  std::vector<std::uint32_t> lanes;
  for (const auto& p : index.processes())
    if (p.rank == rank)
      lanes.insert(lanes.end(), p.lanes.begin(), p.lanes.end());
  std::sort(lanes.begin(), lanes.end());
  return lanes;
}

/// The first slice of `name` in lane `lane`.
std::optional<SliceRef> findSlice(const TimelineIndex& index, std::uint32_t lane, std::string_view name) {
  const TimelineLane& l = index.lane(lane);
  for (std::uint32_t i = 0; i < l.sliceCount(); ++i)
    if (index.name(l.name[i]) == name)
      return SliceRef{lane, i};
  return std::nullopt;
}

std::optional<std::uint32_t> laneTitled(const TimelineIndex& index, std::string_view title, int rank) {
  for (std::uint32_t l = 0; l < index.lanes().size(); ++l)
    if (index.lane(l).title == title && index.processes()[index.lane(l).process].rank == rank)
      return l;
  return std::nullopt;
}

QPoint centreOf(const QRectF& r) {
  return r.center().toPoint();
}

/// `ns` as microseconds with three decimals, as `fathom trace summary --from/--to` takes them.
QString micros(std::int64_t ns) {
  return u"%1.%2"_s.arg(ns / 1000).arg(ns % 1000, 3, 10, QLatin1Char('0'));
}

QString labelText(QWidget* parent, const char* name) {
  return child<QLabel>(parent, QString::fromLatin1(name))->text();
}

/// The texts of the "related" tree of the details panel: "group|child" per linked slice.
QStringList relatedTexts(SliceDetailsPanel& details) {
  QStringList out;
  auto* tree = child<QTreeWidget>(&details, u"related"_s);
  for (int g = 0; g < tree->topLevelItemCount(); ++g)
    for (int c = 0; c < tree->topLevelItem(g)->childCount(); ++c)
      out << tree->topLevelItem(g)->text(0) + u'|' + tree->topLevelItem(g)->child(c)->text(0);
  return out;
}

QTreeWidgetItem* relatedItem(SliceDetailsPanel& details, SliceRef slice) {
  auto* tree = child<QTreeWidget>(&details, u"related"_s);
  for (int g = 0; g < tree->topLevelItemCount(); ++g)
    for (int c = 0; c < tree->topLevelItem(g)->childCount(); ++c) {
      QTreeWidgetItem* item = tree->topLevelItem(g)->child(c);
      if (item->data(0, SliceDetailsPanel::kLaneRole).toUInt() == slice.lane &&
          item->data(0, SliceDetailsPanel::kIndexRole).toUInt() == slice.index)
        return item;
    }
  return nullptr;
}

/// The value of key `key` in the args tree (top level).
QString argText(SliceDetailsPanel& details, const QString& key) {
  auto* tree = child<QTreeWidget>(&details, u"args"_s);
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0) == key)
      return tree->topLevelItem(i)->text(1);
  return u"<missing>"_s;
}

/// Compares one rank's breakdown in the area panel (tree: the rank's row is the total, its children the steps) and
/// the panel's aggregation with `fathom trace summary --json` of the same rank and range, field by field.
void compareWithCli(AreaPanel& panel, const QJsonObject& cli, int rank) {
  const auto& aggregation = panel.aggregation();
  QVERIFY(aggregation.has_value());
  const auto found =
      std::find_if(aggregation->ranks.begin(), aggregation->ranks.end(), [&](const auto& r) { return r.rank == rank; });
  QVERIFY(found != aggregation->ranks.end());
  const fathom::trace::TraceSummary& s = found->summary;
  QCOMPARE(cli[u"rank"_s].toInt(), rank);
  QCOMPARE(QString::fromLatin1(s.timeline == fathom::trace::SummaryTimeline::Gpu ? "gpu" : "cpu"),
           cli[u"timeline"_s].toString());
  QCOMPARE(static_cast<qint64>(s.traceSpanNs), cli[u"trace_span_ns"_s].toInteger());

  auto* tree = child<QTreeWidget>(&panel, u"breakdown"_s);
  QTreeWidgetItem* rankItem = nullptr;
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0).startsWith(u"rank %1 ·"_s.arg(rank)))
      rankItem = tree->topLevelItem(i);
  QVERIFY(rankItem != nullptr);
  const QJsonArray steps = cli[u"steps"_s].toArray();
  QCOMPARE(static_cast<qsizetype>(rankItem->childCount()), steps.size());
  QCOMPARE(static_cast<qsizetype>(s.steps.size()), steps.size());
  const auto compareRow = [](QTreeWidgetItem* item, const QJsonObject& t) {
    const auto ns = [&](int column) { return item->data(column, Qt::UserRole).toLongLong(); };
    QCOMPARE(ns(AreaPanel::SpanColumn), t[u"span_ns"_s].toInteger());
    QCOMPARE(ns(AreaPanel::ComputeColumn), t[u"compute_ns"_s].toInteger());
    QCOMPARE(ns(AreaPanel::CommunicationColumn), t[u"communication_ns"_s].toInteger());
    QCOMPARE(ns(AreaPanel::ExposedCommunicationColumn),
             t[u"communication_ns"_s].toInteger() - t[u"overlap_ns"_s].toInteger());
    QCOMPARE(ns(AreaPanel::DataLoadingColumn), t[u"data_loading_ns"_s].toInteger());
    QCOMPARE(ns(AreaPanel::IdleColumn), t[u"idle_ns"_s].toInteger());
  };
  for (qsizetype i = 0; i < steps.size(); ++i) {
    const QJsonObject step = steps[i].toObject();
    QCOMPARE(rankItem->child(static_cast<int>(i))->text(0), u"step %1"_s.arg(step[u"step"_s].toInteger()));
    QCOMPARE(static_cast<qint64>(s.steps[static_cast<std::size_t>(i)].startNs), step[u"start_ns"_s].toInteger());
    QCOMPARE(static_cast<qint64>(s.steps[static_cast<std::size_t>(i)].time.memoryNs), step[u"memory_ns"_s].toInteger());
    compareRow(rankItem->child(static_cast<int>(i)), step);
  }
  compareRow(rankItem, cli[u"total"_s].toObject());
  // The tables the summary prints: ops by self time, kernels, collectives, Fathom's spans.
  const auto compareOps = [](const std::vector<fathom::trace::OpStats>& ops, const QJsonArray& json) {
    QCOMPARE(static_cast<qsizetype>(ops.size()), json.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const QJsonObject o = json[static_cast<qsizetype>(i)].toObject();
      QCOMPARE(QString::fromStdString(ops[i].name), o[u"name"_s].toString());
      QCOMPARE(static_cast<qint64>(ops[i].count), o[u"count"_s].toInteger());
      QCOMPARE(static_cast<qint64>(ops[i].totalNs), o[u"total_ns"_s].toInteger());
      QCOMPARE(static_cast<qint64>(ops[i].selfNs), o[u"self_ns"_s].toInteger());
      QCOMPARE(static_cast<qint64>(ops[i].maxNs), o[u"max_ns"_s].toInteger());
    }
  };
  compareOps(s.topOps, cli[u"top_ops"_s].toArray());
  compareOps(s.topKernels, cli[u"top_kernels"_s].toArray());
  compareOps(s.spans, cli[u"spans"_s].toArray());
  const QJsonArray collectives = cli[u"collectives"_s].toArray();
  QCOMPARE(static_cast<qsizetype>(s.collectives.size()), collectives.size());
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    const QJsonObject c = collectives[static_cast<qsizetype>(i)].toObject();
    QCOMPARE(QString::fromStdString(s.collectives[i].kind), c[u"kind"_s].toString());
    QCOMPARE(static_cast<qint64>(s.collectives[i].count), c[u"count"_s].toInteger());
    QCOMPARE(static_cast<qint64>(s.collectives[i].totalNs), c[u"total_ns"_s].toInteger());
    QCOMPARE(static_cast<qint64>(s.collectives[i].bytes.value_or(-1)), c[u"bytes"_s].toInteger(-1));  // null: unknown
  }
}

QJsonObject runSummary(const QString& file, int rank, TimeRange range) {
  const fathom::test::CliRun run =
      fathom::test::runFathom({u"trace"_s, u"summary"_s, file, u"--rank"_s, QString::number(rank), u"--from"_s,
                               micros(range.startNs), u"--to"_s, micros(range.endNs), u"--json"_s});
  if (run.exitCode != 0)
    qWarning("%s", qPrintable(fathom::test::describe(run)));
  return fathom::test::stdoutJson(run).object();
}

}  // namespace

class TestTimelineSelection : public QObject {
  Q_OBJECT

private slots:
  void clickSelectsAndDetailsShowTheSlice();
  void escAndClickOnNothingClear();
  void flowFromCpuOpToKernel();
  void boxSelectEqualsTraceSummary();
  void threadedAreaOnGpuTraceEqualsTraceSummary();
  void stepBandsLabelsAndInstants();
  void selectingAStepOnAGeneratedGpuTrace();
  void revealAndFit();
  void clipLine_data();
  void clipLine();
  void areaNameModel();
};

void TestTimelineSelection::clickSelectsAndDetailsShowTheSlice() {
  Harness h;
  QVERIFY(h.open(kGloo));
  const TimelineIndex& index = *h.view->index();
  // Lanes per rank: each rank's CPU process holds its main thread, Fathom's thread and the collectives row.
  QCOMPARE(lanesOfRank(index, 0).size(), std::size_t{3});
  QCOMPARE(lanesOfRank(index, 1).size(), std::size_t{3});
  const auto collectives = laneTitled(index, "collectives (gloo) #0", 0);
  QVERIFY(collectives.has_value());
  const auto allReduce = findSlice(index, *collectives, "fathom::all_reduce");
  QVERIFY(allReduce.has_value());
  const TimelineLane& lane = index.lane(allReduce->lane);

  QSignalSpy selected(h.view, &TimelineView::sliceSelected);
  const auto rect = h.view->sliceRect(*allReduce);
  QVERIFY(rect.has_value());
  QVERIFY2(h.view->viewport()->rect().contains(centreOf(*rect)), "the all-reduce is on screen when fitted");
  QSignalSpy args(&h.details, &SliceDetailsPanel::argsReady);
  QTest::mouseClick(h.view->viewport(), Qt::LeftButton, {}, centreOf(*rect));
  QCOMPARE(selected.count(), 1);
  QCOMPARE(h.view->selectedSlice(), allReduce);
  QCOMPARE(h.details.slice(), allReduce);

  // What the file says about this event, parsed here.
  const nlohmann::json trace = readTrace(kGloo);
  const nlohmann::json event = findEvent(trace, lane, "fathom::all_reduce", lane.start[allReduce->index]);
  QVERIFY(!event.is_null());
  const auto durNs = std::llround(event["dur"].get<double>() * 1000);
  QCOMPARE(labelText(&h.details, "name"), u"fathom::all_reduce"_s);
  QCOMPARE(labelText(&h.details, "category"), QString::fromStdString(event["cat"].get<std::string>()));
  QCOMPARE(labelText(&h.details, "duration"), fathom::views::formatTime(durNs, 1));
  QCOMPARE(labelText(&h.details, "self"), fathom::views::formatTime(durNs, 1));  // nothing nested in it
  QCOMPARE(labelText(&h.details, "traceClock"), micros(std::llround(event["ts"].get<double>() * 1000)) + u" µs"_s);
  QVERIFY(labelText(&h.details, "lane").endsWith(u"collectives (gloo) #0"_s));
  QCOMPARE(labelText(&h.details, "depth"), u"0"_s);
  QVERIFY(args.wait(10'000));
  for (const auto& [key, value] : event["args"].items())
    QCOMPARE(argText(h.details, QString::fromStdString(key)), value.is_string()
                                                                  ? QString::fromStdString(value.get<std::string>())
                                                                  : QString::fromStdString(value.dump()));
  QCOMPARE(argText(h.details, u"label"_s), u"ddp.bucket.0"_s);
  QCOMPARE(argText(h.details, u"bytes"_s), u"449536"_s);

  // A slice with children: its self time is its duration less its direct children's, counted here from the file.
  const auto main = laneTitled(index, "main thread (9389)", 0);
  QVERIFY(main.has_value());
  const auto step = findSlice(index, *main, "ProfilerStep#1");
  QVERIFY(step.has_value());
  h.view->selectSlice(step);
  const TimelineLane& mainLane = index.lane(*main);
  const std::int64_t stepStart = mainLane.start[step->index];
  const std::int64_t stepEnd = mainLane.end[step->index];
  // Direct children: events of the same row inside the step that no other event inside the step encloses.
  std::vector<std::pair<std::int64_t, std::int64_t>> inside;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X" || e["pid"].dump() + "/" + e["tid"].dump() != mainLane.key)
      continue;
    const auto s = std::llround(e["ts"].get<double>() * 1000);
    const auto t = s + std::llround(e["dur"].get<double>() * 1000);
    if (s >= stepStart && t <= stepEnd && !(s == stepStart && t == stepEnd))
      inside.emplace_back(s, t);
  }
  std::int64_t children = 0;
  for (const auto& [s, t] : inside) {
    const bool nested = std::any_of(inside.begin(), inside.end(), [&](const auto& o) {
      return o != std::make_pair(s, t) && o.first <= s && o.second >= t && (o.first < s || o.second > t);
    });
    if (!nested)
      children += t - s;
  }
  QVERIFY(children > 0);
  QCOMPARE(labelText(&h.details, "name"), u"ProfilerStep#1"_s);
  QCOMPARE(labelText(&h.details, "self"), fathom::views::formatTime(stepEnd - stepStart - children, 1));
  QCOMPARE(labelText(&h.details, "duration"), fathom::views::formatTime(stepEnd - stepStart, 1));
}

void TestTimelineSelection::escAndClickOnNothingClear() {
  Harness h;
  QVERIFY(h.open(kGloo));
  const TimelineIndex& index = *h.view->index();
  const auto allReduce = findSlice(index, *laneTitled(index, "collectives (gloo) #0", 0), "fathom::all_reduce");
  const QPoint at = centreOf(*h.view->sliceRect(*allReduce));
  QTest::mouseClick(h.view->viewport(), Qt::LeftButton, {}, at);
  QCOMPARE(h.view->selectedSlice(), allReduce);
  QSignalSpy selected(h.view, &TimelineView::sliceSelected);
  QTest::keyClick(h.view, Qt::Key_Escape);
  QVERIFY(!h.view->selectedSlice());
  QCOMPARE(selected.count(), 1);
  QVERIFY(!h.details.slice());
  QTest::keyClick(h.view, Qt::Key_Escape);  // nothing selected: nothing emitted
  QCOMPARE(selected.count(), 1);
  // A click selects; a click on the ruler (no slice) clears; a drag pans and selects nothing.
  QTest::mouseClick(h.view->viewport(), Qt::LeftButton, {}, at);
  QCOMPARE(h.view->selectedSlice(), allReduce);
  QTest::mouseClick(h.view->viewport(), Qt::LeftButton, {}, {at.x(), 5});
  QVERIFY(!h.view->selectedSlice());
  const TimeRange before = h.view->visibleRange();
  QTest::keyClick(h.view, Qt::Key_W);
  QTest::mousePress(h.view->viewport(), Qt::LeftButton, {}, at);
  QMouseEvent move(QEvent::MouseMove, at - QPoint(60, 0), h.view->viewport()->mapToGlobal(at - QPoint(60, 0)),
                   Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(h.view->viewport(), &move);
  QTest::mouseRelease(h.view->viewport(), Qt::LeftButton, {}, at - QPoint(60, 0));
  QVERIFY(!h.view->selectedSlice());
  QVERIFY(h.view->visibleRange().startNs != before.startNs);
}

void TestTimelineSelection::flowFromCpuOpToKernel() {
  Harness h;
  QVERIFY(h.open(kKineto));
  const TimelineIndex& index = *h.view->index();
  QCOMPARE(index.flows().size(), std::size_t{2});  // aten::mm's kernel, and a memcpy in the next step
  std::optional<SliceRef> mm;
  std::optional<SliceRef> launch;
  std::optional<SliceRef> kernel;
  for (std::uint32_t l = 0; l < index.lanes().size(); ++l) {
    mm = mm ? mm : findSlice(index, l, "aten::mm");
    launch = launch ? launch : findSlice(index, l, "cudaLaunchKernel");
    kernel = kernel ? kernel : findSlice(index, l, "sm90_xmma_gemm_f32f32_tf32f32_f32");
  }
  QVERIFY(mm && launch && kernel);
  QCOMPARE(index.lane(kernel->lane).kind, fathom::trace::LaneKind::GpuStream);

  const QImage before = h.view->viewport()->grab().toImage();
  // Click the op (a cpu_op: the flow leaves its child, the launch).
  QTest::mouseClick(h.view->viewport(), Qt::LeftButton, {}, centreOf(*h.view->sliceRect(*mm)));
  QCOMPARE(h.view->selectedSlice(), mm);
  const fathom::views::SliceHighlight* highlight = h.view->highlight();
  QVERIFY(highlight != nullptr);
  QCOMPARE(highlight->arrows.size(), std::size_t{1});
  QCOMPARE(highlight->arrows[0].from, *launch);
  QCOMPARE(highlight->arrows[0].to, *kernel);
  QCOMPARE(highlight->launched, std::vector<SliceRef>{*kernel});
  // The arrow is drawn: from the launch's start to the kernel's start, at their rows' centres; the pixels along it
  // (away from its ends) changed.
  const QImage after = h.view->viewport()->grab().toImage();
  const QRectF from = *h.view->sliceRect(*launch);
  const QRectF to = *h.view->sliceRect(*kernel);
  const QLineF arrow(QPointF(from.left(), from.center().y()), QPointF(to.left(), to.center().y()));
  int changed = 0;
  const qreal ratio = after.devicePixelRatio();
  for (double t = 0.2; t <= 0.8; t += 0.1) {
    const QPoint p = (arrow.pointAt(t) * ratio).toPoint();
    changed += before.pixel(p) != after.pixel(p) ? 1 : 0;
  }
  QVERIFY2(changed >= 5, qPrintable(u"%1 of 7 points on the arrow changed"_s.arg(changed)));
  // The details list the kernel it launched, with the kernel's name.
  const QStringList related = relatedTexts(h.details);
  QVERIFY2(related.size() == 1 && related[0].startsWith(u"Launched GPU work (1)|sm90_xmma_gemm_f32f32_tf32f32_f32"_s),
           qPrintable(related.join(u'\n')));

  // Clicking the kernel in the details selects it (and reveals it); its details list its launch and the op around it.
  QSignalSpy selected(h.view, &TimelineView::sliceSelected);
  QTreeWidgetItem* item = relatedItem(h.details, *kernel);
  QVERIFY(item != nullptr);
  auto* tree = child<QTreeWidget>(&h.details, u"related"_s);
  tree->scrollToItem(item);
  QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(item).center());
  QCOMPARE(selected.count(), 1);
  QCOMPARE(h.view->selectedSlice(), kernel);
  QCOMPARE(labelText(&h.details, "name"), u"sm90_xmma_gemm_f32f32_tf32f32_f32"_s);
  QCOMPARE(h.view->highlight()->arrows.size(), std::size_t{1});  // the flow in
  QVERIFY(relatedItem(h.details, *launch) != nullptr);
  QVERIFY(relatedItem(h.details, *mm) != nullptr);
  QVERIFY2(relatedTexts(h.details).join(u'\n').contains(u"Launched by (2)|aten::mm"_s),
           qPrintable(relatedTexts(h.details).join(u'\n')));

  // Zoomed in on the kernel, the launch is off screen: the arrow is clipped at the plot's edge and still drawn.
  h.view->setVisibleRange(
      {index.lane(kernel->lane).start[kernel->index] - 100, index.lane(kernel->lane).end[kernel->index] + 100});
  const QRectF offscreen = *h.view->sliceRect(*launch);
  const int plotLeft = h.view->viewport()->width() - h.view->plotWidth();
  QVERIFY(offscreen.right() < plotLeft);  // left of the plot
  const QImage clippedArrow = h.view->viewport()->grab().toImage();
  // The arrow now runs from the plot's left edge, at the launch's row, to the kernel (dashed): drawn there.
  const QRectF kernelRect = *h.view->sliceRect(*kernel);
  const QLineF pulled(QPointF(plotLeft + 1, offscreen.center().y()),
                      QPointF(kernelRect.left(), kernelRect.center().y()));
  h.view->selectSlice(std::nullopt);
  const QImage noArrow = h.view->viewport()->grab().toImage();
  changed = 0;
  for (const double t : {0.3, 0.5, 0.7}) {
    const QPoint p = (pulled.pointAt(t) * ratio).toPoint();
    changed += clippedArrow.pixel(p) != noArrow.pixel(p) ? 1 : 0;
  }
  QVERIFY2(changed >= 2, qPrintable(u"%1 of 3 points on the clipped arrow changed"_s.arg(changed)));
}

void TestTimelineSelection::boxSelectEqualsTraceSummary() {
  Harness h;
  QVERIFY(h.open(kGloo));
  const TimelineIndex& index = *h.view->index();
  const std::vector<std::uint32_t> rank0 = lanesOfRank(index, 0);
  // Shift+drag from a quarter to 60 % of the plot, from rank 0's first lane row to its last one.
  QRectF first = *h.view->sliceRect(*findSlice(index, *laneTitled(index, "main thread (9389)", 0), "ProfilerStep#1"));
  QRectF last =
      *h.view->sliceRect(*findSlice(index, *laneTitled(index, "collectives (gloo) #0", 0), "fathom::all_reduce"));
  const int header = h.view->viewport()->width() - h.view->plotWidth();
  const int pixels = h.view->plotWidth();
  const QPoint press(header + pixels / 4, static_cast<int>(first.center().y()));
  const QPoint release(header + pixels * 6 / 10, static_cast<int>(last.center().y()));
  h.view->selectSlice(
      findSlice(index, *laneTitled(index, "main thread (9389)", 0), "ProfilerStep#1"));  // replaced by the box below
  QSignalSpy areaSpy(h.view, &TimelineView::areaSelected);
  QSignalSpy aggregated(&h.area, &AreaPanel::aggregated);
  const TimeRange visible = h.view->visibleRange();
  QTest::mousePress(h.view->viewport(), Qt::LeftButton, Qt::ShiftModifier, press);
  QMouseEvent move(QEvent::MouseMove, release, h.view->viewport()->mapToGlobal(release), Qt::NoButton, Qt::LeftButton,
                   Qt::ShiftModifier);
  QApplication::sendEvent(h.view->viewport(), &move);
  QTest::mouseRelease(h.view->viewport(), Qt::LeftButton, Qt::ShiftModifier, release);
  QCOMPARE(h.view->visibleRange().startNs, visible.startNs);  // a box does not pan
  QCOMPARE(areaSpy.count(), 1);
  const auto area = h.view->areaSelection();
  QVERIFY(area.has_value());
  QCOMPARE(area->lanes, rank0);
  const TimeRange range{fathom::views::pixelToTime(visible, pixels, pixels / 4),
                        fathom::views::pixelToTime(visible, pixels, pixels * 6 / 10)};
  QCOMPARE(area->range.startNs, range.startNs);
  QCOMPARE(area->range.endNs, range.endNs);
  QVERIFY(!h.view->selectedSlice());  // the box replaced the slice selection
  QVERIFY(!h.details.slice());
  // Under the sync limit: aggregated at once.
  QCOMPARE(aggregated.count(), 1);
  QVERIFY(h.area.aggregation().has_value());
  QCOMPARE(h.area.aggregation()->ranks.size(), std::size_t{1});

  // The breakdown equals the real CLI's on the same file, rank and range.
  const QJsonObject cli = runSummary(kGloo, 0, range);
  QVERIFY(!cli.isEmpty());
  QVERIFY(!cli[u"steps"_s].toArray().isEmpty());
  compareWithCli(h.area, cli, 0);
  if (QTest::currentTestFailed())
    return;

  // The per-name table: every slice of the three lanes that meets the range, counted here.
  std::map<std::string, std::tuple<std::uint64_t, std::int64_t, std::int64_t>> brute;
  for (const std::uint32_t l : rank0) {
    const TimelineLane& lane = index.lane(l);
    for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
      const bool meets = lane.end[i] > lane.start[i] ? lane.start[i] < range.endNs && lane.end[i] > range.startNs
                                                     : lane.start[i] >= range.startNs && lane.start[i] < range.endNs;
      if (meets) {
        auto& [count, total, max] = brute[std::string(index.name(lane.name[i]))];
        ++count;
        total += lane.duration(i);
        max = std::max(max, lane.duration(i));
      }
    }
  }
  AreaNameModel* names = h.area.nameModel();
  QCOMPARE(static_cast<std::size_t>(names->rowCount()), brute.size());
  for (int r = 0; r < names->rowCount(); ++r) {
    const auto& [count, total, max] =
        brute.at(names->index(r, AreaNameModel::NameColumn).data(AreaNameModel::SortRole).toString().toStdString());
    QCOMPARE(names->index(r, AreaNameModel::CountColumn).data(AreaNameModel::SortRole).toULongLong(),
             static_cast<qulonglong>(count));
    QCOMPARE(names->index(r, AreaNameModel::TotalColumn).data(AreaNameModel::SortRole).toLongLong(),
             static_cast<qlonglong>(total));
    QCOMPARE(names->index(r, AreaNameModel::MaxColumn).data(AreaNameModel::SortRole).toLongLong(),
             static_cast<qlonglong>(max));
    QCOMPARE(names->index(r, AreaNameModel::MeanColumn).data(AreaNameModel::SortRole).toDouble(),
             static_cast<double>(total) / static_cast<double>(count));
  }
  // Sortable: by count, descending, through the table's header.
  auto* table = child<QTableView>(&h.area, u"byName"_s);
  table->sortByColumn(AreaNameModel::CountColumn, Qt::DescendingOrder);
  for (int r = 1; r < table->model()->rowCount(); ++r)
    QVERIFY(table->model()->index(r - 1, AreaNameModel::CountColumn).data(AreaNameModel::SortRole).toULongLong() >=
            table->model()->index(r, AreaNameModel::CountColumn).data(AreaNameModel::SortRole).toULongLong());

  // A click on a slice replaces the area (one selection at a time); setAreaSelection() keeps the slice.
  const QPoint allReduceAt = centreOf(
      *h.view->sliceRect(*findSlice(index, *laneTitled(index, "collectives (gloo) #0", 0), "fathom::all_reduce")));
  QTest::mouseClick(h.view->viewport(), Qt::LeftButton, {}, allReduceAt);
  QVERIFY(h.view->selectedSlice().has_value());
  QVERIFY(!h.view->areaSelection());
  QVERIFY(!h.area.aggregation());
  QCOMPARE(areaSpy.count(), 2);
  h.view->setAreaSelection(area->range, area->lanes);
  QVERIFY(h.view->selectedSlice().has_value());
  QCOMPARE(areaSpy.count(), 3);
  QVERIFY(h.area.aggregation().has_value());
  // Idempotent: the same area (lanes in another order, repeated) and the same slice again emit nothing.
  std::vector<std::uint32_t> shuffled(area->lanes.rbegin(), area->lanes.rend());
  shuffled.push_back(shuffled.front());
  h.view->setAreaSelection(area->range, shuffled);
  QCOMPARE(areaSpy.count(), 3);
  QSignalSpy sliceSpy(h.view, &TimelineView::sliceSelected);
  h.view->selectSlice(h.view->selectedSlice());
  QCOMPARE(sliceSpy.count(), 0);
  // The box is drawn, and Esc clears it (the panel too).
  (void)h.view->viewport()->grab();
  QTest::keyClick(h.view, Qt::Key_Escape);
  QVERIFY(!h.view->areaSelection());
  QVERIFY(!h.view->selectedSlice());
  QCOMPARE(areaSpy.count(), 4);
  QVERIFY(!h.area.aggregation());
  QCOMPARE(names->rowCount(), 0);
}

void TestTimelineSelection::threadedAreaOnGpuTraceEqualsTraceSummary() {
  // A generated 2-rank GPU trace (kernels, NCCL, ac2g flows), both ranks' lanes, aggregated off the GUI thread (the
  // sync limit at 0): each rank's breakdown on the GPU timeline equals the CLI's.
  QTemporaryDir dir;
  const QString path = dir.filePath(u"gpu.json.gz"_s);
  fathom::test::generateTrace(path.toStdString(), {.events = 30'000, .ranks = 2, .seed = 7, .opsPerStep = 120});
  Harness h(AreaPanel::Options{.syncSliceLimit = 0});
  QVERIFY(h.open(path));
  const TimelineIndex& index = *h.view->index();
  const std::int64_t lo = index.data().startNs;
  const std::int64_t hi = index.data().endNs;
  const TimeRange range{lo + (hi - lo) / 5, lo + (hi - lo) * 3 / 5};
  std::vector<std::uint32_t> all(index.lanes().size());
  std::iota(all.begin(), all.end(), 0u);
  QSignalSpy aggregated(&h.area, &AreaPanel::aggregated);
  h.view->setAreaSelection(range, all);
  QVERIFY(h.area.isComputing());
  QVERIFY(!h.area.aggregation());
  QVERIFY(aggregated.wait(30'000));
  QVERIFY(!h.area.isComputing());
  QCOMPARE(h.area.aggregation()->ranks.size(), std::size_t{2});
  for (const int rank : {0, 1}) {
    const QJsonObject cli = runSummary(path, rank, range);
    QCOMPARE(cli[u"timeline"_s].toString(), u"gpu"_s);
    compareWithCli(h.area, cli, rank);
    if (QTest::currentTestFailed())
      return;
  }
  // A newer area supersedes one still computing: only the newer one's numbers arrive.
  h.view->setAreaSelection({lo, hi + 1}, all);
  h.view->setAreaSelection(range, {all.front()});
  QVERIFY(aggregated.wait(30'000));
  QTest::qWait(200);
  QCOMPARE(h.area.aggregation()->range.startNs, range.startNs);
  QCOMPARE(h.area.aggregation()->ranks.size(), std::size_t{1});
}

void TestTimelineSelection::stepBandsLabelsAndInstants() {
  Harness h;
  h.window.resize(1800, 2400);  // every row on screen: both ranks' header rows
  QVERIFY(h.open(kGloo));
  (void)h.view->viewport()->grab();
  const TimelineView::PaintStats fitted = h.view->lastPaint();
  // One step per rank (ProfilerStep#1): a band over each rank's CPU process, its number in each header row.
  QCOMPARE(h.view->index()->steps().size(), std::size_t{2});
  QCOMPARE(fitted.stepBands, 2);
  QCOMPARE(fitted.stepLabels, 2);
  // 1,968 [memory] instants on the two main threads: at most one marker per pixel column and lane.
  QVERIFY(fitted.instants > 0);
  QVERIFY(fitted.instants <= 2 * fitted.pixels);
  // Hovering a marker names the instant; just below it, the slice under it.
  {
    const auto main = *laneTitled(*h.view->index(), "main thread (9389)", 0);
    const TimelineLane& lane = h.view->index()->lane(main);
    QVERIFY(!lane.instantTs.empty());
    const QRectF stepRow = *h.view->sliceRect(*findSlice(*h.view->index(), main, "ProfilerStep#1"));
    const double x = (h.view->viewport()->width() - h.view->plotWidth()) +
                     std::floor(fathom::views::timeToPixel(h.view->visibleRange(), h.view->plotWidth(),
                                                           lane.instantTs[lane.instantTs.size() / 2])) +
                     0.5;
    const QString tip = h.view->toolTipAt(QPoint(static_cast<int>(x), static_cast<int>(stepRow.top()) + 2));
    QVERIFY2(tip.startsWith(u"[memory]\ninstant at "_s), qPrintable(tip));
    const QString below = h.view->toolTipAt(QPoint(static_cast<int>(x), static_cast<int>(stepRow.top()) + 10));
    QVERIFY2(below.startsWith(u"ProfilerStep#1\n"_s), qPrintable(below));
  }
  // Zoomed in on the step's first tenth, instants are fewer and still drawn; past the step's end, no band.
  const auto& index = *h.view->index();
  const SliceRef step = index.steps().front().slice;
  const std::int64_t stepEnd = index.lane(step.lane).end[step.index];
  h.view->setVisibleRange({stepEnd + 1, index.data().endNs});
  (void)h.view->viewport()->grab();
  const int bandsAfterStep0 = h.view->lastPaint().stepBands;
  QVERIFY(bandsAfterStep0 <= 1);  // rank 1's step ends later than rank 0's
}

// A ProfilerStep launches hundreds of kernels: selecting one lights them all up (outlined, arrows up to the cap), the
// details list them (up to their cap), and a frame stays cheap: the highlight is computed once, at the click.
void TestTimelineSelection::selectingAStepOnAGeneratedGpuTrace() {
  QTemporaryDir dir;
  const QString path = dir.filePath(u"gpu.json.gz"_s);
  fathom::test::generateTrace(path.toStdString(), {.events = 100'000, .ranks = 2, .seed = 5, .opsPerStep = 400});
  Harness h;
  QVERIFY(h.open(path));
  const TimelineIndex& index = *h.view->index();
  const SliceRef step = index.steps().front().slice;
  QElapsedTimer timer;
  timer.start();
  h.view->selectSlice(step);
  const double selectMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  const fathom::views::SliceHighlight* highlight = h.view->highlight();
  QVERIFY(highlight != nullptr);
  // Every kernel of the step came from a launch inside it: hundreds, outlined; their arrows are left out (the step
  // has no flow of its own). A slice with a few launches inside gets theirs: an ATen op of the step.
  QVERIFY2(highlight->launched.size() > fathom::views::SliceHighlight::kMaxDescendantArrows,
           qPrintable(QString::number(highlight->launched.size())));
  QVERIFY(highlight->arrows.empty());
  {
    const TimelineLane& lane = index.lane(step.lane);
    std::optional<SliceRef> op;
    for (std::uint32_t i = 0; i < lane.sliceCount() && !op; ++i) {
      const std::size_t launched = fathom::trace::sliceDetails(index, {step.lane, i}, false).launched.size();
      if (index.flowsFrom({step.lane, i}).empty() && launched >= 1 &&
          launched <= fathom::views::SliceHighlight::kMaxDescendantArrows)
        op = SliceRef{step.lane, i};  // an op whose kernels come from its children's launches
    }
    QVERIFY(op.has_value());
    const fathom::views::SliceHighlight opHighlight = fathom::views::highlightFor(index, *op);
    QCOMPARE(opHighlight.arrows.size(), opHighlight.launched.size());
    for (const auto& flow : opHighlight.arrows)
      QCOMPARE(index.lane(flow.to.lane).kind, fathom::trace::LaneKind::GpuStream);
  }
  h.view->fitSelection();  // F: the step
  // Frames with the step's highlight and without it (the best of three each: the machine is shared).
  const auto bestFrame = [&] {
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {
      (void)h.view->viewport()->grab();
      best = std::min(best, h.view->lastPaint().milliseconds);
    }
    return best;
  };
  const double withoutMs = [&] {
    h.view->selectSlice(std::nullopt);
    const double ms = bestFrame();
    h.view->selectSlice(step);
    return ms;
  }();
  const double withMs = bestFrame();
  const TimelineView::PaintStats stats = h.view->lastPaint();
  QVERIFY(stats.rectangles <= stats.pixels * stats.rows);
  // The details: the launched work, listed up to 500 with a last row counting the rest.
  const QStringList related = relatedTexts(h.details);
  const auto listed = std::count_if(related.begin(), related.end(),
                                    [](const QString& t) { return t.startsWith(u"Launched GPU work"_s); });
  QVERIFY(listed >= std::min<qsizetype>(500, static_cast<qsizetype>(highlight->launched.size())));
  qInfo("step of %zu launched kernels, %zu arrows: select %.2f ms (highlight and details); frame with the highlight "
        "%.2f ms, without %.2f ms (%d rectangles, %d rows)",
        highlight->launched.size(), highlight->arrows.size(), selectMs, withMs, withoutMs, stats.rectangles,
        stats.rows);
}

void TestTimelineSelection::revealAndFit() {
  Harness h;
  QVERIFY(h.open(kGloo));
  const TimelineIndex& index = *h.view->index();
  // A short op of rank 1 (lower rows), far from the view after zooming in at the start.
  const auto main1 = *laneTitled(index, "main thread (9390)", 1);
  const TimelineLane& lane = index.lane(main1);
  std::optional<SliceRef> target;
  for (std::uint32_t i = lane.sliceCount(); i-- > 0;)
    if (lane.duration(i) > 1000 && lane.duration(i) < 5000 && lane.start[i] > index.data().endNs / 2) {
      target = SliceRef{main1, i};
      break;
    }
  QVERIFY(target.has_value());
  h.view->setVisibleRange({index.data().startNs, index.data().startNs + 100'000});
  h.view->revealSlice(*target);
  const QRectF r = *h.view->sliceRect(*target);
  const QRect plot(h.view->viewport()->width() - h.view->plotWidth(), TimelineView::Options{}.rulerHeight,
                   h.view->plotWidth(), h.view->viewport()->height() - TimelineView::Options{}.rulerHeight);
  QVERIFY2(r.width() >= 3, qPrintable(QString::number(r.width())));
  QVERIFY2(plot.contains(r.toRect()),
           qPrintable(u"%1,%2 %3x%4"_s.arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
  QVERIFY(!h.view->selectedSlice());  // revealing does not select

  // F: fits the area selection when there is one, else the selected slice, else the whole trace.
  h.view->setAreaSelection({index.data().startNs + 5000, index.data().startNs + 9000}, {main1});
  QTest::keyClick(h.view, Qt::Key_F);
  QCOMPARE(h.view->visibleRange().startNs, index.data().startNs + 5000);
  QCOMPARE(h.view->visibleRange().endNs, index.data().startNs + 9000);
  h.view->clearAreaSelection();
  h.view->selectSlice(target);
  QTest::keyClick(h.view, Qt::Key_F);
  const std::int64_t margin = lane.duration(target->index) / 10;
  QCOMPARE(h.view->visibleRange().startNs, lane.start[target->index] - margin);
  QCOMPARE(h.view->visibleRange().endNs, lane.end[target->index] + margin);
  h.view->selectSlice(std::nullopt);
  QTest::keyClick(h.view, Qt::Key_F);
  QCOMPARE(h.view->visibleRange().startNs, index.data().startNs);
  QCOMPARE(h.view->visibleRange().endNs, index.data().endNs);
}

void TestTimelineSelection::clipLine_data() {
  QTest::addColumn<QLineF>("line");
  QTest::addColumn<bool>("visible");
  QTest::addColumn<QLineF>("clipped");
  const QRectF rect(0, 0, 100, 50);
  Q_UNUSED(rect);
  QTest::newRow("inside") << QLineF(10, 10, 90, 40) << true << QLineF(10, 10, 90, 40);
  QTest::newRow("end far right") << QLineF(50, 25, 1e12, 25) << true << QLineF(50, 25, 100, 25);
  QTest::newRow("start far left") << QLineF(-1e12, 10, 50, 10) << true << QLineF(0, 10, 50, 10);
  QTest::newRow("through, diagonal") << QLineF(-50, -25, 150, 75) << true << QLineF(0, 0, 100, 50);
  QTest::newRow("below") << QLineF(0, 60, 100, 70) << false << QLineF();
  QTest::newRow("left, vertical") << QLineF(-5, 0, -5, 50) << false << QLineF();
}

void TestTimelineSelection::clipLine() {
  QFETCH(QLineF, line);
  QFETCH(bool, visible);
  QFETCH(QLineF, clipped);
  const auto result = fathom::views::clipLine(line, QRectF(0, 0, 100, 50));
  QCOMPARE(result.has_value(), visible);
  if (visible) {
    QVERIFY(std::abs(result->x1() - clipped.x1()) < 1e-6 && std::abs(result->y1() - clipped.y1()) < 1e-6);
    QVERIFY(std::abs(result->x2() - clipped.x2()) < 1e-6 && std::abs(result->y2() - clipped.y2()) < 1e-6);
  }
}

void TestTimelineSelection::areaNameModel() {
  std::optional<TimelineIndex> index = TimelineIndex::load(kGloo.toStdString());
  QVERIFY(index.has_value());
  auto shared = std::make_shared<const TimelineIndex>(std::move(*index));
  std::vector<std::uint32_t> lanes = lanesOfRank(*shared, 1);
  const auto area = fathom::trace::aggregateArea(*shared, {shared->data().startNs, shared->data().endNs + 1}, lanes);
  AreaNameModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  model.setRows(shared, area.byName);
  QCOMPARE(static_cast<std::size_t>(model.rowCount()), area.byName.size());
  QCOMPARE(model.columnCount(), static_cast<int>(AreaNameModel::ColumnCount));
  // Rows come by total time, descending, as aggregateArea orders them; the name column shows the name.
  for (int r = 1; r < model.rowCount(); ++r)
    QVERIFY(model.index(r - 1, AreaNameModel::TotalColumn).data(AreaNameModel::SortRole).toLongLong() >=
            model.index(r, AreaNameModel::TotalColumn).data(AreaNameModel::SortRole).toLongLong());
  QCOMPARE(model.index(0, AreaNameModel::NameColumn).data().toString(),
           QString::fromUtf8(shared->name(area.byName[0].name)));
  QCOMPARE(model.headerData(AreaNameModel::MeanColumn, Qt::Horizontal).toString(), u"Mean"_s);
  model.clear();
  QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(TestTimelineSelection)
#include "tst_timeline_selection.moc"
