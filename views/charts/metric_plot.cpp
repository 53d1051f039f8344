// SPDX-License-Identifier: Apache-2.0
#include "charts/metric_plot.h"

#include <QAreaSeries>
#include <QChart>
#include <QFile>
#include <QImage>
#include <QKeyEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTimer>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMeanRank = -1;
/// Zoom per wheel notch or +/- key, and pan per arrow key (a fraction of the visible range).
constexpr double kZoomStep = 0.8;
constexpr double kPanStep = 0.1;

QString number(double v) {
  return QString::number(v, 'g', 6);
}

}  // namespace

/// One line: a rank of a run, or a run's mean across its ranks (rank kMeanRank) with its min–max band.
struct MetricPlot::Line {
  std::int64_t run = 0;
  int rank = 0;
  LodSeries raw;        ///< the values (the mean, for a mean line)
  LodSeries smoothed;   ///< TensorBoard's smoothing of raw (empty while smoothing is off)
  LodSeries low, high;  ///< a mean line's min and max across ranks, at raw's x
  EmaSmoother smoother;
  bool unsorted = false;  ///< a point arrived at a smaller x: the line is rebuilt (sorted) from the store
  QLineSeries* series = nullptr;
  QLineSeries* faint = nullptr;  ///< the raw line under a smoothed one
  QAreaSeries* band = nullptr;
  QLineSeries* upper = nullptr;
  QLineSeries* lower = nullptr;

  /// A mean line's steps still waiting for a rank: step -> (sum, count, min, max, sum of wall times).
  struct Pending {
    double sum = 0;
    int count = 0;
    double min = kInf, max = -kInf;
    double wallSum = 0;
    int points = 0;
  };
  std::map<std::int64_t, Pending> pending;
  std::map<int, std::int64_t> lastStep;  ///< by rank
  std::int64_t emittedUpTo = std::numeric_limits<std::int64_t>::min();
};

MetricPlot::MetricPlot(const MetricSeriesStore* store, QWidget* parent) : ChartView(parent), m_store(store) {
  setObjectName(u"metricPlot"_s);
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setRubberBand(QChartView::NoRubberBand);
  setRenderHint(QPainter::Antialiasing, false);  // thousands of segments: antialiasing would cost the frame budget
  chart()->setAnimationOptions(QChart::NoAnimation);
  createAxes();
}

MetricPlot::~MetricPlot() = default;

void MetricPlot::setOptions(const Options& options) {
  const bool newView = options.key != m_options.key || options.xAxis != m_options.xAxis;
  const bool newAxes = options.logY != m_options.logY;
  m_options = options;
  m_options.smoothing = std::clamp(m_options.smoothing, 0.0, 0.999);
  if (newView) {
    m_zoomed = false;
  }
  if (newAxes) {
    createAxes();
  }
  rebuild();
}

void MetricPlot::setRunLabels(const QMap<qint64, QString>& labels) {
  m_runLabels = labels;
  for (const auto& line : m_lines) {
    line->series->setName(lineName(*line));
  }
}

void MetricPlot::setWorldSize(qint64 run, int ranks) {
  m_worldSizes.insert(run, ranks);
}

void MetricPlot::createAxes() {
  clearChart();
  m_lines.clear();
  m_index.clear();
  auto* x = new QValueAxis();
  x->setLabelFormat(u"%.6g"_s);
  m_xAxis = x;
  if (m_options.logY) {
    auto* y = new QLogValueAxis();
    y->setBase(10);
    y->setLabelFormat(u"%.3g"_s);
    y->setMinorTickCount(-1);
    m_yAxis = y;
  } else {
    auto* y = new QValueAxis();
    y->setLabelFormat(u"%.4g"_s);
    m_yAxis = y;
  }
  chart()->addAxis(m_xAxis, Qt::AlignBottom);
  chart()->addAxis(m_yAxis, Qt::AlignLeft);
}

QString MetricPlot::lineName(const Line& line) const {
  const QString run = m_runLabels.value(line.run);
  const QString what = line.rank == kMeanRank ? tr("mean (band: min–max over ranks)") : tr("rank %1").arg(line.rank);
  return run.isEmpty() ? what : tr("%1, %2").arg(run, what);
}

MetricPlot::Line& MetricPlot::lineFor(std::int64_t run, int rank) {
  const auto key = std::make_pair(run, rank);
  if (const auto it = m_index.find(key); it != m_index.end()) {
    return *it->second;
  }
  auto line = std::make_unique<Line>();
  line->run = run;
  line->rank = rank;
  line->smoother = EmaSmoother(m_options.smoothing);
  if (rank == kMeanRank) {
    line->upper = new QLineSeries();
    line->lower = new QLineSeries();
    line->band = new QAreaSeries(line->upper, line->lower);
    line->upper->setParent(line->band);  // removeAllSeries() deletes the band, and its edges with it
    line->lower->setParent(line->band);
    line->band->setName(tr("min–max"));
    chart()->addSeries(line->band);
    line->band->attachAxis(m_xAxis);
    line->band->attachAxis(m_yAxis);
  }
  if (m_options.smoothing > 0) {
    line->faint = new QLineSeries();
    chart()->addSeries(line->faint);
    line->faint->attachAxis(m_xAxis);
    line->faint->attachAxis(m_yAxis);
  }
  line->series = new QLineSeries();
  line->series->setName(lineName(*line));
  chart()->addSeries(line->series);
  line->series->attachAxis(m_xAxis);
  line->series->attachAxis(m_yAxis);
  const QColor colour = line->series->pen().color();  // the theme's, given by addSeries()
  if (line->faint != nullptr) {
    QColor faint = colour;
    faint.setAlphaF(0.25);
    line->faint->setPen(QPen(faint, 1));
    for (QLegendMarker* m : chart()->legend()->markers(line->faint)) {
      m->setVisible(false);
    }
  }
  if (line->band != nullptr) {
    QColor fill = colour;
    fill.setAlphaF(0.18);
    line->band->setBrush(fill);
    line->band->setPen(Qt::NoPen);
    for (QLegendMarker* m : chart()->legend()->markers(line->band)) {
      m->setVisible(false);
    }
  }
  Line& out = *line;
  m_index.emplace(key, line.get());
  m_lines.push_back(std::move(line));
  return out;
}

void MetricPlot::rebuild() {
  m_rebuildPending = false;
  createAxes();
  if (m_store == nullptr || m_options.key.isEmpty()) {
    redrawNow();
    return;
  }
  const std::string key = m_options.key.toStdString();
  const std::vector<SeriesId> series = m_store->seriesOf(key);
  // Points of several ranks are fed in step order, so a mean's steps complete as they would have arrived.
  for (const SeriesId& id : series) {
    const SeriesPoints* points = m_store->find(id);
    if (m_options.mode == Mode::PerRank) {
      Line& line = lineFor(id.run, id.rank);
      // Sorted by x (stable): a rank that logged out of order (a resumed run) still draws one line.
      std::vector<std::size_t> order(points->size());
      for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
      }
      const bool byStep = m_options.xAxis == XAxis::Step;
      const auto before = [&](std::size_t a, std::size_t b) {
        return byStep ? points->step[a] < points->step[b] : points->wallTime[a] < points->wallTime[b];
      };
      if (!std::is_sorted(order.begin(), order.end(), before)) {  // the usual case costs one pass, not a sort
        std::stable_sort(order.begin(), order.end(), before);
      }
      line.raw.reserve(points->size());
      for (const std::size_t i : order) {
        addPoint(line, points->step[i], points->wallTime[i], points->value[i]);
      }
    } else {
      lineFor(id.run, kMeanRank);
    }
  }
  if (m_options.mode == Mode::MeanBand) {
    // Merge the ranks of each run by step.
    std::map<std::int64_t, std::vector<const SeriesId*>> byRun;
    for (const SeriesId& id : series) {
      byRun[id.run].push_back(&id);
    }
    for (const auto& [run, ids] : byRun) {
      Line& line = lineFor(run, kMeanRank);
      std::vector<std::pair<std::int64_t, std::pair<const SeriesPoints*, std::size_t>>> all;
      for (const SeriesId* id : ids) {
        const SeriesPoints* p = m_store->find(*id);
        for (std::size_t i = 0; i < p->size(); ++i) {
          all.push_back({p->step[i], {p, i}});
        }
        line.lastStep[id->rank] = p->size() > 0 ? *std::max_element(p->step.begin(), p->step.end()) : 0;
      }
      std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [step, where] : all) {
        Line::Pending& acc = line.pending[step];
        const double v = where.first->value[where.second];
        if (std::isfinite(v)) {
          acc.sum += v;
          ++acc.count;
          acc.min = std::min(acc.min, v);
          acc.max = std::max(acc.max, v);
        }
        acc.wallSum += where.first->wallTime[where.second];
        ++acc.points;
      }
      emitReadySteps(line, false);
    }
  }
  redrawNow();  // a rebuild is a pass over the points already; the redraw costs a fraction of it
}

void MetricPlot::addPoint(Line& line, std::int64_t step, double wallTime, double value) {
  const double x = m_options.xAxis == XAxis::Step ? static_cast<double>(step) : wallTime - m_store->startTime(line.run);
  feed(line, x, value, value, value);
}

void MetricPlot::feed(Line& line, double x, double y, double low, double high) {
  if (!line.raw.append(x, y)) {
    line.unsorted = true;
    return;
  }
  if (line.rank == kMeanRank) {
    line.low.append(x, low);
    line.high.append(x, high);
  }
  if (m_options.smoothing > 0) {
    line.smoothed.append(x, line.smoother.add(y));
  }
}

void MetricPlot::emitReadySteps(Line& line, bool all) {
  // A step is complete when every rank has logged a later (or the same) step: ranks log their steps in order.
  std::int64_t ready = std::numeric_limits<std::int64_t>::max();
  const int ranks = m_worldSizes.value(line.run, 0);
  if (!all) {
    if (ranks > 0 && static_cast<int>(line.lastStep.size()) < ranks) {
      return;
    }
    for (const auto& entry : line.lastStep) {
      ready = std::min(ready, entry.second);
    }
  }
  while (!line.pending.empty() && line.pending.begin()->first <= ready) {
    const auto [step, acc] = *line.pending.begin();
    line.pending.erase(line.pending.begin());
    line.emittedUpTo = step;
    const double x = m_options.xAxis == XAxis::Step ? static_cast<double>(step)
                                                    : acc.wallSum / acc.points - m_store->startTime(line.run);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    feed(line, x, acc.count > 0 ? acc.sum / acc.count : nan, acc.count > 0 ? acc.min : nan,
         acc.count > 0 ? acc.max : nan);
  }
}

void MetricPlot::pointsAppended(const std::vector<store::MetricRow>& rows) {
  if (m_options.key.isEmpty()) {
    return;
  }
  const std::string key = m_options.key.toStdString();
  std::vector<Line*> means;
  bool any = false;
  for (const store::MetricRow& row : rows) {
    if (row.point.key != key) {
      continue;
    }
    any = true;
    const std::int64_t run = row.run.value;
    if (m_options.mode == Mode::PerRank) {
      const bool isNew = m_index.find({run, row.point.rank}) == m_index.end();
      Line& line = lineFor(run, row.point.rank);
      if (isNew) {
        m_rebuildPending = true;  // a new rank: read it in full (it may have points from before this batch)
      }
      addPoint(line, row.point.step, row.point.wallTime, row.point.value);
      m_rebuildPending = m_rebuildPending || line.unsorted;
    } else {
      Line& line = lineFor(run, kMeanRank);
      if (row.point.step <= line.emittedUpTo) {
        continue;  // that step is drawn already (a rank that logged late)
      }
      Line::Pending& acc = line.pending[row.point.step];
      if (std::isfinite(row.point.value)) {
        acc.sum += row.point.value;
        ++acc.count;
        acc.min = std::min(acc.min, row.point.value);
        acc.max = std::max(acc.max, row.point.value);
      }
      acc.wallSum += row.point.wallTime;
      ++acc.points;
      std::int64_t& last = line.lastStep[row.point.rank];
      last = std::max(last, row.point.step);
      if (std::find(means.begin(), means.end(), &line) == means.end()) {
        means.push_back(&line);
      }
    }
  }
  for (Line* line : means) {
    emitReadySteps(*line, false);
  }
  if (m_rebuildPending) {
    rebuild();
  } else if (any) {
    scheduleRedraw();
  }
}

void MetricPlot::flushPending() {
  for (const auto& line : m_lines) {
    if (line->rank == kMeanRank) {
      emitReadySteps(*line, true);
    }
  }
  scheduleRedraw();
}

void MetricPlot::redraw() {
  double lo = kInf, hi = -kInf;
  for (const auto& line : m_lines) {
    if (!line->raw.empty()) {
      lo = std::min(lo, line->raw.frontX());
      hi = std::max(hi, line->raw.backX());
    }
  }
  if (!m_zoomed) {
    std::tie(m_x0, m_x1) = drawableRange(lo, hi);
  }
  // One column per pixel of the plot area.
  const int columns = std::max(1, static_cast<int>(std::lround(chart()->plotArea().width())));
  const bool logY = m_options.logY;
  double yLow = kInf, yHigh = -kInf;
  const auto usable = [logY](double y) { return std::isfinite(y) && (!logY || y > 0); };
  const auto toPoints = [&](const std::vector<std::pair<double, double>>& in, bool extend) {
    QList<QPointF> out;
    out.reserve(static_cast<qsizetype>(in.size()));
    for (const auto& [x, y] : in) {
      if (usable(y)) {
        out.append(QPointF(x, y));
        if (extend && x >= m_x0 && x <= m_x1) {
          yLow = std::min(yLow, y);
          yHigh = std::max(yHigh, y);
        }
      }
    }
    return out;
  };
  // First every series' new points (and the y range they span), then: the series emptied, the axes set, the
  // points put in. Qt Charts lays a line out (and strokes its outline) on each change of its points or of its
  // axes' ranges; emptied first, the range change lays out nothing and each line is laid out once a frame.
  struct Update {
    QLineSeries* series;
    QList<QPointF> points;
  };
  std::vector<Update> updates;
  m_drawnPoints = 0;
  for (const auto& line : m_lines) {
    const bool smoothed = m_options.smoothing > 0;
    updates.push_back(
        {line->series, toPoints((smoothed ? line->smoothed : line->raw).polyline(m_x0, m_x1, columns), true)});
    if (line->faint != nullptr) {
      updates.push_back({line->faint, toPoints(line->raw.polyline(m_x0, m_x1, columns), true)});
    }
    if (line->band != nullptr) {
      // The band's edges: each column's lowest minimum and highest maximum (low and high share raw's x).
      QList<QPointF> upper, lower;
      const auto lows = line->low.decimate(m_x0, m_x1, columns);
      const auto highs = line->high.decimate(m_x0, m_x1, columns);
      for (std::size_t i = 0; i < lows.size() && i < highs.size(); ++i) {
        if (usable(lows[i].min) && usable(highs[i].max)) {
          lower << QPointF(lows[i].xFirst, lows[i].min) << QPointF(lows[i].xLast, lows[i].min);
          upper << QPointF(highs[i].xFirst, highs[i].max) << QPointF(highs[i].xLast, highs[i].max);
          yLow = std::min(yLow, lows[i].min);
          yHigh = std::max(yHigh, highs[i].max);
        }
      }
      updates.push_back({line->upper, upper});
      updates.push_back({line->lower, lower});
    }
  }
  for (const Update& u : updates) {
    u.series->clear();
    m_drawnPoints += static_cast<int>(u.points.size());
  }
  static_cast<QValueAxis*>(m_xAxis)->setRange(m_x0, m_x1);
  if (yLow > yHigh) {
    yLow = logY ? 0.1 : 0;
    yHigh = logY ? 10 : 1;
  }
  if (logY) {
    static_cast<QLogValueAxis*>(m_yAxis)->setRange(yLow / 1.2, yHigh * 1.2);
  } else {
    const double pad = std::max((yHigh - yLow) * 0.05, std::max(std::fabs(yHigh) * 1e-6, 1e-12));
    static_cast<QValueAxis*>(m_yAxis)->setRange(yLow - pad, yHigh + pad);
  }
  for (const Update& u : updates) {
    u.series->replace(u.points);
  }
  // Titles only when they change: setting one lays the chart out again, a cost every zoom frame would pay.
  const QString xTitle = m_options.xAxis == XAxis::Step ? tr("Step") : tr("Seconds since the run's first point");
  if (m_xAxis->titleText() != xTitle) {
    m_xAxis->setTitleText(xTitle);
  }
  if (m_yAxis->titleText() != m_options.key) {
    m_yAxis->setTitleText(m_options.key);
  }
}

void MetricPlot::setXRange(double x0, double x1) {
  if (!(x1 > x0) || !std::isfinite(x0) || !std::isfinite(x1)) {
    return;
  }
  m_x0 = x0;
  m_x1 = x1;
  m_zoomed = true;
  redrawNow();
  emit rangeChanged(m_x0, m_x1);
}

void MetricPlot::zoomBy(double factor, double centre) {
  setXRange(centre - (centre - m_x0) * factor, centre + (m_x1 - centre) * factor);
}

void MetricPlot::panBy(double fraction) {
  const double dx = (m_x1 - m_x0) * fraction;
  setXRange(m_x0 + dx, m_x1 + dx);
}

void MetricPlot::resetZoom() {
  m_zoomed = false;
  redrawNow();
  emit rangeChanged(m_x0, m_x1);
}

QString MetricPlot::valuesAt(double x) const {
  QStringList rows;
  const bool smoothed = m_options.smoothing > 0;
  for (const auto& line : m_lines) {
    const std::size_t i = line->raw.nearest(x);
    if (i >= line->raw.size()) {
      continue;
    }
    QString text = tr("%1: %2 at %3").arg(lineName(*line), number(line->raw.y(i)), number(line->raw.x(i)));
    if (smoothed && i < line->smoothed.size()) {
      text += tr(" (smoothed %1)").arg(number(line->smoothed.y(i)));
    }
    rows << text;
  }
  return rows.join(u'\n');
}

double MetricPlot::valueAtPixel(const QPointF& viewPos) const {
  return chart()->mapToValue(chart()->mapFromScene(mapToScene(viewPos.toPoint()))).x();
}

bool MetricPlot::exportImage(const QString& path, QString* error) const {
  auto* self = const_cast<MetricPlot*>(this);  // rendering resizes the chart for the export and back
  const QSize size(1200, 700);
  if (path.endsWith(u".svg"_s, Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(m_options.key);
    QPainter painter;
    if (!painter.begin(&svg)) {
      *error = tr("Cannot write %1.").arg(path);
      return false;
    }
    self->renderTo(&painter, QRectF(QPointF(0, 0), size));
    painter.end();
    return true;
  }
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  self->renderTo(&painter, QRectF(QPointF(0, 0), size));
  painter.end();
  if (!image.save(path, "PNG")) {
    *error = tr("Cannot write %1.").arg(path);
    return false;
  }
  return true;
}

bool MetricPlot::exportCsv(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    *error = tr("Cannot write %1.").arg(path);
    return false;
  }
  // Machine-readable: the column names are fixed English identifiers, numbers round-trip.
  QByteArray out = "run,rank,";
  out += m_options.xAxis == XAxis::Step ? "step" : "seconds";
  out += ",value,smoothed,min,max\n";
  const auto num = [](double v) { return std::isfinite(v) ? QByteArray::number(v, 'g', 17) : QByteArray(); };
  for (const auto& line : m_lines) {
    const QByteArray prefix = QByteArray::number(line->run) + ',' +
                              (line->rank == kMeanRank ? QByteArray("mean") : QByteArray::number(line->rank)) + ',';
    for (std::size_t i = 0; i < line->raw.size(); ++i) {
      out += prefix + num(line->raw.x(i)) + ',' + num(line->raw.y(i)) + ',' +
             (i < line->smoothed.size() ? num(line->smoothed.y(i)) : QByteArray()) + ',' +
             (i < line->low.size() ? num(line->low.y(i)) : QByteArray()) + ',' +
             (i < line->high.size() ? num(line->high.y(i)) : QByteArray()) + '\n';
    }
  }
  if (file.write(out) != out.size() || !file.commit()) {
    *error = tr("Cannot write %1.").arg(path);
    return false;
  }
  return true;
}

void MetricPlot::resizeEvent(QResizeEvent* event) {
  ChartView::resizeEvent(event);
  scheduleRedraw();  // the plot area's width is the number of columns
}

void MetricPlot::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (notches == 0) {
    event->ignore();
    return;
  }
  zoomBy(std::pow(kZoomStep, notches), valueAtPixel(event->position()));
  event->accept();
}

void MetricPlot::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_dragging = true;
    m_dragStart = event->position();
    m_dragRange = {m_x0, m_x1};
    event->accept();
    return;
  }
  ChartView::mousePressEvent(event);
}

void MetricPlot::mouseMoveEvent(QMouseEvent* event) {
  if (m_dragging) {
    const double width = std::max(1.0, chart()->plotArea().width());
    const double dx = (event->position().x() - m_dragStart.x()) / width * (m_dragRange.second - m_dragRange.first);
    setXRange(m_dragRange.first - dx, m_dragRange.second - dx);
    event->accept();
    return;
  }
  if (chart()->plotArea().contains(chart()->mapFromScene(mapToScene(event->position().toPoint())))) {
    showTip(tipText(m_options.key, valuesAt(valueAtPixel(event->position()))));
  } else {
    showTip(QString());
  }
  ChartView::mouseMoveEvent(event);
}

void MetricPlot::mouseReleaseEvent(QMouseEvent* event) {
  if (m_dragging && event->button() == Qt::LeftButton) {
    m_dragging = false;
    event->accept();
    return;
  }
  ChartView::mouseReleaseEvent(event);
}

void MetricPlot::mouseDoubleClickEvent(QMouseEvent* event) {
  resetZoom();
  event->accept();
}

void MetricPlot::keyPressEvent(QKeyEvent* event) {
  const double centre = (m_x0 + m_x1) / 2;
  switch (event->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal: zoomBy(kZoomStep, centre); break;
  case Qt::Key_Minus: zoomBy(1 / kZoomStep, centre); break;
  case Qt::Key_Left: panBy(-kPanStep); break;
  case Qt::Key_Right: panBy(kPanStep); break;
  case Qt::Key_Home: resetZoom(); break;
  default: ChartView::keyPressEvent(event); return;
  }
  event->accept();
}

}  // namespace fathom::views
