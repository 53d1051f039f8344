// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/log.h>
#include <fathom/common/terminal_text.h>

#include <iostream>
#include <memory>
#include <mutex>

namespace fathom {
namespace {

void defaultSink(LogLevel level, std::string_view message) {
  if (level == LogLevel::Debug) {
    return;
  }
  // Messages quote names and values from outside: escape what a terminal would act on, keep the line breaks.
  std::cerr << "fathom " << toString(level) << ": " << terminalSafe(message, LineBreaks::Keep) << '\n';
}

std::mutex& sinkMutex() {
  static std::mutex mutex;
  return mutex;
}

// Held by shared_ptr so a concurrent setLogSink() cannot destroy a sink while log() is calling it.
std::shared_ptr<const LogSink>& currentSink() {
  static std::shared_ptr<const LogSink> sink = std::make_shared<const LogSink>(defaultSink);
  return sink;
}

}  // namespace

void setLogSink(LogSink sink) {
  auto next = std::make_shared<const LogSink>(sink ? std::move(sink) : LogSink(defaultSink));
  std::lock_guard lock(sinkMutex());
  currentSink() = std::move(next);
}

void log(LogLevel level, std::string_view message) {
  std::shared_ptr<const LogSink> sink;
  {
    std::lock_guard lock(sinkMutex());
    sink = currentSink();
  }
  (*sink)(level, message);
}

std::string_view toString(LogLevel level) {
  switch (level) {
  case LogLevel::Debug: return "debug";
  case LogLevel::Info: return "info";
  case LogLevel::Warning: return "warning";
  case LogLevel::Error: return "error";
  }
  return "unknown";
}

}  // namespace fathom
