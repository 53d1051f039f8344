// SPDX-License-Identifier: Apache-2.0
// Maximum sustained ingest through the whole telemetry path: TelemetrySender (encode, batch, socket) ->
// TelemetryCollector (decode, bounded queue, one writer) -> SQLite (WAL). SENDERS threads, each with its own
// connection, send POINTS points as fast as the path takes them (backpressure paces them); a run ends when every
// sender's close() has its last acknowledgement, i.e. every point is committed. Prints each run and the median.
//
//   bench_telemetry [--senders 8] [--points 250000] [--runs 5] [--dir /tmp]
// Target (issue 7): >= 200,000 points/s on the 2-core development machine. docs/benchmarks.md has the numbers.
#include <fathom/store/workspace.h>
#include <fathom/telemetry/telemetry_collector.h>
#include <fathom/telemetry/telemetry_sender.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace fathom;

namespace {

struct Result {
  double pointsPerSecond = 0;
  double commitPointsPerSecond = 0;  ///< points / time inside Workspace::append
  std::uint64_t commits = 0;
};

Result runOnce(const std::filesystem::path& file, int senders, std::int64_t points) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(file.string() + suffix);
  }
  store::Workspace ws(file);
  const store::RunId run = ws.createRun({"bench", "bench_telemetry", "", ""});
  telemetry::TelemetryCollector collector(std::move(ws), run);
  static const std::vector<std::string> keys{"loss", "lr", "grad_norm", "tokens_per_s", "gpu_mem"};

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int rank = 0; rank < senders; ++rank) {
    threads.emplace_back([&, rank] {
      telemetry::TelemetrySender sender({"127.0.0.1", collector.port(), collector.token(), rank});
      const double wall = 1.7e9;
      for (std::int64_t i = 0; i < points; ++i) {
        sender.addMetric(i / 5, wall + static_cast<double>(i), keys[static_cast<std::size_t>(i % 5)],
                         0.001 * static_cast<double>(i));
      }
      sender.close();  // returns once the last point is committed
      if (sender.acknowledgedPoints() != static_cast<std::uint64_t>(points)) {
        std::fprintf(stderr, "rank %d: %llu of %lld points acknowledged\n", rank,
                     static_cast<unsigned long long>(sender.acknowledgedPoints()), static_cast<long long>(points));
        std::exit(1);
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  collector.stop();
  const auto stats = collector.stats();
  const double total = static_cast<double>(points) * senders;
  if (stats.pointsCommitted != static_cast<std::uint64_t>(total)) {
    std::fprintf(stderr, "committed %llu of %.0f points\n", static_cast<unsigned long long>(stats.pointsCommitted),
                 total);
    std::exit(1);
  }
  return {total / seconds, total / stats.commitSeconds, stats.commits};
}

}  // namespace

int main(int argc, char** argv) {
  int senders = 8;
  std::int64_t points = 250'000;
  int runs = 5;
  std::filesystem::path dir = std::filesystem::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--senders") {
      senders = std::atoi(argv[i + 1]);
    } else if (flag == "--points") {
      points = std::atoll(argv[i + 1]);
    } else if (flag == "--runs") {
      runs = std::atoi(argv[i + 1]);
    } else if (flag == "--dir") {
      dir = argv[i + 1];
    } else {
      std::fprintf(stderr, "bench_telemetry: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (senders < 1 || points < 1 || runs < 1) {
    std::fprintf(stderr, "bench_telemetry: --senders, --points and --runs must be >= 1\n");
    return 2;
  }
  const auto file = dir / ("bench_telemetry_" + std::to_string(::getpid()) + ".sqlite");
  std::vector<double> rates;
  for (int r = 0; r < runs; ++r) {
    const Result result = runOnce(file, senders, points);
    rates.push_back(result.pointsPerSecond);
    std::printf("run %d: %.0f points/s end to end (%d senders x %lld points; %llu commits, %.0f points/s inside "
                "the commits)\n",
                r + 1, result.pointsPerSecond, senders, static_cast<long long>(points),
                static_cast<unsigned long long>(result.commits), result.commitPointsPerSecond);
    std::fflush(stdout);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(file.string() + suffix);
  }
  std::sort(rates.begin(), rates.end());
  const double median = rates[rates.size() / 2];
  std::printf("median of %d runs: %.0f points/s (target 200000)\n", runs, median);
  return 0;
}
