// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_reader.h"

#include "fathom/common/error.h"
#include "fathom/common/terminal_text.h"
#include "fathom/trace/trace_event_view.h"
#include "json_scan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

namespace fathom::trace {

using detail::ScanStatus;

namespace {

/// Where the scanner stands at the top level of the file.
enum class State : std::uint8_t {
  Keys,         ///< object form: expecting a member name (the next top-level key)
  Events,       ///< inside traceEvents: expecting an event or `]`
  AfterEvent,   ///< inside traceEvents: expecting `,` or `]`
  AfterEvents,  ///< object form, after traceEvents' `]`: expecting `,` or `}`
  End,          ///< after the top-level value: only white space may follow
  Done,
};

constexpr int kEof = -1;

/// Thrown by truncated() when TraceReaderOptions::acceptTruncatedTail is set, caught where reading starts and in
/// next(): the end of a prefix, not an error.
struct EndOfPrefix {};

std::size_t countNewlines(const char* p, const char* end) {
  std::size_t n = 0;
  while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))) != nullptr) {
    ++n;
    ++p;
  }
  return n;
}

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 9: " prefix
/// (the caller gives the position in the file instead).
std::string parseErrorText(const nlohmann::json::parse_error& e) {
  std::string text = e.what();
  if (const auto close = text.find("] "); text.rfind("[json.exception", 0) == 0 && close != std::string::npos) {
    text.erase(0, close + 2);
  }
  if (const auto colon = text.find(": "); text.rfind("parse error", 0) == 0 && colon != std::string::npos) {
    text.erase(0, colon + 2);
  }
  return text;
}

}  // namespace

struct TraceReader::Impl {
  TraceInput input;
  TraceReaderOptions options;
  std::vector<char> buf;
  std::size_t begin = 0;          ///< first unconsumed byte of buf
  std::size_t end = 0;            ///< one past the last valid byte of buf
  std::uint64_t bufOffset = 0;    ///< absolute offset of buf[0] in the uncompressed text
  std::uint64_t linesBefore = 0;  ///< newlines before buf[0]
  bool eof = false;
  State state = State::Done;
  bool objectForm = false;
  bool sawTraceEvents = false;
  bool unclosedArray = false;
  bool afterComma = false;  ///< inside traceEvents, just after a `,` (a `]` now is a trailing comma)
  bool trailingComma = false;
  std::string_view event;
  std::uint64_t eventOffset = 0;
  std::uint64_t eventCount = 0;
  std::uint64_t completeBytes = 0;  ///< offset just past the last event yielded
  bool truncatedTail = false;
  nlohmann::json metadata = nlohmann::json::object();

  explicit Impl(TraceInput in, TraceReaderOptions opts) : input(std::move(in)), options(opts) {}

  std::uint64_t offsetOf(std::size_t index) const { return bufOffset + index; }

  std::string describe(std::uint64_t offset, std::string_view what) const {
    std::string text = input.name() + ": " + std::string(what) + " at byte " + std::to_string(offset);
    if (input.compressed()) {
      text += " of the uncompressed text";
    }
    if (offset >= bufOffset && offset <= bufOffset + end) {  // lines are known for offsets still in the buffer
      const char* base = buf.data();
      const std::uint64_t line = linesBefore + countNewlines(base, base + (offset - bufOffset)) + 1;
      text += " (line " + std::to_string(line) + ")";
    }
    return text;
  }

  [[noreturn]] void fail(std::size_t index, std::string_view what) const {
    throw StorageError(describe(offsetOf(index), what));
  }

  [[noreturn]] void truncated(std::string_view where) {
    if (options.acceptTruncatedTail) {
      truncatedTail = true;
      state = State::Done;
      throw EndOfPrefix{};
    }
    throw StorageError(input.name() + ": truncated trace: the file ends " + std::string(where) + " after " +
                       std::to_string(eventCount) + " events (" + std::to_string(offsetOf(end)) + " bytes" +
                       (input.compressed() ? " uncompressed" : "") + ")");
  }

  /// Reads more input, keeping buf[begin, end). False at the end of the input.
  bool more() {
    if (eof) {
      return false;
    }
    if (begin > 0) {  // drop what was consumed; count its lines first
      linesBefore += countNewlines(buf.data(), buf.data() + begin);
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      bufOffset += begin;
      end -= begin;
      begin = 0;
    }
    // Grow while a single value fills most of the buffer; doubling keeps rescans of a big value linear.
    if (buf.size() - end < buf.size() / 2) {
      FATHOM_CHECK(buf.size() < options.maxValueBytes + options.chunkBytes, StorageError,
                   describe(offsetOf(begin), "a single value larger than the limit of " +
                                                 std::to_string(options.maxValueBytes) +
                                                 " bytes (TraceReaderOptions::maxValueBytes) starts"));
      buf.resize(buf.size() * 2);
    }
    const std::size_t n = input.read(buf.data() + end, buf.size() - end);
    end += n;
    eof = n == 0;
    return n > 0;
  }

  /// The next non-space byte (not consumed), or kEof.
  int peek() {
    for (;;) {
      const char* p = detail::skipSpace(buf.data() + begin, buf.data() + end);
      begin = static_cast<std::size_t>(p - buf.data());
      if (begin < end) {
        return static_cast<unsigned char>(buf[begin]);
      }
      if (!more()) {
        return kEof;
      }
    }
  }

  /// Scans the value at `begin` (after peek()); returns its span, or an empty view when the input ends inside it.
  std::string_view scanValue() {
    for (;;) {
      const detail::ScanResult r = detail::scanValue(buf.data() + begin, buf.data() + end);
      if (r.status == ScanStatus::Complete) {
        const std::string_view value(buf.data() + begin, static_cast<std::size_t>(r.end - (buf.data() + begin)));
        begin = static_cast<std::size_t>(r.end - buf.data());
        return value;
      }
      if (r.status == ScanStatus::Malformed) {
        fail(static_cast<std::size_t>(r.end - buf.data()), r.what);
      }
      if (!more()) {
        return {};
      }
    }
  }

  void start() {
    // A UTF-8 byte order mark is tolerated (editors add one).
    while (end - begin < 3 && more()) {
    }
    if (end - begin >= 3 && std::memcmp(buf.data() + begin, "\xEF\xBB\xBF", 3) == 0) {
      begin += 3;
    }
    const int c = peek();
    if (c == '{') {
      objectForm = true;
      ++begin;
      state = peek() == '}' ? (++begin, State::End) : State::Keys;
    } else if (c == '[') {
      ++begin;
      state = State::Events;
    } else if (c == kEof && input.streamTruncated()) {
      truncated("before its first byte");  // a gzip prefix too short to decompress to anything yet
    } else if (c == kEof) {
      throw StorageError(input.name() + ": empty file, not a trace");
    } else {
      fail(begin, "a trace must start with '{' (object form) or '[' (array form)");
    }
    if (state == State::Keys) {
      readKeys();
    }
  }

  /// Object form: reads members until traceEvents' `[` (state Events) or the closing `}` (state End).
  void readKeys() {
    for (;;) {
      if (peek() != '"') {
        if (peek() == kEof) {
          truncated("inside the top-level object");
        }
        fail(begin, "expected a member name in quotes");
      }
      const std::string_view rawKey = scanValue();
      if (rawKey.empty()) {
        truncated("inside a top-level key");
      }
      std::string key;
      if (!unescapeJsonString(rawKey.substr(1, rawKey.size() - 2), key)) {
        fail(indexOf(rawKey), "malformed member name");
      }
      // JSON text is UTF-8 (RFC 8259); the metadata keeps the name as a JSON key, which nlohmann cannot write
      // otherwise.
      if (!isValidUtf8(key)) {
        fail(indexOf(rawKey), "member name is not valid UTF-8");
      }
      if (const int c = peek(); c != ':') {
        if (c == kEof) {
          truncated("after a top-level key");
        }
        fail(begin, "expected ':' after a member name");
      }
      ++begin;
      if (key == "traceEvents") {
        if (const int c = peek(); c != '[') {
          if (c == kEof) {
            truncated("after \"traceEvents\":");
          }
          fail(begin, "traceEvents must be an array");
        }
        ++begin;
        sawTraceEvents = true;
        state = State::Events;
        return;
      }
      if (peek() == kEof) {
        truncated("before the value of \"" + key + "\"");
      }
      const std::string_view value = scanValue();
      if (value.empty()) {
        truncated("inside the value of \"" + key + "\"");
      }
      try {
        metadata[key] = nlohmann::json::parse(value);
      } catch (const nlohmann::json::parse_error& e) {
        fail(indexOf(value) + (e.byte > 0 ? e.byte - 1 : 0),
             "malformed value of \"" + key + "\": " + parseErrorText(e));
      } catch (const nlohmann::json::out_of_range&) {
        // nlohmann reads a number beyond a double's range (1e400) as an error of its own, not a parse_error.
        fail(indexOf(value), "malformed value of \"" + key + "\": a number out of range");
      }
      if (!afterMember()) {
        return;
      }
    }
  }

  /// After a top-level member: `,` (true: another key follows) or `}` (false: state End).
  bool afterMember() {
    const int c = peek();
    if (c == ',') {
      ++begin;
      state = State::Keys;
      return true;
    }
    if (c == '}') {
      ++begin;
      state = State::End;
      return false;
    }
    if (c == kEof) {
      truncated("inside the top-level object");
    }
    fail(begin, "expected ',' or '}' after a top-level member");
  }

  std::size_t indexOf(std::string_view value) const { return static_cast<std::size_t>(value.data() - buf.data()); }

  bool next() {
    try {
      return step();
    } catch (const EndOfPrefix&) {
      event = {};
      return false;
    }
  }

  bool step() {
    for (;;) {
      switch (state) {
      case State::Keys: readKeys(); break;
      case State::Events: {
        const int c = peek();
        if (c == ']') {  // after a ',' this is a trailing comma: invalid JSON, but Perfetto tolerates it
          trailingComma = trailingComma || afterComma;
          ++begin;
          state = objectForm ? State::AfterEvents : State::End;
          break;
        }
        if (c == kEof && !objectForm) {  // the array form may stop without its `]`
          unclosedArray = true;
          state = State::Done;
          return false;
        }
        if (c == kEof) {
          truncated("inside traceEvents");
        }
        const std::string_view value = scanValue();
        if (value.empty()) {
          truncated("inside event #" + std::to_string(eventCount));
        }
        event = value;
        eventOffset = offsetOf(indexOf(value));
        completeBytes = eventOffset + value.size();
        ++eventCount;
        afterComma = false;
        state = State::AfterEvent;
        return true;
      }
      case State::AfterEvent: {
        const int c = peek();
        if (c == ',') {
          ++begin;
          afterComma = true;
          state = State::Events;
        } else if (c == ']') {
          ++begin;
          state = objectForm ? State::AfterEvents : State::End;
        } else if (c == kEof && !objectForm) {
          unclosedArray = true;
          state = State::Done;
          return false;
        } else if (c == kEof) {
          truncated("inside traceEvents");
        } else {
          fail(begin, "expected ',' or ']' after an event");
        }
        break;
      }
      case State::AfterEvents: afterMember(); break;
      case State::End: {
        if (peek() != kEof) {
          fail(begin, "unexpected text after the end of the trace");
        }
        if (objectForm && !sawTraceEvents) {
          throw StorageError(input.name() + ": not a Chrome trace: the top-level object has no traceEvents array");
        }
        state = State::Done;
        return false;
      }
      case State::Done: return false;
      }
    }
  }
};

TraceReader::TraceReader(const std::filesystem::path& path, TraceReaderOptions options)
    : TraceReader(TraceInput::openFile(path), options) {}

TraceReader::TraceReader(TraceInput input, TraceReaderOptions options) {
  FATHOM_CHECK(options.chunkBytes >= 16, ConfigError, "TraceReaderOptions::chunkBytes must be >= 16, got ",
               options.chunkBytes);
  FATHOM_CHECK(options.maxValueBytes >= 16, ConfigError, "TraceReaderOptions::maxValueBytes must be >= 16, got ",
               options.maxValueBytes);
  m_impl = std::make_unique<Impl>(std::move(input), options);
  m_impl->buf.resize(options.chunkBytes);
  m_impl->input.setAcceptTruncatedStream(options.acceptTruncatedTail);
  try {
    m_impl->start();
  } catch (const EndOfPrefix&) {
    // the prefix ends inside the top-level keys: no events (yet)
  }
}

TraceReader::~TraceReader() = default;

bool TraceReader::next() {
  return m_impl->next();
}

std::string_view TraceReader::event() const {
  return m_impl->event;
}

std::uint64_t TraceReader::eventIndex() const {
  return m_impl->eventCount == 0 ? 0 : m_impl->eventCount - 1;
}

std::uint64_t TraceReader::eventCount() const {
  return m_impl->eventCount;
}

std::uint64_t TraceReader::eventOffset() const {
  return m_impl->eventOffset;
}

nlohmann::json TraceReader::parseEvent() const {
  try {
    return nlohmann::json::parse(m_impl->event);
  } catch (const nlohmann::json::parse_error& e) {
    throw StorageError(describeInEvent(e.byte > 0 ? e.byte - 1 : 0, "malformed event #" + std::to_string(eventIndex()) +
                                                                        " (" + parseErrorText(e) + ")"));
  } catch (const nlohmann::json::out_of_range&) {
    throw StorageError(
        describeInEvent(0, "malformed event #" + std::to_string(eventIndex()) + " (a number out of range)"));
  }
}

const nlohmann::json& TraceReader::metadata() const {
  return m_impl->metadata;
}

bool TraceReader::objectForm() const {
  return m_impl->objectForm;
}

bool TraceReader::unclosedArray() const {
  return m_impl->unclosedArray;
}

bool TraceReader::trailingComma() const {
  return m_impl->trailingComma;
}

const std::string& TraceReader::name() const {
  return m_impl->input.name();
}

std::uint64_t TraceReader::rawBytesRead() const {
  return m_impl->input.rawBytesRead();
}

std::uint64_t TraceReader::bytesScanned() const {
  return m_impl->offsetOf(m_impl->begin);
}

bool TraceReader::truncatedTail() const {
  return m_impl->truncatedTail || m_impl->input.streamTruncated();
}

std::uint64_t TraceReader::completeBytes() const {
  return m_impl->completeBytes;
}

std::string TraceReader::describeInEvent(std::size_t offsetInEvent, std::string_view what) const {
  return m_impl->describe(m_impl->eventOffset + std::min(offsetInEvent, m_impl->event.size()), what);
}

nlohmann::json TraceReader::readMetadata(const std::filesystem::path& path) {
  TraceReader reader(path);
  while (reader.next()) {
  }
  return reader.metadata();
}

}  // namespace fathom::trace
