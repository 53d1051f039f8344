// SPDX-License-Identifier: Apache-2.0
#include "timeline/slice_details_panel.h"

#include "timeline/time_coords.h"
#include "timeline/timeline_worker.h"

#include <nlohmann/json.hpp>

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

namespace fathom::views {

namespace {

/// Linked slices listed per group; a ProfilerStep may launch thousands of kernels.
constexpr std::size_t kMaxLinks = 500;

/// `ns` as the file's `ts`: microseconds with three decimals, exact (what `fathom trace summary --from` takes).
QString traceMicros(std::int64_t ns) {
  const std::int64_t magnitude = ns < 0 ? -ns : ns;
  return QStringLiteral("%1%2.%3 µs")
      .arg(ns < 0 ? QStringLiteral("-") : QString())
      .arg(magnitude / 1000)
      .arg(magnitude % 1000, 3, 10, QLatin1Char('0'));
}

QString scalarText(const nlohmann::json& value) {
  if (value.is_string())
    return QString::fromStdString(value.get<std::string>());
  return QString::fromStdString(value.dump());
}

/// The JSON `value` under `parent`: an object's keys and an array's elements as children, scalars as values.
void addJson(QTreeWidgetItem* parent, const QString& key, const nlohmann::json& value) {
  auto* item = new QTreeWidgetItem(parent, {key});
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it)
      addJson(item, QString::fromStdString(it.key()), it.value());
    item->setText(1, value.empty() ? QStringLiteral("{}") : QString());
  } else if (value.is_array()) {
    // Short arrays of scalars read best on one line (Kineto's "Input Dims": [[64, 128], [128, 256]]).
    const std::string flat = value.dump();
    if (flat.size() <= 80) {
      item->setText(1, QString::fromStdString(flat));
    } else {
      for (std::size_t i = 0; i < value.size(); ++i)
        addJson(item, QStringLiteral("[%1]").arg(i), value[i]);
    }
  } else {
    item->setText(1, scalarText(value));
  }
}

QLabel* valueLabel(QWidget* parent, const char* name) {
  auto* label = new QLabel(parent);
  label->setObjectName(QString::fromLatin1(name));
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setWordWrap(true);
  return label;
}

}  // namespace

SliceDetailsPanel::SliceDetailsPanel(QWidget* parent) : QWidget(parent), m_worker(new TimelineWorker(this)) {
  auto* layout = new QVBoxLayout(this);
  m_name = valueLabel(this, "name");
  QFont bold = m_name->font();
  bold.setBold(true);
  m_name->setFont(bold);
  layout->addWidget(m_name);
  // The form scrolls rather than squeezing its rows onto each other when the panel under the timeline is short
  // (a 1500 x 900 window leaves it about 150 px).
  auto* formRows = new QWidget;
  auto* form = new QFormLayout(formRows);
  form->setContentsMargins(0, 0, 0, 0);
  m_category = valueLabel(this, "category");
  m_start = valueLabel(this, "start");
  m_traceClock = valueLabel(this, "traceClock");
  m_duration = valueLabel(this, "duration");
  m_self = valueLabel(this, "self");
  m_depth = valueLabel(this, "depth");
  m_lane = valueLabel(this, "lane");
  form->addRow(tr("Category"), m_category);
  form->addRow(tr("Start"), m_start);
  form->addRow(tr("Trace clock (ts)"), m_traceClock);
  form->addRow(tr("Duration"), m_duration);
  form->addRow(tr("Self time"), m_self);
  form->addRow(tr("Depth"), m_depth);
  form->addRow(tr("Lane"), m_lane);
  // Side by side: the timings, the args and the linked slices, so that each keeps its height in a short panel under
  // the timeline (stacked, a quarter of a 1000 px window left each a line).
  auto* columns = new QHBoxLayout;
  auto* formScroll = new QScrollArea(this);
  formScroll->setObjectName(QStringLiteral("timings"));
  formScroll->setFrameShape(QFrame::NoFrame);
  formScroll->setWidgetResizable(true);
  formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  formScroll->setWidget(formRows);
  columns->addWidget(formScroll, 3);  // wide enough for "3.516000 ms since the trace's start" on a line
  layout->addLayout(columns, 1);

  m_args = new QTreeWidget(this);
  m_args->setObjectName(QStringLiteral("args"));
  m_args->setHeaderLabels({tr("Argument"), tr("Value")});
  m_args->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  columns->addWidget(m_args, 3);

  m_related = new QTreeWidget(this);
  m_related->setObjectName(QStringLiteral("related"));
  m_related->setHeaderLabels({tr("Linked slices")});
  columns->addWidget(m_related, 2);
  connect(m_related, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    const QVariant lane = item->data(0, kLaneRole);
    if (lane.isValid())
      emit sliceActivated({lane.toUInt(), item->data(0, kIndexRole).toUInt()});
  });
  clear();
}

SliceDetailsPanel::~SliceDetailsPanel() = default;

void SliceDetailsPanel::setIndex(std::shared_ptr<const trace::TimelineIndex> index) {
  m_index = std::move(index);
  m_slice.reset();
  clear();
}

bool SliceDetailsPanel::isReadingArgs() const {
  return m_worker->isBusy();
}

void SliceDetailsPanel::clear() {
  m_worker->cancel();
  m_details.reset();
  m_name->setText(m_index ? tr("No slice selected: click one on the timeline") : QString());
  for (QLabel* label : {m_category, m_start, m_traceClock, m_duration, m_self, m_depth, m_lane})
    label->clear();
  m_args->clear();
  m_related->clear();
}

void SliceDetailsPanel::setSlice(std::optional<trace::SliceRef> slice) {
  if (slice == m_slice && (m_details || !slice))
    return;
  m_slice = slice;
  clear();
  if (!m_index || !m_slice)
    return;
  const trace::TimelineLane& lane = m_index->lane(m_slice->lane);
  m_details = trace::sliceDetails(*m_index, *m_slice, /*readArgs=*/false);  // O(descendants); args come below
  const trace::SliceDetails& d = *m_details;
  m_name->setText(QString::fromStdString(d.name));
  m_category->setText(QString::fromStdString(d.category));
  m_start->setText(tr("%1 since the trace's start").arg(formatTime(d.startNs - m_index->data().startNs, 1)));
  m_traceClock->setText(traceMicros(d.startNs));
  m_duration->setText(formatTime(d.durationNs, 1));
  m_self->setText(formatTime(d.selfNs, 1));
  m_depth->setText(QString::number(d.depth));
  const trace::TimelineProcess& process = m_index->processes()[lane.process];
  m_lane->setText(QString::fromStdString(process.title) + QStringLiteral(" / ") + QString::fromStdString(lane.title));
  fillRelated();
  readArgs();
}

void SliceDetailsPanel::readArgs() {
  auto* pending = new QTreeWidgetItem(m_args, {tr("Reading the event…")});
  Q_UNUSED(pending);
  const std::uint64_t offset = m_index->lane(m_slice->lane).offset[m_slice->index];
  m_worker->run([this, index = m_index, offset]() -> std::function<void()> {
    // Off the GUI thread: re-read (a scan from the start for gzip) and parse; only filling the tree is left.
    auto event = std::make_shared<nlohmann::json>();
    QString error;
    try {
      const std::optional<std::string> text = index->eventText(offset);
      if (!text)
        error = tr("The trace cannot be read again (it was loaded from a stream).");
      else
        *event = nlohmann::json::parse(*text);
    } catch (const std::exception& e) {
      error = tr("Could not read the event: %1").arg(QString::fromUtf8(e.what()));
    }
    return [this, event, error] {
      m_args->clear();
      if (!error.isEmpty()) {
        new QTreeWidgetItem(m_args, {error});
      } else if (!event->contains("args") || !(*event)["args"].is_object() || (*event)["args"].empty()) {
        new QTreeWidgetItem(m_args, {tr("(no arguments)")});
      } else {
        for (auto it = (*event)["args"].begin(); it != (*event)["args"].end(); ++it)
          addJson(m_args->invisibleRootItem(), QString::fromStdString(it.key()), it.value());
        m_args->expandAll();
      }
      emit argsReady();
    };
  });
}

QString SliceDetailsPanel::describe(trace::SliceRef slice) const {
  const trace::TimelineLane& lane = m_index->lane(slice.lane);
  return tr("%1 (%2, %3)")
      .arg(QString::fromUtf8(m_index->name(lane.name[slice.index])), formatTime(lane.duration(slice.index), 1),
           QString::fromStdString(lane.title));
}

void SliceDetailsPanel::addGroup(const QString& title, const std::vector<trace::SliceRef>& slices) {
  if (slices.empty())
    return;
  auto* group = new QTreeWidgetItem(m_related, {title.arg(slices.size())});
  for (std::size_t i = 0; i < std::min(slices.size(), kMaxLinks); ++i) {
    auto* item = new QTreeWidgetItem(group, {describe(slices[i])});
    item->setData(0, kLaneRole, slices[i].lane);
    item->setData(0, kIndexRole, slices[i].index);
    item->setForeground(0, palette().color(QPalette::Link));
  }
  if (slices.size() > kMaxLinks)
    new QTreeWidgetItem(group, {tr("… and %1 more").arg(slices.size() - kMaxLinks)});
  group->setExpanded(true);
}

void SliceDetailsPanel::fillRelated() {
  const trace::SliceDetails& d = *m_details;
  const trace::TimelineLane& lane = m_index->lane(m_slice->lane);
  addGroup(tr("Flows out (%1)"), d.flowsOut);
  if (lane.kind == trace::LaneKind::GpuStream && !d.flowsIn.empty()) {
    // GPU work: its launch on the CPU, and the op around that launch (the launch's parent), which is what a user
    // looks for ("which aten op ran this kernel").
    std::vector<trace::SliceRef> launchers;
    for (const trace::SliceRef& launch : d.flowsIn) {
      launchers.push_back(launch);
      const trace::TimelineLane& cpu = m_index->lane(launch.lane);
      const std::uint32_t depth = cpu.depthOf(launch.index);
      if (depth > 0)
        if (const auto parent = trace::sliceAt(cpu, depth - 1, cpu.start[launch.index]))
          launchers.push_back({launch.lane, *parent});
    }
    addGroup(tr("Launched by (%1)"), launchers);
  } else {
    addGroup(tr("Flows in (%1)"), d.flowsIn);
  }
  // The work launched from inside it; for a launch itself that is its flows out, listed above.
  const std::set<trace::SliceRef> out(d.flowsOut.begin(), d.flowsOut.end());
  const std::set<trace::SliceRef> launched(d.launched.begin(), d.launched.end());
  if (launched != out)
    addGroup(tr("Launched GPU work (%1)"), d.launched);
}

}  // namespace fathom::views
