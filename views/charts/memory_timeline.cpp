// SPDX-License-Identifier: Apache-2.0
#include "charts/memory_timeline.h"

#include "common/formatting.h"
#include "common/memory_categories.h"
#include "planner/plan_vs_actual_model.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QMouseEvent>
#include <QPen>
#include <QTimer>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// The y axis' units: the largest that the highest value reaches (IEC symbols, the same in every language; "%.4g MiB"
/// is a printf format, so no symbol may hold a '%').
struct Unit {
  double bytes;
  const char16_t* symbol;
};
constexpr std::array<Unit, 5> kUnits{{{1.0, u"B"},
                                      {1024.0, u"KiB"},
                                      {1024.0 * 1024.0, u"MiB"},
                                      {1024.0 * 1024.0 * 1024.0, u"GiB"},
                                      {1024.0 * 1024.0 * 1024.0 * 1024.0, u"TiB"}}};

const Unit& unitFor(double highest) {
  std::size_t i = 0;
  while (i + 1 < kUnits.size() && highest >= kUnits[i + 1].bytes) {
    ++i;
  }
  return kUnits[i];
}

}  // namespace

/// One measured line: the rank's points of one key, by step.
struct MemoryTimeline::Line {
  MemoryCurve curve;
  std::string key;
  LodSeries points;
  QLineSeries* series = nullptr;
  bool pendingLoad = false;  ///< new, or a point arrived at a smaller step: read from the store (sorted)
};

/// A category's planned level.
struct MemoryTimeline::Planned {
  double bytes = 0;
  QLineSeries* series = nullptr;
};

MemoryTimeline::MemoryTimeline(const MetricSeriesStore* store, QWidget* parent) : ChartView(parent), m_store(store) {
  setObjectName(u"memoryTimeline"_s);
  setMouseTracking(true);
  chart()->setAnimationOptions(QChart::NoAnimation);
  chart()->legend()->setAlignment(Qt::AlignRight);  // up to ten entries: a column reads better than an elided row
  m_xAxis = new QValueAxis();
  m_xAxis->setLabelFormat(u"%.6g"_s);
  m_xAxis->setTitleText(tr("Step"));
  m_yAxis = new QValueAxis();
  chart()->addAxis(m_xAxis, Qt::AlignBottom);
  chart()->addAxis(m_yAxis, Qt::AlignLeft);
  // The plot area's width is the number of columns; it changes with the window and with the width of the y labels.
  connect(chart(), &QChart::plotAreaChanged, this, [this](const QRectF& area) {
    if (std::lround(area.width()) != m_columns) {
      scheduleRedraw();
    }
  });
  redrawNow();
}

MemoryTimeline::~MemoryTimeline() = default;

const std::optional<MemoryCurve>& MemoryTimeline::curveOf(const std::string& key) {
  auto [it, inserted] = m_keyCurves.try_emplace(key);
  if (inserted) {
    const std::optional<MemoryMetricName> name = parseMemoryMetricKey(key);
    if (name && name->category) {
      // What plan vs actual measures: the engines' samples, and the profiler's peaks of activations.
      if (name->kind == MemoryMetricName::Kind::Current) {
        it->second = MemoryCurve{*name->category, name->place, {}};
      } else if (name->kind == MemoryMetricName::Kind::ProfiledPeak && *name->category == MemoryCategory::Activations) {
        it->second = MemoryCurve{*name->category, MemoryPlace::Device, name->device};
      }
    }
  }
  return it->second;
}

void MemoryTimeline::setRun(std::int64_t run) {
  if (run != m_run) {
    m_run = run;
    m_measuredRanks.clear();
  }
  rebuild();
}

void MemoryTimeline::setRank(int rank) {
  if (rank == m_rank) {
    return;
  }
  m_rank = rank;
  rebuild();
}

void MemoryTimeline::setComparison(const plan::PlanVsActual& comparison) {
  const std::vector<int> before = ranks();
  m_planned.clear();
  for (const plan::RankComparison& r : comparison.ranks) {
    std::map<MemoryCategory, double>& planned = m_planned[r.rank];
    for (std::size_t i = 0; i < plan::kComparedMemoryCategories.size(); ++i) {
      if (r.memory[i].predicted) {
        planned[plan::kComparedMemoryCategories[i]] = *r.memory[i].predicted;
      }
    }
  }
  updatePlanned();
  if (ranks() != before) {
    emit ranksChanged();
  }
}

bool MemoryTimeline::noteRank(int rank) {
  return m_measuredRanks.insert(rank).second && !m_planned.contains(rank);
}

std::vector<int> MemoryTimeline::ranks() const {
  std::set<int> all = m_measuredRanks;
  for (const auto& entry : m_planned) {
    all.insert(entry.first);
  }
  return {all.begin(), all.end()};
}

MemoryTimeline::Line& MemoryTimeline::addLine(const MemoryCurve& curve, const std::string& key) {
  auto line = std::make_unique<Line>();
  line->curve = curve;
  line->key = key;
  line->series = new QLineSeries();
  line->series->setName(curveName(curve));
  const QColor colour = categoryColor(curve.category);
  if (!curve.device.empty()) {
    line->series->setPen(QPen(colour, 2));  // one peak per profiled window: few points, each marked
    line->series->setPointsVisible(true);
    line->series->setMarkerSize(6);
  } else if (curve.place == MemoryPlace::Host) {
    line->series->setPen(QPen(colour, 2, Qt::DotLine));
  } else {
    QColor faint = colour;
    faint.setAlphaF(0.7);  // a planned level drawn over it stays visible where they agree
    line->series->setPen(QPen(faint, 3));
  }
  chart()->addSeries(line->series);
  line->series->attachAxis(m_xAxis);
  line->series->attachAxis(m_yAxis);
  Line& out = *line;
  m_lines[curve] = std::move(line);
  return out;
}

void MemoryTimeline::load(Line& line) {
  line.pendingLoad = false;
  line.points.clear();
  const SeriesPoints* p = m_store != nullptr ? m_store->find(SeriesId{m_run, line.key, m_rank}) : nullptr;
  if (p == nullptr) {
    return;
  }
  std::vector<std::size_t> order(p->size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Sorted by step (stable): a rank that logged out of order (a resumed run) still draws one line.
  const auto before = [p](std::size_t a, std::size_t b) { return p->step[a] < p->step[b]; };
  if (!std::is_sorted(order.begin(), order.end(), before)) {
    std::stable_sort(order.begin(), order.end(), before);
  }
  line.points.reserve(p->size());
  for (const std::size_t i : order) {
    line.points.append(static_cast<double>(p->step[i]), p->value[i]);
  }
}

void MemoryTimeline::rebuild() {
  ++m_rebuilds;
  for (auto& [curve, line] : m_lines) {
    chart()->removeSeries(line->series);
    delete line->series;
  }
  m_lines.clear();
  const std::vector<int> before = ranks();
  std::map<MemoryCurve, std::string> shown;
  if (m_store != nullptr) {
    for (const std::string& key : m_store->keys()) {
      const std::optional<MemoryCurve>& curve = curveOf(key);
      if (!curve) {
        continue;
      }
      for (const SeriesId& id : m_store->seriesOf(key)) {
        if (id.run != m_run) {
          continue;
        }
        noteRank(id.rank);
        if (id.rank != m_rank) {
          continue;
        }
        const SeriesPoints* p = m_store->find(id);
        // Host bytes are sampled on every rank; a line of zeros would only say that nothing is offloaded.
        if (curve->place == MemoryPlace::Host &&
            std::all_of(p->value.begin(), p->value.end(), [](double v) { return v == 0; })) {
          continue;
        }
        shown.emplace(*curve, key);
      }
    }
  }
  for (const auto& [curve, key] : shown) {  // in legend order: by category, device before host
    load(addLine(curve, key));
  }
  updatePlanned();
  redrawNow();
  if (ranks() != before) {
    emit ranksChanged();
  }
}

void MemoryTimeline::pointsAppended(const std::vector<store::MetricRow>& rows) {
  std::vector<Line*> toLoad;
  bool any = false;
  bool newRank = false;
  for (const store::MetricRow& row : rows) {
    if (row.run.value != m_run) {
      continue;
    }
    const std::optional<MemoryCurve>& curve = curveOf(row.point.key);
    if (!curve) {
      continue;
    }
    newRank = noteRank(row.point.rank) || newRank;
    if (row.point.rank != m_rank) {
      continue;
    }
    const auto it = m_lines.find(*curve);
    if (it == m_lines.end()) {
      if (curve->place == MemoryPlace::Host && row.point.value == 0) {
        continue;  // nothing offloaded (yet)
      }
      Line& line = addLine(*curve, row.point.key);
      line.pendingLoad = true;  // it may have points from before this batch, and has this batch's
      toLoad.push_back(&line);
      continue;
    }
    Line& line = *it->second;
    if (line.pendingLoad) {
      continue;
    }
    if (!line.points.append(static_cast<double>(row.point.step), row.point.value)) {
      line.pendingLoad = true;
      toLoad.push_back(&line);
    }
    any = true;
  }
  for (Line* line : toLoad) {
    load(*line);
  }
  if (!toLoad.empty()) {
    updatePlanned();  // the planned levels stay drawn above the lines, and their legend follows
  } else if (any) {
    scheduleRedraw();
  }
  if (newRank) {
    emit ranksChanged();
  }
}

void MemoryTimeline::updatePlanned() {
  for (auto& [category, planned] : m_plannedLines) {
    chart()->removeSeries(planned->series);
    delete planned->series;
  }
  m_plannedLines.clear();
  if (const auto it = m_planned.find(m_rank); it != m_planned.end()) {
    for (const auto& [category, bytes] : it->second) {
      auto planned = std::make_unique<Planned>();
      planned->bytes = bytes;
      planned->series = new QLineSeries();
      planned->series->setName(tr("%1, planned").arg(PlanVsActualModel::categoryName(category)));
      planned->series->setPen(QPen(categoryColor(category), 1.5, Qt::DashLine));
      chart()->addSeries(planned->series);
      planned->series->attachAxis(m_xAxis);
      planned->series->attachAxis(m_yAxis);
      m_plannedLines[category] = std::move(planned);
    }
  }
  updateLegend();
  scheduleRedraw();
}

void MemoryTimeline::updateLegend() {
  // A planned level names itself in the legend only when its category has no measured line on the device, whose
  // entry (same colour) already names it.
  for (const auto& [category, planned] : m_plannedLines) {
    const bool measured = std::any_of(m_lines.begin(), m_lines.end(), [c = category](const auto& entry) {
      return entry.first.category == c && entry.first.place == MemoryPlace::Device;
    });
    for (QLegendMarker* marker : chart()->legend()->markers(planned->series)) {
      marker->setVisible(!measured);
    }
  }
}

std::vector<MemoryCurve> MemoryTimeline::curves() const {
  std::vector<MemoryCurve> out;
  for (const auto& entry : m_lines) {
    out.push_back(entry.first);
  }
  return out;
}

std::size_t MemoryTimeline::measuredPoints(const MemoryCurve& curve) const {
  const auto it = m_lines.find(curve);
  return it == m_lines.end() ? 0 : it->second->points.size();
}

QLineSeries* MemoryTimeline::measuredSeries(const MemoryCurve& curve) const {
  const auto it = m_lines.find(curve);
  return it == m_lines.end() ? nullptr : it->second->series;
}

QLineSeries* MemoryTimeline::plannedSeries(MemoryCategory category) const {
  const auto it = m_plannedLines.find(category);
  return it == m_plannedLines.end() ? nullptr : it->second->series;
}

std::optional<double> MemoryTimeline::plannedBytes(MemoryCategory category) const {
  const auto it = m_plannedLines.find(category);
  return it == m_plannedLines.end() ? std::nullopt : std::optional<double>(it->second->bytes);
}

QString MemoryTimeline::curveName(const MemoryCurve& curve) const {
  const QString name = PlanVsActualModel::categoryName(curve.category);
  if (!curve.device.empty()) {
    return tr("%1 (profiler, %2)").arg(name, QString::fromStdString(curve.device));
  }
  return curve.place == MemoryPlace::Host ? tr("%1 (offloaded to host)").arg(name) : name;
}

QString MemoryTimeline::valuesAt(double x) const {
  return hoverLines(x).join(u'\n');
}

QStringList MemoryTimeline::hoverLines(double x) const {
  // The measured step nearest to x: where some line has a sample.
  double step = x;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [curve, line] : m_lines) {
    const std::size_t i = line->points.nearest(x);
    if (i < line->points.size() && std::fabs(line->points.x(i) - x) < best) {
      best = std::fabs(line->points.x(i) - x);
      step = line->points.x(i);
    }
  }
  QStringList rows{tr("Rank %1, step %2").arg(m_rank).arg(QLocale().toString(std::llround(step)))};
  // Each line's last sample at or before the step (memory holds its level until the next sample).
  const auto sampleAt = [step](const Line& line) -> std::optional<double> {
    const std::size_t end = line.points.upperBound(step);
    return end == 0 ? std::nullopt : std::optional<double>(line.points.y(end - 1));
  };
  std::set<MemoryCategory> compared;
  for (const auto& [curve, line] : m_lines) {
    const std::optional<double> measured = sampleAt(*line);
    if (!measured) {
      continue;
    }
    const QString name = curveName(curve);
    // The plan predicts the device's bytes; what is offloaded to the host is shown as measured only.
    const auto planned =
        curve.place == MemoryPlace::Device ? m_plannedLines.find(curve.category) : m_plannedLines.end();
    if (planned == m_plannedLines.end()) {
      rows << tr("%1: measured %2").arg(name, format::bytes(*measured));
      continue;
    }
    compared.insert(curve.category);
    const double plan = planned->second->bytes;
    const QString difference = *measured == plan ? tr("exact") : format::signedBytes(*measured - plan);
    rows << tr("%1: measured %2, planned %3 (%4)").arg(name, format::bytes(*measured), format::bytes(plan), difference);
  }
  for (const auto& [category, planned] : m_plannedLines) {
    if (!compared.contains(category)) {
      rows << tr("%1: planned %2").arg(PlanVsActualModel::categoryName(category), format::bytes(planned->bytes));
    }
  }
  return rows;
}

void MemoryTimeline::redraw() {
  if (!isVisible()) {
    return;  // on a tab not shown (the usual case while a run is watched), nothing to draw; showEvent() draws
  }
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const auto& [curve, line] : m_lines) {
    if (!line->points.empty()) {
      lo = std::min(lo, line->points.frontX());
      hi = std::max(hi, line->points.backX());
    }
  }
  // The axis on round steps; the planned levels span all of it.
  const auto [x0, x1] = drawableRange(lo, hi);
  m_xAxis->setRange(x0, x1);
  m_xAxis->applyNiceNumbers();
  m_x0 = m_xAxis->min();
  m_x1 = m_xAxis->max();
  // One column per pixel of the plot area: never more than two points per column reach Qt Charts.
  m_columns = std::lround(chart()->plotArea().width());
  const int columns = std::max(1, static_cast<int>(m_columns));
  std::vector<std::pair<QLineSeries*, std::vector<std::pair<double, double>>>> drawn;
  double highest = 0;
  for (const auto& [curve, line] : m_lines) {
    auto points = line->points.polyline(m_x0, m_x1, columns);
    for (const auto& [x, y] : points) {
      if (std::isfinite(y)) {
        highest = std::max(highest, y);
      }
    }
    drawn.emplace_back(line->series, std::move(points));
  }
  for (const auto& [category, planned] : m_plannedLines) {
    highest = std::max(highest, planned->bytes);
    drawn.push_back({planned->series, {{m_x0, planned->bytes}, {m_x1, planned->bytes}}});
  }
  const Unit& unit = unitFor(highest);
  m_unit = unit.bytes;
  for (const auto& [series, points] : drawn) {
    QList<QPointF> scaled;
    scaled.reserve(static_cast<qsizetype>(points.size()));
    for (const auto& [x, y] : points) {
      if (std::isfinite(y)) {
        scaled.append(QPointF(x, y / m_unit));  // a power of two: exact
      }
    }
    series->replace(scaled);
  }
  m_yAxis->setRange(0, highest > 0 ? highest / m_unit * 1.05 : 1.0);
  m_yAxis->applyNiceNumbers();
  // The unit on every label rather than in an axis title: the chart is often short, and a rotated title is clipped.
  const QString format = u"%.4g "_s + QString::fromUtf16(unit.symbol);
  if (m_yAxis->labelFormat() != format) {
    m_yAxis->setLabelFormat(format);
  }
}

void MemoryTimeline::showEvent(QShowEvent* event) {
  ChartView::showEvent(event);
  scheduleRedraw();
}

void MemoryTimeline::mouseMoveEvent(QMouseEvent* event) {
  const QPointF at = chart()->mapFromScene(mapToScene(event->position().toPoint()));
  if (chart()->plotArea().contains(at)) {
    QStringList lines = hoverLines(chart()->mapToValue(at).x());
    const QString heading = lines.takeFirst();
    showTip(tipText(heading, lines.join(u'\n')));
  } else {
    showTip(QString());
  }
  ChartView::mouseMoveEvent(event);
}

void MemoryTimeline::leaveEvent(QEvent* event) {
  showTip(QString());
  ChartView::leaveEvent(event);
}

}  // namespace fathom::views
