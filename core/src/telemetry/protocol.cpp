// SPDX-License-Identifier: Apache-2.0
// Encoding and decoding of the telemetry frames (docs/workspace.md, "Telemetry"). Integers and doubles are copied
// as little-endian bytes (protocol.h asserts the host is little-endian).
#include "protocol.h"

#include <fathom/common/error.h>
#include <fathom/telemetry/telemetry_sender.h>

#include <cstring>
#include <limits>

namespace fathom::telemetry::protocol {
namespace {

template <typename T> void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void putShort(std::string& out, std::string_view text, const char* what) {
  FATHOM_CHECK(text.size() <= std::numeric_limits<std::uint16_t>::max(), ConfigError, "telemetry: ", what,
               " is too long (", text.size(), " bytes, at most 65535)");
  put(out, static_cast<std::uint16_t>(text.size()));
  out.append(text);
}

void putLong(std::string& out, std::string_view bytes, const char* what) {
  FATHOM_CHECK(bytes.size() < kMaxFrameBytes - 64, ConfigError, "telemetry: ", what, " is too large (", bytes.size(),
               " bytes; a frame holds at most ", kMaxFrameBytes, ")");
  put(out, static_cast<std::uint32_t>(bytes.size()));
  out.append(bytes);
}

}  // namespace

const char* frameName(FrameType type) {
  switch (type) {
  case FrameType::Hello: return "hello";
  case FrameType::Metrics: return "metrics";
  case FrameType::Memory: return "memory";
  case FrameType::Log: return "log";
  case FrameType::Heartbeat: return "heartbeat";
  case FrameType::Trace: return "trace";
  case FrameType::Artifact: return "artifact";
  case FrameType::Setup: return "setup";
  case FrameType::DeviceMap: return "device map";
  case FrameType::Bye: return "bye";
  case FrameType::Welcome: return "welcome";
  case FrameType::Refused: return "refused";
  case FrameType::Ack: return "ack";
  }
  return "unknown";
}

// ---- FrameWriter -------------------------------------------------------------------------------------------------

std::size_t FrameWriter::begin(FrameType type) {
  const std::size_t start = m_out.size();
  put(m_out, std::uint32_t{0});  // length, filled in by end()
  put(m_out, static_cast<std::uint8_t>(type));
  return start;
}

void FrameWriter::end(std::size_t start) {
  const auto length = static_cast<std::uint32_t>(m_out.size() - start - sizeof(std::uint32_t));
  FATHOM_ASSERT(length <= kMaxFrameBytes, "telemetry frame of ", length, " bytes");
  std::memcpy(m_out.data() + start, &length, sizeof(length));
}

void FrameWriter::hello(const Hello& hello) {
  const auto start = begin(FrameType::Hello);
  m_out.append(kMagic);
  put(m_out, hello.version);
  put(m_out, hello.rank);
  put(m_out, hello.pid);
  putShort(m_out, hello.token, "the token");
  putShort(m_out, hello.host, "the host name");
  end(start);
}

void FrameWriter::welcome(std::int64_t runId) {
  const auto start = begin(FrameType::Welcome);
  put(m_out, kVersion);
  put(m_out, runId);
  end(start);
}

void FrameWriter::refused(std::string_view reason) {
  const auto start = begin(FrameType::Refused);
  put(m_out, kVersion);
  putLong(m_out, reason, "the refusal reason");
  end(start);
}

void FrameWriter::ack(std::uint64_t seq) {
  const auto start = begin(FrameType::Ack);
  put(m_out, seq);
  end(start);
}

void FrameWriter::bye(std::uint64_t seq) {
  const auto start = begin(FrameType::Bye);
  put(m_out, seq);
  end(start);
}

namespace {

enum HeartbeatFlag : std::uint8_t { kEntered = 1, kFinished = 2, kPace = 4 };

void putPosition(std::string& out, const parallel::CollectivePosition& p) {
  put(out, p.sequence);
  put(out, static_cast<std::uint8_t>(p.kind));
  put(out, static_cast<std::int32_t>(p.groupSize));
  put(out, p.bytes);
  putShort(out, p.group, "a process group's name");
}

parallel::CollectivePosition readPosition(BodyReader& in) {
  parallel::CollectivePosition p;
  p.sequence = in.u64();
  const std::uint8_t kind = in.u8();
  FATHOM_CHECK(kind < parallel::kCommKindCount, CommError, "telemetry: malformed heartbeat frame (collective kind ",
               int(kind), ")");
  p.kind = static_cast<parallel::CommKind>(kind);
  p.groupSize = in.i32();
  FATHOM_CHECK(p.groupSize >= 1, CommError, "telemetry: malformed heartbeat frame (group size ", p.groupSize, ")");
  p.bytes = in.i64();
  FATHOM_CHECK(p.bytes >= 0, CommError, "telemetry: malformed heartbeat frame (", p.bytes, " bytes)");
  p.group = std::string(in.shortString());
  return p;
}

}  // namespace

void FrameWriter::heartbeat(std::uint64_t seq, const HeartbeatBody& beat) {
  const auto start = begin(FrameType::Heartbeat);
  put(m_out, seq);
  put(m_out, beat.time);
  put(m_out, beat.step);
  std::uint8_t flags = 0;
  if (beat.wavefront) {
    flags = kPace | (beat.wavefront->entered ? kEntered : 0) | (beat.wavefront->finished ? kFinished : 0);
  }
  put(m_out, flags);
  if (beat.wavefront) {
    if (beat.wavefront->entered) {
      putPosition(m_out, *beat.wavefront->entered);
    }
    if (beat.wavefront->finished) {
      putPosition(m_out, *beat.wavefront->finished);
    }
    put(m_out, beat.wavefront->step);
    put(m_out, beat.wavefront->workSecondsAtStep);
  }
  end(start);
}

HeartbeatBody decodeHeartbeat(BodyReader& in) {
  HeartbeatBody beat;
  beat.time = in.f64();
  beat.step = in.i64();
  const std::uint8_t flags = in.u8();
  FATHOM_CHECK((flags & ~(kEntered | kFinished | kPace)) == 0, CommError,
               "telemetry: malformed heartbeat frame (unknown flags ", int(flags), ")");
  FATHOM_CHECK(flags == 0 || (flags & kPace) != 0, CommError,
               "telemetry: malformed heartbeat frame (a collective without the wavefront's pace)");
  if (flags != 0) {
    parallel::WavefrontSnapshot wavefront;
    if ((flags & kEntered) != 0) {
      wavefront.entered = readPosition(in);
    }
    if ((flags & kFinished) != 0) {
      wavefront.finished = readPosition(in);
    }
    wavefront.step = in.i64();
    wavefront.workSecondsAtStep = in.f64();
    beat.wavefront = std::move(wavefront);
  }
  in.finish();
  return beat;
}

void FrameWriter::memory(std::uint64_t seq, const MemorySample& sample) {
  const auto start = begin(FrameType::Memory);
  put(m_out, seq);
  put(m_out, sample.wallTime);
  put(m_out, sample.step);
  put(m_out, sample.allocatedBytes);
  put(m_out, sample.reservedBytes);
  put(m_out, sample.peakAllocatedBytes);
  end(start);
}

void FrameWriter::log(std::uint64_t seq, double time, LogLevel level, std::string_view text) {
  const auto start = begin(FrameType::Log);
  put(m_out, seq);
  put(m_out, time);
  put(m_out, static_cast<std::uint8_t>(level));
  putLong(m_out, text, "a log line");
  end(start);
}

void FrameWriter::trace(std::uint64_t seq, double time, std::string_view name, std::string_view bytes) {
  const auto start = begin(FrameType::Trace);
  put(m_out, seq);
  put(m_out, time);
  putShort(m_out, name, "the trace name");
  putLong(m_out, bytes, "a trace chunk");
  end(start);
}

void FrameWriter::artifact(std::uint64_t seq, double time, const store::Artifact& artifact) {
  const auto start = begin(FrameType::Artifact);
  put(m_out, seq);
  put(m_out, time);
  put(m_out, static_cast<std::uint8_t>(artifact.kind));
  putLong(m_out, artifact.path, "an artifact path");
  put(m_out, artifact.bytes);
  end(start);
}

void FrameWriter::setup(std::uint64_t seq, const store::RunSetup& setup) {
  const auto start = begin(FrameType::Setup);
  put(m_out, seq);
  const bool fsdp = setup.strategy.strategy == plan::Strategy::Fsdp;
  putShort(m_out, plan::toString(setup.strategy.strategy), "the strategy");
  putShort(m_out, fsdp ? plan::toString(setup.strategy.fsdpSharding) : std::string_view(), "the FSDP sharding");
  putShort(m_out, setup.mixedPrecision, "the mixed precision");
  end(start);
}

void FrameWriter::deviceMap(std::uint64_t seq, double time, std::string_view recordJson) {
  const auto start = begin(FrameType::DeviceMap);
  put(m_out, seq);
  put(m_out, time);
  putLong(m_out, recordJson, "a device map record");
  end(start);
}

void FrameWriter::metrics(std::uint64_t seq, std::uint32_t count, std::string_view encodedPoints) {
  const auto start = begin(FrameType::Metrics);
  put(m_out, seq);
  put(m_out, count);
  m_out.append(encodedPoints);
  end(start);
}

void encodePoint(std::string& out, std::int64_t step, double wallTime, std::string_view key, double value) {
  put(out, step);
  put(out, wallTime);
  put(out, value);
  putShort(out, key, "a metric key");
}

// ---- BodyReader ----------------------------------------------------------------------------------------------------

std::string_view BodyReader::bytes(std::size_t n) {
  FATHOM_CHECK(n <= remaining(), CommError, "telemetry: malformed ", m_name, " frame (wants ", n,
               " more bytes at offset ", m_pos, " of ", m_body.size(), ")");
  const auto out = m_body.substr(m_pos, n);
  m_pos += n;
  return out;
}

namespace {
template <typename T> T take(BodyReader& in) {
  T value;
  std::memcpy(&value, in.bytes(sizeof(T)).data(), sizeof(T));
  return value;
}
}  // namespace

std::uint8_t BodyReader::u8() {
  return take<std::uint8_t>(*this);
}
std::uint16_t BodyReader::u16() {
  return take<std::uint16_t>(*this);
}
std::uint32_t BodyReader::u32() {
  return take<std::uint32_t>(*this);
}
std::uint64_t BodyReader::u64() {
  return take<std::uint64_t>(*this);
}
double BodyReader::f64() {
  return take<double>(*this);
}

void BodyReader::finish() const {
  FATHOM_CHECK(remaining() == 0, CommError, "telemetry: malformed ", m_name, " frame (", remaining(),
               " unexpected bytes at its end)");
}

Hello decodeHello(std::string_view body) {
  BodyReader in(body, "hello");
  FATHOM_CHECK(body.size() >= kMagic.size() && in.bytes(kMagic.size()) == kMagic, CommError,
               "telemetry: the first frame is not a Fathom hello (no \"FTHM\" magic)");
  Hello hello;
  hello.version = in.u16();
  if (hello.version != kVersion) {
    return hello;  // the rest may be laid out differently: the caller refuses the version
  }
  hello.rank = in.i32();
  hello.pid = in.i64();
  hello.token = std::string(in.shortString());
  hello.host = std::string(in.shortString());
  in.finish();
  return hello;
}

void decodeMetrics(BodyReader& in, int rank, std::vector<store::MetricPoint>& out) {
  const std::uint32_t count = in.u32();
  // Each point takes at least 26 bytes: a count beyond that is a lie, refused before reserving memory for it.
  FATHOM_CHECK(count <= in.remaining() / 26, CommError, "telemetry: malformed metrics frame (", count,
               " points announced in ", in.remaining(), " bytes)");
  out.reserve(out.size() + count);
  for (std::uint32_t i = 0; i < count; ++i) {
    store::MetricPoint p;
    p.rank = rank;
    p.step = in.i64();
    p.wallTime = in.f64();
    p.value = in.f64();
    p.key = std::string(in.shortString());
    out.push_back(std::move(p));
  }
  in.finish();
}

store::RunSetup decodeSetup(BodyReader& in) {
  store::RunSetup setup;
  const std::string strategy(in.shortString());
  const std::string sharding(in.shortString());
  setup.mixedPrecision = std::string(in.shortString());
  in.finish();
  try {
    setup.strategy.strategy = plan::parseStrategy(strategy);
    if (!sharding.empty()) {
      setup.strategy.fsdpSharding = plan::parseFsdpSharding(sharding);
    }
  } catch (const ConfigError& e) {
    throw CommError(std::string("telemetry: malformed setup frame: ") + e.what());
  }
  return setup;
}

}  // namespace fathom::telemetry::protocol
