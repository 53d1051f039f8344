// SPDX-License-Identifier: Apache-2.0
#include "cli_app.h"
#include "crash_report.h"

#include <csignal>

int main(int argc, char** argv) {
  fathom::cli::installCrashReport();
  // At the file size limit (`ulimit -f`) the kernel's default SIGXFSZ kills the process without a word and leaves
  // its temporary files behind. Ignored, the write fails with EFBIG instead, and every writer reports "file size
  // limit (ulimit -f) reached while writing PATH" and cleans up (fathom::AtomicFile, the workspace). Workers start
  // with default signal dispositions again (launch/worker_process.cpp).
  std::signal(SIGXFSZ, SIG_IGN);
  return fathom::cli::run(argc, argv);
}
