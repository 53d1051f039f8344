// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "timeline/counter_stack.h"
#include "timeline/timeline_layout.h"
#include "timeline/timeline_overlays.h"
#include "timeline/timeline_selection.h"

#include <fathom/trace/timeline_queries.h>

#include <QAbstractScrollArea>
#include <QColor>
#include <QImage>
#include <QPoint>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QLabel;
class QMenu;
class QPainter;
class QProgressBar;
class QPushButton;
class QWidget;

namespace fathom::plan {
struct Plan;
struct PlannedStep;
struct Prediction;
}  // namespace fathom::plan

namespace fathom::views {

class PlanLanePainter;
class TimelineLoader;
struct OverlayFrame;

/// The trace timeline (issue 19): a TimelineIndex's processes stacked (a header row per process: a rank's CPU
/// process or a GPU), under each its lanes (CPU threads, GPU streams, the collectives row) with one row per depth,
/// then its counters as area charts; a time ruler on top. Zoom at the cursor (wheel, W/S), pan (drag, A/D), F fits
/// the area selection when there is one (else the selected slice, else the whole trace), T switches the ruler between
/// time since the trace's start and the trace's own clock; the vertical scroll bar (or Shift+wheel) scrolls the rows.
///
/// Selection: a click selects the slice under the cursor (outlined, its flow arrows and the work it launched shown;
/// sliceSelected), a click on nothing or Esc clears it; Shift+drag selects an area, a time range x the lanes it
/// covers (a translucent box; areaSelected). By mouse, one replaces the other (as in Perfetto); selectSlice() and
/// setAreaSelection() leave the other selection alone. ProfilerStep#N bands and instant markers are drawn under and
/// over the slices (timeline_overlays.h).
///
/// The rows' arrangement is a TimelineLayout (timeline_layout.h): clicking a header collapses or expands its process
/// or lane, dragging a header moves it among its siblings, its context menu moves, pins and collapses; pinned lanes
/// stay at the top below the ruler while the other rows scroll. Search matches (setSearchMatches) get an outline.
///
/// Paint cost is O(visible pixels): each visible row asks the index for one merged rectangle per pixel column
/// (trace::mergeForPixels, mergeCounterForPixels) and draws what it returns, never the events themselves; a slice's
/// name is drawn when its rectangle is wide enough. lastPaint() counts what the last frame drew.
class TimelineView : public QAbstractScrollArea {
  Q_OBJECT

public:
  enum class TimeMode { SinceTraceStart, TraceClock };
  /// What the last paint drew.
  struct PaintStats {
    int pixels = 0;         ///< the plot's width: the pixel columns asked for
    int rows = 0;           ///< slice rows and counter series painted (those on screen, pinned included)
    int rectangles = 0;     ///< rectangles filled for slices and counter columns: at most pixels x rows
    int matchOutlines = 0;  ///< search matches outlined: at most one per pixel column and row
    int labels = 0;         ///< slice names drawn
    int instants = 0;       ///< instant markers drawn (at most one per pixel column and lane)
    int stepBands = 0;      ///< ProfilerStep bands drawn (one per step and process)
    int stepLabels = 0;     ///< ProfilerStep numbers drawn
    double milliseconds = 0;
  };
  struct Options {
    int headerWidth = 200;  ///< the column of row headers, left of the plot
    int rulerHeight = 24;
    int rowHeight = 16;      ///< one depth of a lane
    int counterHeight = 40;  ///< one counter series
    int processHeight = 20;  ///< a process's header row
    int minLabelWidth = 40;  ///< narrower rectangles carry no name
    double zoomStep = 0.8;   ///< W / one wheel notch: the range's length times this
    double panStep = 0.1;    ///< A/D: this fraction of the range
  };

  explicit TimelineView(QWidget* parent = nullptr);
  explicit TimelineView(const Options& options, QWidget* parent = nullptr);
  ~TimelineView() override;

  /// Loads `path` off the GUI thread, showing progress and a Cancel button; loaded() or loadFailed() follows.
  void open(const QString& path);
  void cancelLoad();
  bool isLoading() const;
  /// Shows `index` (fits its whole time range); nullptr clears the view.
  void setIndex(std::shared_ptr<const trace::TimelineIndex> index);
  /// Shows a newer index of the same trace (a live run's trace that grew) without taking the user's place: the
  /// visible range stays at the same instants (the indices' baseTimeNanoseconds are compared, so a merge whose base
  /// moved keeps it too) and the rows stay scrolled, unless the view showed the whole trace ("fit"): then it shows
  /// the whole new one, following the end. Without an index shown, as setIndex().
  void updateIndex(std::shared_ptr<const trace::TimelineIndex> index);
  const trace::TimelineIndex* index() const { return m_index.get(); }
  /// Whether the visible range is the whole trace.
  bool isFit() const;
  /// The index shown, shared (the selection panels and the search's thread hold it too).
  std::shared_ptr<const trace::TimelineIndex> sharedIndex() const { return m_index; }
  /// The message of the last failed load; empty after a successful one.
  QString errorMessage() const { return m_error; }

  trace::TimeRange visibleRange() const { return m_range; }
  /// Sets the visible range, clamped to the trace (at most its whole length, at least kMinRangeNs).
  void setVisibleRange(trace::TimeRange range);
  void fit();
  /// F: fits the area selection when there is one, else the selected slice (with a margin), else the whole trace.
  void fitSelection();
  /// Multiplies the range's length by `factor` (< 1: zoom in), keeping time `centreNs` at the same x.
  void zoomBy(double factor, std::int64_t centreNs);
  /// Moves the range by `fraction` of its length (negative: earlier).
  void panBy(double fraction);
  TimeMode timeMode() const { return m_timeMode; }
  void setTimeMode(TimeMode mode);

  /// Shows the planner's predicted step as a "plan" lane under each process that holds ProfilerStep spans, drawn at
  /// every measured step's start (PlanLanePainter); replaces a plan shown before.
  void setPlan(const plan::PlannedStep& step);
  /// The same for `prediction`, made for `plan` (plan::plannedStep).
  void setPlan(const plan::Prediction& prediction, const plan::Plan& plan);
  void clearPlan();
  /// The plan lanes: the plan shown, and what the last paint drew of it.
  const PlanLanePainter& planLanes() const { return *m_planLanes; }
  /// The plan lanes shown (0 without a plan).
  int planLaneCount() const;

  /// The plot's width in pixels (the viewport less the header column).
  int plotWidth() const;
  /// The lanes shown (those with a row: not in a collapsed process), pinned included.
  int laneCount() const;
  /// The header of each process row and each lane row (a lane's first depth), top to bottom (pinned rows first),
  /// counters excluded.
  QStringList headers() const;

  /// The rows' arrangement. Change it through changeLayout(), which relays out, repaints and emits layoutChanged().
  const TimelineLayout& layout() const { return m_layout; }
  void changeLayout(const std::function<void(TimelineLayout&)>& change);
  /// Expands what hides `lane`'s `depth` and scrolls the rows so that it is on screen (a pinned lane always is).
  void ensureLaneVisible(std::uint32_t lane, std::uint32_t depth);
  /// The viewport y of `lane`'s `depth` row's top (pinned or scrolled), or nullopt when it has no row.
  std::optional<int> laneRowY(std::uint32_t lane, std::uint32_t depth) const;
  /// The context menu of the header at `pos` (viewport coordinates; Move up/down/to top, Pin, Collapse), or nullptr
  /// outside the header column. The caller owns it; its actions act on this view.
  QMenu* createHeaderMenu(const QPoint& pos);
  /// The context menu at `pos`: the header's (createHeaderMenu) in the header column, else one of the view's actions()
  /// (TimelineExport adds its exports there); nullptr when there is nothing to show. The caller owns it.
  QMenu* createContextMenu(const QPoint& pos);

  /// Outlines `matches` (sorted as SearchResult::matches; nullptr clears) and, more strongly, `current`.
  void setSearchMatches(std::shared_ptr<const std::vector<trace::SliceRef>> matches);
  void setCurrentMatch(std::optional<trace::SliceRef> current);
  const PaintStats& lastPaint() const { return m_stats; }
  /// The slice drawn at `pos` (viewport coordinates; a hit test with two pixels of slack), or nullopt.
  std::optional<trace::SliceRef> sliceAtPos(const QPoint& pos) const;
  /// The instant event whose marker is at `pos` (the top 6 px of its lane's first row, three pixels of slack either
  /// side): its lane and index in the lane's instant arrays; nullopt when none is.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> instantAtPos(const QPoint& pos) const;

  /// Selects `slice` (nullopt clears); emits sliceSelected when it changes. Does not move the view: see revealSlice.
  void selectSlice(std::optional<trace::SliceRef> slice);
  std::optional<trace::SliceRef> selectedSlice() const;
  /// What the selected slice lights up (its arrows and launched work); nullptr when none is selected.
  const SliceHighlight* highlight() const { return m_highlight ? &*m_highlight : nullptr; }
  /// Zooms and scrolls so that `slice` is on screen: keeps the zoom when the slice fits (panning to centre it when it
  /// is not fully visible), zooms out when it is longer than 80 % of the range, zooms in (the slice a tenth of the
  /// plot) when it is narrower than 3 px; scrolls the rows so that its row is visible.
  void revealSlice(trace::SliceRef slice);
  /// Selects an area: `range` x `lanes` (ids of the index's lanes; sorted and made unique). An empty range or no
  /// lanes clears it. Emits areaSelected when it changes. Throws nothing: unknown lanes are dropped.
  void setAreaSelection(trace::TimeRange range, std::vector<std::uint32_t> lanes);
  void clearAreaSelection();
  std::optional<AreaSelection> areaSelection() const { return m_area; }
  /// The lanes whose rows meet viewport rows [y0, y1] (either order), in id order: what a box over them selects.
  std::vector<std::uint32_t> lanesBetween(int y0, int y1) const;
  /// Where `slice` is drawn (viewport coordinates, unclipped: may lie off screen); nullopt without an index.
  std::optional<QRectF> sliceRect(trace::SliceRef slice) const;
  /// What hovering at `pos` (viewport coordinates) shows: an instant's marker (name, time), else the slice under it
  /// (name, duration, start; a hit test with two pixels of slack), or a counter's value there; empty over nothing.
  QString toolTipAt(const QPoint& pos) const;

  static constexpr std::int64_t kMinRangeNs = 100;
  /// A press and release closer than this (Manhattan, px) is a click, not a drag.
  static constexpr int kClickSlop = 4;

signals:
  void loaded();
  void loadFailed(const QString& message);
  void visibleRangeChanged(qint64 startNs, qint64 endNs);
  /// setPlan() or clearPlan() changed the plan shown (planLanes().plan()).
  void planChanged();
  /// setIndex() showed another index (or none).
  void indexChanged();
  /// The selected slice changed (nullopt: cleared).
  void sliceSelected(std::optional<fathom::trace::SliceRef> slice);
  /// The area selection changed (nullopt: cleared); emitted once per Shift+drag, at the release.
  void areaSelected(std::optional<fathom::views::AreaSelection> area);
  /// The rows' arrangement changed (collapse, move, pin).
  void layoutChanged();

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

private:
  using Row = TimelineLayout::Row;
  void relayout();
  /// The plan rows' processes (those PlanLanePainter draws) into the layout.
  void updatePlanRows();
  /// Per index: the charts' and names' colours; drops the search matches (they refer to the old index).
  void setIndexColours();
  /// Viewport y <-> the scrolling rows' content y (a pinned row's y maps below 0).
  int contentY(int viewportY) const;
  int viewportY(int contentY) const;
  void updateScrollBar();
  /// The top of the scrolling rows in the viewport: below the ruler and the pinned rows.
  int scrollTop() const;
  void paintRuler(QPainter& painter, int pixels);
  void paintRow(QPainter& painter, const Row& row, int y, int pixels);
  void paintHeader(QPainter& painter, const Row& row, int y);
  void paintSlices(QPainter& painter, const Row& row, int y, int pixels);
  void paintMatches(QPainter& painter, std::uint32_t lane, std::uint32_t depth, int y, int height, int pixels);
  void paintCounter(QPainter& painter, const Row& row, int y, int pixels);
  /// Fills the row [y, y + height) with the base colour except `plot`, which the caller paints whole.
  void fillAround(QPainter& painter, const QRect& plot, int y, int height);
  /// The viewport y of `row`'s top.
  int rowTopY(const Row& row) const;
  /// The row at viewport y `y` (pinned or scrolled), or nullptr (the ruler, below the last row).
  const Row* rowAt(int y) const;
  /// A header was clicked (collapse/expand) or dropped at viewport y `dropY` (reorder).
  void headerClicked(const Row& row);
  void headerDropped(const Row& row, int dropY);
  /// The time under the cursor, or the range's centre when the cursor is not over the plot.
  std::int64_t cursorTime() const;
  void showLoadPanel(bool show);
  /// Which rows an overlay frame covers: the scrolling rows (in the viewport below the pinned ones), the pinned rows
  /// (between the ruler and the scrolling rows), or both (the plot below the ruler; for geometry, not painting).
  enum class OverlayRegion { Scrolling, Pinned, All };
  /// This frame's overlay geometry from the rows of `region` (O(rows)); lanes of the other region are not shown.
  OverlayFrame overlayFrame(OverlayRegion region = OverlayRegion::All) const;
  /// The overlays of one region, clipped to it: step bands (under: `under` true), or instants, step labels, the area
  /// and the selected slice (over).
  void paintOverlays(QPainter& painter, OverlayRegion region, bool under);
  /// A click (press and release within a few pixels) at `pos`: selects the slice there, or clears.
  void clickAt(const QPoint& pos);
  /// Shift+drag moved to `pos`: the preview box from the press to it.
  void updateBox(const QPoint& pos);

  Options m_options;
  std::shared_ptr<const trace::TimelineIndex> m_index;
  TimelineLayout m_layout;
  std::unique_ptr<PlanLanePainter> m_planLanes;
  trace::TimeRange m_range{0, 1};
  TimeMode m_timeMode = TimeMode::SinceTraceStart;
  PaintStats m_stats;
  std::vector<trace::MergedSlice> m_merged;  ///< reused across frames: no allocation per row
  std::vector<trace::CounterPixel> m_counterPixels;
  CounterStack m_stack;
  std::vector<QRgb> m_nameColours;  ///< per name: its slice colour, then its merged colour
  /// A row with more rectangles than this is drawn as an image of its pixels (paintSlices).
  static constexpr std::size_t kRowImageRectangles = 96;
  struct Label {
    int x0 = 0;
    int x1 = 0;
    trace::NameId name = trace::kNoName;
  };
  std::vector<Label> m_labels;  ///< the names a row draws over its rectangles
  /// This frame's ProfilerStep bands in plot pixels (stepBandColumns): each slice row of a process of the band's rank
  /// fills them in its background, so they lie under the slices and cost no blending over the rows.
  std::vector<StepBandColumns> m_bands;
  QRgb m_bandColour = 0;
  /// Fills `row`'s bands in [y, y + height) (the fill path), or into m_rowLine (the image path: `line`).
  void fillBands(QPainter& painter, const Row& row, int y, int height, bool line);
  std::vector<QRgb> m_rowLine;  ///< a row drawn as an image: one line of its pixels
  QImage m_rowImage;
  QImage m_chartImage;                              ///< a counter chart's pixels, reused across rows and frames
  std::vector<std::vector<QColor>> m_chartColours;  ///< per chart: its series' colours
  std::shared_ptr<const std::vector<trace::SliceRef>> m_matches;
  std::vector<std::vector<std::uint32_t>> m_matchesByLane;  ///< per lane: matching slice indices, sorted
  std::optional<trace::SliceRef> m_currentMatch;

  std::optional<SliceHighlight> m_highlight;  ///< the selected slice and what it lights up
  std::optional<AreaSelection> m_area;
  bool m_boxing = false;  ///< a Shift+drag is selecting an area
  QPoint m_pressPos;      ///< where the left button went down (a click when released within a few pixels)
  std::int64_t m_boxStartNs = 0;
  int m_boxStartY = 0;  ///< in content coordinates (rows scroll under a box)
  std::optional<AreaSelection> m_boxPreview;

  bool m_dragging = false;
  int m_dragX = 0;
  trace::TimeRange m_dragRange;
  int m_cursorX = -1;                ///< the cursor's x in the plot, -1 when outside
  std::optional<Row> m_headerPress;  ///< the header row pressed (a click toggles it, a drag moves it)
  QPoint m_headerPressPos;
  bool m_headerDragging = false;
  int m_headerDragY = 0;  ///< the cursor's y while dragging a header

  TimelineLoader* m_loader = nullptr;
  QString m_loadingPath;
  QString m_error;
  QWidget* m_loadPanel = nullptr;
  QLabel* m_loadLabel = nullptr;
  QProgressBar* m_loadProgress = nullptr;
  QPushButton* m_cancelButton = nullptr;
};

}  // namespace fathom::views
