// SPDX-License-Identifier: Apache-2.0
// fathom::track: the registry and the built-in file trackers. Each output is read back by a reader written here
// from the format's definition, never by the writer's code: TensorBoard's TFRecord framing and Event protobufs
// (with an independent, bitwise CRC-32C), MLflow's file store, DVCLive's directory, CSV and JSON Lines.
#include "error_helpers.h"

#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/track/file_trackers.h>
#include <fathom/track/tracker_registry.h>

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace fathom::track;
using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::throwsType;

namespace {

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) {
    out.push_back(part);
  }
  return out;
}

// --- CRC-32C, bitwise (the writer uses a table) ------------------------------------------------------------

std::uint32_t crc32cBitwise(std::string_view data) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const char c : data) {
    crc ^= static_cast<unsigned char>(c);
    for (int k = 0; k < 8; ++k) {
      const std::uint32_t mask = 0u - (crc & 1u);
      crc = (crc >> 1) ^ (0x82F63B78u & mask);
    }
  }
  return ~crc;
}

std::uint32_t masked(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::uint64_t littleEndian(std::string_view bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return v;
}

/// TFRecord: uint64 length, uint32 masked CRC of the length bytes, data, uint32 masked CRC of the data.
/// Throws std::runtime_error on any framing or checksum error.
std::vector<std::string> readTfRecords(const std::string& file) {
  std::vector<std::string> records;
  std::size_t pos = 0;
  while (pos < file.size()) {
    if (file.size() - pos < 12) {
      throw std::runtime_error("truncated record header");
    }
    const std::string_view lengthBytes(file.data() + pos, 8);
    const auto length = littleEndian(lengthBytes);
    if (littleEndian(std::string_view(file.data() + pos + 8, 4)) != masked(crc32cBitwise(lengthBytes))) {
      throw std::runtime_error("length CRC mismatch");
    }
    pos += 12;
    if (file.size() - pos < length + 4) {
      throw std::runtime_error("truncated record data");
    }
    const std::string data = file.substr(pos, length);
    if (littleEndian(std::string_view(file.data() + pos + length, 4)) != masked(crc32cBitwise(data))) {
      throw std::runtime_error("data CRC mismatch");
    }
    records.push_back(data);
    pos += length + 4;
  }
  return records;
}

// --- Protobuf wire format ----------------------------------------------------------------------------------

struct Field {
  int number = 0;
  int wireType = 0;
  std::uint64_t integer = 0;  // varint, fixed64 or fixed32 bits
  std::string bytes;          // length-delimited
};

std::vector<Field> decodeMessage(std::string_view m) {
  std::size_t pos = 0;
  const auto varint = [&]() {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= m.size() || shift > 63) {
        throw std::runtime_error("bad varint");
      }
      const auto b = static_cast<unsigned char>(m[pos++]);
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
  };
  std::vector<Field> fields;
  while (pos < m.size()) {
    const auto key = varint();
    Field f;
    f.number = static_cast<int>(key >> 3);
    f.wireType = static_cast<int>(key & 7);
    switch (f.wireType) {
    case 0: f.integer = varint(); break;
    case 1:
      f.integer = littleEndian(m.substr(pos, 8));
      pos += 8;
      break;
    case 5:
      f.integer = littleEndian(m.substr(pos, 4));
      pos += 4;
      break;
    case 2: {
      const auto n = varint();
      if (pos + n > m.size()) {
        throw std::runtime_error("length-delimited field overruns the message");
      }
      f.bytes = std::string(m.substr(pos, n));
      pos += n;
      break;
    }
    default: throw std::runtime_error("unexpected wire type " + std::to_string(f.wireType));
    }
    if (pos > m.size()) {
      throw std::runtime_error("field overruns the message");
    }
    fields.push_back(std::move(f));
  }
  return fields;
}

const Field* first(const std::vector<Field>& fields, int number) {
  for (const auto& f : fields) {
    if (f.number == number) {
      return &f;
    }
  }
  return nullptr;
}

struct SummaryValue {
  std::string tag;
  std::optional<float> simpleValue;
  std::string pluginName;
  std::string text;  // TensorProto.string_val
  int dtype = 0;
};

/// tensorflow.Event: wall_time = 1 (double), step = 2 (int64), file_version = 3 (string), summary = 5.
struct Event {
  double wallTime = 0;
  std::int64_t step = 0;
  std::string fileVersion;
  std::vector<SummaryValue> values;
};

Event decodeEvent(const std::string& data) {
  Event e;
  for (const auto& f : decodeMessage(data)) {
    if (f.number == 1 && f.wireType == 1) {
      std::memcpy(&e.wallTime, &f.integer, 8);
    } else if (f.number == 2 && f.wireType == 0) {
      e.step = static_cast<std::int64_t>(f.integer);
    } else if (f.number == 3 && f.wireType == 2) {
      e.fileVersion = f.bytes;
    } else if (f.number == 5 && f.wireType == 2) {
      for (const auto& v : decodeMessage(f.bytes)) {  // Summary.value = 1
        if (v.number != 1 || v.wireType != 2) {
          throw std::runtime_error("unexpected Summary field");
        }
        SummaryValue sv;
        for (const auto& vf : decodeMessage(v.bytes)) {
          if (vf.number == 1 && vf.wireType == 2) {
            sv.tag = vf.bytes;
          } else if (vf.number == 2 && vf.wireType == 5) {
            float x;
            const auto bits = static_cast<std::uint32_t>(vf.integer);
            std::memcpy(&x, &bits, 4);
            sv.simpleValue = x;
          } else if (vf.number == 8 && vf.wireType == 2) {  // TensorProto
            const auto tensor = decodeMessage(vf.bytes);
            if (const auto* dtype = first(tensor, 1)) {
              sv.dtype = static_cast<int>(dtype->integer);
            }
            if (const auto* s = first(tensor, 8)) {
              sv.text = s->bytes;
            }
          } else if (vf.number == 9 && vf.wireType == 2) {  // SummaryMetadata.plugin_data.plugin_name
            const auto metadata = decodeMessage(vf.bytes);
            if (const auto* pd = first(metadata, 1)) {
              const auto pluginData = decodeMessage(pd->bytes);
              if (const auto* name = first(pluginData, 1)) {
                sv.pluginName = name->bytes;
              }
            }
          }
        }
        e.values.push_back(sv);
      }
    }
  }
  return e;
}

// --- CSV (RFC 4180) ----------------------------------------------------------------------------------------

std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  return rows;
}

TrackerOptions optionsIn(const QTemporaryDir& dir, std::string project = "proj") {
  TrackerOptions o;
  o.projectName = std::move(project);
  o.projectDir = dir.path().toStdString();
  return o;
}

/// A user tracker that remembers what it was given.
class MemoryTracker : public Tracker {
public:
  explicit MemoryTracker(bool mainOnly = true) : m_mainOnly(mainOnly) {}
  std::string name() const override { return m_mainOnly ? "memory" : "everywhere"; }
  bool requiresLoggingDirectory() const override { return false; }
  bool mainProcessOnly() const override { return m_mainOnly; }

  nlohmann::json config;
  std::vector<std::pair<std::int64_t, LogValues>> logged;
  int finishes = 0;

protected:
  void doStoreInitConfiguration(const nlohmann::json& c) override { config = c; }
  void doLog(const LogValues& values, std::int64_t step, double) override { logged.emplace_back(step, values); }
  void doFinish() override { ++finishes; }

private:
  bool m_mainOnly;
};

}  // namespace

class TestTrackers : public QObject {
  Q_OBJECT

private slots:
  void testReaderCrcMatchesKnownVector() {
    // RFC 3720 (iSCSI) check value: the reader's CRC must be right before it can judge the writer's.
    QCOMPARE(crc32cBitwise("123456789"), 0xE3069283u);
    QCOMPARE(crc32cBitwise(""), 0u);
    QCOMPARE(crc32cBitwise(std::string(32, '\0')), 0x8A9136AAu);
  }

  void tensorBoardEventFile() {
    QTemporaryDir dir;
    const double before = fathom::unixNowSeconds();
    TensorBoardTracker tb(optionsIn(dir));
    QCOMPARE(tb.name(), std::string("tensorboard"));
    QVERIFY(tb.requiresLoggingDirectory());
    QVERIFY(tb.mainProcessOnly());
    QCOMPARE(tb.logDir(), fs::path(dir.path().toStdString()) / "proj");

    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    const auto fileName = tb.eventFile().filename().string();
    QVERIFY2(std::regex_match(fileName, std::regex(R"(events\.out\.tfevents\.(\d{10})\.(.+))")), fileName.c_str());
    QVERIFY2(contains(fileName, std::string(".") + host + "."), fileName.c_str());
    QCOMPARE(tb.eventFile().parent_path(), tb.logDir());

    tb.storeInitConfiguration({{"lr", 0.001}, {"optimizer", {{"name", "adamw"}}}});
    tb.log({{"loss", 0.5}, {"tokens", std::int64_t{4096}}}, 1);
    tb.log({{"loss", 0.25}}, 2);
    tb.log({{"note", std::string("warmup done")}}, 7);
    const std::map<std::string, double> plain{{"train/loss", 1.5}};
    tb.log(plain, 8);
    const double after = fathom::unixNowSeconds();

    // Everything is on disk before finish(): a killed run keeps what it logged.
    const auto bytes = readAll(tb.eventFile());
    const auto records = readTfRecords(bytes);
    QCOMPARE(records.size(), std::size_t{6});

    const auto header = decodeEvent(records[0]);
    QCOMPARE(header.fileVersion, std::string("brain.Event:2"));
    QVERIFY(header.wallTime >= std::floor(before) && header.wallTime <= after);
    QVERIFY(header.values.empty());

    const auto hparams = decodeEvent(records[1]);
    QCOMPARE(hparams.values.size(), std::size_t{1});
    QCOMPARE(hparams.values[0].pluginName, std::string("text"));
    QCOMPARE(hparams.values[0].dtype, 7);  // DT_STRING
    QVERIFY(contains(hparams.values[0].text, "| optimizer/name | adamw |"));

    const auto e1 = decodeEvent(records[2]);
    QCOMPARE(e1.step, std::int64_t{1});
    QVERIFY(e1.wallTime >= before && e1.wallTime <= after);
    QCOMPARE(e1.values.size(), std::size_t{2});
    QCOMPARE(e1.values[0].tag, std::string("loss"));
    QCOMPARE(*e1.values[0].simpleValue, 0.5f);
    QCOMPARE(e1.values[1].tag, std::string("tokens"));
    QCOMPARE(*e1.values[1].simpleValue, 4096.0f);
    QVERIFY(e1.values[0].pluginName.empty());

    const auto e2 = decodeEvent(records[3]);
    QCOMPARE(e2.step, std::int64_t{2});
    QCOMPARE(*e2.values.at(0).simpleValue, 0.25f);

    const auto e3 = decodeEvent(records[4]);
    QCOMPARE(e3.step, std::int64_t{7});
    QCOMPARE(e3.values.at(0).tag, std::string("note"));
    QVERIFY(!e3.values.at(0).simpleValue);
    QCOMPARE(e3.values.at(0).pluginName, std::string("text"));
    QCOMPARE(e3.values.at(0).text, std::string("warmup done"));

    const auto e4 = decodeEvent(records[5]);
    QCOMPARE(e4.step, std::int64_t{8});
    QCOMPARE(e4.values.at(0).tag, std::string("train/loss"));

    // The configuration is also kept as JSON beside the event file.
    const auto config = nlohmann::json::parse(readAll(tb.logDir() / "hparams.json"));
    QCOMPARE(config["optimizer"]["name"].get<std::string>(), std::string("adamw"));

    tb.finish();
    tb.finish();  // idempotent
    QVERIFY(tb.finished());
    QVERIFY(contains(messageOf([&] { tb.log({{"loss", 1.0}}, 9); }), "after finish"));
    QCOMPARE(readAll(tb.eventFile()), bytes);

    // The reader really checks: one flipped bit in the data is caught.
    auto corrupted = bytes;
    corrupted[corrupted.size() - 6] ^= 0x01;
    bool caught = false;
    try {
      readTfRecords(corrupted);
    } catch (const std::runtime_error&) {
      caught = true;
    }
    QVERIFY(caught);
  }

  void tensorBoardTwoTrackersDoNotShareAFile() {
    QTemporaryDir dir;
    TensorBoardTracker a(optionsIn(dir));
    TensorBoardTracker b(optionsIn(dir));
    QVERIFY(a.eventFile() != b.eventFile());
    QCOMPARE(readTfRecords(readAll(b.eventFile())).size(), std::size_t{1});
  }

  void mlflowFileStore() {
    QTemporaryDir dir;
    auto options = optionsIn(dir, "my experiment");
    options.runName = "first-run";
    MlflowTracker ml(options);
    const auto root = fs::path(dir.path().toStdString()) / "mlruns";
    QCOMPARE(ml.mlrunsDir(), root);

    // The default experiment FileStore creates on first use.
    const auto defaultMeta = YAML::LoadFile((root / "0" / "meta.yaml").string());
    QCOMPARE(defaultMeta["name"].as<std::string>(), std::string("Default"));
    QCOMPARE(defaultMeta["experiment_id"].as<std::string>(), std::string("0"));
    QCOMPARE(defaultMeta["lifecycle_stage"].as<std::string>(), std::string("active"));

    QCOMPARE(ml.experimentId(), std::string("1"));
    const auto expMeta = YAML::LoadFile((root / "1" / "meta.yaml").string());
    QCOMPARE(expMeta["name"].as<std::string>(), std::string("my experiment"));
    QCOMPARE(expMeta["experiment_id"].as<std::string>(), std::string("1"));
    QCOMPARE(expMeta["experiment_id"].Tag(), std::string("!"));  // quoted: MLflow reads the id as a string
    QCOMPARE(expMeta["artifact_location"].as<std::string>(), "file://" + (root / "1").string());
    QCOMPARE(expMeta["lifecycle_stage"].as<std::string>(), std::string("active"));
    QVERIFY(expMeta["creation_time"].as<std::int64_t>() > 1'600'000'000'000);
    QVERIFY(expMeta["last_update_time"].as<std::int64_t>() > 1'600'000'000'000);

    const auto runDir = root / "1" / ml.runId();
    QCOMPARE(ml.runDir(), runDir);
    QVERIFY(std::regex_match(ml.runId(), std::regex("[0-9a-f]{32}")));
    auto runMeta = YAML::LoadFile((runDir / "meta.yaml").string());
    QCOMPARE(runMeta["run_id"].as<std::string>(), ml.runId());
    QCOMPARE(runMeta["run_uuid"].as<std::string>(), ml.runId());
    QCOMPARE(runMeta["experiment_id"].as<std::string>(), std::string("1"));
    QCOMPARE(runMeta["run_name"].as<std::string>(), std::string("first-run"));
    QCOMPARE(runMeta["status"].as<int>(), 1);  // RunStatus.RUNNING
    QVERIFY(runMeta["end_time"].IsNull());
    QCOMPARE(runMeta["source_type"].as<int>(), 4);  // SourceType.LOCAL
    QCOMPARE(runMeta["lifecycle_stage"].as<std::string>(), std::string("active"));
    QCOMPARE(runMeta["artifact_uri"].as<std::string>(), "file://" + (runDir / "artifacts").string());
    QVERIFY(runMeta["user_id"].IsScalar());
    QVERIFY(runMeta["tags"].IsSequence());
    QCOMPARE(readAll(runDir / "tags" / "mlflow.runName"), std::string("first-run"));
    QCOMPARE(readAll(runDir / "tags" / "mlflow.source.type"), std::string("LOCAL"));

    ml.storeInitConfiguration({{"lr", 0.001}, {"optimizer", {{"name", "adamw"}, {"betas", {0.9, 0.95}}}}});
    QCOMPARE(readAll(runDir / "params" / "lr"), std::string("0.001"));
    QCOMPARE(readAll(runDir / "params" / "optimizer" / "name"), std::string("adamw"));
    QCOMPARE(readAll(runDir / "params" / "optimizer" / "betas"), std::string("[0.9,0.95]"));

    const double before = fathom::unixNowSeconds();
    ml.log({{"loss", 0.5}, {"train/acc", std::int64_t{3}}}, 1);
    ml.log({{"loss", 0.25}, {"phase", std::string("eval")}}, 2);
    const double after = fathom::unixNowSeconds();

    // metrics/<key>: "<timestamp_ms> <value> <step>" per line, readable before finish().
    const auto lossLines = lines(readAll(runDir / "metrics" / "loss"));
    QCOMPARE(lossLines.size(), std::size_t{2});
    const auto parts = split(lossLines[0], ' ');
    QCOMPARE(parts.size(), std::size_t{3});
    const auto ts = std::stoll(parts[0]);
    QVERIFY(ts >= std::llround(before * 1000) - 1 && ts <= std::llround(after * 1000) + 1);
    QCOMPARE(std::stod(parts[1]), 0.5);
    QCOMPARE(parts[2], std::string("1"));
    QCOMPARE(split(lossLines[1], ' ').at(1), std::string("0.25"));
    QCOMPARE(split(lossLines[1], ' ').at(2), std::string("2"));
    QCOMPARE(split(readAll(runDir / "metrics" / "train" / "acc"), ' ').at(1), std::string("3"));
    QCOMPARE(readAll(runDir / "tags" / "phase"), std::string("eval"));  // strings become tags

    ml.finish();
    runMeta = YAML::LoadFile((runDir / "meta.yaml").string());
    QCOMPARE(runMeta["status"].as<int>(), 3);  // RunStatus.FINISHED
    QVERIFY(runMeta["end_time"].as<std::int64_t>() >= runMeta["start_time"].as<std::int64_t>());
    ml.finish();

    // A second run of the same project joins the same experiment; another project gets the next id.
    MlflowTracker again(options);
    QCOMPARE(again.experimentId(), std::string("1"));
    QVERIFY(again.runId() != ml.runId());
    MlflowTracker other(optionsIn(dir, "other"));
    QCOMPARE(other.experimentId(), std::string("2"));
  }

  void dvcLiveLayout() {
    QTemporaryDir dir;
    DvcLiveTracker live(optionsIn(dir));
    const auto root = fs::path(dir.path().toStdString()) / "dvclive";
    QCOMPARE(live.dir(), root);

    live.storeInitConfiguration({{"lr", 0.001}, {"optimizer", {{"name", "adamw"}}}, {"layers", {1, 2}}});
    const auto params = YAML::LoadFile((root / "params.yaml").string());
    QCOMPARE(params["lr"].as<double>(), 0.001);
    QCOMPARE(params["optimizer"]["name"].as<std::string>(), std::string("adamw"));
    QCOMPARE(params["layers"][1].as<int>(), 2);

    live.log({{"loss", 0.5}, {"train/acc", 0.75}, {"note", std::string("skipped")}}, 0);
    live.log({{"loss", 0.25}}, 1);

    auto metrics = nlohmann::json::parse(readAll(root / "metrics.json"));
    QCOMPARE(metrics["step"].get<int>(), 1);
    QCOMPARE(metrics["loss"].get<double>(), 0.25);
    QCOMPARE(metrics["train"]["acc"].get<double>(), 0.75);
    QVERIFY(!metrics.contains("note"));

    const auto loss = lines(readAll(root / "plots" / "metrics" / "loss.tsv"));
    QCOMPARE(loss, (std::vector<std::string>{"step\tloss", "0\t0.5", "1\t0.25"}));
    const auto acc = lines(readAll(root / "plots" / "metrics" / "train" / "acc.tsv"));
    QCOMPARE(acc, (std::vector<std::string>{"step\tacc", "0\t0.75"}));
    QVERIFY(!fs::exists(root / "plots" / "metrics" / "note.tsv"));

    const auto dvcYaml = YAML::LoadFile((root / "dvc.yaml").string());
    QCOMPARE(dvcYaml["metrics"][0].as<std::string>(), std::string("metrics.json"));
    QCOMPARE(dvcYaml["params"][0].as<std::string>(), std::string("params.yaml"));
    QCOMPARE(dvcYaml["plots"][0]["plots/metrics"]["x"].as<std::string>(), std::string("step"));

    live.log({{"loss", 0.125}});  // no step: the previous one again, as DVCLive does before next_step()
    live.finish();
    metrics = nlohmann::json::parse(readAll(root / "metrics.json"));
    QCOMPARE(metrics["step"].get<int>(), 1);
    QCOMPARE(metrics["loss"].get<double>(), 0.125);
  }

  void csvLongFormat() {
    QTemporaryDir dir;
    auto options = optionsIn(dir);
    options.loggingDir = fs::path(dir.path().toStdString()) / "logs";
    CsvTracker csv(options);
    QCOMPARE(csv.file(), options.loggingDir / "proj" / "metrics.csv");
    const double before = fathom::unixNowSeconds();
    csv.log({{"loss", 0.5}, {"a,b", std::int64_t{7}}, {"note", std::string("said \"hi\"\nbye")}}, 3);
    csv.storeInitConfiguration({{"lr", 0.1}});

    const auto rows = parseCsv(readAll(csv.file()));
    QCOMPARE(rows.size(), std::size_t{4});
    QCOMPARE(rows[0], (std::vector<std::string>{"step", "wall_time", "key", "value"}));
    // std::map order: "a,b" < "loss" < "note".
    QCOMPARE(rows[1][2], std::string("a,b"));
    QCOMPARE(rows[1][3], std::string("7"));
    QCOMPARE(rows[2][0], std::string("3"));
    QVERIFY(std::stod(rows[2][1]) >= before && std::stod(rows[2][1]) <= fathom::unixNowSeconds());
    QCOMPARE(rows[2][2], std::string("loss"));
    QCOMPARE(std::stod(rows[2][3]), 0.5);
    QCOMPARE(rows[3][3], std::string("said \"hi\"\nbye"));
    QCOMPARE(nlohmann::json::parse(readAll(options.loggingDir / "proj" / "config.json"))["lr"].get<double>(), 0.1);
    csv.finish();

    // A second run appends rows under the one header.
    CsvTracker again(options);
    again.log({{"loss", 0.25}}, 4);
    again.finish();
    const auto all = parseCsv(readAll(csv.file()));
    QCOMPARE(all.size(), std::size_t{5});
    QCOMPARE(all[4][0], std::string("4"));
  }

  void jsonlLines() {
    QTemporaryDir dir;
    JsonlTracker jl(optionsIn(dir));
    QCOMPARE(jl.file(), fs::path(dir.path().toStdString()) / "proj" / "metrics.jsonl");
    jl.log({{"loss", 0.5}, {"tokens", std::int64_t{4096}}, {"phase", std::string("train")}}, 10);
    jl.log({{"loss", std::nan("")}}, 11);
    jl.finish();

    const auto ls = lines(readAll(jl.file()));
    QCOMPARE(ls.size(), std::size_t{2});
    const auto first = nlohmann::json::parse(ls[0]);
    QCOMPARE(first["step"].get<int>(), 10);
    QVERIFY(first["wall_time"].is_number_float());
    QCOMPARE(first["values"]["loss"].get<double>(), 0.5);
    QVERIFY(first["values"]["tokens"].is_number_integer());
    QCOMPARE(first["values"]["tokens"].get<int>(), 4096);
    QCOMPARE(first["values"]["phase"].get<std::string>(), std::string("train"));
    QVERIFY(nlohmann::json::parse(ls[1])["values"]["loss"].is_null());
  }

  void registryAndLogWith() {
    const std::vector<std::string> builtins{"csv", "dvclive", "jsonl", "mlflow", "tensorboard"};
    QCOMPARE(builtinTrackerNames(), builtins);
    QCOMPARE(parseLogWith(""), std::vector<std::string>{});
    QCOMPARE(parseLogWith(" tensorboard , csv,csv,"), (std::vector<std::string>{"tensorboard", "csv"}));
    QCOMPARE(parseLogWith("all"), builtins);
    QCOMPARE(parseLogWith("mlflow,all"),
             (std::vector<std::string>{"mlflow", "csv", "dvclive", "jsonl", "tensorboard"}));

    const auto msg = messageOf([] { parseLogWith("wandb,csv,comet_ml"); });
    QVERIFY2(contains(msg, "unknown trackers wandb, comet_ml"), msg.c_str());
    QVERIFY2(contains(msg, "known trackers: csv, dvclive, jsonl, mlflow, tensorboard (or 'all')"), msg.c_str());
    QVERIFY(throwsType<fathom::ConfigError>([] { parseLogWith("wandb"); }));

    QTemporaryDir dir;
    const auto unknown = messageOf([&] { makeTracker("wandb", optionsIn(dir)); });
    QVERIFY2(contains(unknown, "unknown tracker 'wandb'; known trackers: csv, dvclive"), unknown.c_str());
    for (const auto& name : builtins) {
      auto t = makeTracker(name, optionsIn(dir));
      QCOMPARE(t->name(), name);
      t->finish();
    }
  }

  void customTrackerRegistration() {
    MemoryTracker* made = nullptr;
    registerTracker("memory", [&made](const TrackerOptions&) {
      auto t = std::make_unique<MemoryTracker>();
      made = t.get();
      return t;
    });
    QCOMPARE(parseLogWith("memory,csv"), (std::vector<std::string>{"memory", "csv"}));
    const auto builtins = builtinTrackerNames();
    QVERIFY(std::find(builtins.begin(), builtins.end(), "memory") == builtins.end());
    QCOMPARE(parseLogWith("all").size(), std::size_t{5});  // "all" means the built-ins only
    const auto names = registeredTrackerNames();
    QVERIFY(std::find(names.begin(), names.end(), "memory") != names.end());

    QVERIFY(contains(messageOf([] { registerTracker("memory", [](const TrackerOptions&) { return nullptr; }); }),
                     "already registered"));
    QVERIFY(contains(messageOf([] { registerTracker("csv", [](const TrackerOptions&) { return nullptr; }); }),
                     "already registered"));
    QVERIFY(
        contains(messageOf([] { registerTracker("all", [](const TrackerOptions&) { return nullptr; }); }), "reserved"));
    QVERIFY(contains(messageOf([] { registerTracker("My Tracker", [](const TrackerOptions&) { return nullptr; }); }),
                     "not valid"));

    // The group: Accelerate's init_trackers / log / get_tracker / end_training.
    QTemporaryDir dir;
    TrackerGroup group(parseLogWith("memory,jsonl"), optionsIn(dir));
    QVERIFY(made != nullptr);
    QCOMPARE(group.get("memory"), static_cast<Tracker*>(made));
    QVERIFY(group.get("jsonl") != nullptr);
    QVERIFY(group.get("csv") == nullptr);
    group.storeInitConfiguration({{"seed", 42}});
    group.log({{"loss", 1.0}}, 5);
    group.log({{"loss", 0.5}});  // no step: the previous one
    group.log({{"loss", 0.25}}, 6);
    QCOMPARE(made->config["seed"].get<int>(), 42);
    QCOMPARE(made->logged.size(), std::size_t{3});
    QCOMPARE(made->logged[0].first, std::int64_t{5});
    QCOMPARE(made->logged[1].first, std::int64_t{5});
    QCOMPARE(made->logged[2].first, std::int64_t{6});
    group.finish();
    group.finish();
    QCOMPARE(made->finishes, 1);
    QCOMPARE(lines(readAll(fs::path(dir.path().toStdString()) / "proj" / "metrics.jsonl")).size(), std::size_t{3});

    // On a non-main process, main-process-only trackers are not created.
    made = nullptr;
    TrackerGroup worker(parseLogWith("memory,csv"), optionsIn(dir), /*isMainProcess=*/false);
    QVERIFY(worker.empty());
    QVERIFY(worker.add(std::make_unique<MemoryTracker>(/*mainOnly=*/false)));
    QVERIFY(worker.get("everywhere") != nullptr);

    QVERIFY(unregisterTracker("memory"));
    QVERIFY(!unregisterTracker("memory"));
    QVERIFY(!unregisterTracker("csv"));
    QVERIFY(throwsType<fathom::ConfigError>([] { parseLogWith("memory"); }));
  }

  void killedRunKeepsWhatItLogged() {
    QTemporaryDir dir;
    const auto root = fs::path(dir.path().toStdString());
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
      try {
        TrackerGroup group(parseLogWith("all"), optionsIn(dir));
        for (int step = 0; step < 3; ++step) {
          group.log({{"loss", 1.0 / (step + 1)}}, step);
        }
      } catch (...) {
        ::_exit(3);
      }
      ::raise(SIGKILL);  // no finish(), no destructors, no stdio flush at exit
      ::_exit(4);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    std::vector<fs::path> eventFiles;
    for (const auto& e : fs::directory_iterator(root / "proj")) {
      if (contains(e.path().filename().string(), "tfevents")) {
        eventFiles.push_back(e.path());
      }
    }
    QCOMPARE(eventFiles.size(), std::size_t{1});
    const auto records = readTfRecords(readAll(eventFiles[0]));
    QCOMPARE(records.size(), std::size_t{4});
    QCOMPARE(decodeEvent(records[3]).step, std::int64_t{2});

    std::vector<fs::path> lossFiles;
    for (const auto& e : fs::recursive_directory_iterator(root / "mlruns")) {
      if (e.path().filename() == "loss" && e.path().parent_path().filename() == "metrics") {
        lossFiles.push_back(e.path());
      }
    }
    QCOMPARE(lossFiles.size(), std::size_t{1});
    QCOMPARE(lines(readAll(lossFiles[0])).size(), std::size_t{3});
    QCOMPARE(lines(readAll(root / "dvclive" / "plots" / "metrics" / "loss.tsv")).size(), std::size_t{4});
    QCOMPARE(nlohmann::json::parse(readAll(root / "dvclive" / "metrics.json"))["step"].get<int>(), 2);
    QCOMPARE(parseCsv(readAll(root / "proj" / "metrics.csv")).size(), std::size_t{4});
    QCOMPARE(lines(readAll(root / "proj" / "metrics.jsonl")).size(), std::size_t{3});
  }

  void unwritableDirectoryNamesThePath() {
    QTemporaryDir dir;
    const auto blocker = fs::path(dir.path().toStdString()) / "not-a-dir";
    std::ofstream(blocker) << "a file where a directory should be";
    TrackerOptions options;
    options.projectName = "proj";
    options.projectDir = blocker / "sub";
    for (const auto& name : builtinTrackerNames()) {
      const auto msg = messageOf([&] { makeTracker(name, options); });
      QVERIFY2(throwsType<fathom::StorageError>([&] { makeTracker(name, options); }), name.c_str());
      QVERIFY2(contains(msg, blocker.string()), msg.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestTrackers)
#include "tst_trackers.moc"
