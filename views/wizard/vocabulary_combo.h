// SPDX-License-Identifier: Apache-2.0
// Combo boxes over core's vocabulary (common/name_table.h): the list and the names come from the table, only the
// values Fathom runs are offered, and an item's data is its enumerator. Pages may give an item a translated label;
// the canonical name is the default text and the core's help the tooltip.
#pragma once

#include <fathom/common/name_table.h>

#include <QComboBox>
#include <QString>

#include <functional>
#include <optional>

namespace fathom::views {

/// Fills `combo` with the supported values of `table`, in the table's order. `label` gives an item's text (empty:
/// the canonical name).
template <typename E, std::size_t N>
void fillCombo(QComboBox* combo, const NameTable<E, N>& table, const std::function<QString(E)>& label = {}) {
  for (const auto& entry : table.entries()) {
    if (!entry.supported) {
      continue;
    }
    const QString text = label ? label(entry.value) : QString();
    combo->addItem(text.isEmpty() ? QString::fromUtf8(entry.name.data(), qsizetype(entry.name.size())) : text,
                   static_cast<int>(entry.value));
    combo->setItemData(combo->count() - 1, QString::fromUtf8(entry.help.data(), qsizetype(entry.help.size())),
                       Qt::ToolTipRole);
  }
}

/// Selects `value`; a value the combo does not offer (unset, or one Fathom does not run that a file holds) leaves
/// nothing selected, so comboValue() gives it back unchanged.
template <typename E> void selectValue(QComboBox* combo, std::optional<E> value) {
  combo->setCurrentIndex(value ? combo->findData(static_cast<int>(*value)) : -1);
}

/// The value selected, or `unchanged` when nothing is (see selectValue()).
template <typename E> std::optional<E> comboValue(const QComboBox* combo, std::optional<E> unchanged) {
  return combo->currentIndex() < 0 ? unchanged : std::optional<E>(static_cast<E>(combo->currentData().toInt()));
}

}  // namespace fathom::views
