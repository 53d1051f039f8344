// SPDX-License-Identifier: Apache-2.0
// The Tracker base class, the registry of tracker factories, TrackerGroup, and the file helpers the built-in
// trackers share.
#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/track/file_trackers.h>
#include <fathom/track/tracker_registry.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>

#include <unistd.h>

namespace fathom::track {

// --- Tracker -----------------------------------------------------------------------------------------------

void Tracker::checkOpen(const char* call) const {
  FATHOM_CHECK(!m_finished, ConfigError, "tracker '", name(), "': ", call, "() called after finish()");
}

void Tracker::storeInitConfiguration(const nlohmann::json& config) {
  checkOpen("storeInitConfiguration");
  doStoreInitConfiguration(config);
}

void Tracker::log(const LogValues& values, std::optional<std::int64_t> step) {
  checkOpen("log");
  const std::int64_t resolved = step ? *step : m_lastStep.value_or(0);
  m_lastStep = resolved;
  doLog(values, resolved, unixNowSeconds());
}

void Tracker::finish() {
  if (m_finished) {
    return;
  }
  m_finished = true;
  doFinish();
}

// --- Registry ----------------------------------------------------------------------------------------------

namespace {

struct Entry {
  TrackerFactory factory;
  bool builtin = false;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Entry> entries;

  Registry() {
    const auto add = [this](const char* name, TrackerFactory f) { entries[name] = Entry{std::move(f), true}; };
    add("tensorboard", [](const TrackerOptions& o) { return std::make_unique<TensorBoardTracker>(o); });
    add("mlflow", [](const TrackerOptions& o) { return std::make_unique<MlflowTracker>(o); });
    add("dvclive", [](const TrackerOptions& o) { return std::make_unique<DvcLiveTracker>(o); });
    add("csv", [](const TrackerOptions& o) { return std::make_unique<CsvTracker>(o); });
    add("jsonl", [](const TrackerOptions& o) { return std::make_unique<JsonlTracker>(o); });
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

std::vector<std::string> namesLocked(const Registry& r, bool builtinOnly) {
  std::vector<std::string> out;
  for (const auto& [name, entry] : r.entries) {
    if (!builtinOnly || entry.builtin) {
      out.push_back(name);
    }
  }
  return out;  // std::map keeps them sorted
}

void add(const std::string& name, TrackerFactory factory, bool builtin) {
  const bool wellFormed = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  FATHOM_CHECK(wellFormed, ConfigError, "tracker name '", name,
               "' is not valid: use lower-case letters, digits, '_' and '-'");
  FATHOM_CHECK(name != "all", ConfigError, "tracker name 'all' is reserved for every built-in tracker");
  FATHOM_CHECK(static_cast<bool>(factory), ConfigError, "tracker '", name, "' registered without a factory");
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  FATHOM_CHECK(!r.entries.contains(name), ConfigError, "a tracker named '", name, "' is already registered");
  r.entries[name] = Entry{std::move(factory), builtin};
}

}  // namespace

void registerTracker(const std::string& name, TrackerFactory factory) {
  add(name, std::move(factory), false);
}

void registerBuiltinTracker(const std::string& name, TrackerFactory factory) {
  add(name, std::move(factory), true);
}

bool unregisterTracker(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.entries.find(name);
  if (it == r.entries.end() || it->second.builtin) {
    return false;
  }
  r.entries.erase(it);
  return true;
}

std::unique_ptr<Tracker> makeTracker(const std::string& name, const TrackerOptions& options) {
  TrackerFactory factory;
  {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    const auto it = r.entries.find(name);
    FATHOM_CHECK(it != r.entries.end(), ConfigError, "unknown tracker '", name,
                 "'; known trackers: ", joined(namesLocked(r, false)));
    factory = it->second.factory;  // copied so the factory runs outside the lock
  }
  auto tracker = factory(options);
  FATHOM_CHECK(tracker != nullptr, ConfigError, "the factory of tracker '", name, "' returned no tracker");
  return tracker;
}

std::vector<std::string> builtinTrackerNames() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  return namesLocked(r, true);
}

std::vector<std::string> registeredTrackerNames() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  return namesLocked(r, false);
}

std::vector<std::string> parseLogWith(std::string_view list) {
  const auto trim = [](std::string_view s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) {
      return std::string_view{};
    }
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
  };
  const auto known = registeredTrackerNames();
  std::vector<std::string> out;
  std::vector<std::string> unknown;
  const auto push = [&out](const std::string& n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) {
      out.push_back(n);
    }
  };
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const auto comma = list.find(',', pos);
    const auto item = trim(list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    pos = comma == std::string_view::npos ? list.size() + 1 : comma + 1;
    if (item.empty()) {
      continue;
    }
    const std::string name(item);
    if (name == "all") {
      for (const auto& b : builtinTrackerNames()) {
        push(b);
      }
    } else if (std::find(known.begin(), known.end(), name) != known.end()) {
      push(name);
    } else {
      unknown.push_back(name);
    }
  }
  FATHOM_CHECK(unknown.empty(), ConfigError, "--log_with: unknown tracker", unknown.size() > 1 ? "s " : " ",
               joined(unknown), "; known trackers: ", joined(known), " (or 'all')");
  return out;
}

// --- TrackerGroup ------------------------------------------------------------------------------------------

TrackerGroup::TrackerGroup(const std::vector<std::string>& names, const TrackerOptions& options, bool isMainProcess)
    : m_isMainProcess(isMainProcess) {
  for (const auto& name : names) {
    auto tracker = makeTracker(name, options);
    add(std::move(tracker));
  }
}

bool TrackerGroup::add(std::unique_ptr<Tracker> tracker) {
  FATHOM_ASSERT(tracker != nullptr);
  if (!m_isMainProcess && tracker->mainProcessOnly()) {
    return false;
  }
  m_trackers.push_back(std::move(tracker));
  return true;
}

void TrackerGroup::storeInitConfiguration(const nlohmann::json& config) {
  for (auto& t : m_trackers) {
    t->storeInitConfiguration(config);
  }
}

void TrackerGroup::log(const LogValues& values, std::optional<std::int64_t> step) {
  for (auto& t : m_trackers) {
    t->log(values, step);
  }
}

void TrackerGroup::finish() {
  std::exception_ptr first;
  for (auto& t : m_trackers) {
    try {
      t->finish();
    } catch (...) {
      if (!first) {
        first = std::current_exception();
      }
    }
  }
  if (first) {
    std::rethrow_exception(first);
  }
}

Tracker* TrackerGroup::get(std::string_view name) const {
  for (const auto& t : m_trackers) {
    if (t->name() == name) {
      return t.get();
    }
  }
  return nullptr;
}

// --- File helpers ------------------------------------------------------------------------------------------

namespace detail {

void createDirectories(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  FATHOM_CHECK(!ec && std::filesystem::is_directory(dir), StorageError, "cannot create tracker directory ",
               dir.string(), ": ", ec ? ec.message() : std::string("not a directory"));
}

AppendFile::AppendFile(std::filesystem::path path, bool truncate) : m_path(std::move(path)) {
  m_file = std::fopen(m_path.c_str(), truncate ? "wb" : "ab");
  FATHOM_CHECK(m_file != nullptr, StorageError, "cannot open ", m_path.string(),
               " for writing: ", std::strerror(errno));
}

AppendFile::~AppendFile() {
  if (m_file != nullptr) {
    std::fclose(m_file);
  }
}

void AppendFile::write(std::string_view bytes) {
  FATHOM_ASSERT(m_file != nullptr, "write to closed file ", m_path.string());
  const auto n = std::fwrite(bytes.data(), 1, bytes.size(), m_file);
  FATHOM_CHECK(n == bytes.size(), StorageError, "cannot write ", m_path.string(), ": ", std::strerror(errno));
}

void AppendFile::flush() {
  if (m_file != nullptr) {
    FATHOM_CHECK(std::fflush(m_file) == 0, StorageError, "cannot write ", m_path.string(), ": ", std::strerror(errno));
  }
}

void AppendFile::close() {
  if (m_file != nullptr) {
    const bool ok = std::fclose(m_file) == 0;
    m_file = nullptr;
    FATHOM_CHECK(ok, StorageError, "cannot close ", m_path.string(), ": ", std::strerror(errno));
  }
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  auto tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  {
    AppendFile file(tmp, /*truncate=*/true);
    try {
      file.write(contents);
      file.close();
    } catch (...) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const auto reason = ec.message();
    std::filesystem::remove(tmp, ec);
    throw StorageError(fathom::detail::concat("cannot write ", path.string(), ": ", reason));
  }
}

}  // namespace detail

}  // namespace fathom::track
