// SPDX-License-Identifier: Apache-2.0
#include <fathom/config/config_paths.h>

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace fathom::config {
namespace {

std::filesystem::path home() {
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] != '\0') {
    return h;
  }
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    return pw->pw_dir;
  }
  return "/";
}

// Expands a leading "~" as Python's os.path.expanduser does; Accelerate runs every path through it.
std::filesystem::path expandUser(const std::string& value) {
  if (value == "~" || value.rfind("~/", 0) == 0) {
    return home() / value.substr(value.size() > 1 ? 2 : 1);
  }
  return value;
}

}  // namespace

std::filesystem::path cacheHome() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return xdg;
  }
  return home() / ".cache";
}

std::filesystem::path configHome() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && xdg[0] == '/') {
    return xdg;
  }
  return home() / ".config";
}

std::filesystem::path defaultConfigFile() {
  return cacheHome() / "fathom" / "default_config.yaml";
}

std::filesystem::path accelerateDefaultConfigFile() {
  // accelerate/commands/config/config_args.py: HF_HOME, else XDG_CACHE_HOME (or ~/.cache) + "huggingface".
  std::filesystem::path hfHome;
  if (const char* hf = std::getenv("HF_HOME"); hf != nullptr && hf[0] != '\0') {
    hfHome = expandUser(hf);
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] != '\0') {
    hfHome = expandUser(xdg) / "huggingface";
  } else {
    hfHome = home() / ".cache" / "huggingface";
  }
  return hfHome / "accelerate" / "default_config.yaml";
}

}  // namespace fathom::config
