// SPDX-License-Identifier: Apache-2.0
// `fathom trace export|merge|summary|validate`: Chrome/Kineto trace files from the workspace or the disk.
// docs/traces.md. Usage errors are ConfigErrors (exit 2), so every subcommand parses its own positionals and numbers
// and refuses unknown flags itself rather than leaving them to CLI11's exit codes.
#include "trace_command.h"
#include "trace_export.h"
#include "trace_report.h"

#include <fathom/common/error.h>
#include <fathom/trace/trace_copy.h>
#include <fathom/trace/trace_event_view.h>
#include <fathom/trace/trace_file_names.h>
#include <fathom/trace/trace_input.h>
#include <fathom/trace/trace_merge.h>
#include <fathom/trace/trace_range_export.h>
#include <fathom/trace/trace_summary.h>
#include <fathom/trace/trace_validator.h>

#include <charconv>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace fathom::cli {
namespace {

namespace fs = std::filesystem;

struct TraceFlags {
  std::vector<std::string> inputs;  ///< positionals
  std::string output;               ///< -o
  std::string workspace;            ///< export --workspace
  std::string run;                  ///< export --run
  std::string rank;                 ///< export --rank: a number or "all"; summary --rank: a number
  std::string ranks;                ///< merge --ranks: one number per input, comma-separated
  std::string name;                 ///< export --name
  std::string top = "10";           ///< summary --top
  std::string from;                 ///< summary/export --from: microseconds, as the file's ts
  std::string to;                   ///< summary/export --to
  bool json = false;
  bool rules = false;           ///< validate --rules
  CLI::App* command = nullptr;  ///< the subcommand that ran, for its leftover arguments
  OpenRunTraces openRun;        ///< export --run: the run's stored traces
};

/// Unknown flags and extra positionals are usage errors (exit 2), named.
void refuseExtras(const TraceFlags& flags) {
  const std::vector<std::string> extra = flags.command->remaining();
  FATHOM_CHECK(extra.empty(), ConfigError, "unexpected argument '", extra.empty() ? "" : extra.front(),
               "' for `fathom trace ", flags.command->get_name(), "` (see --help)");
}

int parseCount(const std::string& text, const char* flag) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  FATHOM_CHECK(error == std::errc() && end == text.data() + text.size() && value >= 0, ConfigError, flag,
               " must be a whole number >= 0, got '", text, "'");
  return value;
}

/// merge --ranks "0,1,2": whole numbers >= 0, separated by commas.
std::vector<int> parseRanks(const std::string& text) {
  std::vector<int> ranks;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string item = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    int value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    FATHOM_CHECK(error == std::errc() && end == item.data() + item.size() && value >= 0, ConfigError,
                 "--ranks must be whole numbers >= 0 separated by commas (one per input, e.g. 0,1), got '", text,
                 "' ('", item, "' is not one)");
    ranks.push_back(value);
    if (comma == std::string::npos) {
      return ranks;
    }
    begin = comma + 1;
  }
}

/// A trace file to read: one that exists (else a usage error), and not one a writer left unfinished.
void requireFile(const std::string& path) {
  FATHOM_CHECK(fs::is_regular_file(path), ConfigError, "no such trace file: ", path);
  FATHOM_CHECK(!trace::isPartialTraceFile(path), StorageError, path,
               ": an unfinished trace (its writer was still writing it, or died before it was complete); it is not "
               "read as a trace");
}

/// Writes past RLIMIT_FSIZE ("ulimit -f") fail with EFBIG, which the writers report naming the file, instead of
/// SIGXFSZ killing the command silently with the output half written.
void reportFileSizeLimitAsError() {
  std::signal(SIGXFSZ, SIG_IGN);
}

/// On a terminal, a line per 10M events on stderr; elsewhere nothing.
std::function<void(std::uint64_t)> progress(const std::string& what) {
  if (!::isatty(STDERR_FILENO)) {
    return {};
  }
  return [what](std::uint64_t events) {
    std::cerr << "fathom trace: " << what << ": " << events / 1'000'000 << "M events\n";
  };
}

bool hasGzipName(const fs::path& path) {
  return path.extension() == ".gz";
}

/// --from/--to in microseconds as the file's ts; nullopt when neither is given. An open end reaches the trace's end.
std::optional<trace::TimeRange> parseRange(const TraceFlags& flags) {
  if (flags.from.empty() && flags.to.empty()) {
    return std::nullopt;
  }
  trace::TimeRange range{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  for (const auto& [text, flag, bound] :
       {std::tuple(flags.from, "--from", &range.startNs), std::tuple(flags.to, "--to", &range.endNs)}) {
    if (!text.empty()) {
      const std::optional<std::int64_t> ns = trace::microsToNanos(text);
      FATHOM_CHECK(ns.has_value(), ConfigError, flag, " ", text,
                   ": expected microseconds, as the file's ts (e.g. 1500.250)");
      *bound = *ns;
    }
  }
  FATHOM_CHECK(range.startNs < range.endNs, ConfigError, "--from ", flags.from, " --to ", flags.to,
               ": the range is empty");
  return range;
}

/// `fathom trace export INPUT -o OUT --from US --to US [--rank R]`: a time range (and rank) of a file, through the
/// same core function as the Studio's "Export range as Chrome trace…".
int exportRange(const TraceFlags& flags) {
  trace::TraceRangeExportOptions options;
  options.range = parseRange(flags);
  if (!flags.rank.empty()) {
    options.rank = parseCount(flags.rank, "--rank");
  }
  const trace::TraceRangeExportResult result = trace::exportTraceRange(flags.inputs.front(), flags.output, options);
  std::cerr << "Wrote " << flags.output << (hasGzipName(flags.output) ? " (gzip)" : "") << ": " << result.eventsWritten
            << " of " << result.eventsRead << " events (" << result.slices << " slices, " << result.launchesAdded
            << " launches outside the range kept for their GPU work, " << result.flowEvents << " flow events, "
            << result.flowsDropped << " flows dropped with an end outside)\n";
  return 0;
}

int exportFromRun(const TraceFlags& flags) {
  FATHOM_CHECK(flags.inputs.empty(), ConfigError, "give either --run or an INPUT file to `fathom trace export`");
  RunExportRequest request{.name = flags.name, .output = flags.output, .range = parseRange(flags)};
  if (flags.rank == "all") {
    request.allRanks = true;
  } else if (!flags.rank.empty()) {
    request.rank = parseCount(flags.rank, "--rank");
  }
  exportRunTraces(flags.openRun(flags.workspace, flags.run), request);
  return 0;
}

int exportCommand(const TraceFlags& flags) {
  refuseExtras(flags);
  if (!flags.run.empty()) {
    return exportFromRun(flags);
  }
  FATHOM_CHECK(flags.inputs.size() == 1, ConfigError,
               "`fathom trace export` needs --run ID|NAME, or one INPUT file and -o OUTPUT");
  FATHOM_CHECK(!flags.output.empty(), ConfigError, "`fathom trace export INPUT` needs -o OUTPUT");
  FATHOM_CHECK(flags.name.empty(), ConfigError, "--name goes with --run");
  FATHOM_CHECK(flags.rank != "all", ConfigError, "--rank all goes with --run; with INPUT, --rank R keeps one rank");
  requireFile(flags.inputs.front());
  FATHOM_CHECK(!fs::exists(flags.output) || !fs::equivalent(flags.inputs.front(), flags.output), ConfigError,
               "-o must differ from INPUT");
  if (!flags.from.empty() || !flags.to.empty() || !flags.rank.empty()) {
    return exportRange(flags);
  }
  // Read and checked whole before anything is written; a previous OUTPUT stays as it was on any error.
  const std::string input = flags.inputs.front();
  trace::TraceCopyOptions options;
  options.onProgress = progress("export");
  const trace::TraceCopyResult result =
      trace::copyTrace([&input] { return trace::TraceInput::openFile(input); }, flags.output, options);
  std::cerr << "Wrote " << flags.output << (result.gzip ? " (gzip)" : "") << ": " << result.events << " events, "
            << result.bytesWritten << " bytes\n";
  return 0;
}

int mergeCommand(const TraceFlags& flags) {
  refuseExtras(flags);
  FATHOM_CHECK(!flags.output.empty(), ConfigError, "`fathom trace merge` needs -o OUTPUT");
  std::vector<fs::path> inputs;
  for (const std::string& input : flags.inputs) {
    if (fs::is_directory(input)) {  // a directory: its traces, in name order
      const trace::TraceDirectoryListing found = trace::listTraceDirectory(input);
      for (const fs::path& partial : found.partial) {
        std::cerr << "fathom trace: warning: skipping " << partial.string()
                  << ": an unfinished trace (its writer was still writing it, or died before it was complete)\n";
      }
      FATHOM_CHECK(!found.traces.empty(), ConfigError, "no *.json or *.json.gz files in ", input);
      inputs.insert(inputs.end(), found.traces.begin(), found.traces.end());
    } else {
      requireFile(input);
      inputs.emplace_back(input);
    }
  }
  FATHOM_CHECK(!inputs.empty(), ConfigError, "`fathom trace merge` needs input traces (files or a directory)");
  trace::TraceMergeOptions options;
  options.onProgress = progress("merge");
  if (!flags.ranks.empty()) {
    options.ranks = parseRanks(flags.ranks);
  }
  const trace::TraceMergeResult result = trace::mergeTraces(inputs, flags.output, options);
  std::cerr << "Merged " << result.inputs.size() << " ranks (" << result.events << " events) into " << flags.output
            << '\n';
  for (const auto& in : result.inputs) {
    std::cerr << "  rank " << in.rank << ": " << in.path.string() << ", " << in.events << " events, shifted "
              << static_cast<double>(in.shiftNs) / 1e3 << " us\n";
  }
  return 0;
}

int summaryCommand(const TraceFlags& flags) {
  refuseExtras(flags);
  FATHOM_CHECK(flags.inputs.size() == 1, ConfigError, "`fathom trace summary` takes one FILE, got ",
               flags.inputs.size());
  requireFile(flags.inputs.front());
  trace::TraceSummaryOptions options;
  options.top = static_cast<std::size_t>(parseCount(flags.top, "--top"));
  if (!flags.rank.empty()) {
    options.rank = parseCount(flags.rank, "--rank");
  }
  options.range = parseRange(flags);
  options.onProgress = progress("summary");
  const trace::TraceSummary summary = trace::summarizeTrace(flags.inputs.front(), options);
  if (flags.json) {
    std::cout << traceSummaryJson(summary).dump(2) << '\n';
  } else {
    printTraceSummary(std::cout, summary);
  }
  return 0;
}

int validateCommand(const TraceFlags& flags) {
  refuseExtras(flags);
  if (flags.rules) {
    printTraceRules(std::cout);
    return 0;
  }
  FATHOM_CHECK(!flags.inputs.empty(), ConfigError, "`fathom trace validate` needs at least one FILE");
  for (const std::string& input : flags.inputs) {
    requireFile(input);
  }
  trace::TraceValidatorOptions options;
  options.onProgress = progress("validate");
  const trace::TraceValidator validator(options);
  bool allValid = true;
  nlohmann::json reports = nlohmann::json::array();
  for (const std::string& input : flags.inputs) {
    const trace::TraceValidationReport report = validator.validate(input);
    allValid = allValid && report.valid();
    if (flags.json) {
      reports.push_back(validationReportJson(report));
    } else {
      printValidationReport(std::cout, report);
    }
  }
  if (flags.json) {
    std::cout << reports.dump(2) << '\n';
  }
  return allValid ? 0 : 1;
}

}  // namespace

void addTraceCommand(CLI::App& root, CommandAction& action, OpenRunTraces openRun) {
  auto flags = std::make_shared<TraceFlags>();
  flags->openRun = std::move(openRun);
  CLI::App* cmd = root.add_subcommand("trace", "Export, merge, summarize and validate Chrome/Kineto trace files");
  cmd->require_subcommand(1);
  cmd->footer("Traces open in Perfetto (ui.perfetto.dev), chrome://tracing and Holistic Trace Analysis. "
              "Docs: docs/traces.md");
  auto leaf = [&, flags](const char* name, const char* description, int (*run)(const TraceFlags&)) {
    CLI::App* sub = cmd->add_subcommand(name, description);
    sub->allow_extras();  // refused by refuseExtras() with exit code 2
    sub->callback([flags, sub, run, &action] {
      flags->command = sub;
      action = [flags, run] {
        reportFileSizeLimitAsError();
        return run(*flags);
      };
    });
    return sub;
  };

  CLI::App* exportCmd =
      leaf("export",
           "Write a trace stored in a workspace to a file, convert .json <-> .json.gz, or cut a time range (and rank) "
           "out of a trace",
           exportCommand);
  exportCmd->add_option("input", flags->inputs, "A trace file to convert (instead of --run)");
  exportCmd->add_option("--run", flags->run, "The run (id or name; a name means its newest run)");
  exportCmd->add_option("--rank", flags->rank,
                        "With --run: the rank to export, or `all` (one file each into the -o directory); default: the "
                        "merged trace when the run stored one, else the lowest rank's. With INPUT: keep only this "
                        "rank's rows of a merged trace (a check on a one-rank trace)");
  exportCmd->add_option("--from", flags->from,
                        "Keep what meets the range from this time on: microseconds as the file's ts");
  exportCmd->add_option("--to", flags->to, "Keep what meets the range up to this time (microseconds, exclusive)");
  exportCmd->add_option("--name", flags->name, "The trace's name (needed when the choice is ambiguous, e.g. windows)");
  exportCmd->add_option("-o,--output", flags->output,
                        "Output file, or directory (one that exists, or ends with '/'; created when missing); .gz "
                        "compresses (default: <name>[.rank<R>].json[.gz] here, compressed as stored)");
  exportCmd->add_option("--workspace", flags->workspace,
                        "The workspace file (default: FATHOM_WORKSPACE, else the config's fathom.workspace, else "
                        "./fathom.sqlite)");
  exportCmd->footer(
      "Examples:\n"
      "  fathom trace export --run 3           # the merged trace, else rank 0's, here\n"
      "  fathom trace export --run gpt --rank 1 -o r1.json  # decompresses when stored as gzip\n"
      "  fathom trace export --run gpt --rank all -o traces/  # one file per rank, for HTA\n"
      "  fathom trace export trace.json -o trace.json.gz  # convert a file\n"
      "  fathom trace export all.json.gz -o step3.json --from 120000 --to 180000 --rank 1  # a range of rank 1\n"
      "  fathom trace export --run 3 --rank 0 --from 120000 --to 180000 -o r0_part.json  # a range of a stored trace\n"
      "Says which trace it chose; lists the run's traces when the one asked for is missing or ambiguous.\n"
      "A range keeps each event that meets it, whole and unchanged (args, timestamps), plus the launches of the\n"
      "kernels kept, each counter's last sample before it, the processes' names and the file's top-level keys;\n"
      "a flow is kept when both ends are. The file loads in Perfetto, and `fathom trace summary --from --to` gives\n"
      "the same numbers on it as on the original. Docs: docs/traces.md (\"Export a range\").");

  CLI::App* merge = leaf("merge", "Merge one trace per rank into one multi-rank trace for Perfetto", mergeCommand);
  merge->add_option("inputs", flags->inputs, "Trace files, or directories of *.json / *.json.gz files");
  merge->add_option("-o,--output", flags->output, "The merged file (.gz compresses)");
  merge->add_option("--ranks", flags->ranks,
                    "The rank of each input, in order, comma-separated (e.g. 0,1): for traces that record none "
                    "(PyTorch's legacy export_chrome_trace), or to show two runs' traces side by side; overrides "
                    "the ranks the files record");
  merge->footer("Ranks are aligned on the wall clock (baseTimeNanoseconds), rows renumbered rank * 1000 + i and\n"
                "named \"rank R · ...\", flow and correlation ids made unique. Holistic Trace Analysis wants the\n"
                "per-rank files, not the merged one.\n"
                "Examples:\n"
                "  fathom trace merge rank0.json.gz rank1.json.gz -o all.json.gz\n"
                "  fathom trace merge traces/ -o all.json\n"
                "  fathom trace merge --ranks 0,1 torch_r0.json torch_r1.json -o all.json  # PyTorch legacy traces\n"
                "  fathom trace merge --ranks 0,1 run3/profile_0.json run4/profile_0.json -o cmp.json  # two runs");

  CLI::App* summary =
      leaf("summary", "Step-time breakdown, top ops and kernels, collectives, memory peaks", summaryCommand);
  summary->add_option("file", flags->inputs, "One rank's trace, or a merged trace with --rank (.json or .json.gz)");
  summary->add_option("--top", flags->top, "Rows in the top-ops and top-kernels tables")->capture_default_str();
  summary->add_option("--rank", flags->rank,
                      "The rank to summarize: required for a merged trace (its rows of that rank), a check otherwise");
  summary->add_option("--from", flags->from,
                      "Summarize from this time on: microseconds as the file's ts (events are cut to the range)");
  summary->add_option("--to", flags->to, "Summarize up to this time (microseconds, exclusive)");
  summary->add_flag("--json", flags->json, "Print JSON (times in ns, bytes in bytes)");
  summary->footer("Compute, communication, data loading and idle per ProfilerStep#N, and how much communication\n"
                  "overlaps compute; on the GPU timeline when the trace has kernels (as HTA), else on the CPU.\n"
                  "Definitions: docs/traces.md. Examples:\n"
                  "  fathom trace summary trace.rank0.json.gz\n"
                  "  fathom trace summary trace.rank0.json --top 20 --json\n"
                  "  fathom trace summary fathom_profile/merged/profile_merged.json --rank 1\n"
                  "  fathom trace summary trace.rank0.json --from 1000 --to 2500.5   # a time range, as the timeline's "
                  "area selection");

  CLI::App* validate =
      leaf("validate", "Check traces against the rules Perfetto, chrome://tracing and HTA apply", validateCommand);
  validate->add_option("files", flags->inputs, "Trace files (.json or .json.gz)");
  validate->add_flag("--json", flags->json, "Print JSON reports");
  validate->add_flag("--rules", flags->rules, "List the rules and exit");
  validate->footer("Exit code: 0 all valid (warnings allowed), 1 an error in some file, 2 a usage error.\n"
                   "Examples:\n"
                   "  fathom trace validate trace.rank0.json.gz trace.rank1.json.gz\n"
                   "  fathom trace validate --rules");
}

}  // namespace fathom::cli
