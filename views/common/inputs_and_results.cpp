// SPDX-License-Identifier: Apache-2.0
#include "common/inputs_and_results.h"

#include "common/wheel_scroll_guard.h"

#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace fathom::views {

QScrollArea* layOutInputsAndResults(QWidget* page, QWidget* inputs, QWidget* results, const QString& inputsName) {
  auto* splitter = new QSplitter(Qt::Horizontal, page);
  auto* scroll = new QScrollArea(splitter);
  scroll->setObjectName(inputsName);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(inputs);
  WheelScrollGuard::install(inputs);
  // Room for the inputs and the vertical scroll bar that appears when they are taller than the page.
  scroll->setMinimumWidth(inputs->minimumSizeHint().width() + 24);
  splitter->addWidget(scroll);
  splitter->addWidget(results);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
  return scroll;
}

}  // namespace fathom::views
