// SPDX-License-Identifier: Apache-2.0
// The telemetry collector: an accept thread (the Doorman: accepts, reads every hello with poll(), refuses, reaps),
// one reader thread per welcomed connection, one writer thread, and a bounded queue between the readers and the
// writer. Invariants:
//  - Only the writer thread touches the Workspace until stop() has joined it.
//  - A connection gets a reader thread only after its hello presented the token; a reader that ends is joined by
//    the Doorman at once (it wakes it), and the connection's descriptor closes with the last reference to it
//    (m_connections, or a queued item not yet committed).
//  - Items of one connection enter the queue in sequence order and the writer commits in queue order, so the
//    highest sequence number of a connection in a committed transaction acknowledges everything before it too.
//  - An ack is queued for sending only after Workspace::append returned (commit, then ack).
//  - A full queue blocks the readers, never drops: TCP then blocks the senders. Only the collector's own warnings
//    (refusal reports, at a bounded rate) enter a full queue without waiting, so the Doorman never blocks on it.
#include <fathom/common/clock.h>
#include <fathom/telemetry/telemetry_collector.h>

#include "doorman.h"
#include "protocol.h"
#include "socket.h"

#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/common/memory_metric_keys.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <random>
#include <thread>

namespace fathom::telemetry {
namespace {

using Clock = std::chrono::steady_clock;
using protocol::FrameType;

LogLevel levelFromWire(std::uint8_t level) {
  return level <= static_cast<std::uint8_t>(LogLevel::Error) ? static_cast<LogLevel>(level) : LogLevel::Info;
}

/// One welcomed connection. The reader thread owns reading; acks are written by the writer thread under
/// `writeMutex` without blocking (a partial write stays in `outbox` and is retried).
struct Connection {
  net::Socket socket;
  std::string peer;
  int rank = -1;
  std::thread reader;
  std::atomic<bool> readerDone{false};

  std::mutex writeMutex;
  std::string outbox;              ///< ack bytes not yet taken by the kernel
  std::uint64_t committedSeq = 0;  ///< highest sequence number committed
  std::uint64_t ackedSeq = 0;      ///< highest sequence number put in an ack frame
};

/// One decoded data frame (or a launcher record, with no connection).
struct Item {
  std::shared_ptr<Connection> connection;
  std::uint64_t seq = 0;
  std::size_t weight = 1;
  store::IngestBatch part;
  std::optional<RankReport> report;  ///< a heartbeat's wavefront, for the run monitor
  std::optional<int> left;           ///< this rank's connection ended (the run monitor stops expecting it)
};

/// Decodes the body of a data frame (after its sequence number) from `rank` into `item`. CommError for a malformed
/// body or a frame type a sender may not send.
void decodeDataFrame(FrameType type, protocol::BodyReader& in, int rank, Item& item) {
  switch (type) {
  case FrameType::Metrics:
    protocol::decodeMetrics(in, rank, item.part.metrics);
    item.weight = std::max<std::size_t>(1, item.part.metrics.size());
    break;
  case FrameType::Memory: {
    const double time = in.f64();
    const std::int64_t step = in.i64();
    const double allocated = static_cast<double>(in.i64());
    const double reserved = static_cast<double>(in.i64());
    const double peak = static_cast<double>(in.i64());
    in.finish();
    item.part.metrics = {{rank, step, time, std::string(kAllocatedBytesKey), allocated},
                         {rank, step, time, std::string(kReservedBytesKey), reserved},
                         {rank, step, time, std::string(kPeakAllocatedBytesKey), peak}};
    item.weight = 3;
    break;
  }
  case FrameType::Log: {
    const double time = in.f64();
    const LogLevel level = levelFromWire(in.u8());
    item.part.events.push_back({rank, time, level, std::string(in.longString())});
    in.finish();
    break;
  }
  case FrameType::Heartbeat: {
    protocol::HeartbeatBody beat = protocol::decodeHeartbeat(in);
    store::Heartbeat row{rank, beat.time, beat.step, std::nullopt, std::nullopt};
    if (beat.wavefront) {
      row.entered = beat.wavefront->entered;
      row.finished = beat.wavefront->finished;
      item.report = RankReport{rank, beat.step, std::move(*beat.wavefront)};
    }
    item.part.heartbeats.push_back(std::move(row));
    break;
  }
  case FrameType::Trace: {
    store::TraceChunk chunk;
    chunk.rank = rank;
    chunk.time = in.f64();
    chunk.name = std::string(in.shortString());
    chunk.data = std::string(in.longString());
    in.finish();
    item.weight = 1 + chunk.data.size() / 256;
    item.part.traces.push_back(std::move(chunk));
    break;
  }
  case FrameType::Artifact: {
    in.f64();  // the sender's time; the workspace stamps artifacts when it stores them
    const std::uint8_t kind = in.u8();
    FATHOM_CHECK(kind <= static_cast<std::uint8_t>(store::ArtifactKind::Export), CommError,
                 "telemetry: artifact frame with unknown kind ", int(kind));
    store::Artifact artifact{static_cast<store::ArtifactKind>(kind), std::string(in.longString()), 0};
    artifact.bytes = in.i64();
    in.finish();
    item.part.artifacts.push_back(std::move(artifact));
    break;
  }
  case FrameType::Setup:
    // Rank 0 speaks for the run; another rank's report is read (it must be well formed) but not applied.
    if (rank == 0) {
      item.part.setup = protocol::decodeSetup(in);
    } else {
      protocol::decodeSetup(in);
    }
    break;
  case FrameType::DeviceMap: {
    store::RunDeviceMap map;
    map.rank = rank;
    map.createdAt = in.f64();
    map.recordJson = std::string(in.longString());
    in.finish();
    item.weight = 1 + map.recordJson.size() / 256;
    item.part.deviceMaps.push_back(std::move(map));
    break;
  }
  case FrameType::Bye: in.finish(); break;
  default: throw CommError(detail::concat("telemetry: unexpected frame type ", int(type), " from a sender"));
  }
}

}  // namespace

std::string randomToken() {
  std::random_device device;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t word = device();
    for (int nibble = 0; nibble < 8; ++nibble) {
      out += kHex[(word >> (4 * nibble)) & 0xF];
    }
  }
  return out;
}

class TelemetryCollector::Impl {
public:
  Impl(store::Workspace workspace, store::RunId run, CollectorOptions options)
      : m_workspace(std::move(workspace)), m_run(run), m_options(std::move(options)) {
    FATHOM_CHECK(m_options.queuePoints >= 1, ConfigError, "CollectorOptions::queuePoints must be >= 1");
    FATHOM_CHECK(m_options.maxPointsPerCommit >= 1, ConfigError, "CollectorOptions::maxPointsPerCommit must be >= 1");
    FATHOM_CHECK(m_options.maxPendingConnections >= 1, ConfigError,
                 "CollectorOptions::maxPendingConnections must be >= 1");
    FATHOM_CHECK(m_options.helloTimeout.count() >= 1, ConfigError,
                 "CollectorOptions::helloTimeout must be >= 1 ms, not ", m_options.helloTimeout.count());
    FATHOM_CHECK(m_options.token.size() <= 1024, ConfigError, "CollectorOptions::token is ", m_options.token.size(),
                 " bytes; at most 1024 fit a hello (protocol::kMaxHelloBytes)");
    if (m_options.token.empty()) {
      m_options.token = randomToken();
    }
    auto listener = net::listenOn(m_options.listenAddress);
    m_port = listener.port;
    m_writer = std::thread([this] { writerLoop(); });
    Doorman::Hooks hooks;
    hooks.reapAndCount = [this] { return reapAndCount(); };
    hooks.admit = [this](net::Socket& socket, const std::string& peer, protocol::Hello hello) {
      admit(socket, peer, std::move(hello));
    };
    hooks.event = [this](const std::string& text) { recordEvent(text); };
    try {
      m_doorman = std::make_unique<Doorman>(std::move(listener.socket), m_options, std::move(hooks));
    } catch (...) {
      stopWriter();
      throw;
    }
  }

  ~Impl() {
    try {
      stop();
    } catch (const std::exception& e) {
      log(LogLevel::Error, std::string("telemetry collector: ") + e.what());
    }
  }

  void stop();
  /// Queues an item; with `wait`, first waits for room (backpressure).
  void push(Item item, bool wait = true);
  CollectorStats stats() const {
    CollectorStats out;
    {
      std::lock_guard lock(m_statsMutex);
      out = m_stats;
    }
    const Doorman::Stats door = m_doorman->stats();
    out.connectionsAccepted = door.accepted;
    out.refused = door.refused;
    out.connectionsRefused = door.refused.total();
    out.acceptBackoffs = door.backoffs;
    out.pendingConnections = door.pending;
    return out;
  }

  store::Workspace m_workspace;
  store::RunId m_run;
  CollectorOptions m_options;
  std::uint16_t m_port = 0;
  bool m_stopped = false;

private:
  /// Takes a connection the Doorman welcomed and starts its reader (Doorman thread). Throws, leaving `socket` with
  /// the caller, when no thread can be started.
  void admit(net::Socket& socket, const std::string& peer, protocol::Hello hello);
  /// Joins the readers that ended and drops their connections; returns how many remain (Doorman thread).
  std::size_t reapAndCount();
  void readLoop(const std::shared_ptr<Connection>& connection, const protocol::Hello& hello);
  void writerLoop();
  void stopWriter();
  /// Stores what the run monitor raised or ended and reports it through onAlert (writer thread).
  void storeAlerts(std::vector<MonitorUpdate> updates);
  void sendAcks(Connection& connection);
  void recordWarning(const std::string& text);
  /// Queues a warning event of the collector's own (already logged) without waiting for room.
  void recordEvent(const std::string& text);
  template <typename F> void updateStats(F&& f) {
    std::lock_guard lock(m_statsMutex);
    f(m_stats);
  }

  std::thread m_writer;
  std::unique_ptr<Doorman> m_doorman;

  std::mutex m_connectionsMutex;
  std::vector<std::shared_ptr<Connection>> m_connections;

  std::mutex m_queueMutex;
  std::condition_variable m_queueNotEmpty;
  std::condition_variable m_queueNotFull;
  std::condition_variable m_readerFinished;
  std::deque<Item> m_queue;
  std::size_t m_queuedWeight = 0;
  bool m_writerStop = false;
  std::exception_ptr m_failure;  ///< the writer's error; set once, then the queue refuses items

  mutable std::mutex m_statsMutex;
  CollectorStats m_stats;

  RunMonitor m_monitor{m_options.monitor};   ///< writer thread only
  std::map<int, store::AlertId> m_alertIds;  ///< the monitor's alert keys -> their rows (writer thread)
};

void TelemetryCollector::Impl::push(Item item, bool wait) {
  std::unique_lock lock(m_queueMutex);
  // Admits an item larger than the whole queue when the queue is empty, so nothing can block forever.
  m_queueNotFull.wait(lock, [&] {
    return !wait || m_failure || m_queuedWeight == 0 || m_queuedWeight + item.weight <= m_options.queuePoints;
  });
  FATHOM_CHECK(!m_failure, StorageError, "telemetry: the workspace stopped accepting data");
  m_queuedWeight += item.weight;
  m_queue.push_back(std::move(item));
  m_queueNotEmpty.notify_one();
}

void TelemetryCollector::Impl::recordWarning(const std::string& text) {
  log(LogLevel::Warning, text);
  Item item;
  item.part.events.push_back({-1, unixNowSeconds(), LogLevel::Warning, text});
  try {
    push(std::move(item));
  } catch (const Error&) {
    // the workspace failed already; the warning went to the log
  }
}

void TelemetryCollector::Impl::recordEvent(const std::string& text) {
  Item item;
  item.part.events.push_back({-1, unixNowSeconds(), LogLevel::Warning, text});
  try {
    push(std::move(item), false);
  } catch (const Error&) {
    // the workspace failed already; the warning went to the log
  }
}

void TelemetryCollector::Impl::admit(net::Socket& socket, const std::string& peer, protocol::Hello hello) {
  auto connection = std::make_shared<Connection>();
  connection->peer = peer;
  connection->rank = hello.rank;
  connection->socket = std::move(socket);
  try {
    connection->reader = std::thread([this, connection, hello = std::move(hello)] { readLoop(connection, hello); });
  } catch (...) {
    socket = std::move(connection->socket);  // the Doorman refuses it, with the reason
    throw;
  }
  // Reaped by the Doorman's thread, this one: a reader that ends before this line is found on its next round.
  std::lock_guard lock(m_connectionsMutex);
  m_connections.push_back(std::move(connection));
}

std::size_t TelemetryCollector::Impl::reapAndCount() {
  std::vector<std::shared_ptr<Connection>> ended;
  std::size_t open = 0;
  {
    std::lock_guard lock(m_connectionsMutex);
    const auto split = std::stable_partition(m_connections.begin(), m_connections.end(),
                                             [](const auto& c) { return !c->readerDone.load(); });
    ended.assign(std::make_move_iterator(split), std::make_move_iterator(m_connections.end()));
    m_connections.erase(split, m_connections.end());
    open = m_connections.size();
  }
  for (const auto& c : ended) {
    c->reader.join();
  }
  updateStats([open](CollectorStats& s) { s.openConnections = open; });
  return open;
}

void TelemetryCollector::Impl::readLoop(const std::shared_ptr<Connection>& connection, const protocol::Hello& hello) {
  const int fd = connection->socket.fd();
  std::string buffer;
  bool welcomed = false;
  try {
    Item rank;
    rank.part.ranks.push_back({hello.rank, hello.host, hello.pid, "", std::nullopt});
    push(std::move(rank));
    std::string welcome;
    protocol::FrameWriter(welcome).welcome(m_run.value);
    {
      std::lock_guard lock(connection->writeMutex);
      net::writeAll(fd, welcome, "the welcome");
    }
    welcomed = true;
    std::optional<protocol::Frame> frame;
    std::uint64_t expected = 1;
    while (welcomed) {
      frame = net::readFrame(fd, buffer);
      if (!frame) {
        break;  // the sender hung up
      }
      const char* name = protocol::frameName(frame->type);
      protocol::BodyReader in(frame->body, name);
      Item item;
      item.connection = connection;
      item.seq = in.u64();
      FATHOM_CHECK(item.seq == expected, CommError, "telemetry: ", name, " frame with sequence number ", item.seq,
                   ", expected ", expected);
      ++expected;
      decodeDataFrame(frame->type, in, connection->rank, item);
      push(std::move(item));
    }
  } catch (const Error& e) {
    if (welcomed) {
      updateStats([](CollectorStats& s) { ++s.protocolErrors; });
      recordWarning("telemetry: closed the connection of rank " + std::to_string(connection->rank) + " (" +
                    connection->peer + "): " + e.what());
    }
    ::shutdown(fd, SHUT_RDWR);
  }
  if (welcomed) {
    Item left;
    left.left = connection->rank;
    try {
      push(std::move(left));
    } catch (const Error&) {
      // the workspace failed already; nothing more is monitored
    }
  }
  connection->readerDone = true;
  {
    std::lock_guard lock(m_queueMutex);
    m_readerFinished.notify_all();
  }
  m_doorman->wake();  // joins this thread and closes the connection now, not at the end of the run
}

void TelemetryCollector::Impl::sendAcks(Connection& connection) {
  std::lock_guard lock(connection.writeMutex);
  if (connection.outbox.empty() && connection.committedSeq > connection.ackedSeq) {
    protocol::FrameWriter(connection.outbox).ack(connection.committedSeq);
    connection.ackedSeq = connection.committedSeq;
  }
  if (connection.outbox.empty()) {
    return;
  }
  // Never blocks: a sender that does not read its acks must not stall the writer. Acks are cumulative, so one that
  // waits here is simply superseded by the next.
  const ssize_t sent =
      ::send(connection.socket.fd(), connection.outbox.data(), connection.outbox.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (sent > 0) {
    connection.outbox.erase(0, static_cast<std::size_t>(sent));
  } else if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    connection.outbox.clear();  // the peer is gone; nobody is left to tell
  }
}

void TelemetryCollector::Impl::writerLoop() {
  std::vector<Item> taken;
  for (;;) {
    {
      std::unique_lock lock(m_queueMutex);
      m_queueNotEmpty.wait_for(lock, std::chrono::milliseconds(50), [&] { return !m_queue.empty() || m_writerStop; });
      if (m_queue.empty() && m_writerStop) {
        // Everything is committed and the run is over: alerts still open end with it.
        lock.unlock();
        storeAlerts(m_monitor.closeAll(unixNowSeconds()));
        break;
      }
      std::size_t weight = 0;
      while (!m_queue.empty() && (taken.empty() || weight + m_queue.front().weight <= m_options.maxPointsPerCommit)) {
        weight += m_queue.front().weight;
        taken.push_back(std::move(m_queue.front()));
        m_queue.pop_front();
      }
      m_queuedWeight -= weight;
      m_queueNotFull.notify_all();
    }
    if (!taken.empty()) {
      store::IngestBatch batch;
      std::map<Connection*, std::uint64_t> highest;
      std::uint64_t frames = 0;
      for (Item& item : taken) {
        auto& part = item.part;
        const auto move = [](auto& to, auto& from) {
          to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
        };
        move(batch.ranks, part.ranks);
        move(batch.metrics, part.metrics);
        move(batch.events, part.events);
        move(batch.heartbeats, part.heartbeats);
        move(batch.traces, part.traces);
        move(batch.artifacts, part.artifacts);
        move(batch.deviceMaps, part.deviceMaps);
        if (part.setup) {
          batch.setup = std::move(part.setup);  // the latest report wins
        }
        if (item.report) {
          m_monitor.observe(*item.report, Clock::now());
        }
        if (item.left) {
          m_monitor.rankLeft(*item.left);
        }
        if (item.connection) {
          highest[item.connection.get()] = item.seq;
          ++frames;
        }
      }
      const auto started = Clock::now();
      try {
        m_workspace.append(m_run, batch);
      } catch (const std::exception& e) {
        log(LogLevel::Error, std::string("telemetry: the workspace stopped accepting data: ") + e.what());
        {
          std::lock_guard lock(m_queueMutex);
          m_failure = std::current_exception();
          m_queue.clear();
          m_queuedWeight = 0;
          m_queueNotFull.notify_all();
        }
        // Nothing more is committed, so nothing more is acknowledged: every sender is cut off and fails loudly.
        std::lock_guard lock(m_connectionsMutex);
        for (const auto& c : m_connections) {
          ::shutdown(c->socket.fd(), SHUT_RDWR);
        }
        break;
      }
      const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
      updateStats([&](CollectorStats& s) {
        s.pointsCommitted += batch.metrics.size();
        s.framesCommitted += frames;
        ++s.commits;
        s.commitSeconds += seconds;
      });
      for (Item& item : taken) {
        if (item.connection) {
          std::lock_guard lock(item.connection->writeMutex);
          item.connection->committedSeq = highest[item.connection.get()];
        }
      }
      taken.clear();
    }
    storeAlerts(m_monitor.check(Clock::now(), unixNowSeconds()));
    std::vector<std::shared_ptr<Connection>> connections;
    {
      std::lock_guard lock(m_connectionsMutex);
      connections = m_connections;
    }
    for (const auto& c : connections) {
      sendAcks(*c);
    }
  }
}

void TelemetryCollector::Impl::storeAlerts(std::vector<MonitorUpdate> updates) {
  for (MonitorUpdate& update : updates) {
    store::AlertRow row{{}, m_run, std::move(update.alert)};
    try {
      if (update.raised) {
        row.id = m_workspace.addAlert(m_run, row.alert);
        m_alertIds[update.key] = row.id;
      } else if (const auto found = m_alertIds.find(update.key); found != m_alertIds.end()) {
        row.id = found->second;
        m_workspace.resolveAlert(row.id, *row.alert.resolvedAt, row.alert.end);
      }
    } catch (const std::exception& e) {
      // The alert is still reported to the launcher; the next commit finds out whether the workspace is gone.
      log(LogLevel::Error, std::string("telemetry: cannot store an alert: ") + e.what());
    }
    if (m_options.onAlert) {
      m_options.onAlert(row);
    }
  }
}

void TelemetryCollector::Impl::stop() {
  if (m_stopped) {
    return;
  }
  m_stopped = true;
  m_doorman->stop();  // no new connections; the refusals' last report is queued

  std::vector<std::shared_ptr<Connection>> connections;
  {
    std::lock_guard lock(m_connectionsMutex);
    connections = m_connections;
  }
  {
    // Senders still connected get drainTimeout to finish; then their connections are cut.
    std::unique_lock lock(m_queueMutex);
    m_readerFinished.wait_for(lock, m_options.drainTimeout, [&] {
      return std::all_of(connections.begin(), connections.end(), [](const auto& c) { return c->readerDone.load(); });
    });
  }
  for (const auto& c : connections) {
    if (!c->readerDone) {
      ::shutdown(c->socket.fd(), SHUT_RDWR);
    }
  }
  for (const auto& c : connections) {
    c->reader.join();
  }
  {
    std::lock_guard lock(m_connectionsMutex);
    m_connections.clear();
  }
  updateStats([](CollectorStats& s) { s.openConnections = 0; });
  stopWriter();
  if (m_failure) {
    std::rethrow_exception(m_failure);
  }
}

void TelemetryCollector::Impl::stopWriter() {
  {
    std::lock_guard lock(m_queueMutex);
    m_writerStop = true;
    m_queueNotEmpty.notify_all();
  }
  m_writer.join();
}

// ---- TelemetryCollector ------------------------------------------------------------------------------------------

std::size_t CollectorOptions::effectiveMaxConnections() const {
  if (maxConnections != 0) {
    return maxConnections;
  }
  return maxPendingConnections + (expectedRanks == 0 ? 256 : 4 * expectedRanks);
}

TelemetryCollector::TelemetryCollector(store::Workspace workspace, store::RunId run, CollectorOptions options)
    : m_impl(std::make_unique<Impl>(std::move(workspace), run, std::move(options))) {}

TelemetryCollector::~TelemetryCollector() = default;

std::string TelemetryCollector::endpoint() const {
  return "127.0.0.1:" + std::to_string(m_impl->m_port);
}

std::uint16_t TelemetryCollector::port() const {
  return m_impl->m_port;
}

const std::string& TelemetryCollector::token() const {
  return m_impl->m_options.token;
}

store::RunId TelemetryCollector::run() const {
  return m_impl->m_run;
}

std::vector<std::pair<std::string, std::string>>
TelemetryCollector::workerEnvironment(const std::string& endpointSeenByWorkers) const {
  return {{protocol::kEndpointVariable, endpointSeenByWorkers.empty() ? endpoint() : endpointSeenByWorkers},
          {protocol::kTokenVariable, token()},
          {protocol::kRunIdVariable, std::to_string(m_impl->m_run.value)}};
}

void TelemetryCollector::recordRank(const store::RankInfo& rank) {
  Item item;
  item.part.ranks.push_back(rank);
  m_impl->push(std::move(item));
}

void TelemetryCollector::recordEvent(const store::EventRecord& event) {
  Item item;
  item.part.events.push_back(event);
  m_impl->push(std::move(item));
}

void TelemetryCollector::stop() {
  m_impl->stop();
}

store::Workspace& TelemetryCollector::workspace() {
  FATHOM_ASSERT(m_impl->m_stopped, "TelemetryCollector::workspace() before stop()");
  return m_impl->m_workspace;
}

CollectorStats TelemetryCollector::stats() const {
  return m_impl->stats();
}

}  // namespace fathom::telemetry
