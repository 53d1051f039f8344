// SPDX-License-Identifier: Apache-2.0
#include "crash_report.h"

#include <array>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <execinfo.h>
#include <unistd.h>

namespace fathom::cli {
namespace {

constexpr std::size_t kAltStackBytes = 64 * 1024;
constexpr std::array kSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL};

// Only async-signal-safe calls below: write(2), backtrace_symbols_fd (which does not allocate), raise.
void put(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void putHex(std::uintptr_t value) {
  char digits[2 + 2 * sizeof value + 1] = "0x";
  int n = 2;
  for (int shift = 8 * sizeof value - 4; shift >= 0; shift -= 4) {
    const unsigned nibble = (value >> shift) & 0xF;
    if (n > 2 || nibble != 0 || shift == 0) {
      digits[n++] = "0123456789abcdef"[nibble];
    }
  }
  digits[n] = '\0';
  put(digits);
}

const char* signalName(int signal) {
  switch (signal) {
  case SIGSEGV: return "SIGSEGV (invalid memory access)";
  case SIGBUS: return "SIGBUS (bus error)";
  case SIGFPE: return "SIGFPE (arithmetic error)";
  case SIGILL: return "SIGILL (illegal instruction)";
  }
  return "a fatal signal";
}

void onFatalSignal(int signal, siginfo_t* info, void*) {
  put("fathom: crashed with ");
  put(signalName(signal));
  put(" at address ");
  putHex(reinterpret_cast<std::uintptr_t>(info != nullptr ? info->si_addr : nullptr));
  put("; stack (addr2line -Cfpe <this fathom> +OFFSET names a frame):\n");
  std::array<void*, 64> frames{};
  const int depth = ::backtrace(frames.data(), static_cast<int>(frames.size()));
  ::backtrace_symbols_fd(frames.data(), depth, STDERR_FILENO);
  // SA_RESETHAND restored the default action: dying of the same signal keeps the exit status (128 + signal).
  ::raise(signal);
}

}  // namespace

void installCrashReport() {
  // backtrace() loads libgcc on its first call, which allocates: do it now, not in the handler.
  std::array<void*, 1> warm{};
  ::backtrace(warm.data(), 1);
  static std::array<char, kAltStackBytes> altStack;
  stack_t stack{};
  stack.ss_sp = altStack.data();
  stack.ss_size = altStack.size();
  ::sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = onFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal : kSignals) {
    ::sigaction(signal, &action, nullptr);
  }
}

}  // namespace fathom::cli
