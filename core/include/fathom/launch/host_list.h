// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::launch {

/// One host of a multi-node launch: what ssh is given (an alias of ~/.ssh/config or --ssh_config, a name, an
/// address, optionally `user@` in front) and how many processes it runs.
struct HostSlots {
  std::string host;
  /// Processes on this host; 0 = not given (the launch's --num_processes / number of hosts).
  int slotCount = 0;
};

/// Throws ConfigError unless `host` is `[user@]name` with a name of letters, digits, '.', '-', '_' or ':' (an IPv6
/// address) and a user of letters, digits, '.', '-', '_', not starting with '-' (ssh would read it as an option).
/// `where` says where it came from ("--hosts", "hostfile.txt:3"). This keeps anything a shell or ssh would
/// interpret out of the host names.
void validateHostName(std::string_view host, std::string_view where);

/// `--hosts h1,h2`: comma-separated host names (validated), no slots; ConfigError for an empty list, an empty entry
/// or a host named twice.
std::vector<HostSlots> parseHostList(std::string_view list);

/// DeepSpeed's hostfile: one `host slots=N` a line (slots optional), `#` starts a comment, blank lines ignored.
/// Throws ConfigError naming file and line for anything else (an unknown key, a bad count, a host twice), and for
/// a file that cannot be read or names no host.
std::vector<HostSlots> readHostfile(const std::filesystem::path& file);

/// DeepSpeed's hostfile text (as readHostfile reads it), `source` naming it in errors.
std::vector<HostSlots> parseHostfile(std::string_view text, const std::string& source);

}  // namespace fathom::launch
