// SPDX-License-Identifier: Apache-2.0
#include "trace_export.h"

#include <fathom/common/error.h>
#include <fathom/trace/trace_copy.h>
#include <fathom/trace/trace_file_names.h>
#include <fathom/trace/trace_file_sink.h>
#include <fathom/trace/trace_range_export.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <vector>

namespace fathom::cli {
namespace {

namespace fs = std::filesystem;

/// Reads the whole stored trace once, with the readers' checks, to say whether it is complete (a run that is still
/// writing, or that died, leaves a partial one). Returns the reader's complaint, or nothing.
std::optional<std::string> incompleteness(const std::string& label, const std::string& bytes) {
  try {
    trace::checkTraceEvents(trace::TraceInput::fromBytes(label, bytes));
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

/// "profile_1.json.gz" -> "profile_1": the last path component without .json / .gz.
std::string baseName(const std::string& name) {
  std::string base = fs::path(name).filename().string();
  for (const char* suffix : {".gz", ".json"}) {
    if (base.size() > std::string_view(suffix).size() && base.ends_with(suffix)) {
      base.resize(base.size() - std::string_view(suffix).size());
    }
  }
  return base;
}

std::string listing(const std::vector<StoredTrace>& traces) {
  if (traces.empty()) {
    return " The run has no traces.";
  }
  std::string text = " The run's traces (name, rank, bytes):";
  for (const auto& t : traces) {
    text += "\n  " + t.name + "  rank " + std::to_string(t.rank) + "  " + std::to_string(t.bytes);
  }
  return text;
}

std::string rankList(const std::set<int>& ranks) {
  std::string text;
  for (const int rank : ranks) {
    text += (text.empty() ? "" : ", ") + std::to_string(rank);
  }
  return text;
}

/// The stored traces a request selects, and why, in words.
struct Choice {
  std::vector<StoredTrace> traces;
  std::string why;  ///< empty when the request named exactly what it got
};

class Chooser {
public:
  Chooser(const RunTraces& run, const RunExportRequest& request) : m_run(run), m_request(request) {
    for (const StoredTrace& t : run.traces) {
      if (request.name.empty() || t.name == request.name) {
        m_candidates.push_back(t);
      }
    }
    FATHOM_CHECK(!m_candidates.empty(), ConfigError, run.label, " has no ",
                 request.name.empty() ? "traces" : "trace \"" + request.name + "\"", ".", listing(run.traces));
  }

  Choice choose() const {
    if (m_request.allRanks) {
      Choice choice;
      for (const int rank : ranks()) {
        choice.traces.push_back(one(atRank(rank), " for rank " + std::to_string(rank)));
      }
      FATHOM_CHECK(!choice.traces.empty(), ConfigError, m_run.label, " has no per-rank trace", named(), ".",
                   listing(m_run.traces));
      return choice;
    }
    if (m_request.rank) {
      return {{one(atRank(*m_request.rank), named() + " for rank " + std::to_string(*m_request.rank))}, {}};
    }
    std::vector<StoredTrace> merged;
    std::copy_if(m_candidates.begin(), m_candidates.end(), std::back_inserter(merged),
                 [](const StoredTrace& t) { return trace::isMergedTraceName(t.name); });
    if (!merged.empty()) {
      return {{one(merged, named())}, "the merged trace of every rank (--rank N for one rank's trace)"};
    }
    const std::set<int> all = ranks();
    const StoredTrace chosen = one(atRank(*all.begin()), named());
    std::string why;
    if (all.size() > 1) {
      why = "rank " + std::to_string(chosen.rank) + " of ranks " + rankList(all) +
            " (--rank N for another, --rank all for one file each)";
    }
    return {{chosen}, why};
  }

private:
  /// ` "NAME"` when --name was given.
  std::string named() const { return m_request.name.empty() ? "" : " \"" + m_request.name + "\""; }

  /// The candidates of `rank`. A merged trace is stored as its writer's rank but is no rank's own trace: only a
  /// --name that names it selects it by rank.
  std::vector<StoredTrace> atRank(int rank) const {
    std::vector<StoredTrace> found;
    for (const StoredTrace& t : m_candidates) {
      if (t.rank == rank && (!m_request.name.empty() || !trace::isMergedTraceName(t.name))) {
        found.push_back(t);
      }
    }
    return found;
  }

  /// The ranks with a trace of their own among the candidates.
  std::set<int> ranks() const {
    std::set<int> found;
    for (const StoredTrace& t : m_candidates) {
      if (!m_request.name.empty() || !trace::isMergedTraceName(t.name)) {
        found.insert(t.rank);
      }
    }
    return found;
  }

  /// The one trace of `found`; none or several is a ConfigError that lists the run's traces.
  StoredTrace one(const std::vector<StoredTrace>& found, const std::string& what) const {
    FATHOM_CHECK(!found.empty(), ConfigError, m_run.label, " has no trace", what, ".", listing(m_run.traces));
    FATHOM_CHECK(found.size() == 1, ConfigError, m_run.label, " has several traces", what, ": pass --name.",
                 listing(m_run.traces));
    return found.front();
  }

  const RunTraces& m_run;
  const RunExportRequest& m_request;
  std::vector<StoredTrace> m_candidates;
};

/// Whether -o names a directory: --rank all (one file each), a trailing '/', or an existing directory.
bool outputIsDirectory(const RunExportRequest& request) {
  return !request.output.empty() &&
         (request.allRanks || request.output.ends_with('/') || fs::is_directory(request.output));
}

}  // namespace

void writeTraceFile(trace::TraceInput input, const fs::path& output, std::string_view rawBytes) {
  const bool wantGzip = output.extension() == ".gz";
  const bool copy = !rawBytes.empty() && input.compressed() == wantGzip;
  trace::TraceFileSink sink(output, {.gzip = wantGzip && !copy});  // a copy of gzip bytes is already gzip
  if (copy) {
    sink.write(rawBytes);
  } else {
    std::vector<char> block(std::size_t{1} << 20);
    while (const std::size_t n = input.read(block.data(), block.size())) {
      sink.write(std::string_view(block.data(), n));
    }
  }
  sink.finish();
}

void exportRunTraces(const RunTraces& run, const RunExportRequest& request) {
  const Choice choice = Chooser(run, request).choose();
  const bool toDirectory = outputIsDirectory(request);
  if (toDirectory) {
    FATHOM_CHECK(!fs::exists(request.output) || fs::is_directory(request.output), ConfigError, "-o ", request.output,
                 " is a file, but ",
                 request.allRanks ? "--rank all writes one file per rank into" : "it ends with '/':", " a directory");
    std::error_code error;
    fs::create_directories(request.output, error);
    FATHOM_CHECK(!error, ConfigError, "cannot create the directory -o ", request.output, ": ", error.message());
  }
  if (!choice.why.empty()) {
    std::cerr << "fathom trace: " << run.label << ": exporting " << choice.why << '\n';
  }
  for (const StoredTrace& stored : choice.traces) {
    const std::string bytes = run.read(stored);
    const bool gz = trace::isGzip(bytes);
    const std::string fileName = baseName(stored.name) +
                                 (trace::isMergedTraceName(stored.name) ? "" : ".rank" + std::to_string(stored.rank)) +
                                 (gz ? ".json.gz" : ".json");
    const fs::path output = request.output.empty() ? fs::path(fileName)
                            : toDirectory          ? fs::path(request.output) / fileName
                                                   : fs::path(request.output);
    const std::string label = run.label + " trace \"" + stored.name + "\" rank " + std::to_string(stored.rank);
    if (const auto problem = incompleteness(label, bytes)) {
      std::cerr << "fathom trace: warning: the stored trace is incomplete (still being written, or its run "
                   "ended early); exporting it as it is: "
                << *problem << '\n';
    }
    if (request.range) {
      const trace::TraceRangeExportResult result =
          trace::exportTraceRange([&] { return trace::TraceInput::fromBytes(label, bytes); }, output,
                                  {.range = request.range, .gzip = output.extension() == ".gz"});
      std::cerr << "Exported " << result.eventsWritten << " of " << result.eventsRead << " events of " << label
                << " (the range) to " << output.string() << '\n';
      continue;
    }
    writeTraceFile(trace::TraceInput::fromBytes(label, bytes), output, bytes);
    std::cerr << "Exported " << label << " (" << bytes.size() << " bytes" << (gz ? ", gzip" : "") << ") to "
              << output.string() << '\n';
  }
}

}  // namespace fathom::cli
