// SPDX-License-Identifier: Apache-2.0
#include "kineto_trace_raw.h"

#include <zlib.h>

#include <limits>

namespace fathom::test::trace_check_detail {

using namespace Qt::StringLiterals;

static bool isTokenChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

/// A JSON tokenizer reduced to what the rules need: container nesting, the current key of every object, string
/// extents and scalar tokens. Malformed JSON is left to QJsonDocument; this pass only must not crash on it.
RawScan scanRaw(const QByteArray& text) {
  struct Frame {
    char kind;           // '{' or '['
    QByteArrayView key;  // the object's current key (a view into `text`)
    bool expectKey;      // true between '{' or ',' and the next key
  };
  RawScan scan;
  std::vector<Frame> stack;
  int event = -1;
  const auto inTraceEventsArray = [&] {
    return stack.size() == 2 && stack[0].kind == '{' && stack[0].key == "traceEvents" && stack[1].kind == '[';
  };
  const auto beginValue = [&] {
    if (inTraceEventsArray()) {
      ++event;
      scan.tsTokens.append(QByteArray());
      scan.durTokens.append(QByteArray());
    }
  };
  const auto recordScalar = [&](QByteArrayView token) {
    const bool eventField = stack.size() == 3 && stack[0].kind == '{' && stack[0].key == "traceEvents" &&
                            stack[1].kind == '[' && stack[2].kind == '{' && event >= 0;
    if (eventField && stack[2].key == "ts")
      scan.tsTokens[event] = token.toByteArray();
    else if (eventField && stack[2].key == "dur")
      scan.durTokens[event] = token.toByteArray();
    else if (stack.size() <= 2 &&
             std::all_of(stack.begin(), stack.end(), [](const Frame& f) { return f.kind == '{'; })) {
      QByteArrayList path;
      for (const Frame& f : stack)
        path << f.key.toByteArray();
      scan.topLevelScalars.insert(path.join('.'), token.toByteArray());
    }
  };

  const qsizetype n = text.size();
  qsizetype i = 0;
  bool insideString = false;
  while (i < n) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      beginValue();
      stack.push_back({c, {}, c == '{'});
      ++i;
    } else if (c == '}' || c == ']') {
      if (!stack.empty())
        stack.pop_back();
      ++i;
    } else if (c == ',') {
      if (!stack.empty() && stack.back().kind == '{')
        stack.back().expectKey = true;
      ++i;
    } else if (c == ':') {
      if (!stack.empty())
        stack.back().expectKey = false;
      ++i;
    } else if (c == '"') {
      qsizetype j = i + 1;
      while (j < n && text[j] != '"') {
        if (text[j] == '\\') {
          if (j + 1 < n && text[j + 1] == 'u')
            scan.unicodeEscapes.append(j);
          ++j;  // skip the escaped character (it may be a quote)
        }
        ++j;
      }
      if (j >= n) {
        insideString = true;
        break;
      }
      const QByteArrayView str = QByteArrayView(text).sliced(i + 1, j - i - 1);
      if (!stack.empty() && stack.back().kind == '{' && stack.back().expectKey) {
        stack.back().key = str;
      } else {
        beginValue();
        recordScalar(QByteArrayView(text).sliced(i, j - i + 1));  // with its quotes, so it never reads as a number
      }
      i = j + 1;
    } else if (isTokenChar(c)) {
      qsizetype j = i;
      while (j < n && isTokenChar(text[j]))
        ++j;
      beginValue();
      recordScalar(QByteArrayView(text).sliced(i, j - i));
      i = j;
    } else {
      ++i;  // whitespace, or a stray byte QJsonDocument will report
    }
  }
  scan.truncated = insideString || !stack.empty() || text.trimmed().isEmpty();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    scan.missingClosers += it->kind == '{' ? '}' : ']';
  return scan;
}

/// Nanoseconds from a µs token written in fixed point with at most 3 decimals ("25", "25.5", "25.000"), exactly;
/// nullopt for anything else ("25.0001", "2.5e1", "25.", strings). Hand-rolled: it runs once per event.
std::optional<qint64> fixedMicrosToNanos(const QByteArray& token) {
  const auto digit = [&](qsizetype i) { return i < token.size() && token[i] >= '0' && token[i] <= '9'; };
  qsizetype i = 0;
  const bool negative = !token.isEmpty() && token[0] == '-';
  if (negative)
    ++i;
  if (!digit(i))
    return std::nullopt;
  qint64 whole = 0;
  for (; digit(i); ++i) {
    if (whole > (std::numeric_limits<qint64>::max() / 1000 - 1) / 10)
      return std::nullopt;  // would overflow as ns
    whole = whole * 10 + (token[i] - '0');
  }
  qint64 frac = 0;
  int fracDigits = 0;
  if (i < token.size() && token[i] == '.') {
    for (++i; digit(i); ++i) {
      if (++fracDigits > 3)
        return std::nullopt;
      frac = frac * 10 + (token[i] - '0');
    }
    if (fracDigits == 0)
      return std::nullopt;
  }
  if (i != token.size())
    return std::nullopt;
  for (; fracDigits < 3; ++fracDigits)
    frac *= 10;
  const qint64 ns = whole * 1000 + frac;
  return negative ? -ns : ns;
}

/// Perfetto's conversion of a JSON µs number to ns: static_cast<int64_t>(value.asDouble() * 1000.0), a
/// truncation (§1.6 CoerceToTs; Perfetto's X-event code applies the same conversion to dur).
qint64 perfettoNanos(double micros) {
  return static_cast<qint64>(micros * 1000.0);
}

/// gunzip with zlib; windowBits 15+32 detects the gzip (or zlib) header. Concatenated members are joined.
std::optional<QByteArray> gunzip(const QByteArray& compressed, QString* error) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    *error = u"inflateInit2 failed"_s;
    return std::nullopt;
  }
  QByteArray out;
  QByteArray chunk(256 * 1024, Qt::Uninitialized);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.constData()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  int rc = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk.data());
    zs.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk.constData(), chunk.size() - zs.avail_out);
    if (rc == Z_STREAM_END && zs.avail_in > 0) {
      inflateReset(&zs);  // another gzip member follows
      continue;
    }
    if (rc != Z_OK)
      break;
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      rc = Z_BUF_ERROR;  // input exhausted before the end of the stream
      break;
    }
  }
  const QString zmsg = zs.msg ? QString::fromLatin1(zs.msg) : QString::number(rc);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    *error = u"gzip stream is corrupt or truncated ("_s + zmsg + u")"_s;
    return std::nullopt;
  }
  return out;
}

}  // namespace fathom::test::trace_check_detail
