// SPDX-License-Identifier: Apache-2.0
// House rule: core/ is Qt-free (it is built on GPU hosts and clusters without Qt). Every file under core/ is
// scanned for a Qt include, a Qt macro or a Qt link; the CMake link check in core/CMakeLists.txt is the second
// guard.
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
// <QString>, <QtCore/...>, "qobject.h". (Plain literals: moc's tokenizer does not understand raw strings.)
QRegularExpression qtIncludePattern() {
  return QRegularExpression(QStringLiteral("^\\s*#\\s*include\\s*[<\"](Q[A-Za-z]|Qt[A-Za-z]*/|q[a-z]+\\.h[>\"])"),
                            QRegularExpression::MultilineOption);
}
}  // namespace

class TestCoreNoQt : public QObject {
  Q_OBJECT

private slots:
  void sourcesIncludeNoQt() {
    const QString coreDir = QStringLiteral(FATHOM_SOURCE_DIR "/core");
    QVERIFY2(QFileInfo(coreDir).isDir(), qPrintable(coreDir));
    const QRegularExpression include = qtIncludePattern();
    const QRegularExpression macro(QStringLiteral("\\bQ_(OBJECT|GADGET|PROPERTY|SIGNALS|SLOTS|INVOKABLE)\\b"));
    const QRegularExpression link(QStringLiteral("\\bQt[0-9]*::"));
    QStringList offenders;
    int scanned = 0;
    QDirIterator it(coreDir, {u"*.h"_s, u"*.hpp"_s, u"*.cpp"_s, u"*.in"_s, u"CMakeLists.txt"_s}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
      const QString path = it.next();
      QFile file(path);
      QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
      const QString text = QString::fromUtf8(file.readAll());
      ++scanned;
      const bool isCmake = path.endsWith(u"CMakeLists.txt"_s);
      if (!isCmake && (include.match(text).hasMatch() || macro.match(text).hasMatch())) {
        offenders << path;
      }
      // CMake may name Qt only in its guard that rejects it.
      if (isCmake) {
        for (const QString& line : text.split(u'\n')) {
          if (link.match(line).hasMatch() && !line.contains(u"MATCHES"_s)) {
            offenders << path + u": "_s + line.trimmed();
          }
        }
      }
    }
    QVERIFY2(scanned > 10, "the scan found almost no files: wrong source dir?");
    QVERIFY2(offenders.isEmpty(), qPrintable(u"Qt used in core/: "_s + offenders.join(u", "_s)));
  }

  void scannerCatchesQtIncludes() {
    // The regular expression must flag the spellings people actually write.
    const QRegularExpression include = qtIncludePattern();
    for (const QString& line :
         {u"#include <QString>"_s, u"  # include \"QtCore/qobject.h\""_s, u"#include <qglobal.h>"_s}) {
      QVERIFY2(include.match(line).hasMatch(), qPrintable(line));
    }
    for (const QString& line : {u"#include <torch/torch.h>"_s, u"#include <queue>"_s, u"// QString mention"_s}) {
      QVERIFY2(!include.match(line).hasMatch(), qPrintable(line));
    }
  }
};

QTEST_GUILESS_MAIN(TestCoreNoQt)
#include "tst_core_no_qt.moc"
