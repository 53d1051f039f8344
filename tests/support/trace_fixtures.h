// SPDX-License-Identifier: Apache-2.0
// Hand-built Chrome/Kineto traces for the trace tests (tests/core/tst_trace_*, tests/app/tst_trace_cli): one
// event a string, assembled into the object form the way Fathom's writer lays it out, written as .json or .json.gz.
#pragma once

#include <fathom/trace/trace_file_sink.h>
#include <fathom/trace/trace_input.h>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::test {

/// A complete event: {"ph":"X","cat":cat,"name":name,"pid":pid,"tid":tid,"ts":ts,"dur":dur[,"args":args]}. `ts`
/// and `dur` are microsecond texts ("10.000"), written as given.
inline std::string completeEvent(std::string_view cat, std::string_view name, int pid, int tid, std::string_view ts,
                                 std::string_view dur, std::string_view args = {}) {
  std::string e = "{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + std::string(name) +
                  "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                  ",\"ts\":" + std::string(ts) + ",\"dur\":" + std::string(dur);
  if (!args.empty()) {
    e += ",\"args\":" + std::string(args);
  }
  return e + "}";
}

/// The top-level keys before traceEvents of a rank's trace (no trailing comma).
inline std::string traceKeys(int rank, int worldSize = 2, std::int64_t baseTimeNs = 1'700'000'000'000'000'000) {
  return "\"schemaVersion\":1,\"deviceProperties\":[],\"distributedInfo\":{\"backend\":\"gloo\",\"rank\":" +
         std::to_string(rank) + ",\"world_size\":" + std::to_string(worldSize) +
         "},\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":" + std::to_string(baseTimeNs);
}

/// An object-form trace: {<keys>,"traceEvents":[<events, one a line>],"traceName":"test"}.
inline std::string objectTrace(const std::vector<std::string>& events, const std::string& keys = traceKeys(0)) {
  std::string text = "{" + keys + (keys.empty() ? "" : ",") + "\"traceEvents\":[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    text += (i == 0 ? "\n" : ",\n") + events[i];
  }
  return text + "\n],\"traceName\":\"test\"}\n";
}

/// A user_annotation span on pid 1 from `start` to `end` whole microseconds.
inline std::string span(std::string_view name, int tid, int start, int end, std::string_view args = {}) {
  return completeEvent("user_annotation", name, 1, tid, std::to_string(start) + ".000",
                       std::to_string(end - start) + ".000", args);
}

/// A cpu_op on pid 1 from `start` to `end` whole microseconds.
inline std::string cpuOp(std::string_view name, int tid, int start, int end, std::string_view args = {}) {
  return completeEvent("cpu_op", name, 1, tid, std::to_string(start) + ".000", std::to_string(end - start) + ".000",
                       args);
}

/// A kernel launch (cudaLaunchKernel, 1 µs on pid 1's thread 1) at `ts` µs; `args` holds its correlation.
inline std::string kernelLaunch(int ts, std::string_view args) {
  return completeEvent("cuda_runtime", "cudaLaunchKernel", 1, 1, std::to_string(ts) + ".000", "1.000", args);
}

/// GPU activity (`cat` kernel, gpu_memcpy, ...) on the GPU row pid 0, stream 7, from `start` to `end` µs.
inline std::string gpuActivity(std::string_view cat, std::string_view name, int start, int end, std::string_view args) {
  return completeEvent(cat, name, 0, 7, std::to_string(start) + ".000", std::to_string(end - start) + ".000", args);
}

/// An event as PyTorch's legacy export_chrome_trace writes it (builds without Kineto): no `cat`, whole
/// microseconds, every CPU event in the process "CPU functions" unless `pid` (raw JSON) says otherwise.
inline std::string legacyEvent(std::string_view name, int tid, int start, int end,
                               std::string_view pid = "\"CPU functions\"") {
  return "{\"name\": \"" + std::string(name) + "\", \"ph\": \"X\", \"ts\": " + std::to_string(start) +
         ", \"dur\": " + std::to_string(end - start) + ", \"tid\": " + std::to_string(tid) +
         ", \"pid\": " + std::string(pid) + ", \"args\": {}}";
}

/// One rank of a CPU run of 2 ranks: step 1 [0,100] with compute [10,80], an all_reduce [60,90] on its own row; the
/// base times 1 µs apart per rank (what `fathom trace` tests merge and summarize).
inline std::string cpuRankTrace(int rank) {
  return objectTrace(
      {span("ProfilerStep#1", 1, 0, 100), span("fathom::forward", 1, 10, 40),
       completeEvent("cpu_op", "aten::mm", 1, 1, "10.000", "70.000"),
       completeEvent("user_annotation", "fathom::all_reduce", 1, 99, "60.000", "30.000", "{\"bytes\":1048576}")},
      traceKeys(rank, 2, 1'700'000'000'000'000'000 + rank * 1000));
}

/// Writes `bytes` to `path` through TraceFileSink: gzip-compressed when the name ends with ".gz".
inline void writeTraceFile(const std::filesystem::path& path, std::string_view bytes) {
  trace::TraceFileSink sink(path);
  sink.write(bytes);
  sink.finish();
}

/// Writes `events` as rank `rank`'s object-form trace `dir`/`name` (gzip-compressed when the name ends with ".gz");
/// returns its path.
inline std::filesystem::path writeRankTrace(const std::filesystem::path& dir, const std::string& name,
                                            const std::vector<std::string>& events, int rank) {
  const std::filesystem::path file = dir / name;
  writeTraceFile(file, objectTrace(events, traceKeys(rank)));
  return file;
}

/// A file's bytes as they are on disk.
inline std::string readRaw(const std::filesystem::path& path) {
  std::string out;  // read with stdio: TraceInput would gunzip
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char block[65536];
    std::size_t n = 0;
    while ((n = std::fread(block, 1, sizeof block, f)) > 0) {
      out.append(block, n);
    }
    std::fclose(f);
  }
  return out;
}

/// Exact ns from a JSON number's text, as the readers take `ts` and `dur` (a double would round): "12.345" -> 12345.
inline std::int64_t exactNs(const nlohmann::json& value) {
  const std::string text = value.dump();
  const auto dot = text.find('.');
  std::int64_t whole = 0;
  std::from_chars(text.data(), text.data() + (dot == std::string::npos ? text.size() : dot), whole);
  std::int64_t frac = 0;
  if (dot != std::string::npos) {
    const std::string digits = text.substr(dot + 1) + "000";
    std::from_chars(digits.data(), digits.data() + 3, frac);
  }
  return whole * 1000 + frac;
}

/// A file's text, gunzipped when it is gzip.
inline std::string readText(const std::filesystem::path& path) {
  trace::TraceInput in = trace::TraceInput::openFile(path);
  std::string out;
  char block[65536];
  while (const std::size_t n = in.read(block, sizeof block)) {
    out.append(block, n);
  }
  return out;
}

}  // namespace fathom::test
