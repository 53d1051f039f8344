// SPDX-License-Identifier: Apache-2.0
#include "doorman.h"

#include <fathom/common/error.h>
#include <fathom/common/log.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fathom::telemetry {
namespace {

bool sameToken(std::string_view a, std::string_view b) {
  // Compares every byte whatever the first difference, so timing does not reveal a prefix of the token.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

/// Milliseconds from now to `when`, rounded up (poll's timeout); 0 when it passed.
int millisecondsUntil(std::chrono::steady_clock::time_point when, std::chrono::steady_clock::time_point now) {
  if (when <= now) {
    return 0;
  }
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(when - now).count();
  return static_cast<int>(std::min<std::int64_t>(ms, 60'000));
}

}  // namespace

Doorman::Doorman(net::Socket listener, const CollectorOptions& options, Hooks hooks)
    : m_listener(std::move(listener)), m_token(options.token), m_helloTimeout(options.helloTimeout),
      m_maxPending(options.maxPendingConnections), m_maxConnections(options.effectiveMaxConnections()),
      m_hooks(std::move(hooks)), m_refusals(options.refusalSummaryInterval) {
  int fds[2];
  FATHOM_CHECK(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0, CommError,
               "telemetry: cannot create a pipe: ", std::strerror(errno));
  m_wakeRead = net::Socket(fds[0]);
  m_wakeWrite = net::Socket(fds[1]);
  net::setNonBlocking(m_listener.fd(), true);
  m_thread = std::thread([this] { run(); });
}

Doorman::~Doorman() {
  stop();
}

void Doorman::wake() {
  [[maybe_unused]] const auto n = ::write(m_wakeWrite.fd(), "w", 1);  // a full pipe wakes it all the same
}

void Doorman::stop() {
  if (m_stopped) {
    return;
  }
  m_stopped = true;
  m_stopping = true;
  wake();
  m_thread.join();
  m_listener.reset();
}

Doorman::Stats Doorman::stats() const {
  std::lock_guard lock(m_statsMutex);
  return m_stats;
}

void Doorman::updateStats() {
  std::lock_guard lock(m_statsMutex);
  m_stats.refused = m_refusals.totals();
  m_stats.pending = m_pending.size();
}

void Doorman::report(const std::optional<std::string>& line, bool asEvent) {
  if (!line) {
    return;
  }
  log(LogLevel::Warning, *line);
  if (asEvent && m_hooks.event) {
    m_hooks.event(*line);
  }
}

void Doorman::refuse(Pending& p, RefusalReason reason, const std::string& why, const protocol::Hello* hello) {
  // Counted before the refusal is sent: a client that has read its refusal finds it in stats().
  std::string what = "from " + p.peer;
  if (hello != nullptr) {
    what += " (rank " + std::to_string(hello->rank) + ", pid " + std::to_string(hello->pid) + ")";
  }
  report(m_refusals.refused(reason, what + ": " + why, Clock::now()), true);
  {
    std::lock_guard lock(m_statsMutex);
    m_stats.refused = m_refusals.totals();
  }
  std::string frame;
  protocol::FrameWriter(frame).refused(why);
  // A fresh socket's send buffer always has room for a short frame; whatever does not fit is not waited for.
  (void)::send(p.socket.fd(), frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::shutdown(p.socket.fd(), SHUT_WR);
  if (m_closing.size() >= kMaxClosing) {
    m_closing.erase(m_closing.begin());
  }
  m_closing.push_back({std::move(p.socket), Clock::now() + kLinger});
}

void Doorman::serve(Pending& p) {
  for (;;) {
    const std::size_t want = p.bytes.size() < 4 ? 4 - p.bytes.size() : 4 + std::size_t{p.length} - p.bytes.size();
    if (want == 0) {
      decide(p);
      return;
    }
    // Never more than the hello still lacks: what a sender sends after its hello is left for its reader.
    char chunk[1024];
    const ssize_t got = ::recv(p.socket.fd(), chunk, std::min(want, sizeof(chunk)), 0);
    if (got > 0) {
      p.bytes.append(chunk, static_cast<std::size_t>(got));
      if (p.bytes.size() == 4) {
        std::memcpy(&p.length, p.bytes.data(), 4);
        if (p.length < 1 || p.length > protocol::kMaxHelloBytes) {
          refuse(p, RefusalReason::Malformed,
                 "a first frame of " + std::to_string(p.length) + " bytes (a hello holds 1 to " +
                     std::to_string(protocol::kMaxHelloBytes) + "); not the Fathom telemetry protocol?");
          return;
        }
      }
    } else if (got == 0) {
      refuse(p, RefusalReason::NoHello,
             p.bytes.empty() ? std::string("hung up before its hello")
                             : "hung up in the middle of its hello (" + std::to_string(p.bytes.size()) + " bytes)");
      return;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return;
    } else if (errno != EINTR) {
      refuse(p, RefusalReason::NoHello, std::string("cannot read its hello: ") + std::strerror(errno));
      return;
    }
  }
}

void Doorman::decide(Pending& p) {
  const auto type = static_cast<protocol::FrameType>(static_cast<std::uint8_t>(p.bytes[4]));
  if (type != protocol::FrameType::Hello) {
    refuse(p, RefusalReason::Malformed, "the first frame must be a hello, got type " + std::to_string(int(type)));
    return;
  }
  protocol::Hello hello;
  try {
    hello = protocol::decodeHello(std::string_view(p.bytes).substr(5));
  } catch (const CommError& e) {
    refuse(p, RefusalReason::Malformed, e.what());
    return;
  }
  if (hello.version != protocol::kVersion) {
    refuse(p, RefusalReason::WrongVersion,
           "protocol version " + std::to_string(hello.version) + " is not supported (this collector speaks " +
               std::to_string(protocol::kVersion) + ")");
  } else if (!sameToken(hello.token, m_token)) {
    refuse(p, RefusalReason::WrongToken, "wrong token", &hello);
  } else {
    try {
      net::setNonBlocking(p.socket.fd(), false);
      m_hooks.admit(p.socket, p.peer, std::move(hello));
    } catch (const std::exception& e) {
      // admit() throws before it takes the socket (a reader thread that cannot start): refused, with the reason.
      if (p.socket.valid()) {
        refuse(p, RefusalReason::OverLimit, std::string("the collector cannot take it: ") + e.what());
      }
    }
  }
}

void Doorman::backOff(int error) {
  // No descriptor or no memory for the connection waiting in the backlog: polling the listener again now would
  // find it readable at once and spin. Pause it; the ranks' readers run meanwhile, and pending connections keep
  // their deadlines (which free descriptors).
  m_backoff = m_backoff.count() == 0 ? std::chrono::milliseconds(20)
                                     : std::min(2 * m_backoff, std::chrono::milliseconds(1'000));
  m_backoffUntil = Clock::now() + m_backoff;
  std::uint64_t count = 0;
  {
    std::lock_guard lock(m_statsMutex);
    count = ++m_stats.backoffs;
  }
  if (count == 1) {
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    report("telemetry: cannot accept connections: " + std::string(std::strerror(error)) + " (descriptor limit " +
               std::to_string(limit.rlim_cur) +
               "); pausing up to 1 s between tries while the connected ranks are served (reported once)",
           true);
  }
}

void Doorman::accept(std::size_t welcomed) {
  // A bounded number per round, so the pending connections' hellos are read between them.
  for (int i = 0; i < 32; ++i) {
    const int fd = ::accept4(m_listener.fd(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      const int error = errno;
      if (error == EAGAIN || error == EWOULDBLOCK) {
        return;
      }
      if (error == EINTR || error == ECONNABORTED || error == EPROTO) {
        continue;  // this connection is gone; the next may be fine
      }
      backOff(error);  // EMFILE, ENFILE, ENOBUFS, ENOMEM, or anything else: never retried at once
      return;
    }
    m_backoff = std::chrono::milliseconds(0);
    {
      std::lock_guard lock(m_statsMutex);
      ++m_stats.accepted;
    }
    net::setNoDelay(fd);
    net::setBufferSize(fd, SO_RCVBUF);
    Pending p{net::Socket(fd), net::peerName(fd), Clock::now() + m_helloTimeout, {}, 0};
    const std::size_t open = welcomed + m_pending.size();
    if (m_pending.empty() && open >= m_maxConnections) {
      refuse(p, RefusalReason::OverLimit,
             "too many connections (" + std::to_string(open) + " open, at most " + std::to_string(m_maxConnections) +
                 ")");
      continue;
    }
    if (m_pending.size() >= m_maxPending || open >= m_maxConnections) {
      // The oldest pending connection makes room: a real rank sends its hello within milliseconds of connecting,
      // so what has waited longest is the likeliest not to be one.
      refuse(m_pending.front(), RefusalReason::OverLimit,
             m_pending.size() >= m_maxPending
                 ? "too many connections waiting for a hello (at most " + std::to_string(m_maxPending) + ")"
                 : "too many connections (" + std::to_string(open) + " open, at most " +
                       std::to_string(m_maxConnections) + ")");
      m_pending.erase(m_pending.begin());
    }
    m_pending.push_back(std::move(p));
  }
}

void Doorman::run() {
  std::vector<pollfd> fds;
  while (!m_stopping) {
    const auto now = Clock::now();
    m_hooks.reapAndCount();  // joins the readers that ended, closing their descriptors
    for (Pending& p : m_pending) {
      if (p.socket.valid() && now >= p.deadline) {
        refuse(p, RefusalReason::NoHello,
               "no complete hello within " + std::to_string(m_helloTimeout.count()) + " ms (" +
                   std::to_string(p.bytes.size()) + " bytes arrived)");
      }
    }
    std::erase_if(m_pending, [](const Pending& p) { return !p.socket.valid(); });
    std::erase_if(m_closing, [&](const Closing& c) { return !c.socket.valid() || now >= c.deadline; });
    report(m_refusals.due(now), false);
    updateStats();

    // What to wait for, and until when.
    fds.clear();
    fds.push_back({m_wakeRead.fd(), POLLIN, 0});
    const bool listening = now >= m_backoffUntil;
    fds.push_back({listening ? m_listener.fd() : -1, POLLIN, 0});
    for (const Pending& p : m_pending) {
      fds.push_back({p.socket.fd(), POLLIN, 0});
    }
    for (const Closing& c : m_closing) {
      fds.push_back({c.socket.fd(), POLLIN, 0});
    }
    std::optional<Clock::time_point> next = m_refusals.nextDue();
    const auto sooner = [&](Clock::time_point t) { next = next ? std::min(*next, t) : t; };
    if (!listening) {
      sooner(m_backoffUntil);
    }
    for (const Pending& p : m_pending) {
      sooner(p.deadline);
    }
    for (const Closing& c : m_closing) {
      sooner(c.deadline);
    }
    if (::poll(fds.data(), fds.size(), next ? millisecondsUntil(*next, now) : -1) < 0) {
      continue;  // EINTR
    }
    if ((fds[0].revents & POLLIN) != 0) {
      char drain[64];
      while (::read(m_wakeRead.fd(), drain, sizeof(drain)) > 0) {
      }
    }
    if (m_stopping) {
      break;
    }
    std::size_t k = 2;
    const std::size_t pendingPolled = m_pending.size();
    const std::size_t closingPolled = m_closing.size();
    for (std::size_t i = 0; i < pendingPolled; ++i, ++k) {
      if (fds[k].revents != 0 && m_pending[i].socket.valid()) {
        serve(m_pending[i]);
      }
    }
    for (std::size_t i = 0; i < closingPolled; ++i, ++k) {
      if (fds[k].revents != 0 && i < m_closing.size() && m_closing[i].socket.fd() == fds[k].fd) {
        char discard[4096];
        const ssize_t got = ::recv(m_closing[i].socket.fd(), discard, sizeof(discard), MSG_DONTWAIT);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
          m_closing[i].socket.reset();  // the peer read its refusal and closed
        }
      }
    }
    std::erase_if(m_pending, [](const Pending& p) { return !p.socket.valid(); });
    if (listening && (fds[1].revents & POLLIN) != 0) {
      accept(m_hooks.reapAndCount());  // readers admitted or ended during this round count too
    }
    updateStats();  // now, not after the next poll(), which may wait long
  }
  m_pending.clear();
  m_closing.clear();
  updateStats();
  const RefusalLog::Final final = m_refusals.finish();
  report(final.line, false);
  if (final.event && m_hooks.event) {
    m_hooks.event(*final.event);
  }
}

}  // namespace fathom::telemetry
