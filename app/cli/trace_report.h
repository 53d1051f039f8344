// SPDX-License-Identifier: Apache-2.0
// Text and JSON renderings of the trace tools' results for `fathom trace summary|validate` (trace_command.cpp).
#pragma once

#include <fathom/trace/trace_summary.h>
#include <fathom/trace/trace_validator.h>

#include <nlohmann/json.hpp>

#include <iosfwd>

namespace fathom::cli {

/// The summary as aligned tables: step breakdown (ms and % of the window), top ops, top kernels, collectives,
/// Fathom's spans, memory peaks (MiB/GiB).
void printTraceSummary(std::ostream& out, const trace::TraceSummary& summary);
/// The summary as JSON (times in ns, bytes in bytes, with the definitions' names).
nlohmann::json traceSummaryJson(const trace::TraceSummary& summary);

/// "FILE: OK (...)" or "FILE: INVALID: ..." and one line per kept finding, with its excerpt.
void printValidationReport(std::ostream& out, const trace::TraceValidationReport& report);
nlohmann::json validationReportJson(const trace::TraceValidationReport& report);

/// The rules, one a line: id, level, source, description.
void printTraceRules(std::ostream& out);

}  // namespace fathom::cli
