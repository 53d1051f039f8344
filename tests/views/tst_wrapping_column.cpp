// SPDX-License-Identifier: Apache-2.0
// WrappingColumn on a real table view, offscreen: the column takes the width the others leave and its texts wrap, so
// nothing scrolls sideways; in a view too narrow for that it keeps its longest word whole and the table scrolls.
#include "common/wrapping_column.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::views::WrappingColumn;

class TestWrappingColumn : public QObject {
  Q_OBJECT

private slots:
  void takesTheRestAndWrapsWithinAFloor() {
    QStandardItemModel model(2, 3);
    const QString longest = u"FSDP shard grad op, sequence parallel"_s;
    model.setItem(0, 0, new QStandardItem(u"1"_s));
    model.setItem(0, 1, new QStandardItem(longest));
    model.setItem(0, 2, new QStandardItem(u"85,876 tokens/s"_s));
    model.setItem(1, 0, new QStandardItem(u"2"_s));
    model.setItem(1, 1, new QStandardItem(u"ZeRO-3"_s));
    model.setItem(1, 2, new QStandardItem(u"81,440 tokens/s"_s));
    QTableView view;
    view.setModel(&model);
    view.horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    WrappingColumn::install(&view, 1);
    QHeaderView* header = view.horizontalHeader();
    const int wordWidth = view.fontMetrics().horizontalAdvance(u"sequence"_s);
    const int fullWidth = view.fontMetrics().horizontalAdvance(longest);

    // Wide enough: the column fills the viewport exactly, and its long text wraps into a taller row.
    view.resize(header->sectionSize(0) + header->sectionSize(2) + fullWidth * 2 / 5 + 30, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_COMPARE(header->length(), view.viewport()->width());
    QVERIFY(header->sectionSize(1) < fullWidth);
    QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
    QTRY_VERIFY2(view.rowHeight(0) > view.rowHeight(1),
                 qPrintable(u"%1 %2 %3"_s.arg(view.rowHeight(0)).arg(view.rowHeight(1)).arg(header->sectionSize(1))));

    // Wider: the column follows the viewport.
    const int before = header->sectionSize(1);
    view.resize(view.width() + 100, 300);
    QTRY_COMPARE(header->sectionSize(1), before + 100);
    QCOMPARE(header->length(), view.viewport()->width());

    // Too narrow: the column keeps every word whole (and a third of its text), the table scrolls sideways.
    view.resize(header->sectionSize(0) + header->sectionSize(2) + 20, 300);
    QTRY_VERIFY(view.horizontalScrollBar()->maximum() > 0);
    QVERIFY(header->sectionSize(1) >= std::max(wordWidth, fullWidth / 3));
  }
};

QTEST_MAIN(TestWrappingColumn)
#include "tst_wrapping_column.moc"
