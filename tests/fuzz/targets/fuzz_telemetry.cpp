// SPDX-License-Identifier: Apache-2.0
// Telemetry frames as the launcher's collector reads them from a worker's connection: the input is the byte stream a
// peer sends, written into one end of a socket pair; the other end is read with the collector's own frame reader
// (net::readFrame: `u32 length | u8 type | body`), the first frame decoded as a Hello, then each data frame's
// sequence number and body with the protocol's decoders, field for field as TelemetryCollector's decodeDataFrame()
// does (core/src/telemetry/telemetry_collector.cpp).
// Oracle: CommError (and ConfigError) are good answers; anything else escaping, or a sanitizer report, is a finding.
#include "fuzz_input.h"

#include "telemetry/protocol.h"
#include "telemetry/socket.h"

#include <fathom/common/error.h>
#include <fathom/store/records.h>

#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

using namespace fathom;
using telemetry::protocol::FrameType;

/// Decodes one data frame's body (after its sequence number) as the collector does.
void decodeDataFrame(FrameType type, telemetry::protocol::BodyReader& in, int rank) {
  namespace protocol = telemetry::protocol;
  switch (type) {
  case FrameType::Metrics: {
    std::vector<store::MetricPoint> points;
    protocol::decodeMetrics(in, rank, points);
    break;
  }
  case FrameType::Memory:
    in.f64();
    in.i64();
    in.i64();
    in.i64();
    in.i64();
    in.finish();
    break;
  case FrameType::Log:
    in.f64();
    in.u8();
    in.longString();
    in.finish();
    break;
  case FrameType::Heartbeat: protocol::decodeHeartbeat(in); break;
  case FrameType::Trace:
    in.f64();
    in.shortString();
    in.longString();
    in.finish();
    break;
  case FrameType::Artifact: {
    in.f64();
    const std::uint8_t kind = in.u8();
    FATHOM_CHECK(kind <= static_cast<std::uint8_t>(store::ArtifactKind::Export), CommError,
                 "telemetry: artifact frame with unknown kind ", int(kind));
    in.longString();
    in.i64();
    in.finish();
    break;
  }
  case FrameType::Setup: protocol::decodeSetup(in); break;
  case FrameType::DeviceMap:
    in.f64();
    in.longString();
    in.finish();
    break;
  case FrameType::Bye: in.finish(); break;
  default: throw CommError(detail::concat("telemetry: unexpected frame type ", int(type), " from a sender"));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
    std::perror("socketpair");
    std::abort();
  }
  telemetry::net::Socket reader(fds[0]);
  telemetry::net::Socket writer(fds[1]);
  // The peer writes everything and hangs up, from its own thread (the stream may exceed the socket's buffer).
  std::thread peer([&] {
    try {
      telemetry::net::writeAll(writer.fd(), fuzz::text(data, size), "the input");
    } catch (const CommError&) {
      // the reader gave up first (a protocol error) and closed its end
    }
    ::shutdown(writer.fd(), SHUT_WR);
  });
  try {
    std::string buffer;
    std::optional<telemetry::protocol::Frame> frame = telemetry::net::readFrame(reader.fd(), buffer);
    if (frame && frame->type == FrameType::Hello) {
      const telemetry::protocol::Hello hello = telemetry::protocol::decodeHello(frame->body);
      std::uint64_t expected = 1;
      while ((frame = telemetry::net::readFrame(reader.fd(), buffer))) {
        const char* name = telemetry::protocol::frameName(frame->type);
        telemetry::protocol::BodyReader in(frame->body, name);
        const std::uint64_t seq = in.u64();
        FATHOM_CHECK(seq == expected, CommError, "telemetry: ", name, " frame with sequence number ", seq,
                     ", expected ", expected);
        ++expected;
        decodeDataFrame(frame->type, in, hello.rank);
      }
    }
  } catch (const Error&) {
  }
  ::shutdown(reader.fd(), SHUT_RDWR);  // unblocks the peer when the reader stopped early
  peer.join();
  return 0;
}
