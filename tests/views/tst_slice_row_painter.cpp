// SPDX-License-Identifier: Apache-2.0
// SliceRowPainter (views/timeline): a slice row drawn as one image equals the rectangles filled one by one, over
// every pixel line of the row; columns nothing covers keep what was below; colours are per name, stable, and darker
// for merged rectangles.
#include "timeline/slice_row_painter.h"

#include <QImage>
#include <QPainter>
#include <QTest>

#include <random>

using namespace fathom;
using fathom::views::SliceRowPainter;

class TestSliceRowPainter : public QObject {
  Q_OBJECT

private slots:
  void equalsFillRectOneByOne();
  void coloursPerName();
};

void TestSliceRowPainter::equalsFillRectOneByOne() {
  // Random rows of spans in column order (as mergeForPixels gives them, a span may reach into the next one's first
  // column), drawn both ways at an offset inside a larger image with a background.
  std::mt19937 rng(7);
  SliceRowPainter rows;
  for (int trial = 0; trial < 50; ++trial) {
    const int width = 1 + static_cast<int>(rng() % 300);
    const int height = 1 + static_cast<int>(rng() % 20);
    const QRect target(13, 5, width, height);
    QImage expected(width + 30, height + 10, QImage::Format_ARGB32_Premultiplied);
    expected.fill(QColor(250, 250, 250));
    QImage actual = expected;
    QPainter one(&expected);
    QPainter image(&actual);
    rows.begin(width);
    int x = static_cast<int>(rng() % 3);
    while (x < width + 2) {
      const int x1 = x + 1 + static_cast<int>(rng() % 6);
      const QRgb colour = rows.colour(static_cast<trace::NameId>(rng() % 40), rng() % 2 == 0);
      if (x < width)  // the painter clamps to the row; a span past its end draws nothing
        one.fillRect(QRect(target.left() + x, target.top(), std::min(x1, width) - x, height), QColor(colour));
      rows.fill(x, x1, colour);
      x = x1 - static_cast<int>(rng() % 2) + static_cast<int>(rng() % 3);  // overlap by one, touch, or a gap
    }
    rows.end(image, target);
    one.end();
    image.end();
    QCOMPARE(actual, expected);
  }
}

void TestSliceRowPainter::coloursPerName() {
  SliceRowPainter a;
  SliceRowPainter b;
  for (trace::NameId name : {0u, 1u, 17u, 5000u, 3u}) {
    QCOMPARE(a.colour(name, false), b.colour(name, false));  // from the name alone
    QCOMPARE(qAlpha(a.colour(name, false)), 255);
    QVERIFY(QColor(a.colour(name, true)).value() < QColor(a.colour(name, false)).value());  // merged: darker
  }
  QVERIFY(a.colour(1, false) != a.colour(2, false));
  const QRgb before = a.colour(17, false);
  a.clearColours();
  QCOMPARE(a.colour(17, false), before);
}

QTEST_MAIN(TestSliceRowPainter)
#include "tst_slice_row_painter.moc"
