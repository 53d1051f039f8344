// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

namespace fathom::runtime {

/// A TCP port on `host` that nobody listens on right now: binds port 0, reads back what the kernel chose and
/// closes the socket. Another process may take the port before the caller binds it (the same race torchrun and
/// Accelerate accept); the caller's bind then fails with "address in use" and names the port. Throws CommError
/// when no socket can be bound on `host` (an address of this machine, e.g. "127.0.0.1" or "0.0.0.0").
std::uint16_t findFreePort(const std::string& host = "127.0.0.1");

}  // namespace fathom::runtime
