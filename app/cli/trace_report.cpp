// SPDX-License-Identifier: Apache-2.0
#include "trace_report.h"

#include "text_table.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace fathom::cli {
namespace {

using trace::TimeBreakdown;

std::string ms(std::int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e6);
  return text;
}

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * fraction);
  return text;
}

/// "12.0 ms (34.5%)": a time and its share of the window.
std::string share(std::int64_t ns, std::int64_t of) {
  return ms(ns) + " (" + percent(of > 0 ? static_cast<double>(ns) / static_cast<double>(of) : 0.0) + ")";
}

/// "512 B", "12.50 MiB", "1.25 GiB".
std::string bytes(std::int64_t b) {
  return formatBinaryBytes(static_cast<double>(b), 2);
}

std::vector<std::string> breakdownRow(std::string label, const TimeBreakdown& t, bool gpu) {
  std::vector<std::string> row{std::move(label), ms(t.spanNs), share(t.computeNs, t.spanNs),
                               share(t.communicationNs, t.spanNs), share(t.dataLoadingNs, t.spanNs)};
  if (gpu) {
    row.push_back(share(t.memoryNs, t.spanNs));
  }
  row.push_back(share(t.idleNs, t.spanNs));
  row.push_back(t.communicationNs > 0 ? percent(t.overlapFraction()) : "-");
  return row;
}

void opTable(std::ostream& out, const char* title, const std::vector<trace::OpStats>& ops, bool self) {
  if (ops.empty()) {
    return;
  }
  out << '\n' << title << '\n';
  std::vector<std::vector<std::string>> rows{
      {"NAME", "COUNT", self ? "SELF (ms)" : "TOTAL (ms)", self ? "TOTAL (ms)" : "MEAN (ms)", "MAX (ms)"}};
  for (const auto& op : ops) {
    const std::int64_t mean = op.count > 0 ? op.totalNs / static_cast<std::int64_t>(op.count) : 0;
    rows.push_back({op.name, std::to_string(op.count), ms(self ? op.selfNs : op.totalNs), ms(self ? op.totalNs : mean),
                    ms(op.maxNs)});
  }
  printTable(out, rows, ColumnAlign::NumbersRight);
}

nlohmann::json breakdownJson(const TimeBreakdown& t) {
  return {{"span_ns", t.spanNs},
          {"compute_ns", t.computeNs},
          {"communication_ns", t.communicationNs},
          {"data_loading_ns", t.dataLoadingNs},
          {"memory_ns", t.memoryNs},
          {"idle_ns", t.idleNs},
          {"overlap_ns", t.overlapNs},
          {"overlap_fraction", t.overlapFraction()}};
}

nlohmann::json opsJson(const std::vector<trace::OpStats>& ops) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& op : ops) {
    out.push_back({{"name", op.name},
                   {"count", op.count},
                   {"total_ns", op.totalNs},
                   {"self_ns", op.selfNs},
                   {"max_ns", op.maxNs}});
  }
  return out;
}

nlohmann::json issuesJson(const std::vector<trace::TraceIssue>& issues) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& i : issues) {
    out.push_back({{"rule", i.rule},
                   {"message", i.message},
                   {"event", i.eventIndex >= 0 ? nlohmann::json(i.eventIndex) : nlohmann::json(nullptr)},
                   {"byte", i.byteOffset >= 0 ? nlohmann::json(i.byteOffset) : nlohmann::json(nullptr)},
                   {"excerpt", i.excerpt}});
  }
  return out;
}

}  // namespace

void printTraceSummary(std::ostream& out, const trace::TraceSummary& s) {
  const bool gpu = s.timeline == trace::SummaryTimeline::Gpu;
  out << "Trace " << s.file << ": " << (s.rank ? "rank " + std::to_string(*s.rank) + ", " : std::string()) << s.events
      << " events, " << ms(s.traceSpanNs) << " ms, " << (gpu ? "GPU" : "CPU") << " timeline\n";
  out << "\nStep time (ms, % of the step" << (gpu ? "'s GPU span" : "") << "; kinds overlap, so they can add up "
      << "to more than the span)\n";
  std::vector<std::vector<std::string>> rows{{"STEP", "SPAN", "COMPUTE", "COMMUNICATION", "DATA LOADING"}};
  if (gpu) {
    rows[0].push_back("MEMORY");
  }
  rows[0].push_back("IDLE");
  rows[0].push_back("COMM OVERLAP");
  for (const auto& step : s.steps) {
    rows.push_back(breakdownRow(std::to_string(step.step), step.time, gpu));
  }
  rows.push_back(breakdownRow(s.steps.empty() ? "trace" : "all", s.total, gpu));
  printTable(out, rows, ColumnAlign::NumbersRight);

  opTable(out, "Top ops by self time (cpu_op)", s.topOps, true);
  opTable(out, "Top GPU kernels by time", s.topKernels, false);
  if (!s.collectives.empty()) {
    out << "\nCollectives\n";
    std::vector<std::vector<std::string>> c{{"KIND", "COUNT", "TIME (ms)", "BYTES"}};
    for (const auto& x : s.collectives) {
      c.push_back({x.kind, std::to_string(x.count), ms(x.totalNs), x.bytes ? bytes(*x.bytes) : "-"});
    }
    printTable(out, c, ColumnAlign::NumbersRight);
  }
  opTable(out, "Fathom spans", s.spans, false);
  if (!s.memory.empty()) {
    out << "\nMemory peaks\n";
    std::vector<std::vector<std::string>> m{{"CATEGORY", "PEAK"}};
    for (const auto& x : s.memory) {
      m.push_back({x.category, bytes(x.peakBytes)});
    }
    printTable(out, m, ColumnAlign::NumbersRight);
  }
}

nlohmann::json traceSummaryJson(const trace::TraceSummary& s) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& step : s.steps) {
    nlohmann::json row = breakdownJson(step.time);
    row["step"] = step.step;
    row["start_ns"] = step.startNs;
    steps.push_back(std::move(row));
  }
  nlohmann::json collectives = nlohmann::json::array();
  for (const auto& c : s.collectives) {
    collectives.push_back({{"kind", c.kind},
                           {"count", c.count},
                           {"total_ns", c.totalNs},
                           {"bytes", c.bytes ? nlohmann::json(*c.bytes) : nlohmann::json(nullptr)}});
  }
  nlohmann::json memory = nlohmann::json::object();
  for (const auto& m : s.memory) {
    memory[m.category] = m.peakBytes;
  }
  return {{"file", s.file},
          {"rank", s.rank ? nlohmann::json(*s.rank) : nlohmann::json(nullptr)},
          {"timeline", s.timeline == trace::SummaryTimeline::Gpu ? "gpu" : "cpu"},
          {"events", s.events},
          {"trace_span_ns", s.traceSpanNs},
          {"steps", steps},
          {"total", breakdownJson(s.total)},
          {"top_ops", opsJson(s.topOps)},
          {"top_kernels", opsJson(s.topKernels)},
          {"collectives", collectives},
          {"spans", opsJson(s.spans)},
          {"memory_peak_bytes", memory}};
}

void printValidationReport(std::ostream& out, const trace::TraceValidationReport& r) {
  if (r.valid()) {
    out << r.file << ": OK (" << r.events << " events, " << r.warningCount << " warning"
        << (r.warningCount == 1 ? "" : "s") << ")\n";
  } else {
    out << r.file << ": INVALID: " << r.errorCount << " error" << (r.errorCount == 1 ? "" : "s") << ", "
        << r.warningCount << " warning" << (r.warningCount == 1 ? "" : "s") << " (" << r.events << " events)\n";
  }
  for (const auto* list : {&r.errors, &r.warnings}) {
    const char* level = list == &r.errors ? "error  " : "warning";
    for (const auto& i : *list) {
      out << "  " << level << " [" << i.rule << "] "
          << (i.eventIndex >= 0
                  ? "event #" + std::to_string(i.eventIndex) + " (byte " + std::to_string(i.byteOffset) + "): "
                  : std::string())
          << i.message << '\n';
      if (!i.excerpt.empty()) {
        out << "          " << i.excerpt << '\n';
      }
    }
  }
  for (const auto& [rule, count] : r.issuesPerRule) {
    const auto kept = static_cast<std::uint64_t>(
        std::count_if(r.errors.begin(), r.errors.end(), [&](const auto& i) { return i.rule == rule; }) +
        std::count_if(r.warnings.begin(), r.warnings.end(), [&](const auto& i) { return i.rule == rule; }));
    if (count > kept) {
      out << "  ... and " << count - kept << " more [" << rule << "]\n";
    }
  }
}

nlohmann::json validationReportJson(const trace::TraceValidationReport& r) {
  return {{"file", r.file},
          {"valid", r.valid()},
          {"events", r.events},
          {"error_count", r.errorCount},
          {"warning_count", r.warningCount},
          {"errors", issuesJson(r.errors)},
          {"warnings", issuesJson(r.warnings)},
          {"issues_per_rule", r.issuesPerRule},
          {"phases", r.phases},
          {"categories", r.categories}};
}

void printTraceRules(std::ostream& out) {
  std::vector<std::vector<std::string>> rows{{"RULE", "LEVEL", "SOURCE", "CHECKS"}};
  for (const auto& rule : trace::TraceValidator::rules()) {
    rows.push_back({std::string(rule.id), rule.level == trace::TraceIssueLevel::Error ? "error" : "warning",
                    std::string(rule.source), std::string(rule.description)});
  }
  printTable(out, rows, ColumnAlign::Left);
}

}  // namespace fathom::cli
