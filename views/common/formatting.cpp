// SPDX-License-Identifier: Apache-2.0
#include "common/formatting.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views::format {
namespace {

/// The translation context of the units ("Format" in the .ts files).
struct Format {
  Q_DECLARE_TR_FUNCTIONS(Format)
};

}  // namespace

QString bytes(double value) {
  if (!std::isfinite(value)) {
    return Format::tr("unknown");
  }
  const QLocale locale;
  const QString text =
      locale.formattedDataSize(static_cast<qint64>(std::llround(std::fabs(value))), 1, QLocale::DataSizeIecFormat);
  return value < 0 ? locale.negativeSign() + text : text;
}

QString signedBytes(double value) {
  return (value > 0 ? QLocale().positiveSign() : QString()) + bytes(value);
}

QString duration(double seconds) {
  const QLocale locale;
  if (!std::isfinite(seconds)) {
    return Format::tr("unknown");
  }
  if (seconds < 1e-3) {
    return Format::tr("%1 µs").arg(locale.toString(seconds * 1e6, 'f', 0));
  }
  if (seconds < 1.0) {
    return Format::tr("%1 ms").arg(locale.toString(seconds * 1e3, 'f', seconds < 0.1 ? 2 : 1));
  }
  if (seconds < 60.0) {
    return Format::tr("%1 s").arg(locale.toString(seconds, 'f', seconds < 10.0 ? 2 : 1));
  }
  const auto whole = static_cast<qint64>(std::llround(seconds));
  if (whole < 3600) {
    return Format::tr("%1 min %2 s").arg(whole / 60).arg(whole % 60, 2, 10, QLatin1Char('0'));
  }
  return Format::tr("%1 h %2 min").arg(whole / 3600).arg((whole % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString parameters(double count) {
  const QLocale locale;
  if (count >= 1e9) {
    return Format::tr("%1 billion").arg(locale.toString(count / 1e9, 'f', 2));
  }
  if (count >= 1e6) {
    return Format::tr("%1 million").arg(locale.toString(count / 1e6, 'f', 1));
  }
  if (count >= 1e3) {
    return Format::tr("%1 thousand").arg(locale.toString(count / 1e3, 'f', 1));
  }
  return locale.toString(static_cast<qint64>(std::llround(count)));
}

QString scalar(std::optional<double> value) {
  if (!value) {
    return u"–"_s;
  }
  if (std::isnan(*value)) {
    return Format::tr("NaN");
  }
  return QLocale().toString(*value, 'g', 4);
}

QString tokensPerSecond(double value) {
  return Format::tr("%1 tokens/s").arg(QLocale().toString(value, 'f', 0));
}

QString percent(double fraction) {
  return Format::tr("%1 %").arg(QLocale().toString(100.0 * fraction, 'f', 1));
}

QString timeOfDay(double unixSeconds, bool millis) {
  return QLocale().toString(QDateTime::fromMSecsSinceEpoch(std::llround(unixSeconds * 1000.0)).toLocalTime().time(),
                            millis ? u"HH:mm:ss.zzz" : u"HH:mm:ss");
}

QString collective(const std::optional<parallel::CollectivePosition>& call) {
  if (!call) {
    return QStringLiteral("–");
  }
  return QStringLiteral("%1 #%2 (%3)")
      .arg(QString::fromUtf8(parallel::toString(call->kind)))
      .arg(call->sequence)
      .arg(QString::fromStdString(call->group));
}

}  // namespace fathom::views::format
