// SPDX-License-Identifier: Apache-2.0
// The shipped translations are complete: every message of fathom_de.ts and fathom_zh_CN.ts has a finished
// translation (no type="unfinished", "vanished" or "obsolete", nothing empty, every plural form filled), both
// catalogues hold the same messages, placeholders (%1, %n) survive translation, and the embedded .qm files load
// and translate.
#include "studio_translations.h"

#include <QCoreApplication>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace Qt::StringLiterals;

namespace {

struct Message {
  QString context;
  QString source;
  QString type;       ///< the translation's type attribute ("" = finished)
  QStringList forms;  ///< the translation, or its plural forms
  bool numerus = false;
};

QList<Message> readTs(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    qFatal("cannot read %s", qPrintable(path));
  }
  QList<Message> out;
  QXmlStreamReader xml(&file);
  QString context;
  Message m;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement()) {
      const auto name = xml.name();
      if (name == u"name"_s) {
        context = xml.readElementText();
      } else if (name == u"message"_s) {
        m = Message{context, {}, {}, {}, xml.attributes().value(u"numerus"_s) == u"yes"_s};
      } else if (name == u"source"_s) {
        m.source = xml.readElementText();
      } else if (name == u"translation"_s) {
        m.type = xml.attributes().value(u"type"_s).toString();
        if (!m.numerus) {
          m.forms << xml.readElementText();
        }
      } else if (name == u"numerusform"_s) {
        m.forms << xml.readElementText();
      }
    } else if (xml.isEndElement() && xml.name() == u"message"_s) {
      out << m;
    }
  }
  if (xml.hasError()) {
    qFatal("%s: %s", qPrintable(path), qPrintable(xml.errorString()));
  }
  return out;
}

QSet<QString> placeholders(const QString& text) {
  static const QRegularExpression re(u"%(\\d+|n)"_s);
  QSet<QString> out;
  for (auto it = re.globalMatch(text); it.hasNext();) {
    out.insert(it.next().captured(0));
  }
  return out;
}

}  // namespace

class TestTranslations : public QObject {
  Q_OBJECT

private slots:
  void catalogueIsComplete_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("pluralForms");
    QTest::newRow("de") << u"fathom_de.ts"_s << 2;
    QTest::newRow("zh_CN") << u"fathom_zh_CN.ts"_s << 1;
  }

  void catalogueIsComplete() {
    QFETCH(QString, file);
    QFETCH(int, pluralForms);
    const QList<Message> messages = readTs(QStringLiteral(FATHOM_SOURCE_DIR "/translations/") + file);
    QVERIFY(messages.size() > 300);
    QStringList problems;
    for (const Message& m : messages) {
      const QString where = m.context + u": "_s + m.source.left(60);
      if (!m.type.isEmpty()) {
        problems << u"%1 [%2]"_s.arg(where, m.type);
        continue;
      }
      if (m.numerus && m.forms.size() != pluralForms) {
        problems << u"%1 [%2 plural forms]"_s.arg(where).arg(m.forms.size());
      }
      for (const QString& form : m.forms) {
        if (form.trimmed().isEmpty()) {
          problems << u"%1 [empty]"_s.arg(where);
        } else if (!m.numerus && placeholders(form) != placeholders(m.source)) {
          problems << u"%1 [placeholders differ: %2]"_s.arg(where, form);
        }
      }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(u"\n"_s + problems.join(u'\n')));
  }

  void cataloguesHoldTheSameMessages() {
    auto keys = [](const QString& file) {
      QSet<QString> out;
      for (const Message& m : readTs(QStringLiteral(FATHOM_SOURCE_DIR "/translations/") + file)) {
        out.insert(m.context + u'\x1f' + m.source);
      }
      return out;
    };
    const QSet<QString> de = keys(u"fathom_de.ts"_s);
    const QSet<QString> zh = keys(u"fathom_zh_CN.ts"_s);
    QCOMPARE(QSet<QString>(de).subtract(zh), QSet<QString>());
    QCOMPARE(QSet<QString>(zh).subtract(de), QSet<QString>());
  }

  void embeddedCataloguesTranslate() {
    for (const auto& [locale, quit] : {std::pair{QLocale(QLocale::German, QLocale::Germany), u"&Beenden"_s},
                                       std::pair{QLocale(QLocale::Chinese, QLocale::China), u"退出(&Q)"_s}}) {
      QTranslator translator;
      QVERIFY(translator.load(locale, u"fathom"_s, u"_"_s, u":/i18n"_s));
      QCOMPARE(translator.translate("fathom::studio::MainWindow", "&Quit"), quit);
    }
  }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
