// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/worker_process.h>

#include <fathom/common/error.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace fathom::launch {
namespace {

/// A pipe (or, with `socket`, a stream socket pair, which send() with MSG_NOSIGNAL can write without SIGPIPE)
/// whose ends close themselves unless released.
struct Pipe {
  int read = -1;
  int write = -1;
  explicit Pipe(bool socket = false) {
    int fds[2];
    if ((socket ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) : pipe2(fds, O_CLOEXEC)) != 0) {
      throw Error(detail::concat("cannot create a pipe for a worker: ", std::strerror(errno)));
    }
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    closeRead();
    closeWrite();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void closeRead() {
    if (read >= 0) {
      ::close(read);
      read = -1;
    }
  }
  void closeWrite() {
    if (write >= 0) {
      ::close(write);
      write = -1;
    }
  }
  int releaseRead() { return std::exchange(read, -1); }
};

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) {
    out.push_back(const_cast<char*>(s.c_str()));
  }
  out.push_back(nullptr);
  return out;
}

/// Runs in the forked child: only async-signal-safe calls until execve.
[[noreturn]] void becomeWorker(const char* program, char* const* argv, char* const* envp, int in, int out, int err,
                               int status, int go, int goOther, pid_t parent) {
  ::close(goOther);  // so that the launcher's end closing reads as end of file here
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) {
    _exit(127);  // the launcher died between fork and prctl
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    sigaction(s, &dfl, nullptr);  // undo the launcher's handlers and its ignored SIGPIPE
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) {
    const int e = errno;
    [[maybe_unused]] auto n = write(status, &e, sizeof(e));
    _exit(127);
  }
  // Wait for the launcher's go (Spec::beforeExec has run); end of file means it died or gave up on this child.
  char byte = 0;
  ssize_t got = 0;
  do {
    got = read(go, &byte, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) {
    _exit(127);
  }
  execve(program, argv, envp);
  const int e = errno;
  [[maybe_unused]] auto n = write(status, &e, sizeof(e));
  _exit(127);
}

}  // namespace

std::string signalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

std::string ExitStatus::describe() const {
  return signaled ? detail::concat("signal ", value, " (", signalName(value), ")")
                  : "exit code " + std::to_string(value);
}

std::string WorkerProcess::resolveProgram(const std::string& name, const std::string& path) {
  FATHOM_CHECK(!name.empty(), ConfigError, "no program given");
  if (name.find('/') != std::string::npos) {
    return name;
  }
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  throw ConfigError(detail::concat("program `", name, "` was not found in PATH (", path, ")"));
}

std::unique_ptr<WorkerProcess> WorkerProcess::spawn(const Spec& spec) {
  Pipe out;
  Pipe err;
  Pipe status;
  Pipe go(true);  // the launcher sends one byte once beforeExec has run
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  FATHOM_CHECK(devnull >= 0, Error, "cannot open /dev/null: ", std::strerror(errno));

  std::vector<std::string> argvStrings{spec.program};
  argvStrings.insert(argvStrings.end(), spec.arguments.begin(), spec.arguments.end());
  const auto argv = pointers(argvStrings);
  const auto envp = pointers(spec.environment);

  // Block every signal across fork, so the child cannot run the launcher's handlers before it resets them.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    becomeWorker(spec.program.c_str(), argv.data(), envp.data(), devnull, out.write, err.write, status.write, go.read,
                 go.write, parent);
  }
  const int forkErrno = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::close(devnull);
  FATHOM_CHECK(pid > 0, Error, "cannot fork a worker for ", spec.program, ": ", std::strerror(forkErrno));
  setpgid(pid, pid);  // also from the parent, so signalGroup() works even before the child ran (EACCES after exec)
  out.closeWrite();
  err.closeWrite();
  status.closeWrite();
  go.closeRead();
  const auto abandon = [pid] {
    ::kill(pid, SIGKILL);
    int ignored = 0;
    while (waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
  };
  if (spec.beforeExec) {
    try {
      spec.beforeExec(pid);
    } catch (...) {
      abandon();
      throw;
    }
  }
  const char byte = 1;
  ssize_t sent = 0;
  do {
    sent = ::send(go.write, &byte, 1, MSG_NOSIGNAL);  // fails (EPIPE) only if the child already gave up
  } while (sent < 0 && errno == EINTR);
  go.closeWrite();

  int execErrno = 0;
  ssize_t n = 0;
  do {
    n = ::read(status.read, &execErrno, sizeof(execErrno));
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof(execErrno))) {
    int ignored = 0;
    while (waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    throw ConfigError(detail::concat("cannot execute ", spec.program, ": ", std::strerror(execErrno)));
  }
  for (int fd : {out.read, err.read}) {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return std::unique_ptr<WorkerProcess>(new WorkerProcess(pid, out.releaseRead(), err.releaseRead()));
}

WorkerProcess::~WorkerProcess() {
  if (running()) {
    signalGroup(SIGKILL);
    int raw = 0;
    while (waitpid(m_pid, &raw, 0) < 0 && errno == EINTR) {
    }
  }
  closeOutput(m_stdout);
  closeOutput(m_stderr);
}

void WorkerProcess::closeOutput(int fd) {
  if (fd < 0) {
    return;
  }
  if (fd == m_stdout) {
    m_stdout = -1;
  } else if (fd == m_stderr) {
    m_stderr = -1;
  } else {
    return;
  }
  ::close(fd);
}

const std::optional<ExitStatus>& WorkerProcess::poll() {
  if (m_status) {
    return m_status;
  }
  int raw = 0;
  pid_t r = 0;
  do {
    r = waitpid(m_pid, &raw, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == m_pid) {
    if (WIFSIGNALED(raw)) {
      m_status = ExitStatus{true, WTERMSIG(raw)};
    } else if (WIFEXITED(raw)) {
      m_status = ExitStatus{false, WEXITSTATUS(raw)};
    }
  } else if (r < 0 && errno == ECHILD) {
    m_status = ExitStatus{false, 255};  // reaped elsewhere: should not happen, but never wait forever
  }
  return m_status;
}

bool WorkerProcess::signalGroup(int signal) const {
  return ::kill(-m_pid, signal) == 0;
}

bool WorkerProcess::groupAlive() const {
  return ::kill(-m_pid, 0) == 0 || errno == EPERM;
}

}  // namespace fathom::launch
