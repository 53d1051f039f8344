// SPDX-License-Identifier: Apache-2.0
// The worker side of the telemetry link. Invariants:
//  - Sequence numbers are assigned when a frame is sealed, under m_mutex, and frames enter m_queue in that order (the
//    I/O thread queues no heartbeat while a caller waits for space with a sealed frame); the I/O thread sends them in
//    queue order, so the collector sees 1, 2, 3, ... with no gap.
//  - The points of a sent frame stay in m_unacked until an ack covers its sequence number.
//  - Callers block only on a full queue (backpressure) or in flush()/close(); the I/O thread never blocks on the
//    socket (non-blocking, poll()).
#include <fathom/common/clock.h>
#include <fathom/telemetry/telemetry_sender.h>

#include "socket.h"

#include <fathom/common/error.h>
#include <fathom/store/process_identity.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace fathom::telemetry {
namespace {

using Clock = std::chrono::steady_clock;
using protocol::FrameWriter;

/// Seal a metrics frame early when its encoded points pass this size, far below kMaxFrameBytes.
constexpr std::size_t kMaxPendingBytes = 4u << 20;

struct QueuedFrame {
  std::uint64_t seq = 0;
  std::uint64_t points = 0;
  std::string bytes;
};

}  // namespace

std::optional<TelemetryEndpoint> TelemetryEndpoint::fromEnvironment() {
  const char* endpoint = std::getenv(protocol::kEndpointVariable);
  if (endpoint == nullptr || *endpoint == '\0') {
    return std::nullopt;
  }
  TelemetryEndpoint out;
  const net::Endpoint parsed = net::parseEndpoint(endpoint);
  out.host = parsed.host;
  out.port = parsed.port;
  out.unixPath = parsed.unixPath;
  const char* token = std::getenv(protocol::kTokenVariable);
  FATHOM_CHECK(token != nullptr && *token != '\0', ConfigError, protocol::kEndpointVariable, " is set but ",
               protocol::kTokenVariable, " is not: the launcher sets both");
  out.token = token;
  if (const char* rank = std::getenv("RANK"); rank != nullptr && *rank != '\0') {
    char* end = nullptr;
    const long value = std::strtol(rank, &end, 10);
    FATHOM_CHECK(*end == '\0' && value >= 0 && value < (1L << 30), ConfigError, "RANK='", rank,
                 "' is not a rank (a non-negative integer)");
    out.rank = static_cast<int>(value);
  }
  return out;
}

class TelemetrySender::Impl {
public:
  Impl(const TelemetryEndpoint& endpoint, SenderOptions options)
      : m_options(std::move(options)), m_rank(endpoint.rank) {
    FATHOM_CHECK(m_options.batchPoints >= 1, ConfigError, "SenderOptions::batchPoints must be >= 1");
    FATHOM_CHECK(m_options.maxQueuedFrames >= 1, ConfigError, "SenderOptions::maxQueuedFrames must be >= 1");
    const net::Endpoint where{endpoint.host, endpoint.port, endpoint.unixPath};
    m_where = where.text();
    m_socket = net::connectTo(where, m_options.connectTimeout);
    net::setBufferSize(m_socket.fd(), SO_SNDBUF);
    handshake(endpoint);
    int fds[2];
    FATHOM_CHECK(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0, CommError, "telemetry: cannot create a pipe");
    m_wakeRead = net::Socket(fds[0]);
    m_wakeWrite = net::Socket(fds[1]);
    net::setNonBlocking(m_socket.fd(), true);
    m_lastHeartbeat = Clock::now();
    m_io = std::thread([this] { ioLoop(); });
  }

  ~Impl() { stopIo(); }

  void handshake(const TelemetryEndpoint& endpoint) {
    std::string hello;
    FrameWriter(hello).hello({protocol::kVersion, endpoint.rank, static_cast<std::int64_t>(::getpid()), endpoint.token,
                              store::currentHostName()});
    net::setReceiveTimeout(m_socket.fd(), m_options.connectTimeout);
    net::writeAll(m_socket.fd(), hello, "the hello");
    std::string buffer;
    std::optional<protocol::Frame> frame;
    try {
      frame = net::readFrame(m_socket.fd(), buffer);
    } catch (const CommError& e) {
      throw CommError(detail::concat("telemetry: no welcome from the collector at ", m_where, ": ", e.what()));
    }
    FATHOM_CHECK(frame.has_value(), CommError, "telemetry: the collector at ", m_where,
                 " closed the connection without answering the hello");
    if (frame->type == protocol::FrameType::Refused) {
      protocol::BodyReader in(frame->body, "refused");
      in.u16();
      throw CommError(detail::concat("telemetry: the collector at ", m_where, " refused rank ", endpoint.rank, ": ",
                                     in.longString()));
    }
    FATHOM_CHECK(frame->type == protocol::FrameType::Welcome, CommError, "telemetry: the collector at ", m_where,
                 " answered the hello with a ", protocol::frameName(frame->type), " frame");
    protocol::BodyReader in(frame->body, "welcome");
    const auto version = in.u16();
    FATHOM_CHECK(version == protocol::kVersion, CommError, "telemetry: the collector at ", m_where,
                 " speaks protocol version ", version, ", this sender ", protocol::kVersion);
    m_runId = in.i64();
    net::setReceiveTimeout(m_socket.fd(), std::chrono::milliseconds(0));
  }

  // ---- caller side (m_mutex) ----

  void throwIfFailedLocked() const {
    if (!m_error.empty()) {
      throw CommError(m_error);
    }
  }

  /// Queues a sealed frame, blocking while the queue is full.
  void enqueueLocked(std::unique_lock<std::mutex>& lock, QueuedFrame frame) {
    // The frame's sequence number is taken: while this waits, the I/O thread must not queue a heartbeat with a later
    // one ahead of it (m_enqueueWaiters holds heartbeats back).
    ++m_enqueueWaiters;
    m_spaceAvailable.wait(lock, [&] { return !m_error.empty() || m_queue.size() < m_options.maxQueuedFrames; });
    --m_enqueueWaiters;
    throwIfFailedLocked();
    enqueueUnboundedLocked(std::move(frame));
  }

  void enqueueUnboundedLocked(QueuedFrame frame) {
    m_lastQueuedSeq = frame.seq;
    m_sentPoints += frame.points;
    const bool wasEmpty = m_queue.empty();
    m_queue.push_back(std::move(frame));
    if (wasEmpty) {
      [[maybe_unused]] const auto n = ::write(m_wakeWrite.fd(), "x", 1);
    }
  }

  /// Turns the pending points into a metrics frame. Returns it (seq assigned) or nothing when there are none.
  std::optional<QueuedFrame> sealLocked() {
    if (m_pendingCount == 0) {
      return std::nullopt;
    }
    QueuedFrame frame;
    frame.seq = ++m_nextSeq;
    frame.points = m_pendingCount;
    FrameWriter(frame.bytes).metrics(frame.seq, m_pendingCount, m_pending);
    m_pending.clear();
    m_pendingCount = 0;
    return frame;
  }

  void sealAndEnqueueLocked(std::unique_lock<std::mutex>& lock) {
    if (auto frame = sealLocked()) {
      enqueueLocked(lock, std::move(*frame));
    }
  }

  template <typename Encode> void sendFrame(std::uint64_t points, Encode&& encode) {
    std::unique_lock lock(m_mutex);
    throwIfFailedLocked();
    sealAndEnqueueLocked(lock);  // keeps sequence order: earlier points go first
    QueuedFrame frame;
    frame.seq = ++m_nextSeq;
    frame.points = points;
    encode(FrameWriter(frame.bytes), frame.seq);
    enqueueLocked(lock, std::move(frame));
  }

  void addMetric(std::int64_t step, double wallTime, std::string_view key, double value) {
    std::unique_lock lock(m_mutex);
    throwIfFailedLocked();
    if (m_pendingCount == 0) {
      m_pendingSince = Clock::now();
    }
    protocol::encodePoint(m_pending, step, wallTime, key, value);
    ++m_pendingCount;
    m_step = std::max(m_step, step);
    if (m_pendingCount >= m_options.batchPoints || m_pending.size() >= kMaxPendingBytes) {
      sealAndEnqueueLocked(lock);
    }
  }

  void waitAcked(std::uint64_t seq, const char* what) {
    std::unique_lock lock(m_mutex);
    const bool done =
        m_acked.wait_for(lock, m_options.ackTimeout, [&] { return !m_error.empty() || m_ackedSeq >= seq; });
    throwIfFailedLocked();
    FATHOM_CHECK(done, CommError, "telemetry: the collector at ", m_where, " did not acknowledge ", what, " within ",
                 m_options.ackTimeout.count(), " ms");
  }

  void flush() {
    std::uint64_t target = 0;
    {
      std::unique_lock lock(m_mutex);
      throwIfFailedLocked();
      sealAndEnqueueLocked(lock);
      target = m_lastQueuedSeq;
    }
    waitAcked(target, "the points sent");
  }

  void close() {
    if (m_closed) {
      return;
    }
    m_closed = true;
    try {
      flush();
      std::uint64_t bye = 0;
      {
        std::unique_lock lock(m_mutex);
        QueuedFrame frame;
        frame.seq = bye = ++m_nextSeq;
        FrameWriter(frame.bytes).bye(frame.seq);
        enqueueLocked(lock, std::move(frame));
      }
      waitAcked(bye, "the bye");
    } catch (...) {
      stopIo();
      throw;
    }
    stopIo();
  }

  void stopIo() {
    if (m_io.joinable()) {
      m_stopIo = true;
      [[maybe_unused]] const auto n = ::write(m_wakeWrite.fd(), "x", 1);
      m_io.join();
    }
    m_socket.reset();
  }

  // ---- I/O thread ----

  void fail(const std::string& message) {
    std::lock_guard lock(m_mutex);
    if (m_error.empty()) {
      m_error = message;
    }
    m_spaceAvailable.notify_all();
    m_acked.notify_all();
  }

  /// Reads whatever the collector sent; false when the connection ended (after fail()).
  bool readIncoming() {
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::recv(m_socket.fd(), chunk, sizeof(chunk), 0);
      if (n > 0) {
        m_inbox.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        break;
      }
      if (n < 0 && errno == EINTR) {
        continue;
      }
      fail(detail::concat("telemetry: the collector at ", m_where, " closed the connection",
                          n < 0 ? std::string(" (") + std::strerror(errno) + ")" : std::string(),
                          " (was the launcher stopped?)"));
      return false;
    }
    while (m_inbox.size() >= 5) {
      std::uint32_t length = 0;
      std::memcpy(&length, m_inbox.data(), sizeof(length));
      if (length < 1 || length > protocol::kMaxFrameBytes) {
        fail("telemetry: the collector sent a frame of " + std::to_string(length) + " bytes");
        return false;
      }
      if (m_inbox.size() < 4 + length) {
        break;
      }
      const auto type = static_cast<protocol::FrameType>(static_cast<std::uint8_t>(m_inbox[4]));
      const std::string_view body = std::string_view(m_inbox).substr(5, length - 1);
      try {
        if (type == protocol::FrameType::Ack) {
          protocol::BodyReader in(body, "ack");
          onAck(in.u64());
        } else if (type == protocol::FrameType::Refused) {
          protocol::BodyReader in(body, "refused");
          in.u16();
          fail(detail::concat("telemetry: the collector at ", m_where, " closed the connection: ", in.longString()));
          return false;
        }
      } catch (const CommError& e) {
        fail(e.what());
        return false;
      }
      m_inbox.erase(0, 4 + length);
    }
    return true;
  }

  void onAck(std::uint64_t seq) {
    std::uint64_t total = 0;
    {
      std::lock_guard lock(m_mutex);
      while (!m_unacked.empty() && m_unacked.front().first <= seq) {
        m_ackedPoints += m_unacked.front().second;
        m_unacked.pop_front();
      }
      total = m_ackedPoints;
    }
    if (m_options.onAcknowledged) {
      m_options.onAcknowledged(total);  // outside the lock; before waiters wake, so flush() returns after it
    }
    std::lock_guard lock(m_mutex);
    m_ackedSeq = std::max(m_ackedSeq, seq);
    m_acked.notify_all();
  }

  void ioLoop() {
    std::string out;  // bytes taken from the queue, not yet accepted by the kernel
    while (!m_stopIo) {
      {
        std::lock_guard lock(m_mutex);
        const auto now = Clock::now();
        if (m_pendingCount > 0 && now - m_pendingSince >= m_options.flushInterval) {
          if (auto frame = sealLocked()) {
            enqueueUnboundedLocked(std::move(*frame));  // this thread must not block; the bound is soft by one
          }
        }
        // Heartbeats go out on their interval whatever else is queued: they carry the wavefront the run monitor
        // compares, and this thread sends them even while the trainer is blocked inside a collective.
        if (m_options.heartbeatInterval.count() > 0 && m_enqueueWaiters == 0 &&
            now - m_lastHeartbeat >= m_options.heartbeatInterval) {
          QueuedFrame frame;
          frame.seq = ++m_nextSeq;
          protocol::HeartbeatBody beat{unixNowSeconds(), m_step, std::nullopt};
          if (m_wavefront) {
            beat.wavefront = m_wavefront->snapshot();
          }
          FrameWriter(frame.bytes).heartbeat(frame.seq, beat);
          enqueueUnboundedLocked(std::move(frame));
          m_lastHeartbeat = now;
        }
        if (out.empty() && !m_queue.empty()) {
          while (!m_queue.empty()) {
            out += m_queue.front().bytes;
            m_unacked.emplace_back(m_queue.front().seq, m_queue.front().points);
            m_queue.pop_front();
          }
          m_spaceAvailable.notify_all();
        }
      }
      pollfd fds[2] = {{m_socket.fd(), static_cast<short>(POLLIN | (out.empty() ? 0 : POLLOUT)), 0},
                       {m_wakeRead.fd(), POLLIN, 0}};
      const auto timeout =
          std::min<std::int64_t>({50, m_options.flushInterval.count(),
                                  m_options.heartbeatInterval.count() > 0 ? m_options.heartbeatInterval.count() : 50});
      if (::poll(fds, 2, static_cast<int>(std::max<std::int64_t>(timeout, 1))) < 0 && errno != EINTR) {
        fail(std::string("telemetry: poll failed: ") + std::strerror(errno));
        return;
      }
      if ((fds[1].revents & POLLIN) != 0) {
        char drain[64];
        while (::read(m_wakeRead.fd(), drain, sizeof(drain)) > 0) {
        }
      }
      if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !readIncoming()) {
        return;
      }
      if (!out.empty() && (fds[0].revents & POLLOUT) != 0) {
        const ssize_t n = ::send(m_socket.fd(), out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
          out.erase(0, static_cast<std::size_t>(n));
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          fail(detail::concat("telemetry: cannot send to the collector at ", m_where, ": ", std::strerror(errno),
                              " (was the launcher stopped?)"));
          return;
        }
      }
    }
  }

  SenderOptions m_options;
  int m_rank = 0;
  std::string m_where;
  std::int64_t m_runId = 0;
  net::Socket m_socket;
  net::Socket m_wakeRead;
  net::Socket m_wakeWrite;
  std::thread m_io;
  std::atomic<bool> m_stopIo{false};
  bool m_closed = false;
  Clock::time_point m_lastHeartbeat;  ///< I/O thread only
  std::string m_inbox;                ///< I/O thread only

  mutable std::mutex m_mutex;
  std::condition_variable m_spaceAvailable;
  std::condition_variable m_acked;
  std::string m_pending;  ///< encoded points of the frame being filled
  std::uint32_t m_pendingCount = 0;
  Clock::time_point m_pendingSince;
  std::int64_t m_step = 0;
  std::shared_ptr<const parallel::CollectiveWavefront> m_wavefront;  ///< read by the I/O thread for heartbeats
  std::deque<QueuedFrame> m_queue;
  std::deque<std::pair<std::uint64_t, std::uint64_t>> m_unacked;  ///< (seq, points) sent, not yet acknowledged
  std::uint64_t m_nextSeq = 0;
  int m_enqueueWaiters = 0;  ///< callers holding a sequence number while they wait for queue space
  std::uint64_t m_lastQueuedSeq = 0;
  std::uint64_t m_ackedSeq = 0;
  std::uint64_t m_sentPoints = 0;
  std::uint64_t m_ackedPoints = 0;
  std::string m_error;  ///< set once by the I/O thread; every later call throws it
};

TelemetrySender::TelemetrySender(const TelemetryEndpoint& endpoint, SenderOptions options)
    : m_impl(std::make_unique<Impl>(endpoint, std::move(options))) {}

TelemetrySender::~TelemetrySender() {
  try {
    close();
  } catch (const std::exception& e) {
    log(LogLevel::Warning, e.what());
  }
}

std::int64_t TelemetrySender::runId() const {
  return m_impl->m_runId;
}

int TelemetrySender::rank() const {
  return m_impl->m_rank;
}

void TelemetrySender::addMetric(std::int64_t step, double wallTime, std::string_view key, double value) {
  m_impl->addMetric(step, wallTime, key, value);
}

void TelemetrySender::sendMemory(const MemorySample& sample) {
  m_impl->sendFrame(3, [&](FrameWriter w, std::uint64_t seq) { w.memory(seq, sample); });
}

void TelemetrySender::sendLog(LogLevel level, std::string_view text, double time) {
  m_impl->sendFrame(0, [&](FrameWriter w, std::uint64_t seq) { w.log(seq, time, level, text); });
}

void TelemetrySender::sendTrace(std::string_view name, std::string_view bytes, double time) {
  m_impl->sendFrame(0, [&](FrameWriter w, std::uint64_t seq) { w.trace(seq, time, name, bytes); });
}

void TelemetrySender::sendArtifact(const store::Artifact& artifact, double time) {
  m_impl->sendFrame(0, [&](FrameWriter w, std::uint64_t seq) { w.artifact(seq, time, artifact); });
}

void TelemetrySender::sendSetup(const store::RunSetup& setup) {
  m_impl->sendFrame(0, [&](FrameWriter w, std::uint64_t seq) { w.setup(seq, setup); });
}

void TelemetrySender::sendDeviceMap(std::string_view recordJson, double time) {
  m_impl->sendFrame(0, [&](FrameWriter w, std::uint64_t seq) { w.deviceMap(seq, time, recordJson); });
}

void TelemetrySender::setStep(std::int64_t step) {
  std::lock_guard lock(m_impl->m_mutex);
  m_impl->m_step = step;
}

void TelemetrySender::watchCollectives(std::shared_ptr<const parallel::CollectiveWavefront> wavefront) {
  std::lock_guard lock(m_impl->m_mutex);
  m_impl->m_wavefront = std::move(wavefront);
}

void TelemetrySender::flush() {
  m_impl->flush();
}

void TelemetrySender::close() {
  m_impl->close();
}

std::uint64_t TelemetrySender::sentPoints() const {
  std::lock_guard lock(m_impl->m_mutex);
  return m_impl->m_sentPoints;
}

std::uint64_t TelemetrySender::acknowledgedPoints() const {
  std::lock_guard lock(m_impl->m_mutex);
  return m_impl->m_ackedPoints;
}

}  // namespace fathom::telemetry
