// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/chart_view.h"
#include "charts/lod_series.h"
#include "charts/metric_series_store.h"

#include <fathom/common/memory_metric_keys.h>
#include <fathom/plan/plan_vs_actual.h>

#include <QStringList>

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

class QLineSeries;
class QValueAxis;

namespace fathom::views {

/// What one measured line of a MemoryTimeline draws: the engine's samples of a category at a place
/// (`memory/<place>/<category>_bytes`, Accelerator::logMemory), or the profiler's peaks of activations on a device
/// (`profile/memory/<device>/peak_activations_bytes`, one per profiled window): the samples plan vs actual reads.
struct MemoryCurve {
  MemoryCategory category = MemoryCategory::Parameters;
  MemoryPlace place = MemoryPlace::Device;
  std::string device;  ///< the profiler's device; empty for the engine's samples

  auto operator<=>(const MemoryCurve&) const = default;
};

/// The memory of one rank over its steps, against its plan: one solid line per memory category the rank measured
/// (on the device; what offloading keeps in host memory dotted, once a host sample is not zero; the profiler's
/// activation peaks with their points marked), and a dashed line in the category's colour at the bytes the plan
/// predicts for it (plan vs actual's prediction for the rank). Hover shows, at the nearest step, each category's
/// measured bytes (its last sample at or before the step) against the planned bytes. The chart has no title: it
/// usually sits in little height, so the caller names the rank and the line styles beside it (RunDetailsPage).
///
/// The chart reads a MetricSeriesStore it does not own. Each line keeps a LodSeries filled while points arrive
/// (pointsAppended() appends the rows of the rank it shows; a new line reads its own series from the store once);
/// a redraw decimates every line to min/max per pixel column, so a long run never puts more than two points per
/// column into Qt Charts; while the chart is hidden (another tab), nothing is drawn. Only setRun() and setRank() read
/// the rank's series in full. Keys are recognised through the vocabulary (parseMemoryMetricKey), never spelled here.
class MemoryTimeline : public ChartView {
  Q_OBJECT

public:
  explicit MemoryTimeline(const MetricSeriesStore* store, QWidget* parent = nullptr);
  ~MemoryTimeline() override;

  /// Shows the rank's lines of `run` (the store's points of other runs are ignored); re-reads the store.
  void setRun(std::int64_t run);
  std::int64_t run() const { return m_run; }
  /// Shows `rank`; re-reads its series from the store. Does nothing when it is the rank shown.
  void setRank(int rank);
  int rank() const { return m_rank; }
  /// The planned bytes per rank and category (the plan vs actual table's predictions).
  void setComparison(const plan::PlanVsActual& comparison);
  /// Extends the lines with `rows`, which the caller has just appended to the store.
  void pointsAppended(const std::vector<store::MetricRow>& rows);

  /// The ranks that measured memory or have a plan, ascending (what the page's rank selector offers).
  std::vector<int> ranks() const;
  /// The measured lines shown, in legend order.
  std::vector<MemoryCurve> curves() const;
  /// Points of `curve` held (not only drawn); 0 when it is not shown.
  std::size_t measuredPoints(const MemoryCurve& curve) const;
  /// The Qt series of a measured line, or of a category's planned line; nullptr when not shown.
  QLineSeries* measuredSeries(const MemoryCurve& curve) const;
  QLineSeries* plannedSeries(MemoryCategory category) const;
  /// The planned bytes of `category` for the rank shown.
  std::optional<double> plannedBytes(MemoryCategory category) const;
  /// Bytes per unit of the y axis (a power of 1024: the series hold bytes / unitBytes()).
  double unitBytes() const { return m_unit; }
  /// The legend's name of a line.
  QString curveName(const MemoryCurve& curve) const;
  /// How often the lines were read in full from the store (setRun, setRank); appends never do.
  int rebuildCount() const { return m_rebuilds; }

  /// The hover text at x = `step`: the nearest measured step (a heading line), then per line its measured bytes
  /// against the planned bytes of its category, and the planned bytes of categories without a sample there.
  QString valuesAt(double step) const;

signals:
  /// ranks() changed.
  void ranksChanged();

protected:
  void redraw() override;
  void showEvent(QShowEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

private:
  struct Line;
  struct Planned;

  /// The line `key` feeds, if it feeds one.
  const std::optional<MemoryCurve>& curveOf(const std::string& key);
  void rebuild();
  Line& addLine(const MemoryCurve& curve, const std::string& key);
  /// Fills `line` with its series from the store (sorted by step).
  void load(Line& line);
  void updatePlanned();
  void updateLegend();
  /// Notes that `rank` measured memory; true when that adds it to ranks().
  bool noteRank(int rank);
  /// The hover's heading, then one line per category.
  QStringList hoverLines(double x) const;

  const MetricSeriesStore* m_store;
  std::int64_t m_run = 0;
  int m_rank = 0;
  std::map<int, std::map<MemoryCategory, double>> m_planned;  ///< rank -> category -> planned bytes
  std::unordered_map<std::string, std::optional<MemoryCurve>> m_keyCurves;
  std::map<MemoryCurve, std::unique_ptr<Line>> m_lines;
  std::map<MemoryCategory, std::unique_ptr<Planned>> m_plannedLines;
  std::set<int> m_measuredRanks;
  QValueAxis* m_xAxis = nullptr;
  QValueAxis* m_yAxis = nullptr;
  double m_x0 = 0, m_x1 = 1;
  double m_unit = 1;
  long m_columns = -1;  ///< the plot area's width at the last redraw
  int m_rebuilds = 0;
};

}  // namespace fathom::views
