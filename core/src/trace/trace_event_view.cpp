// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_event_view.h"

#include "json_scan.h"
#include "json_strict.h"
#include "trace/trace_json.h"

#include <charconv>

namespace fathom::trace {

using detail::ScanStatus;

bool TraceEventView::parse(std::string_view json) {
  m_text = json;
  m_members.clear();
  if (!m_unescaped.empty()) {
    m_unescaped.clear();
  }
  const char* const begin = json.data();
  const char* const end = begin + json.size();
  auto fail = [&](const char* at, const char* what) {
    m_members.clear();  // a malformed event has no members, not some of them
    m_errorOffset = static_cast<std::size_t>(at - begin);
    m_error = what;
    return false;
  };
  const char* p = detail::skipSpace(begin, end);
  if (p == end || *p != '{') {
    return fail(p, "an event must be a JSON object");
  }
  p = detail::skipSpace(p + 1, end);
  if (p < end && *p == '}') {
    p = detail::skipSpace(p + 1, end);
    return p == end ? true : fail(p, "unexpected text after the event object");
  }
  for (;;) {
    if (p == end || *p != '"') {
      return fail(p, "expected a member name in quotes");
    }
    const char* keyEnd = detail::skipStringBody(p + 1, end);
    if (!keyEnd) {
      return fail(p, "unterminated member name");
    }
    const std::string_view key(p + 1, static_cast<std::size_t>(keyEnd - p - 2));
    p = detail::skipSpace(keyEnd, end);
    if (p == end || *p != ':') {
      return fail(p, "expected ':' after a member name");
    }
    p = detail::skipSpace(p + 1, end);
    const detail::ScanResult value = detail::scanValue(p, end);
    if (value.status == ScanStatus::Malformed) {
      return fail(value.end, value.what);
    }
    // Incomplete at the end of a complete event means the value runs into the closing brace: malformed here.
    if (value.status == ScanStatus::Incomplete) {
      return fail(p, "a member value runs past the end of the event");
    }
    m_members.push_back({key, std::string_view(p, static_cast<std::size_t>(value.end - p))});
    p = detail::skipSpace(value.end, end);
    if (p < end && *p == ',') {
      p = detail::skipSpace(p + 1, end);
      continue;
    }
    if (p < end && *p == '}') {
      p = detail::skipSpace(p + 1, end);
      return p == end ? true : fail(p, "unexpected text after the event object");
    }
    return fail(p, "expected ',' or '}' after a member");
  }
}

TraceEventView::Strict TraceEventView::parseStrict(std::string_view json) {
  m_text = json;
  if (!m_unescaped.empty()) {
    m_unescaped.clear();
  }
  if (const std::optional<detail::JsonProblem> problem = detail::checkJson(json, &m_members)) {
    m_errorOffset = problem->offset;
    m_error = problem->what;
    return Strict::NotJson;
  }
  // Well-formed, so a value starts at the first non-space byte.
  const char* const first = detail::skipSpace(json.data(), json.data() + json.size());
  if (*first != '{') {
    m_errorOffset = static_cast<std::size_t>(first - json.data());
    m_error = "an event must be a JSON object";
    return Strict::NotAnObject;
  }
  return Strict::Object;
}

std::string_view TraceEventView::raw(std::string_view key) const {
  // Called several times per event by every reader of traces (a tenth of a timeline's load went to memcmp here):
  // the length and the first character tell a trace's keys apart ("ph", "ts", "id", "bp"; "cat", "pid", "tid",
  // "dur"; "name", "args"), so the full comparison runs on the match only.
  for (const Member& m : m_members) {
    if (m.key.size() == key.size() && (key.empty() || m.key.front() == key.front()) && m.key == key) {
      return m.value;
    }
  }
  return {};
}

std::optional<std::string_view> TraceEventView::unquote(std::string_view rawString) const {
  if (rawString.size() < 2 || rawString.front() != '"' || rawString.back() != '"') {
    return std::nullopt;
  }
  const std::string_view body = rawString.substr(1, rawString.size() - 2);
  if (body.find('\\') == std::string_view::npos) {
    return body;
  }
  std::string& decoded = m_unescaped.emplace_back();
  if (!unescapeJsonString(body, decoded)) {
    return std::nullopt;
  }
  return std::string_view(decoded);
}

std::optional<std::string_view> TraceEventView::string(std::string_view key) const {
  return unquote(raw(key));
}

std::optional<std::int64_t> TraceEventView::integer(std::string_view key) const {
  return parseInteger(raw(key));
}

std::optional<std::int64_t> TraceEventView::micros(std::string_view key) const {
  return parseMicros(raw(key));
}

std::optional<std::int64_t> microsToNanos(std::string_view text) {
  return parseMicros(text);
}

char TraceEventView::phase() const {
  const std::string_view ph = raw("ph");
  return ph.size() >= 3 && ph.front() == '"' ? ph[1] : '\0';
}

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

bool readHex4(std::string_view text, std::size_t at, std::uint32_t& value) {
  if (at + 4 > text.size()) {
    return false;
  }
  value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const int digit = hexValue(text[i]);
    if (digit < 0) {
      return false;
    }
    value = value * 16 + static_cast<std::uint32_t>(digit);
  }
  return true;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

bool unescapeJsonString(std::string_view body, std::string& out) {
  out.clear();
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i == body.size()) {
      return false;
    }
    switch (body[i]) {
    case '"': out.push_back('"'); break;
    case '\\': out.push_back('\\'); break;
    case '/': out.push_back('/'); break;
    case 'b': out.push_back('\b'); break;
    case 'f': out.push_back('\f'); break;
    case 'n': out.push_back('\n'); break;
    case 'r': out.push_back('\r'); break;
    case 't': out.push_back('\t'); break;
    case 'u': {
      std::uint32_t cp = 0;
      if (!readHex4(body, i + 1, cp)) {
        return false;
      }
      i += 4;
      if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: a low one must follow
        std::uint32_t low = 0;
        if (i + 2 >= body.size() || body[i + 1] != '\\' || body[i + 2] != 'u' || !readHex4(body, i + 3, low) ||
            low < 0xDC00 || low > 0xDFFF) {
          return false;
        }
        i += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return false;
      }
      appendUtf8(out, cp);
      break;
    }
    default: return false;
    }
  }
  return true;
}

}  // namespace fathom::trace
