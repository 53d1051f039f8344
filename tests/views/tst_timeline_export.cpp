// SPDX-License-Identifier: Apache-2.0
// The timeline's exports (issue 19) on the real 2-rank trace: "Export Range" writes the visible range (or what the
// selection hook gives) through trace::exportTraceRange off the GUI thread, and the file validates and equals the core
// function's output; PNG is the viewport as painted; SVG renders the same paint code as vectors (the slice names are
// text in it). The actions sit in the view's context menu.
#include "timeline/timeline_export.h"
#include "timeline/timeline_view.h"
#include "trace_generator.h"

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_range_export.h>
#include <fathom/trace/trace_reader.h>
#include <fathom/trace/trace_validator.h>

#include <nlohmann/json.hpp>

#include <QAction>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace fathom::views;
namespace fs = std::filesystem;

namespace {

const QString kGloo = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz");

std::vector<std::string> eventsOf(const QString& path) {
  std::vector<std::string> events;
  fathom::trace::TraceReader reader(fs::path(path.toStdString()));
  while (reader.next()) {
    events.emplace_back(reader.event());
  }
  return events;
}

}  // namespace

class TestTimelineExport : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::unique_ptr<TimelineView> m_view;
  TimelineExport* m_export = nullptr;

private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_dir.setAutoRemove(!qEnvironmentVariableIsSet("FATHOM_KEEP_TEST_FILES"));  // to look at the PNG and SVG
    m_view = std::make_unique<TimelineView>();
    m_view->resize(1000, 600);
    m_view->show();
    m_export = new TimelineExport(m_view.get());
    QSignalSpy loaded(m_view.get(), &TimelineView::loaded);
    m_view->open(kGloo);
    QVERIFY(loaded.wait(30'000));
  }

  void actionsInTheContextMenu() {
    // Over the plot (the header column has the rows' own menu), the context menu lists the view's actions.
    const std::unique_ptr<QMenu> menu(m_view->createContextMenu(QPoint(m_view->viewport()->width() - 10, 40)));
    QVERIFY(menu != nullptr);
    const QList<QAction*> actions = menu->actions();
    QVERIFY(actions.contains(m_export->exportRangeAction()));
    QVERIFY(actions.contains(m_export->exportPngAction()));
    QVERIFY(actions.contains(m_export->exportSvgAction()));
    QCOMPARE(m_export->exportRangeAction()->text(), u"Export Range as Chrome Trace…"_s);
  }

  /// The visible range, off the GUI thread; the file is what the core function writes for that range, and valid.
  void exportVisibleRange() {
    const fathom::trace::TimelineIndex* index = m_view->index();
    const std::int64_t lo = index->data().startNs;
    const std::int64_t hi = index->data().endNs;
    m_view->setVisibleRange({lo + (hi - lo) / 4, lo + (hi - lo) / 2});
    const fathom::trace::TimeRange range = m_view->visibleRange();
    QCOMPARE(m_export->selection().range.startNs, range.startNs);
    QVERIFY(m_export->selection().rows.empty());

    const QString path = m_dir.filePath(u"visible.json.gz"_s);
    QSignalSpy done(m_export, &TimelineExport::rangeExported);
    QSignalSpy failed(m_export, &TimelineExport::exportFailed);
    QString error;
    QVERIFY2(m_export->exportRange(path, &error), qPrintable(error));
    QVERIFY(m_export->isExporting());
    QVERIFY(!m_export->exportRange(m_dir.filePath(u"second.json"_s), &error));  // one at a time
    QVERIFY(done.wait(30'000));
    QCOMPARE(failed.count(), 0);
    QVERIFY(!m_export->isExporting());
    QCOMPARE(done.at(0).at(0).toString(), path);

    const fs::path direct = m_dir.filePath(u"direct.json"_s).toStdString();
    const auto result = fathom::trace::exportTraceRange(kGloo.toStdString(), direct, {.range = range});
    QCOMPARE(done.at(0).at(1).toULongLong(), result.eventsWritten);
    QVERIFY(eventsOf(path) == eventsOf(QString::fromStdString(direct.string())));
    QVERIFY(result.eventsWritten < result.eventsRead);
    const auto report = fathom::trace::TraceValidator().validate(path.toStdString());
    QVERIFY(report.valid());
  }

  /// The hook the area selection plugs into: its range and rows are what is written.
  void selectionProvider() {
    const fathom::trace::TimelineIndex* index = m_view->index();
    const std::string lane = index->lane(index->processes().front().lanes.front()).key;
    const fathom::trace::TimeRange range{index->data().startNs,
                                         index->data().startNs + (index->data().endNs - index->data().startNs) / 3};
    m_export->setSelectionProvider([&] { return TimelineExport::Selection{range, {lane}}; });
    const QString path = m_dir.filePath(u"selection.json"_s);
    QSignalSpy done(m_export, &TimelineExport::rangeExported);
    QVERIFY(m_export->exportRange(path));
    QVERIFY(done.wait(30'000));
    fathom::trace::TraceReader reader(fs::path(path.toStdString()));
    while (reader.next()) {
    }
    const nlohmann::json& info = reader.metadata()["fathomExport"];
    QCOMPARE(info["startNs"].get<std::int64_t>(), range.startNs);
    QCOMPARE(info["rows"][0].get<std::string>(), lane);
    m_export->setSelectionProvider([this] { return TimelineExport::Selection{m_view->visibleRange(), {}}; });
  }

  void cancelAndErrors() {
    QSignalSpy failed(m_export, &TimelineExport::exportFailed);
    const QString path = m_dir.filePath(u"no-such-dir/x.json"_s);
    QVERIFY(m_export->exportRange(path));
    QVERIFY(failed.wait(30'000));
    QVERIFY2(failed.at(0).at(0).toString().contains(u"no-such-dir/x.json"_s),
             qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(!QFile::exists(path));

    // Cancel: on a generated trace large enough (300k events) that the export is still running when cancel() comes.
    const QString big = m_dir.filePath(u"big.json"_s);
    fathom::test::generateTrace(big.toStdString(), {.events = 300'000, .ranks = 2});
    TimelineView view;
    TimelineExport bigExport(&view);
    QSignalSpy loaded(&view, &TimelineView::loaded);
    view.open(big);
    QVERIFY(loaded.wait(60'000));
    QSignalSpy bigFailed(&bigExport, &TimelineExport::exportFailed);
    const QString cancelled = m_dir.filePath(u"cancelled.json"_s);
    QVERIFY(bigExport.exportRange(cancelled));
    bigExport.cancel();
    QVERIFY(bigFailed.wait(30'000));
    QVERIFY2(bigFailed.last().at(0).toString().contains(u"cancelled"_s), qPrintable(bigFailed.last().at(0).toString()));
    QVERIFY(!QFile::exists(cancelled));
    QVERIFY(!QFile::exists(cancelled + u".partial"_s));

    TimelineView empty;
    TimelineExport none(&empty);
    QString error;
    QVERIFY(!none.exportRange(m_dir.filePath(u"y.json"_s), &error));
    QCOMPARE(error, u"No trace is loaded."_s);
  }

  void png() {
    const QString path = m_dir.filePath(u"view.png"_s);
    QString error;
    QVERIFY2(TimelineExport::savePng(m_view.get(), path, &error), qPrintable(error));
    QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size() / image.devicePixelRatio(), m_view->viewport()->size());
    // Not blank: slices are painted in colours other than the background.
    QSet<QRgb> colours;
    for (int x = 0; x < image.width(); x += 7) {
      for (int y = 0; y < image.height(); y += 7) {
        colours.insert(image.pixel(x, y));
      }
    }
    QVERIFY(colours.size() > 4);
    QVERIFY(!TimelineExport::savePng(m_view.get(), m_dir.filePath(u"no-such-dir/view.png"_s), &error));
    QVERIFY(error.contains(u"no-such-dir"_s));
  }

  void svg() {
    m_view->fit();
    const QString path = m_dir.filePath(u"view.svg"_s);
    QString error;
    QVERIFY2(TimelineExport::saveSvg(m_view.get(), path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray svg = file.readAll();
    QVERIFY(svg.contains("<svg"));
    QVERIFY(svg.contains("</svg>"));
    // The same paint code as on screen: the row headers and slice labels are text, the slices rectangles.
    QVERIFY(svg.contains("<text"));
    QVERIFY2(svg.contains("ProfilerStep#1"), svg.left(2000).constData());
    QVERIFY(m_view->headers().size() > 2);
    QVERIFY(svg.contains(m_view->headers().at(0).toUtf8()));
    QVERIFY(svg.count("<path") + svg.count("<rect") > 20);
  }

  void cleanupTestCase() { m_view.reset(); }
};

QTEST_MAIN(TestTimelineExport)
#include "tst_timeline_export.moc"
