// SPDX-License-Identifier: Apache-2.0
#include "cli_app.h"

int main(int argc, char** argv) {
  return fathom::cli::run(argc, argv);
}
