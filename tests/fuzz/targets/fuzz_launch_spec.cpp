// SPDX-License-Identifier: Apache-2.0
// What a multi-node launch reads from text: the agent's --spec JSON (agentSpecFromJson, what `fathom agent` trusts on
// each host), DeepSpeed's hostfile (parseHostfile, `fathom launch --hostfile`) and the --hosts list (parseHostList).
//
// Input: the spec, then optionally a NUL byte and a hostfile (also read as a --hosts list).
// Oracle: ConfigError is a good answer; anything else escaping (nlohmann's exception), or a sanitizer report, is a
// finding; a spec that reads must be written by toJson() so that it reads back to the same text (what the launcher
// relies on when it sends the spec); every host name either parser returns passes validateHostName (the names go to
// ssh and a shell).
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/launch/agent_spec.h>
#include <fathom/launch/host_list.h>

#include <cstdio>
#include <cstdlib>

namespace {

void checkHosts(const std::vector<fathom::launch::HostSlots>& hosts) {
  for (const auto& h : hosts) {
    fathom::launch::validateHostName(h.host, "fuzz");  // throws ConfigError (uncaught here: a finding) if not
    if (h.slotCount < 0) {
      std::fprintf(stderr, "host %s has %d slots\n", h.host.c_str(), h.slotCount);
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  const fuzz::Parts parts = fuzz::splitAtNul(fuzz::text(data, size));
  try {
    const launch::AgentSpec spec = launch::agentSpecFromJson(parts.head);
    const std::string written = launch::toJson(spec);
    const std::string again = launch::toJson(launch::agentSpecFromJson(written));
    if (again != written) {
      std::fprintf(stderr, "toJson() does not read back to the same spec:\n%s\n%s\n", written.c_str(), again.c_str());
      std::abort();
    }
  } catch (const ConfigError&) {
  }
  if (parts.tail.empty()) {
    return 0;
  }
  std::vector<launch::HostSlots> hosts;
  try {
    hosts = launch::parseHostfile(parts.tail, "hostfile");
  } catch (const ConfigError&) {
  }
  checkHosts(hosts);
  hosts.clear();
  try {
    hosts = launch::parseHostList(parts.tail);
  } catch (const ConfigError&) {
  }
  checkHosts(hosts);
  return 0;
}
