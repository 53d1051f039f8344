// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/process_guardian.h>

#include <fathom/common/error.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace fathom::launch {
namespace {

/// What the launcher tells the guardian (8 bytes; the guardian reassembles a message split across reads).
struct Message {
  std::int32_t op = 0;
  std::int32_t group = 0;
};
constexpr std::int32_t kAdd = 1;
constexpr std::int32_t kRemove = 2;
constexpr std::int32_t kExit = 3;

/// The guardian's descriptor for its end of the channel, once it has closed everything else.
constexpr int kGuardianChannel = 3;

/// `fd` moved above the descriptors the guardian rearranges (a launcher started with stdin, stdout or stderr
/// closed gets new descriptors there, which the guardian's dup2() calls would overwrite).
int aboveStdio(int fd) {
  if (fd > kGuardianChannel) {
    return fd;
  }
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, kGuardianChannel + 1);
  const int e = errno;
  ::close(fd);
  errno = e;
  return moved;
}

/// Writes the decimal form of `value` to `out` (async-signal-safe); returns its length.
std::size_t formatNumber(long value, char* out) {
  char digits[24];
  std::size_t n = 0;
  unsigned long v = value < 0 ? 0UL : static_cast<unsigned long>(value);
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0 && n < sizeof(digits));
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = digits[n - 1 - i];
  }
  return n;
}

long monotonicMs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000L + now.tv_nsec / 1'000'000L;
}

bool groupAlive(pid_t group) {
  return ::kill(-group, 0) == 0 || errno == EPERM;
}

/// Everything the guardian needs, prepared before fork: after fork it allocates nothing.
struct GuardianSetup {
  int channel = -1;
  int devnull = -1;
  long maxFd = 1024;
  pid_t* groups = nullptr;
  std::size_t capacity = 0;
  long graceMs = 0;
  pid_t launcher = 0;
};

/// Runs in the forked guardian: only async-signal-safe calls (no allocation, no locks, no stdio).
[[noreturn]] void runGuardian(const GuardianSetup& s) {
  setpgid(0, 0);
  prctl(PR_SET_NAME, "fathom-guardian");  // what ps and top show (its command line stays the launcher's)
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    sigaction(sig, &action, nullptr);  // the launcher's handlers write into the launcher's self-pipe
  }
  // Terminal and hang-up signals are for the launcher, which forwards them; SIGPIPE must not stop the cleanup
  // when stderr's reader is gone; SIGTTOU must not stop it under `stty tostop`. SIGTERM and SIGKILL stay fatal.
  action.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGQUIT, SIGHUP, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) {
    sigaction(sig, &action, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  dup2(s.devnull, STDIN_FILENO);
  dup2(s.devnull, STDOUT_FILENO);
  dup2(s.channel, kGuardianChannel);
  // Keep no descriptor of the launcher (its listening sockets, its workspace, the channel's other end).
  if (close_range(kGuardianChannel + 1, ~0U, 0) != 0) {
    for (long fd = kGuardianChannel + 1; fd < s.maxFd; ++fd) {
      ::close(static_cast<int>(fd));
    }
  }

  std::size_t count = 0;
  Message message;
  auto* bytes = reinterpret_cast<char*>(&message);
  std::size_t have = 0;
  for (;;) {
    const ssize_t n = ::read(kGuardianChannel, bytes + have, sizeof(message) - have);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;  // end of file: the launcher is gone (an error means the same: nobody can tell us more)
    }
    have += static_cast<std::size_t>(n);
    if (have < sizeof(message)) {
      continue;
    }
    have = 0;
    if (message.op == kExit) {
      _exit(0);
    } else if (message.op == kAdd && message.group > 0 && count < s.capacity) {
      s.groups[count++] = message.group;
    } else if (message.op == kRemove) {
      for (std::size_t i = 0; i < count; ++i) {
        if (s.groups[i] == message.group) {
          s.groups[i] = s.groups[--count];
          break;
        }
      }
    }
  }
  if (count == 0) {
    _exit(0);
  }
  for (std::size_t i = 0; i < count; ++i) {
    ::kill(-s.groups[i], SIGTERM);
  }
  char line[160];
  std::size_t length = 0;
  const auto append = [&](const char* text) {
    for (; *text != '\0' && length < sizeof(line); ++text) {
      line[length++] = *text;
    }
  };
  append("fathom launch: the launcher (pid ");
  length += formatNumber(s.launcher, line + length);
  append(") ended without stopping its processes: sent SIGTERM to ");
  length += formatNumber(static_cast<long>(count), line + length);
  append(" process group(s)\n");
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line, length);

  const long deadline = monotonicMs() + s.graceMs;
  while (monotonicMs() < deadline) {
    bool any = false;
    for (std::size_t i = 0; i < count && !any; ++i) {
      any = groupAlive(s.groups[i]);
    }
    if (!any) {
      _exit(0);
    }
    ::poll(nullptr, 0, 20);
  }
  for (std::size_t i = 0; i < count; ++i) {
    ::kill(-s.groups[i], SIGKILL);
  }
  _exit(0);
}

}  // namespace

ProcessGuardian::ProcessGuardian(std::size_t capacity, std::chrono::milliseconds gracePeriod) : m_capacity(capacity) {
  m_groups.reserve(capacity);
  int fds[2];
  // A stream socket pair rather than a pipe: send() with MSG_NOSIGNAL reports a dead guardian as EPIPE without
  // raising SIGPIPE in a launcher that does not ignore it. End of file works as for a pipe.
  FATHOM_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, Error,
               "cannot create the launcher's guardian channel: ", std::strerror(errno));
  GuardianSetup setup;
  setup.channel = aboveStdio(fds[0]);
  m_write = aboveStdio(fds[1]);
  setup.devnull = aboveStdio(::open("/dev/null", O_RDWR | O_CLOEXEC));
  const auto closeAll = [&] {
    for (int fd : {setup.channel, m_write, setup.devnull}) {
      if (fd >= 0) {
        ::close(fd);
      }
    }
  };
  if (setup.channel < 0 || m_write < 0 || setup.devnull < 0) {
    const int e = errno;
    closeAll();
    throw Error(detail::concat("cannot set up the launcher's guardian process: ", std::strerror(e)));
  }
  std::vector<pid_t> storage(std::max<std::size_t>(capacity, 1));  // the guardian's copy of it is its table
  setup.groups = storage.data();
  setup.capacity = capacity;
  setup.graceMs = static_cast<long>(gracePeriod.count());
  setup.launcher = getpid();
  if (const long open = sysconf(_SC_OPEN_MAX); open > 0) {
    setup.maxFd = open;
  }

  // Block every signal across fork, so the guardian cannot run the launcher's handlers before it resets them.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  const pid_t pid = fork();
  if (pid == 0) {
    runGuardian(setup);
  }
  const int forkErrno = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::close(setup.channel);
  ::close(setup.devnull);
  if (pid < 0) {
    ::close(m_write);
    throw Error(detail::concat("cannot start the launcher's guardian process: ", std::strerror(forkErrno)));
  }
  m_pid = pid;
  setpgid(pid, pid);  // also from here, so the guardian is out of the launcher's group before anything can happen
}

ProcessGuardian::~ProcessGuardian() {
  send(kExit, 0);
  ::close(m_write);
  int raw = 0;
  while (waitpid(m_pid, &raw, 0) < 0 && errno == EINTR) {
  }
}

void ProcessGuardian::add(pid_t group) {
  FATHOM_CHECK(m_groups.size() < m_capacity, Error, "the launcher's guardian already holds ", m_capacity,
               " process groups: cannot add process group ", group);
  FATHOM_CHECK(send(kAdd, group), Error, "the launcher's guardian process (pid ", m_pid,
               ") is gone: cannot protect process group ", group, ": ", std::strerror(errno));
  m_groups.push_back(group);
}

bool ProcessGuardian::remove(pid_t group) {
  const auto it = std::find(m_groups.begin(), m_groups.end(), group);
  if (it == m_groups.end()) {
    return true;
  }
  m_groups.erase(it);
  return send(kRemove, group);
}

bool ProcessGuardian::send(int op, pid_t group) {
  const Message message{op, group};
  ssize_t n = 0;
  do {
    n = ::send(m_write, &message, sizeof(message), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof(message));
}

}  // namespace fathom::launch
