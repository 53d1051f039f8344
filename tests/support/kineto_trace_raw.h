// SPDX-License-Identifier: Apache-2.0
// The checker's first pass: what the raw text of a trace says that QJsonDocument hides (kineto_trace_checker.h).
#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace fathom::test::trace_check_detail {

/// What the text says that QJsonDocument does not.
struct RawScan {
  bool truncated = false;                        ///< EOF inside a string or before every container was closed
  QByteArray missingClosers;                     ///< e.g. "]}" when cut inside traceEvents
  QList<qsizetype> unicodeEscapes;               ///< byte offsets of every \u escape
  QMap<QByteArray, QByteArray> topLevelScalars;  ///< "baseTimeNanoseconds", "distributedInfo.rank" -> token
  QList<QByteArray> tsTokens;                    ///< by traceEvents index; empty where absent
  QList<QByteArray> durTokens;
};

/// A JSON tokenizer reduced to what the rules need: container nesting, the current key of every object, string
/// extents and scalar tokens. Malformed JSON is left to QJsonDocument; this pass only must not crash on it.
RawScan scanRaw(const QByteArray& text);

/// Nanoseconds from a µs token written in fixed point with at most 3 decimals ("25", "25.5", "25.000"), exactly;
/// nullopt for anything else ("25.0001", "2.5e1", "25.", strings).
std::optional<qint64> fixedMicrosToNanos(const QByteArray& token);

/// Perfetto's conversion of a JSON µs number to ns: static_cast<int64_t>(value.asDouble() * 1000.0), a
/// truncation (§1.6 CoerceToTs; Perfetto's X-event code applies the same conversion to dur).
qint64 perfettoNanos(double micros);

/// gunzip with zlib; windowBits 15+32 detects the gzip (or zlib) header. Concatenated members are joined.
std::optional<QByteArray> gunzip(const QByteArray& compressed, QString* error);

}  // namespace fathom::test::trace_check_detail
