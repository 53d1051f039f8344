// SPDX-License-Identifier: Apache-2.0
// The two helpers every front door uses on outside input: checked narrowing and arithmetic of parsed numbers
// (common/checked_number.h) and terminal-safe text (common/terminal_text.h).
#include <fathom/common/checked_number.h>
#include <fathom/common/terminal_text.h>

#include <QTest>

#include <cstdint>
#include <limits>
#include <string>

using namespace fathom;

class TstCheckedInput : public QObject {
  Q_OBJECT

private slots:
  void narrowedIntegers() {
    QCOMPARE(narrowed<int>(std::int64_t{4294967298}), std::nullopt);  // static_cast<int> would give 2
    QCOMPARE(narrowed<int>(std::int64_t{-2147483649}), std::nullopt);
    QCOMPARE(narrowed<int>(std::int64_t{2147483647}), std::optional<int>(2147483647));
    QCOMPARE(narrowed<std::uint16_t>(-1), std::nullopt);
    QCOMPARE(narrowed<std::int64_t>(std::numeric_limits<std::uint64_t>::max()), std::nullopt);
    QCOMPARE(narrowed<std::size_t>(std::int64_t{-1}), std::nullopt);
  }

  void narrowedDoubles() {
    QCOMPARE(narrowed<std::int64_t>(1e30), std::nullopt);                   // static_cast: -9223372036854775808 on x86
    QCOMPARE(narrowed<std::int64_t>(9223372036854775808.0), std::nullopt);  // 2^63: one past the end
    QCOMPARE(narrowed<std::int64_t>(-9223372036854775808.0),
             std::optional<std::int64_t>(std::numeric_limits<std::int64_t>::min()));
    QCOMPARE(narrowed<std::int64_t>(9223372036854774784.0), std::optional<std::int64_t>(9223372036854774784));
    QCOMPARE(narrowed<int>(std::numeric_limits<double>::quiet_NaN()), std::nullopt);
    QCOMPARE(narrowed<int>(std::numeric_limits<double>::infinity()), std::nullopt);
    QCOMPARE(narrowed<int>(2.5), std::nullopt);
    QCOMPARE(narrowed<int>(8e9), std::nullopt);
    QCOMPARE(narrowed<std::int64_t>(8e9), std::optional<std::int64_t>(8'000'000'000));
  }

  void checkedNarrowNamesValueAndRange() {
    try {
      (void)checkedNarrow<int>(std::int64_t{4294967298}, "run.yaml:3:16: key 'num_processes'", 1, 1024);
      QFAIL("no error");
    } catch (const ConfigError& e) {
      QCOMPARE(std::string(e.what()), std::string("run.yaml:3:16: key 'num_processes': 4294967298 is out of range "
                                                  "(allowed 1..1024)"));
    }
    QVERIFY_THROWS_EXCEPTION(ConfigError, checkedNarrow<std::int64_t>(1e30, "memory_bytes"));
    try {
      (void)checkedNarrow<std::int64_t>(1.5, "memory_bytes");
      QFAIL("no error");
    } catch (const ConfigError& e) {
      QCOMPARE(std::string(e.what()), std::string("memory_bytes: 1.5 is not a whole number"));
    }
    QCOMPARE(checkedNarrow<int>(std::int64_t{7}, "x", 1, 10), 7);
  }

  void checkedArithmetic() {
    const CheckedInt64 big = std::int64_t{1} << 62;
    QVERIFY((big * 2).overflowed());
    QVERIFY((big * 2 + 1 - 1).overflowed());  // sticky
    QCOMPARE((big + (big - 1)).value(), std::optional<std::int64_t>(std::numeric_limits<std::int64_t>::max()));
    QVERIFY((CheckedInt64(5) / 0).overflowed());
    QCOMPARE(max(CheckedInt64(3), CheckedInt64(9)).value(), std::optional<std::int64_t>(9));
    QVERIFY(max(big * 4, CheckedInt64(1)).overflowed());
  }

  void terminalSafeEscapesControls_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("ESC clear screen") << QByteArray("\x1b[2J\x1b[Hkey") << QByteArray("\\x1b[2J\\x1b[Hkey");
    QTest::newRow("NUL BEL DEL") << QByteArray("a\0b\x07\x7f", 5) << QByteArray("a\\x00b\\x07\\x7f");
    QTest::newRow("newline, CR, tab") << QByteArray("a\nb\rc\td") << QByteArray("a\\x0ab\\x0dc\\x09d");
    QTest::newRow("C1 CSI as UTF-8") << QByteArray("x\xc2\x9b"
                                                   "31m")
                                     << QByteArray("x\\u009b31m");
    QTest::newRow("bidi override") << QByteArray("abc\xe2\x80\xae"
                                                 "def")
                                   << QByteArray("abc\\u202edef");
    QTest::newRow("raw C1 byte") << QByteArray("x\x9by") << QByteArray("x\\x9by");
    QTest::newRow("0xFF") << QByteArray("a\xff"
                                        "b")
                          << QByteArray("a\\xffb");
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << QByteArray("\\xc0\\xaf");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << QByteArray("\\xed\\xa0\\x80");
    QTest::newRow("truncated") << QByteArray("ok\xe4\xb8") << QByteArray("ok\\xe4\\xb8");
    QTest::newRow("printable UTF-8 kept")
        << QByteArray("Größe 模型 \xf0\x9f\x9a\x80 C:\\x") << QByteArray("Größe 模型 \xf0\x9f\x9a\x80 C:\\x");
  }
  void terminalSafeEscapesControls() {
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    const std::string out = terminalSafe(std::string_view(input.constData(), static_cast<std::size_t>(input.size())));
    QCOMPARE(QByteArray::fromStdString(out), expected);
    for (unsigned char c : out) {
      QVERIFY2(c >= 0x20 && c != 0x7f, "a control byte left in the output");
    }
    QVERIFY(isValidUtf8(out));
  }

  void terminalSafeKeepsLineBreaksWhenAsked() {
    QCOMPARE(terminalSafe("line one\n\tline two\r\x1b[2J", LineBreaks::Keep),
             std::string("line one\n\tline two\\x0d\\x1b[2J"));
  }

  void invalidUtf8Offset() {
    QCOMPARE(fathom::invalidUtf8Offset("plain"), std::nullopt);
    QCOMPARE(fathom::invalidUtf8Offset("模型"), std::nullopt);
    QCOMPARE(fathom::invalidUtf8Offset("ab\xff"), std::optional<std::size_t>(2));
    QCOMPARE(fathom::invalidUtf8Offset("\xf4\x90\x80\x80"), std::optional<std::size_t>(0));  // above U+10FFFF
  }
};

QTEST_GUILESS_MAIN(TstCheckedInput)
#include "tst_checked_input.moc"
