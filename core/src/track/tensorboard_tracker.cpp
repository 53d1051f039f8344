// SPDX-License-Identifier: Apache-2.0
// TensorBoard event files, encoded by hand: TFRecord framing around tensorflow.Event protobufs.
//
//   record  := uint64 length (LE) | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data)
//   Event   := wall_time (1, double) | step (2, int64) | file_version (3, string) | summary (5, Summary)
//   Summary := value (1, repeated Summary.Value)
//   Value   := tag (1, string) | simple_value (2, float) | tensor (8, TensorProto) | metadata (9, SummaryMetadata)
//   SummaryMetadata := plugin_data (1, PluginData{plugin_name (1, string)})
//   TensorProto     := dtype (1, enum; DT_STRING = 7) | tensor_shape (2, TensorShapeProto{}) | string_val (8, bytes)
#include "track/crc32c.h"
#include "track/track_util.h"

#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/track/file_trackers.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <cstring>

#include <unistd.h>

namespace fathom::track {

namespace {

/// Protobuf wire-format writer for the handful of field kinds an Event needs.
class ProtoWriter {
public:
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      m_bytes.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    m_bytes.push_back(static_cast<char>(v));
  }
  void key(int field, int wireType) { varint((static_cast<std::uint64_t>(field) << 3) | wireType); }
  void int64Field(int field, std::int64_t v) {
    key(field, 0);
    varint(static_cast<std::uint64_t>(v));  // two's complement: negative values take ten bytes
  }
  void doubleField(int field, double v) {
    key(field, 1);
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    littleEndian(bits, 8);
  }
  void floatField(int field, float v) {
    key(field, 5);
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    littleEndian(bits, 4);
  }
  void bytesField(int field, std::string_view v) {
    key(field, 2);
    varint(v.size());
    m_bytes.append(v);
  }
  void messageField(int field, const ProtoWriter& message) { bytesField(field, message.m_bytes); }
  const std::string& bytes() const { return m_bytes; }

private:
  void littleEndian(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      m_bytes.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    }
  }
  std::string m_bytes;
};

ProtoWriter eventHeader(double wallTime, std::int64_t step) {
  ProtoWriter event;
  event.doubleField(1, wallTime);
  event.int64Field(2, step);
  return event;
}

/// A Summary.Value the text plugin shows: a scalar DT_STRING tensor tagged with plugin_name "text".
ProtoWriter textValue(const std::string& tag, std::string_view text) {
  ProtoWriter pluginData;
  pluginData.bytesField(1, "text");
  ProtoWriter metadata;
  metadata.messageField(1, pluginData);
  ProtoWriter tensor;
  tensor.int64Field(1, 7);                // DT_STRING
  tensor.messageField(2, ProtoWriter{});  // scalar shape
  tensor.bytesField(8, text);
  ProtoWriter value;
  value.bytesField(1, tag);
  value.messageField(8, tensor);
  value.messageField(9, metadata);
  return value;
}

std::string eventFileName(double now) {
  static std::atomic<int> counter{0};
  return "events.out.tfevents." + std::to_string(static_cast<std::int64_t>(now)) + "." + detail::hostName() + "." +
         std::to_string(::getpid()) + "." + std::to_string(counter++);
}

}  // namespace

TensorBoardTracker::TensorBoardTracker(const TrackerOptions& options)
    : m_logDir(options.effectiveLoggingDir() / options.projectName) {
  detail::createDirectories(m_logDir);
  const double now = unixNowSeconds();
  m_file = std::make_unique<detail::AppendFile>(m_logDir / eventFileName(now), /*truncate=*/true);
  ProtoWriter header = eventHeader(now, 0);
  header.bytesField(3, "brain.Event:2");
  writeRecord(header.bytes());
  m_file->flush();
}

TensorBoardTracker::~TensorBoardTracker() = default;

void TensorBoardTracker::writeRecord(const std::string& data) {
  std::string length(8, '\0');
  for (int i = 0; i < 8; ++i) {
    length[i] = static_cast<char>((static_cast<std::uint64_t>(data.size()) >> (8 * i)) & 0xFF);
  }
  const auto crcBytes = [](std::uint32_t crc) {
    std::string out(4, '\0');
    for (int i = 0; i < 4; ++i) {
      out[i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
    }
    return out;
  };
  m_file->write(length + crcBytes(detail::maskedCrc32c(length)) + data + crcBytes(detail::maskedCrc32c(data)));
}

void TensorBoardTracker::doStoreInitConfiguration(const nlohmann::json& config) {
  detail::writeFileAtomically(m_logDir / "hparams.json", config.dump(2) + "\n");
  // A Markdown table of the flattened configuration in the Text tab.
  std::string table = "| key | value |\n|---|---|\n";
  for (const auto& [key, value] : detail::flattenConfig(config)) {
    table += "| " + key + " | " + value + " |\n";
  }
  ProtoWriter summary;
  summary.messageField(1, textValue("hparams/text_summary", table));
  ProtoWriter event = eventHeader(unixNowSeconds(), 0);
  event.messageField(5, summary);
  writeRecord(event.bytes());
  m_file->flush();
}

void TensorBoardTracker::doLog(const LogValues& values, std::int64_t step, double wallTime) {
  ProtoWriter summary;
  bool any = false;
  for (const auto& [key, value] : values) {
    if (const auto number = detail::numeric(value)) {
      ProtoWriter v;
      v.bytesField(1, key);
      v.floatField(2, static_cast<float>(*number));
      summary.messageField(1, v);
    } else {
      summary.messageField(1, textValue(key, std::get<std::string>(value)));
    }
    any = true;
  }
  if (!any) {
    return;
  }
  ProtoWriter event = eventHeader(wallTime, step);
  event.messageField(5, summary);
  writeRecord(event.bytes());
  m_file->flush();
}

void TensorBoardTracker::doFinish() {
  m_file->close();
}

}  // namespace fathom::track
