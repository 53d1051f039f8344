// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_search_bar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QThread>
#include <QTimer>
#include <QToolButton>

#include <exception>
#include <utility>

namespace fathom::views {

TimelineSearchBar::TimelineSearchBar(QWidget* parent) : TimelineSearchBar(Options{}, parent) {}

TimelineSearchBar::TimelineSearchBar(const Options& options, QWidget* parent)
    : QWidget(parent), m_options(options), m_debounce(new QTimer(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  m_field = new QLineEdit(this);
  m_field->setObjectName(QStringLiteral("searchPattern"));
  m_field->setPlaceholderText(tr("Search slices by name (Ctrl+F)"));
  m_field->setClearButtonEnabled(true);
  m_field->installEventFilter(this);
  const auto toggle = [this](const QString& text, const QString& name, const QString& tip) {
    auto* button = new QToolButton(this);
    button->setText(text);
    button->setObjectName(name);
    button->setToolTip(tip);
    button->setCheckable(true);
    connect(button, &QToolButton::toggled, this, &TimelineSearchBar::schedule);
    return button;
  };
  m_regex = toggle(QStringLiteral(".*"), QStringLiteral("searchRegex"), tr("Regular expression (ECMAScript)"));
  m_case = toggle(QStringLiteral("Aa"), QStringLiteral("searchCase"), tr("Match case"));
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("searchStatus"));
  m_status->setMinimumWidth(m_status->fontMetrics().horizontalAdvance(QStringLiteral("0000000 of 0000000")));
  const auto button = [this](const QString& text, const QString& name, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setObjectName(name);
    b->setToolTip(tip);
    return b;
  };
  m_previous = button(tr("Previous"), QStringLiteral("searchPrevious"), tr("Previous match (Shift+Enter)"));
  m_next = button(tr("Next"), QStringLiteral("searchNext"), tr("Next match (Enter)"));
  connect(m_previous, &QToolButton::clicked, this, &TimelineSearchBar::previous);
  connect(m_next, &QToolButton::clicked, this, &TimelineSearchBar::next);
  layout->addWidget(m_field, 1);
  layout->addWidget(m_regex);
  layout->addWidget(m_case);
  layout->addWidget(m_status);
  layout->addWidget(m_previous);
  layout->addWidget(m_next);

  m_debounce->setSingleShot(true);
  m_debounce->setInterval(m_options.debounceMs);
  connect(m_debounce, &QTimer::timeout, this, &TimelineSearchBar::search);
  connect(m_field, &QLineEdit::textChanged, this, &TimelineSearchBar::schedule);
  updateStatus();
}

TimelineSearchBar::~TimelineSearchBar() {
  for (QThread* thread : std::as_const(m_threads)) {
    thread->wait();  // searchSlices is not cancellable; it takes well under a second even at 10M slices
    delete thread;
  }
}

void TimelineSearchBar::setIndex(std::shared_ptr<const trace::TimelineIndex> index) {
  m_index = std::move(index);
  ++m_number;  // a running search's result is for the old index: dropped
  m_searching = false;
  m_matches.reset();
  m_total = 0;
  m_current = -1;
  m_error.clear();
  m_stale = !pattern().isEmpty();
  if (m_stale)
    m_debounce->start();
  updateStatus();
  emit matchesChanged();
  emit currentMatchChanged();
}

QString TimelineSearchBar::pattern() const {
  return m_field->text();
}

void TimelineSearchBar::setPattern(const QString& pattern) {
  m_field->setText(pattern);
}

bool TimelineSearchBar::isRegex() const {
  return m_regex->isChecked();
}

void TimelineSearchBar::setRegex(bool regex) {
  m_regex->setChecked(regex);
}

bool TimelineSearchBar::isCaseSensitive() const {
  return m_case->isChecked();
}

void TimelineSearchBar::setCaseSensitive(bool caseSensitive) {
  m_case->setChecked(caseSensitive);
}

void TimelineSearchBar::focusPattern() {
  m_field->setFocus(Qt::ShortcutFocusReason);
  m_field->selectAll();
}

void TimelineSearchBar::schedule() {
  m_stale = true;
  m_debounce->start();
}

void TimelineSearchBar::search() {
  m_debounce->stop();
  m_stale = false;
  const quint64 number = ++m_number;
  if (!m_index || pattern().isEmpty()) {
    finish(number, nullptr, 0, {});
    return;
  }
  trace::SearchOptions options;
  options.pattern = pattern().toStdString();
  options.regex = isRegex();
  options.caseSensitive = isCaseSensitive();
  // Returns (matches, total, error): searchSlices throws ConfigError for an invalid regex, naming it.
  const auto run = [](const trace::TimelineIndex& index, const trace::SearchOptions& options) {
    std::shared_ptr<const std::vector<trace::SliceRef>> matches;
    std::size_t total = 0;
    QString error;
    try {
      trace::SearchResult result = trace::searchSlices(index, options);
      total = result.total;
      matches = std::make_shared<const std::vector<trace::SliceRef>>(std::move(result.matches));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    return std::make_tuple(matches, total, error);
  };
  if (m_index->sliceCount() <= m_options.asyncSlices) {
    auto [matches, total, error] = run(*m_index, options);
    finish(number, std::move(matches), total, error);
    return;
  }
  m_searching = true;
  updateStatus();
  QThread* thread = QThread::create([this, run, index = m_index, options, number] {
    auto [matches, total, error] = run(*index, options);
    QMetaObject::invokeMethod(
        this, [this, number, matches, total, error] { finish(number, matches, total, error); }, Qt::QueuedConnection);
  });
  m_threads.append(thread);
  connect(thread, &QThread::finished, this, [this, thread] {
    m_threads.removeOne(thread);
    thread->deleteLater();
  });
  thread->start();
}

void TimelineSearchBar::finish(quint64 number, std::shared_ptr<const std::vector<trace::SliceRef>> matches,
                               std::size_t total, const QString& error) {
  if (number != m_number)
    return;  // superseded by newer typing or another index
  m_searching = false;
  m_matches = std::move(matches);
  m_total = total;
  m_error = error;
  m_current = -1;
  updateStatus();
  emit matchesChanged();
  emit currentMatchChanged();
  emit searchFinished();
  if (const int pending = std::exchange(m_pendingStep, 0); pending != 0)
    step(pending);
}

std::optional<trace::SliceRef> TimelineSearchBar::currentMatch() const {
  if (!m_matches || m_current < 0 || m_current >= static_cast<int>(m_matches->size()))
    return std::nullopt;
  return (*m_matches)[static_cast<std::size_t>(m_current)];
}

void TimelineSearchBar::next() {
  step(+1);
}

void TimelineSearchBar::previous() {
  step(-1);
}

void TimelineSearchBar::step(int delta) {
  if (m_stale || m_searching) {  // the matches are for an older pattern: search first, then step
    m_pendingStep = delta;
    if (m_stale)
      search();
    return;
  }
  if (!m_matches || m_matches->empty())
    return;
  const int count = static_cast<int>(m_matches->size());
  // From no current match, Next goes to the first and Previous to the last; both wrap around.
  if (m_current < 0)
    m_current = delta > 0 ? 0 : count - 1;
  else
    m_current = ((m_current + delta) % count + count) % count;
  updateStatus();
  emit currentMatchChanged();
}

QString TimelineSearchBar::statusText() const {
  return m_status->text();
}

void TimelineSearchBar::updateStatus() {
  const QLocale locale;
  QString text;
  QString tip;
  if (!m_error.isEmpty()) {
    text = m_error;  // the index's message names the pattern and what is wrong with it
    tip = m_error;
  } else if (m_searching) {
    text = tr("Searching…");
  } else if (m_matches) {
    if (m_total == 0)
      text = tr("No matches");
    else if (m_current < 0)
      text = m_total == 1 ? tr("1 match") : tr("%1 matches").arg(locale.toString(static_cast<qulonglong>(m_total)));
    else
      text = tr("%1 of %2").arg(locale.toString(m_current + 1), locale.toString(static_cast<qulonglong>(m_total)));
    if (m_total > m_matches->size())
      tip = tr("Next and Previous visit the first %1 matches").arg(locale.toString(m_matches->size()));
  }
  m_status->setText(text);
  m_status->setToolTip(tip);
  QPalette palette = m_status->palette();
  palette.setColor(QPalette::WindowText, m_error.isEmpty() ? this->palette().color(QPalette::WindowText) : Qt::red);
  m_status->setPalette(palette);
  // The field's own tooltip carries the error too: the label is narrow.
  m_field->setToolTip(m_error);
  const bool canStep = m_matches && !m_matches->empty();
  m_previous->setEnabled(canStep || m_stale);
  m_next->setEnabled(canStep || m_stale);
}

bool TimelineSearchBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_field && event->type() == QEvent::KeyPress) {
    const auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      step(key->modifiers().testFlag(Qt::ShiftModifier) ? -1 : +1);
      return true;
    }
    if (key->key() == Qt::Key_Escape && !m_field->text().isEmpty()) {
      m_field->clear();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace fathom::views
