// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "timeline/timeline_selection.h"

#include <fathom/trace/timeline_queries.h>

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTreeWidget;

namespace fathom::views {

class AreaNameModel;
class TimelineWorker;

/// What an area selection of the timeline adds up to (issue 19, "Selection and analysis"): trace::aggregateArea's
/// per-name table (name, count, total, mean, max; sortable: Perfetto's area aggregation) and, per rank of the selected
/// lanes, the step breakdown of `fathom trace summary --rank R --from T0 --to T1` over the same range (compute,
/// communication, exposed communication = communication - overlap, data loading, idle; a rank's row holds all its
/// steps together, its children one step each). An area of more than Options::syncSliceLimit slices is aggregated
/// off the GUI thread ("Computing…"); aggregated() says when the numbers are in.
///
/// Children by object name: QLabel "summary", QTableView "byName" (over a sort proxy of nameModel()), QTreeWidget
/// "breakdown" (each number also in Qt::UserRole, in ns).
class AreaPanel : public QWidget {
  Q_OBJECT

public:
  enum BreakdownColumn {
    StepColumn,
    SpanColumn,
    ComputeColumn,
    CommunicationColumn,
    ExposedCommunicationColumn,
    DataLoadingColumn,
    IdleColumn,
    BreakdownColumnCount
  };
  struct Options {
    /// Areas with more slices (in the selected lanes and their ranks' lanes, in the range) are aggregated on a thread.
    std::uint64_t syncSliceLimit = 200'000;
    std::size_t top = 10;  ///< trace::AreaOptions::top
  };

  explicit AreaPanel(QWidget* parent = nullptr);
  explicit AreaPanel(const Options& options, QWidget* parent = nullptr);
  ~AreaPanel() override;

  /// The trace the areas are of; clears the panel.
  void setIndex(std::shared_ptr<const trace::TimelineIndex> index);
  /// Aggregates `area` (nullopt clears); aggregated() follows, at once or from the worker.
  void setArea(std::optional<AreaSelection> area);
  const std::optional<AreaSelection>& area() const { return m_area; }
  /// The numbers shown; nullopt while computing or without an area.
  const std::optional<trace::AreaAggregation>& aggregation() const { return m_aggregation; }
  bool isComputing() const;
  AreaNameModel* nameModel() const { return m_names; }

signals:
  /// aggregation() holds the current area's numbers (after setArea with an area).
  void aggregated();

private:
  void apply(trace::AreaAggregation aggregation);
  void fillBreakdown();
  /// Slices the aggregation will visit: those of the selected lanes and of their ranks' lanes that meet the range.
  std::uint64_t estimateSlices(const AreaSelection& area) const;

  Options m_options;
  std::shared_ptr<const trace::TimelineIndex> m_index;
  std::optional<AreaSelection> m_area;
  std::optional<trace::AreaAggregation> m_aggregation;
  QLabel* m_summary = nullptr;
  AreaNameModel* m_names = nullptr;
  QSortFilterProxyModel* m_sorted = nullptr;
  QTableView* m_table = nullptr;
  QTreeWidget* m_breakdown = nullptr;
  TimelineWorker* m_worker = nullptr;
};

}  // namespace fathom::views
