// SPDX-License-Identifier: Apache-2.0
// A worker for the telemetry tests: connects to the collector named by the environment (as `fathom launch` sets it)
// and sends the metric "probe/value" with value = step = 0, 1, 2, ... at a fixed rate. After every
// acknowledgement it replaces ACK_FILE.<rank> with "<pid> <acknowledged points>", so a test that kills the launcher
// knows what the collector committed. At the end it closes (waiting for the last ack) and prints "sent <n> acked <m>
// seconds <s>".
//
//   telemetry_probe --rate POINTS_PER_SECOND --seconds S [--ack_file PATH] [--batch N]
#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/telemetry/telemetry_sender.h>
#include <telemetry/protocol.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

namespace {

void writeAckFile(const std::string& path, std::uint64_t acked) {
  // Write-then-rename: a reader (or a SIGKILL in the middle) never sees half a number.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << ::getpid() << ' ' << acked << '\n';
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

int main(int argc, char** argv) {
  double rate = 1000;
  double seconds = 1;
  std::size_t batch = 0;
  std::string ackFile;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rate") {
      rate = std::atof(argv[i + 1]);
    } else if (flag == "--seconds") {
      seconds = std::atof(argv[i + 1]);
    } else if (flag == "--ack_file") {
      ackFile = argv[i + 1];
    } else if (flag == "--batch") {
      batch = static_cast<std::size_t>(std::atol(argv[i + 1]));
    } else {
      std::fprintf(stderr, "telemetry_probe: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (rate <= 0 || seconds <= 0) {
    std::fprintf(stderr, "telemetry_probe: --rate and --seconds must be > 0\n");
    return 2;
  }
  try {
    const auto endpoint = fathom::telemetry::TelemetryEndpoint::fromEnvironment();
    if (!endpoint) {
      std::fprintf(stderr, "telemetry_probe: %s is not set\n", fathom::telemetry::protocol::kEndpointVariable);
      return 2;
    }
    fathom::telemetry::SenderOptions options;
    if (batch > 0) {
      options.batchPoints = batch;
    }
    if (!ackFile.empty()) {
      const std::string mine = ackFile + "." + std::to_string(endpoint->rank);
      writeAckFile(mine, 0);
      options.onAcknowledged = [mine](std::uint64_t acked) { writeAckFile(mine, acked); };
    }
    fathom::telemetry::TelemetrySender sender(*endpoint, options);
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto total = static_cast<std::int64_t>(rate * seconds);
    std::int64_t sent = 0;
    while (sent < total) {
      // Paced in 1 ms slices: every slice sends what the rate owes by now.
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      const auto due = std::min(total, static_cast<std::int64_t>(elapsed * rate) + 1);
      const double now = fathom::unixNowSeconds();
      for (; sent < due; ++sent) {
        sender.addMetric(sent, now, "probe/value", static_cast<double>(sent));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    sender.close();
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("sent %lld acked %llu seconds %.3f\n", static_cast<long long>(sent),
                static_cast<unsigned long long>(sender.acknowledgedPoints()), took);
    return sender.acknowledgedPoints() == static_cast<std::uint64_t>(sent) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "telemetry_probe: %s\n", e.what());
    return 3;
  }
}
