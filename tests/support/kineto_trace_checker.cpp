// SPDX-License-Identifier: Apache-2.0
// The checker's two passes put together (kineto_trace_checker.h).
#include "kineto_trace_checker.h"

#include "kineto_trace_rules.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace fathom::test {

using namespace Qt::StringLiterals;

/// Checks the text of a trace (.json bytes, or .json.gz bytes: gzip is recognised by its magic number).
TraceCheck checkKinetoTraceBytes(const QByteArray& fileBytes, const TraceCheckOptions& options) {
  using namespace trace_check_detail;
  TraceCheck result;
  QByteArray text = fileBytes;
  // §2.6.1: HTA reads *.json and *.json.gz; 1f 8b is gzip's magic number (RFC 1952).
  if (text.startsWith("\x1f\x8b")) {
    QString why;
    const auto plain = gunzip(text, &why);
    if (!plain) {
      result.errors << u"[gzip] "_s + why;
      result.errorsByRule[u"gzip"_s] = 1;
      return result;
    }
    text = *plain;
  }
  const RawScan raw = scanRaw(text);
  Context ctx(options, result, raw);

  // §1.1: Perfetto's tokenizer rejects \uXXXX escapes; emit plain UTF-8.
  for (qsizetype offset : raw.unicodeEscapes)
    ctx.error(u"unicode-escape"_s, u"\\u escape at byte "_s + QString::number(offset));

  // §1.1: "Fathom should still always close the file" (only the array form may omit its ']').
  if (raw.truncated) {
    ctx.error(u"truncated"_s, text.trimmed().isEmpty() ? u"the file is empty"_s
                                                       : u"the file ends early: missing '"_s +
                                                             QString::fromLatin1(raw.missingClosers) + u"'"_s);
    noteCapped(options, result.errors, result.errorsByRule);
    return result;
  }

  // §1.1 / §2.6.2 / §2.7: the object form {"traceEvents":[...], ...}; HTA needs it.
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    ctx.error(u"json"_s, parseError.errorString() + u" at byte "_s + QString::number(parseError.offset));
  } else if (!doc.isObject()) {
    ctx.error(u"object-form"_s, u"the trace is not a JSON object (the array form has no room for distributedInfo)"_s);
  } else if (!doc.object().value(u"traceEvents"_s).isArray()) {
    ctx.error(u"trace-events"_s, u"no traceEvents array"_s);
  } else {
    const QJsonObject top = doc.object();
    checkTopLevel(ctx, top);
    const QJsonArray events = top.value(u"traceEvents"_s).toArray();
    result.eventCount = static_cast<int>(events.size());
    for (int i = 0; i < result.eventCount; ++i)
      checkEvent(ctx, i, events.at(i));
    checkRowNames(ctx);
    checkNesting(ctx);
    checkSteps(ctx);
    checkGpuCorrelation(ctx);
    checkFlows(ctx);
    fillStats(ctx);
  }
  noteCapped(options, result.errors, result.errorsByRule);
  noteCapped(options, result.warnings, result.warningsByRule);
  return result;
}

/// Checks the trace file at `path` (.json or .json.gz).
TraceCheck checkKinetoTrace(const QString& path, const TraceCheckOptions& options) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    TraceCheck result;
    result.errors << QStringLiteral("[file] cannot read ") + path + QStringLiteral(": ") + file.errorString();
    result.errorsByRule[QStringLiteral("file")] = 1;
    return result;
  }
  const QByteArray bytes = file.readAll();
  TraceCheck result = checkKinetoTraceBytes(bytes, options);
  const bool gzipped = bytes.startsWith("\x1f\x8b");
  // §2.6.1: HTA picks up *.json and *.json.gz files; a .gz name on plain text would fail its gzip.open.
  if (path.endsWith(QStringLiteral(".gz")) && !gzipped) {
    result.errors << QStringLiteral("[gzip] ") + path + QStringLiteral(" is named .gz but is not gzip");
    ++result.errorsByRule[QStringLiteral("gzip")];
  } else if (!path.endsWith(QStringLiteral(".json")) && !path.endsWith(QStringLiteral(".json.gz"))) {
    result.warnings << QStringLiteral("[file-name] HTA loads only *.json and *.json.gz: ") + QFileInfo(path).fileName();
    ++result.warningsByRule[QStringLiteral("file-name")];
  }
  return result;
}

}  // namespace fathom::test
