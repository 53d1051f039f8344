// SPDX-License-Identifier: Apache-2.0
#include "charts/metric_plot_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// The smoothing slider's steps: weight = value / kSmoothingSteps, 0 .. 0.999 as in TensorBoard.
constexpr int kSmoothingSteps = 1000;

}  // namespace

MetricPlotPanel::MetricPlotPanel(const MetricSeriesStore* store, QWidget* parent)
    : QWidget(parent), m_store(store), m_plot(new MetricPlot(store, this)) {
  setObjectName(u"metricPlotPanel"_s);
  m_key = new QComboBox(this);
  m_key->setObjectName(u"metricKey"_s);
  m_key->setToolTip(tr("The metric to plot"));
  m_key->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_mode = new QComboBox(this);
  m_mode->setObjectName(u"metricMode"_s);
  m_mode->addItem(tr("Per rank"), int(MetricPlot::Mode::PerRank));
  m_mode->addItem(tr("Mean, min–max band"), int(MetricPlot::Mode::MeanBand));
  m_axis = new QComboBox(this);
  m_axis->setObjectName(u"metricAxis"_s);
  m_axis->addItem(tr("Step"), int(MetricPlot::XAxis::Step));
  m_axis->addItem(tr("Wall time"), int(MetricPlot::XAxis::WallTime));
  m_smoothing = new QSlider(Qt::Horizontal, this);
  m_smoothing->setObjectName(u"metricSmoothing"_s);
  m_smoothing->setRange(0, kSmoothingSteps - 1);
  m_smoothing->setMaximumWidth(160);
  m_smoothing->setToolTip(tr("Exponential smoothing, debiased as in TensorBoard"));
  m_smoothingValue = new QLabel(u"0.000"_s, this);
  m_log = new QCheckBox(tr("Log scale"), this);
  m_log->setObjectName(u"metricLog"_s);
  m_reset = new QToolButton(this);
  m_reset->setObjectName(u"metricShowAll"_s);
  m_reset->setText(tr("Show all"));
  m_reset->setToolTip(tr("Zoom out to every point (Home; the wheel zooms, dragging pans)"));
  m_export = new QToolButton(this);
  m_export->setObjectName(u"metricExport"_s);
  m_export->setText(tr("Export…"));
  m_export->setToolTip(tr("Save the plot as PNG or SVG, or its points as CSV"));

  auto* controls = new QHBoxLayout();
  controls->addWidget(new QLabel(tr("Metric"), this));
  controls->addWidget(m_key);
  controls->addWidget(m_mode);
  controls->addWidget(m_axis);
  controls->addWidget(new QLabel(tr("Smoothing"), this));
  controls->addWidget(m_smoothing);
  controls->addWidget(m_smoothingValue);
  controls->addWidget(m_log);
  controls->addStretch(1);
  controls->addWidget(m_reset);
  controls->addWidget(m_export);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(m_plot, 1);

  connect(m_key, &QComboBox::currentIndexChanged, this, [this] {
    if (!m_key->currentText().isEmpty()) {
      m_preferred = m_key->currentText();
    }
    applyOptions();
  });
  connect(m_mode, &QComboBox::currentIndexChanged, this, &MetricPlotPanel::applyOptions);
  connect(m_axis, &QComboBox::currentIndexChanged, this, &MetricPlotPanel::applyOptions);
  connect(m_log, &QCheckBox::toggled, this, &MetricPlotPanel::applyOptions);
  connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
    m_smoothingValue->setText(QString::number(double(value) / kSmoothingSteps, 'f', 3));
    applyOptions();
  });
  connect(m_reset, &QToolButton::clicked, m_plot, &MetricPlot::resetZoom);
  connect(m_export, &QToolButton::clicked, this, &MetricPlotPanel::chooseExport);
}

void MetricPlotPanel::setPreferredKey(const QString& key) {
  m_preferred = key;
  if (const int i = m_key->findText(key); i >= 0) {
    m_key->setCurrentIndex(i);
  }
}

bool MetricPlotPanel::keysChanged() {
  const std::vector<std::string> keys = m_store->keys();
  m_keyCount = keys.size();
  QStringList names;
  for (const std::string& k : keys) {
    names << QString::fromStdString(k);
  }
  const QString shown = m_key->currentText();
  {
    const QSignalBlocker block(m_key);
    m_key->clear();
    m_key->addItems(names);
    const int preferred = m_key->findText(m_preferred);
    m_key->setCurrentIndex(preferred >= 0 ? preferred : (names.isEmpty() ? -1 : 0));
  }
  if (m_key->currentText() != shown || m_plot->options().key != m_key->currentText()) {
    applyOptions();
    return true;
  }
  return false;
}

void MetricPlotPanel::pointsAppended(const std::vector<store::MetricRow>& rows) {
  // A new key: when the plot switches to it, it is rebuilt from the store, which holds `rows` already.
  if (m_store->keys().size() != m_keyCount && keysChanged()) {
    return;
  }
  m_plot->pointsAppended(rows);
}

void MetricPlotPanel::applyOptions() {
  MetricPlot::Options o;
  o.key = m_key->currentText();
  o.mode = static_cast<MetricPlot::Mode>(m_mode->currentData().toInt());
  o.xAxis = static_cast<MetricPlot::XAxis>(m_axis->currentData().toInt());
  o.smoothing = double(m_smoothing->value()) / kSmoothingSteps;
  o.logY = m_log->isChecked();
  m_plot->setOptions(o);
}

bool MetricPlotPanel::exportTo(const QString& path, QString* error) {
  if (path.endsWith(u".csv"_s, Qt::CaseInsensitive)) {
    return m_plot->exportCsv(path, error);
  }
  return m_plot->exportImage(path, error);
}

void MetricPlotPanel::chooseExport() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export Plot"), m_key->currentText().replace(u'/', u'_') + u".png"_s,
                                   tr("PNG image (*.png);;SVG image (*.svg);;CSV points (*.csv)"));
  if (path.isEmpty()) {
    return;
  }
  QString error;
  if (!exportTo(path, &error)) {
    QMessageBox::warning(this, tr("Export Plot"), error);
  }
}

}  // namespace fathom::views
