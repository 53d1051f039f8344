// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/metric_plot.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace fathom::views {

/// A MetricPlot with its controls above it: the metric key, per rank or mean with a min–max band, step or time on
/// x, the smoothing weight, log y, "show all" and export (PNG, SVG, CSV). keysChanged() keeps the key list in step
/// with the store; the key shown stays selected.
class MetricPlotPanel : public QWidget {
  Q_OBJECT

public:
  explicit MetricPlotPanel(const MetricSeriesStore* store, QWidget* parent = nullptr);

  MetricPlot* plot() const { return m_plot; }
  QComboBox* keyCombo() const { return m_key; }
  QComboBox* modeCombo() const { return m_mode; }
  QComboBox* axisCombo() const { return m_axis; }
  QSlider* smoothingSlider() const { return m_smoothing; }
  QCheckBox* logCheck() const { return m_log; }

  /// The key to show when it exists (the first key otherwise); "loss" by default.
  void setPreferredKey(const QString& key);
  /// Re-reads the store's keys into the list (after points of a new key arrived); true when that changed the key
  /// shown (the plot was rebuilt).
  bool keysChanged();
  /// Forwards to the plot, and lists a key seen for the first time.
  void pointsAppended(const std::vector<store::MetricRow>& rows);
  /// Writes the plot to `path`: .png, .svg or .csv.
  bool exportTo(const QString& path, QString* error);

private:
  void applyOptions();
  void chooseExport();

  const MetricSeriesStore* m_store;
  MetricPlot* m_plot = nullptr;
  QComboBox* m_key = nullptr;
  QComboBox* m_mode = nullptr;
  QComboBox* m_axis = nullptr;
  QSlider* m_smoothing = nullptr;
  QLabel* m_smoothingValue = nullptr;
  QCheckBox* m_log = nullptr;
  QToolButton* m_reset = nullptr;
  QToolButton* m_export = nullptr;
  QString m_preferred = QStringLiteral("loss");
  std::size_t m_keyCount = 0;
};

}  // namespace fathom::views
