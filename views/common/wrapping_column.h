// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>

class QTableView;

namespace fathom::views {

/// One column of a table view that takes the width the other columns leave, so that every column is in view without
/// horizontal scrolling, and wraps its texts onto more lines instead (rows grow to fit them). It never gets narrower
/// than its longest word or a third of its longest text: where the others leave less, the table scrolls as usual. The
/// other columns keep their own resize modes; the column follows them, the viewport's width and the model's data.
class WrappingColumn : public QObject {
  Q_OBJECT

public:
  /// Makes `column` of `view` such a column, for the model `view` has now; the object is a child of `view`.
  static void install(QTableView* view, int column);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  WrappingColumn(QTableView* view, int column);
  /// The narrowest width that shows each of the column's texts in about three lines without breaking a word.
  int floorWidth() const;
  void fit();

  QTableView* m_view;
  /// The viewport whose resizes are watched, kept so that eventFilter() never calls into m_view: the viewport's
  /// last events arrive while the view is being destroyed (UBSan: a member call on a destroyed QAbstractScrollArea).
  QWidget* m_viewport;
  int m_column;
};

}  // namespace fathom::views
