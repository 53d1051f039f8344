// SPDX-License-Identifier: Apache-2.0
// HostGroupProxy (the run page's ranks grouped by host) over a plain table, under QAbstractItemModelTester: flat
// while one host is seen, one group per host (in order of first appearance) once there are two, rows arriving live,
// a row changing host, values forwarded to the mapped cells, and a sorting proxy above it sorting within each host.
#include "runs/host_group_proxy.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::views::HostGroupProxy;

namespace {

constexpr int kHostColumn = 1;
constexpr int kSortRole = Qt::UserRole + 1;

void addRank(QStandardItemModel& model, int rank, const QString& host, const QString& value) {
  auto* r = new QStandardItem(QString::number(rank));
  r->setData(rank, kSortRole);
  auto* h = new QStandardItem(host);
  h->setData(host, kSortRole);
  model.appendRow({r, h, new QStandardItem(value)});
}

/// The proxy's rows as "group: child child | group: ..." (or "row row" while flat), column 0 then column 2.
QString dump(const QAbstractItemModel& model) {
  QStringList parts;
  for (int row = 0; row < model.rowCount(); ++row) {
    const QModelIndex top = model.index(row, 0);
    QString part = top.data().toString();
    if (model.rowCount(top) > 0) {
      QStringList children;
      for (int i = 0; i < model.rowCount(top); ++i) {
        children << model.index(i, 0, top).data().toString() + u"="_s + model.index(i, 2, top).data().toString();
      }
      part += u": "_s + children.join(u' ');
    } else {
      part += u"="_s + model.index(row, 2).data().toString();
    }
    parts << part;
  }
  return parts.join(u" | "_s);
}

}  // namespace

class TestHostGroupProxy : public QObject {
  Q_OBJECT

private slots:
  void flatForOneHostGroupedForSeveral() {
    QStandardItemModel source(0, 3);
    HostGroupProxy proxy(kHostColumn, kSortRole);
    proxy.setSourceModel(&source);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    addRank(source, 0, u"h1"_s, u"a"_s);
    addRank(source, 1, u"h1"_s, u"b"_s);
    QVERIFY(!proxy.grouped());
    QCOMPARE(dump(proxy), u"0=a | 1=b"_s);
    addRank(source, 2, u"h2"_s, u"c"_s);
    addRank(source, 3, u"h2"_s, u"d"_s);
    QVERIFY(proxy.grouped());
    QCOMPARE(dump(proxy), u"h1 (2 rank(s)): 0=a 1=b | h2 (2 rank(s)): 2=c 3=d"_s);
    QCOMPARE(proxy.index(1, kHostColumn).data().toString(), u"h2"_s);  // a group shows its host in the host column
    QVERIFY(!(proxy.flags(proxy.index(0, 0)) & Qt::ItemIsSelectable));
    // Rank 1 moves to h2 (a record corrected): it changes group.
    source.item(1, kHostColumn)->setText(u"h2"_s);
    QCOMPARE(dump(proxy), u"h1 (1 rank(s)): 0=a | h2 (3 rank(s)): 1=b 2=c 3=d"_s);
  }

  void valuesReachTheMappedCells() {
    QStandardItemModel source(0, 3);
    addRank(source, 0, u"h1"_s, u"a"_s);
    addRank(source, 1, u"h2"_s, u"b"_s);
    HostGroupProxy proxy(kHostColumn, kSortRole);
    proxy.setSourceModel(&source);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&proxy, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&proxy, &QAbstractItemModel::modelReset);
    source.item(1, 2)->setText(u"B"_s);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    const QModelIndex cell = changed.front().at(0).value<QModelIndex>();
    QCOMPARE(cell.parent().row(), 1);
    QCOMPARE(cell.data().toString(), u"B"_s);
    QCOMPARE(proxy.mapToSource(cell), source.index(1, 2));
    QVERIFY(!proxy.mapToSource(proxy.index(0, 0)).isValid());  // a group row has no source row
  }

  /// The column headers are the source's, grouped or not (found in a screenshot: QAbstractProxyModel maps a
  /// header section through row 0, a group row without a source row, and the Ranks tab's headers were blank).
  void headersAreTheSources() {
    QStandardItemModel source(0, 3);
    source.setHorizontalHeaderLabels({u"Rank"_s, u"Host"_s, u"Value"_s});
    addRank(source, 0, u"h1"_s, u"a"_s);
    HostGroupProxy proxy(kHostColumn, kSortRole);
    proxy.setSourceModel(&source);
    for (const bool grouped : {false, true}) {
      QCOMPARE(proxy.grouped(), grouped);
      for (int column = 0; column < 3; ++column) {
        QCOMPARE(proxy.headerData(column, Qt::Horizontal).toString(),
                 source.headerData(column, Qt::Horizontal).toString());
      }
      addRank(source, 1, u"h2"_s, u"b"_s);
    }
  }

  void sortsWithinEachHost() {
    QStandardItemModel source(0, 3);
    addRank(source, 0, u"h2"_s, u"x"_s);
    addRank(source, 1, u"h1"_s, u"y"_s);
    addRank(source, 2, u"h2"_s, u"z"_s);
    addRank(source, 3, u"h1"_s, u"w"_s);
    HostGroupProxy proxy(kHostColumn, kSortRole);
    proxy.setSourceModel(&source);
    QSortFilterProxyModel sorted;
    sorted.setSourceModel(&proxy);
    sorted.setSortRole(kSortRole);
    QAbstractItemModelTester tester(&sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(dump(sorted), u"h2 (2 rank(s)): 0=x 2=z | h1 (2 rank(s)): 1=y 3=w"_s);  // first appearance
    sorted.sort(0, Qt::DescendingOrder);
    QCOMPARE(dump(sorted), u"h2 (2 rank(s)): 2=z 0=x | h1 (2 rank(s)): 3=w 1=y"_s);
    sorted.sort(0, Qt::AscendingOrder);
    QCOMPARE(dump(sorted), u"h1 (2 rank(s)): 1=y 3=w | h2 (2 rank(s)): 0=x 2=z"_s);
  }
};

QTEST_GUILESS_MAIN(TestHostGroupProxy)
#include "tst_host_group_proxy.moc"
