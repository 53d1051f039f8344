// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/host_list.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

namespace fathom::launch {
namespace {

bool nameChar(char c, bool host) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
         c == '_' || (host && c == ':');
}

bool validPart(std::string_view part, bool host) {
  return !part.empty() && part.front() != '-' &&
         std::all_of(part.begin(), part.end(), [host](char c) { return nameChar(c, host); });
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) {
    return {};
  }
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

void addUnique(std::vector<HostSlots>& hosts, std::set<std::string>& seen, HostSlots h, const std::string& where) {
  FATHOM_CHECK(seen.insert(h.host).second, ConfigError, where, ": host ", h.host,
               " is named twice (give each host once, with slots=N for several processes)");
  hosts.push_back(std::move(h));
}

}  // namespace

void validateHostName(std::string_view host, std::string_view where) {
  const auto at = host.find('@');
  const bool ok = at == std::string_view::npos
                      ? validPart(host, true)
                      : validPart(host.substr(0, at), false) && validPart(host.substr(at + 1), true);
  FATHOM_CHECK(ok, ConfigError, where, ": host '", std::string(host),
               "' is not a host name: expected [user@]name with letters, digits, '.', '-', '_' (':' in an IPv6 "
               "address), not starting with '-'");
}

std::vector<HostSlots> parseHostList(std::string_view list) {
  std::vector<HostSlots> hosts;
  std::set<std::string> seen;
  std::size_t start = 0;
  for (;;) {
    const auto comma = list.find(',', start);
    const std::string_view entry =
        trim(list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    FATHOM_CHECK(!entry.empty(), ConfigError, "--hosts ", std::string(list), ": empty host name (expected h1,h2,...)");
    validateHostName(entry, "--hosts");
    addUnique(hosts, seen, HostSlots{std::string(entry), 0}, "--hosts");
    if (comma == std::string_view::npos) {
      break;
    }
    start = comma + 1;
  }
  return hosts;
}

std::vector<HostSlots> parseHostfile(std::string_view text, const std::string& source) {
  std::vector<HostSlots> hosts;
  std::set<std::string> seen;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = source + ":" + std::to_string(number);
    std::string_view content = line;
    if (const auto hash = content.find('#'); hash != std::string_view::npos) {
      content = content.substr(0, hash);
    }
    std::istringstream words{std::string(trim(content))};
    std::string host;
    if (!(words >> host)) {
      continue;
    }
    validateHostName(host, where);
    HostSlots entry{host, 0};
    for (std::string word; words >> word;) {
      FATHOM_CHECK(word.rfind("slots=", 0) == 0, ConfigError, where, ": unexpected '", word,
                   "' (expected `host slots=N`)");
      const std::string count = word.substr(6);
      int value = 0;
      const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), value);
      FATHOM_CHECK(ec == std::errc() && end == count.data() + count.size() && value >= 1, ConfigError, where,
                   ": slots=", count, " must be a whole number >= 1");
      entry.slotCount = value;
    }
    addUnique(hosts, seen, std::move(entry), where);
  }
  FATHOM_CHECK(!hosts.empty(), ConfigError, source, ": names no host (expected lines `host slots=N`)");
  return hosts;
}

std::vector<HostSlots> readHostfile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  FATHOM_CHECK(in.good(), ConfigError, "--hostfile ", file.string(), ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parseHostfile(text.str(), file.string());
}

}  // namespace fathom::launch
