// SPDX-License-Identifier: Apache-2.0
// The telemetry wire format, private to core/telemetry: the sender and the collector are its only speakers.
#pragma once

#include <fathom/common/log.h>
#include <fathom/parallel/collective_wavefront.h>
#include <fathom/store/records.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::telemetry {

struct MemorySample;

static_assert(std::endian::native == std::endian::little, "the telemetry wire format is little-endian");

/// The wire protocol between a worker's TelemetrySender and the launcher's TelemetryCollector (docs/workspace.md,
/// "Telemetry"). Every frame is `u32 length | u8 type | body`, little-endian, where `length` counts the type byte
/// and the body. The first frame on a connection is Hello; the collector answers Welcome or Refused. Every data
/// frame starts with the sender's sequence number (1, 2, 3, ... per connection, no gaps); the collector answers
/// with Ack frames carrying the highest sequence number whose frame, and every frame before it, is committed.
namespace protocol {

/// The version this build speaks (sent in Hello and Welcome). A collector refuses any other.
/// 2: the Artifact frame (a file the run produced, e.g. a profiler trace).
/// 3: the Setup frame (rank 0's strategy and precision, which replace what the launcher recorded).
/// 4: the Heartbeat frame carries the rank's collective wavefront (the run monitor's input).
/// 5: the DeviceMap frame (a device map the rank dispatched a model with).
constexpr std::uint16_t kVersion = 5;
/// The first four bytes of a Hello body.
constexpr std::string_view kMagic = "FTHM";
/// Frames longer than this (type byte and body) are a protocol error: the connection is closed.
constexpr std::uint32_t kMaxFrameBytes = 16u << 20;
/// A connection's first frame (the hello, before the token is checked) holds at most this many bytes (type byte and
/// body; a hello with a 64-digit token and a 255-byte host name takes 340): the collector reads no more from a
/// peer it does not know.
constexpr std::uint32_t kMaxHelloBytes = 4096;

enum class FrameType : std::uint8_t {
  // sender -> collector
  Hello = 1,      ///< magic, version, rank, pid, token, host
  Metrics = 2,    ///< seq, count, then per point: step, wall time, value, key
  Memory = 3,     ///< seq, time, step, allocated, reserved, peak bytes
  Log = 4,        ///< seq, time, level, text
  Heartbeat = 5,  ///< seq, time, step, u8 flags, [entered], [finished], [wavefront step, work seconds] (see below)
  Trace = 6,      ///< seq, time, name, bytes
  Bye = 7,        ///< seq: the sender has nothing more; the collector acks it once everything before is committed
  Artifact = 8,   ///< seq, time, kind (u8: store::ArtifactKind), path, bytes
  Setup = 9,      ///< seq, strategy, FSDP sharding ("" unless FSDP), mixed precision: plan::toString / Accelerate names
  DeviceMap = 10,  ///< seq, time, record (bigmodel::DispatchRecord's JSON, long string)
  // collector -> sender
  Welcome = 64,  ///< version, run id
  Refused = 65,  ///< version, reason (text); the collector closes the connection after it
  Ack = 66,      ///< seq: everything up to and including it is committed to the workspace
};

/// The names of the environment variables the launcher sets for its workers.
constexpr const char* kEndpointVariable = "FATHOM_TELEMETRY_ENDPOINT";  ///< "127.0.0.1:PORT"
constexpr const char* kTokenVariable = "FATHOM_TELEMETRY_TOKEN";        ///< 64 hex digits, one per run
constexpr const char* kRunIdVariable = "FATHOM_RUN_ID";                 ///< the workspace's run id

struct Hello {
  std::uint16_t version = kVersion;
  std::int32_t rank = 0;
  std::int64_t pid = 0;
  std::string token;
  std::string host;
};

/// A Heartbeat frame's body after its seq: `f64 time, i64 step, u8 flags`, then, per flag bit in this order, bit 0
/// the collective entered, bit 1 the collective finished (each `u64 sequence, u8 kind (parallel::CommKind),
/// i32 group size, i64 bytes, u16-length group name`), bit 2 the wavefront's pace (`i64 step, f64 work seconds`,
/// parallel::WavefrontSnapshot). Other flag bits are a protocol error.
struct HeartbeatBody {
  double time = 0;
  std::int64_t step = 0;  ///< the latest step the trainer logged
  /// The rank's wavefront; empty for a rank without a Comm (a single process, a program without collectives).
  std::optional<parallel::WavefrontSnapshot> wavefront;

  bool operator==(const HeartbeatBody&) const = default;
};

/// Appends frames to a byte string. Each call writes one complete frame.
class FrameWriter {
public:
  explicit FrameWriter(std::string& out) : m_out(out) {}

  void hello(const Hello& hello);
  void welcome(std::int64_t runId);
  void refused(std::string_view reason);
  void ack(std::uint64_t seq);
  void bye(std::uint64_t seq);
  void heartbeat(std::uint64_t seq, const HeartbeatBody& beat);
  void memory(std::uint64_t seq, const MemorySample& sample);
  void log(std::uint64_t seq, double time, LogLevel level, std::string_view text);
  void trace(std::uint64_t seq, double time, std::string_view name, std::string_view bytes);
  void artifact(std::uint64_t seq, double time, const store::Artifact& artifact);
  void setup(std::uint64_t seq, const store::RunSetup& setup);
  void deviceMap(std::uint64_t seq, double time, std::string_view recordJson);

  /// A Metrics frame of `count` points already encoded with encodePoint().
  void metrics(std::uint64_t seq, std::uint32_t count, std::string_view encodedPoints);

private:
  std::size_t begin(FrameType type);
  void end(std::size_t start);

  std::string& m_out;
};

/// Appends one metric point in the Metrics frame's layout: i64 step, f64 wall time, f64 value, u16 key length,
/// key. ConfigError for a key over 65535 bytes.
void encodePoint(std::string& out, std::int64_t step, double wallTime, std::string_view key, double value);

/// A decoded frame body (everything after the type byte).
struct Frame {
  FrameType type = FrameType::Hello;
  std::string_view body;
};

/// Reads the fields of one frame body in order; every read checks the bounds and throws fathom::CommError
/// ("telemetry: malformed <frame> frame ...") on a short or inconsistent body.
class BodyReader {
public:
  BodyReader(std::string_view body, const char* frameName) : m_body(body), m_name(frameName) {}

  std::uint8_t u8();
  std::uint16_t u16();
  std::uint32_t u32();
  std::uint64_t u64();
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64();
  std::string_view bytes(std::size_t n);
  /// A u16 length followed by that many bytes.
  std::string_view shortString() { return bytes(u16()); }
  /// A u32 length followed by that many bytes.
  std::string_view longString() { return bytes(u32()); }
  /// Throws unless every byte was read.
  void finish() const;
  std::size_t remaining() const { return m_body.size() - m_pos; }

private:
  std::string_view m_body;
  const char* m_name;
  std::size_t m_pos = 0;
};

/// Decodes a Hello body; CommError when it is not one (wrong magic, short body).
Hello decodeHello(std::string_view body);
/// Decodes a Metrics body (after its seq) into points of `rank`, appended to `out`.
void decodeMetrics(BodyReader& in, int rank, std::vector<store::MetricPoint>& out);
/// Decodes a Heartbeat body (after its seq); CommError for unknown flag bits, an unknown kind, a group size below 1,
/// negative bytes, or bytes left over.
HeartbeatBody decodeHeartbeat(BodyReader& in);
/// Decodes a Setup body (after its seq); CommError for a strategy or sharding this build does not know.
store::RunSetup decodeSetup(BodyReader& in);

/// "hello", "metrics", ...: for messages.
const char* frameName(FrameType type);

}  // namespace protocol
}  // namespace fathom::telemetry
