// SPDX-License-Identifier: Apache-2.0
// The TelemetryCollector's accept thread: admits the connections that present the run's token, refuses the rest.
#pragma once

#include "protocol.h"
#include "refusal_log.h"
#include "socket.h"

#include <fathom/telemetry/telemetry_collector.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace fathom::telemetry {

/// One thread that accepts connections and reads each one's hello with poll(), never blocking on a peer: a
/// connection costs no thread and at most protocol::kMaxHelloBytes until it has presented the token. Invariants:
///  - A pending connection (accepted, hello not yet complete) is dropped at its deadline, helloTimeout after it
///    was accepted, however its bytes trickle in; no more than maxPendingConnections are pending at once (a new
///    one pushes out the oldest), and no more than maxConnections are open with the welcomed ones (a new one
///    beyond is refused; a welcomed connection is never touched here).
///  - The doorman reads exactly the hello's bytes, so whatever the sender sends after it is left for its reader.
///  - When accept() fails for want of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) the listener is not
///    polled for a back-off of 20 ms doubling to 1 s, so the thread sleeps instead of spinning on a backlog it
///    cannot take; pending connections keep their deadlines meanwhile.
///  - Refusals are reported through a RefusalLog (bounded rate); nothing here waits for the collector's queue.
class Doorman {
public:
  struct Hooks {
    /// Joins the readers that finished and returns how many welcomed connections are open. Doorman thread.
    std::function<std::size_t()> reapAndCount;
    /// A connection whose hello passed (blocking mode again): the callee moves the socket away and starts its
    /// reader, or throws, leaving the socket, to refuse it after all (the message is the reason). Doorman thread.
    std::function<void(net::Socket& socket, const std::string& peer, protocol::Hello hello)> admit;
    /// A warning for the run's events (already written to the log). Must not block for long.
    std::function<void(const std::string& text)> event;
  };

  /// Starts the thread on `listener`.
  Doorman(net::Socket listener, const CollectorOptions& options, Hooks hooks);
  ~Doorman();
  Doorman(const Doorman&) = delete;
  Doorman& operator=(const Doorman&) = delete;

  /// Makes the thread reap finished readers now (any thread; also after stop(), when it does nothing).
  void wake();
  /// Stops accepting, closes the pending connections, reports the refusals not yet reported, and joins the thread.
  /// Idempotent.
  void stop();

  struct Stats {
    std::uint64_t accepted = 0;
    RefusalCounts refused;
    std::uint64_t backoffs = 0;
    std::size_t pending = 0;
  };
  Stats stats() const;

private:
  using Clock = std::chrono::steady_clock;
  /// An accepted connection whose hello is not yet complete.
  struct Pending {
    net::Socket socket;
    std::string peer;
    Clock::time_point deadline;
    std::string bytes;         ///< the hello so far: its length, then its type byte and body (<= 4 + kMaxHelloBytes)
    std::uint32_t length = 0;  ///< the announced length, once its 4 bytes are in
  };
  /// A refused connection: its Refused frame sent and its side shut down, read and discarded until the peer closes
  /// (at most kLinger), so the peer reads the reason instead of a reset.
  struct Closing {
    net::Socket socket;
    Clock::time_point deadline;
  };
  static constexpr std::chrono::milliseconds kLinger{500};
  static constexpr std::size_t kMaxClosing = 64;

  void run();
  /// Reads what `p` sent; decides once the hello is complete.
  void serve(Pending& p);
  void decide(Pending& p);
  void accept(std::size_t welcomed);
  void backOff(int error);
  /// Answers Refused (where the peer can take it), counts and reports the refusal; `p.socket` moves to m_closing.
  void refuse(Pending& p, RefusalReason reason, const std::string& why, const protocol::Hello* hello = nullptr);
  void report(const std::optional<std::string>& line, bool asEvent);
  void updateStats();

  std::vector<Pending> m_pending;  ///< in accept order (doorman thread)
  std::vector<Closing> m_closing;  ///< oldest first (doorman thread)

  net::Socket m_listener;
  net::Socket m_wakeRead;
  net::Socket m_wakeWrite;
  std::string m_token;
  std::chrono::milliseconds m_helloTimeout;
  std::size_t m_maxPending;
  std::size_t m_maxConnections;
  Hooks m_hooks;
  RefusalLog m_refusals;
  std::chrono::steady_clock::time_point m_backoffUntil{};
  std::chrono::milliseconds m_backoff{0};
  std::atomic<bool> m_stopping{false};
  bool m_stopped = false;
  mutable std::mutex m_statsMutex;
  Stats m_stats;
  std::thread m_thread;
};

}  // namespace fathom::telemetry
