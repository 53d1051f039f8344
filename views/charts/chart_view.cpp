// SPDX-License-Identifier: Apache-2.0
#include "charts/chart_view.h"

#include <QBarCategoryAxis>
#include <QChart>
#include <QCursor>
#include <QGraphicsScene>
#include <QLegend>
#include <QTimer>
#include <QToolTip>
#include <QValueAxis>

using namespace Qt::StringLiterals;

namespace fathom::views {

ChartView::ChartView(QWidget* parent) : QChartView(new QChart(), parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTheme(QChart::ChartThemeLight);
  chart()->setMargins(QMargins(4, 4, 4, 4));
  chart()->setBackgroundRoundness(0);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  chart()->legend()->setShowToolTips(true);
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  setMinimumSize(320, 200);
}

void ChartView::renderTo(QPainter* painter, const QRectF& target) {
  QChart* c = chart();
  const QSizeF shown = c->size();
  c->resize(target.size());
  scene()->render(painter, target, QRectF(c->pos(), target.size()));
  c->resize(shown);
}

void ChartView::redrawNow() {
  m_redrawPending = false;
  redraw();
}

void ChartView::scheduleRedraw() {
  if (!m_redrawPending) {
    m_redrawPending = true;
    QTimer::singleShot(0, this, [this] {
      if (m_redrawPending) {
        redrawNow();
      }
    });
  }
}

void ChartView::clearChart() {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
}

void ChartView::addStrategyAxes(const QStringList& labels, QAbstractSeries* bars, QAbstractSeries* overlay) {
  auto* categories = new QBarCategoryAxis();
  categories->append(labels);
  categories->setLabelsAngle(-40);
  categories->setTruncateLabels(false);  // rotated, the names fit; Qt would elide them to the slot's width
  chart()->addAxis(categories, Qt::AlignBottom);
  bars->attachAxis(categories);
  auto* overlayX = new QValueAxis();
  overlayX->setRange(-0.5, static_cast<double>(labels.size()) - 0.5);
  overlayX->setVisible(false);
  chart()->addAxis(overlayX, Qt::AlignBottom);
  overlay->attachAxis(overlayX);
}

std::pair<double, double> ChartView::drawableRange(double lo, double hi) {
  if (lo > hi) {
    return {0.0, 1.0};
  }
  return lo == hi ? std::pair(lo - 0.5, hi + 0.5) : std::pair(lo, hi);
}

void ChartView::showTip(const QString& text) {
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(QCursor::pos(), text, this);
  }
}

QString ChartView::tipText(const QString& heading, const QString& explanation) {
  QString body = explanation.toHtmlEscaped();
  return u"<b>%1</b>"_s.arg(heading.toHtmlEscaped()) +
         (body.isEmpty() ? QString() : u"<pre style=\"margin-top:4px\">%1</pre>"_s.arg(body));
}

}  // namespace fathom::views
