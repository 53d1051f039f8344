// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace fathom::cli {

/// Parses argv, runs the selected subcommand and returns the exit code: 0 on success, 2 for a usage error
/// (CLI11's convention, like argparse), 1 for a failure while running. Errors go to stderr as
/// "fathom: error: ..." and never leave a half-written output file behind.
int run(int argc, char** argv);

}  // namespace fathom::cli
