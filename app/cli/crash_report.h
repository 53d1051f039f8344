// SPDX-License-Identifier: Apache-2.0
// A crash says where: on a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL) `fathom` writes the signal, the faulting
// address and its stack to stderr before dying of that signal (its exit status unchanged), so a crash on a machine
// without a debugger (a GPU node, a CI runner) can be located: `addr2line -Cfpe <fathom> +0xOFFSET` names each frame
// of the executable.
#pragma once

namespace fathom::cli {

/// Installs the handlers (on an alternate stack, so a stack overflow is reported too). Call once, first thing in main.
void installCrashReport();

}  // namespace fathom::cli
