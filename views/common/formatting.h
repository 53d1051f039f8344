// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/collective_wavefront.h>

#include <QString>

#include <optional>

namespace fathom::views {

/// How the Studio writes quantities: in the UI language's number format, with translated units.
namespace format {

/// Bytes in binary units, one decimal: "79.6 GiB", "512 bytes" (QLocale's IEC format).
QString bytes(double bytes);
/// A difference of bytes with its sign: "+1.5 MiB", "-512 bytes", "0 bytes".
QString signedBytes(double bytes);
/// A duration: "850 µs", "12.4 ms", "3.52 s", "4 min 05 s", "2 h 03 min".
QString duration(double seconds);
/// A parameter count: "112.4 thousand", "10.8 million", "6.74 billion" (translated), or the plain number below 1000.
QString parameters(double count);
/// A loss or other scalar metric: 4 significant digits, "NaN" when not a number, "–" when absent.
QString scalar(std::optional<double> value);
/// Throughput: "12,345 tokens/s".
QString tokensPerSecond(double value);
/// A fraction as a percentage with one decimal: "41.3 %".
QString percent(double fraction);
/// A time (seconds since the Unix epoch) as the local time of day: "14:03:07", or "14:03:07.250" with `millis`.
QString timeOfDay(double unixSeconds, bool millis = false);
/// A collective call of a rank's wavefront: "all_reduce #12 (world)"; "–" when absent. Kind and group stay in core's
/// spelling (they are names, as in `fathom runs watch` and the traces).
QString collective(const std::optional<parallel::CollectivePosition>& call);

}  // namespace format
}  // namespace fathom::views
