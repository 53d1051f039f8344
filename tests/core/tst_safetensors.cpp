// SPDX-License-Identifier: Apache-2.0
// fathom::io safetensors: round trips, the byte layout, corrupt files, atomic writes.
#include "fathom/common/error.h"
#include "fathom/io/safetensors.h"

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QTest>

#include "error_helpers.h"

#include <cstring>
#include <fstream>
#include <iterator>

using fathom::io::readSafetensors;
using fathom::io::writeSafetensors;

namespace {

using Tensors = std::vector<std::pair<std::string, at::Tensor>>;

using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::throwsType;

std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string u64le(std::uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  }
  return out;
}

/// A file with the given header text (not padded) and data bytes.
std::string fileOf(const std::string& header, const std::string& data) {
  return u64le(header.size()) + header + data;
}

std::string floatBytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) {
    char b[4];
    std::memcpy(b, &v, 4);
    out.append(b, 4);
  }
  return out;
}

std::vector<std::string> filesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

class TstSafetensors : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_dir;
  std::filesystem::path file(const std::string& name) const {
    return std::filesystem::path(m_dir.path().toStdString()) / name;
  }

private slots:
  void roundTripAllDtypes() {
    torch::manual_seed(0);
    const Tensors tensors = {
        {"f64", torch::randn({2, 3}, torch::kDouble)},
        {"f32", torch::randn({4})},
        {"f16", torch::randn({3, 2}).to(torch::kHalf)},
        {"bf16", torch::randn({5}).to(torch::kBFloat16)},
        {"i64", torch::tensor({std::int64_t{-1}, std::int64_t{1} << 40})},
        {"i32", torch::arange(6, torch::kInt).view({2, 3})},
        {"i16", torch::tensor({-300, 300}, torch::kShort)},
        {"i8", torch::tensor({-128, 127}, torch::kChar)},
        {"u8", torch::tensor({0, 255}, torch::kByte)},
        {"bool", torch::tensor({true, false, true})},
        {"scalar", torch::tensor(3.5f)},
        {"empty", torch::empty({0, 3})},
        {"transposed", torch::arange(12, torch::kFloat).view({3, 4}).t()},  // non-contiguous input
        {"z.last", torch::ones({1, 1, 1})},
    };
    const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"step", "42"}};
    writeSafetensors(file("all.safetensors"), tensors, metadata);
    const auto read = readSafetensors(file("all.safetensors"));
    QCOMPARE(read.metadata, metadata);
    QCOMPARE(read.tensors.size(), tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const auto& [name, expected] = tensors[i];
      QCOMPARE(read.tensors[i].first, name);  // file order = write order
      const at::Tensor& actual = read.tensors[i].second;
      QCOMPARE(actual.scalar_type(), expected.scalar_type());
      QCOMPARE(actual.sizes().vec(), expected.sizes().vec());
      QVERIFY2(torch::equal(actual, expected), name.c_str());
      QVERIFY(actual.device().is_cpu());
    }
    QCOMPARE(read.tensors[10].second.dim(), std::int64_t{0});
  }

  void noMetadataNoTensors() {
    writeSafetensors(file("empty.safetensors"), {});
    const auto read = readSafetensors(file("empty.safetensors"));
    QVERIFY(read.tensors.empty());
    QVERIFY(read.metadata.empty());
    const std::string bytes = readBytes(file("empty.safetensors"));
    QCOMPARE(bytes, u64le(8) + std::string("{}      "));
  }

  void headerLayout() {
    writeSafetensors(file("layout.safetensors"), {{"a", torch::tensor({1.0f, 2.0f})}, {"b", torch::tensor({3.0f})}},
                     {{"k", "v"}});
    const std::string bytes = readBytes(file("layout.safetensors"));
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) {
      n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    }
    QCOMPARE(n % 8, std::uint64_t{0});  // data start 8-byte aligned
    QCOMPARE(bytes.size(), 8 + n + 12);
    const std::string header = bytes.substr(8, n);
    QVERIFY(
        header.rfind("{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                     "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
                     0) == 0);
    QVERIFY(header.find_first_not_of(' ', header.rfind('}') + 1) == std::string::npos);  // spaces after the JSON
    QCOMPARE(bytes.substr(8 + n), floatBytes({1.0f, 2.0f, 3.0f}));
  }

  void handWrittenFile() {
    // As the reference implementation writes it: tensors keyed out of data order, metadata last, no padding.
    const std::string header = R"({"w":{"dtype":"F32","shape":[2,1],"data_offsets":[2,10]},)"
                               R"("m":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"__metadata__":{"format":"pt"}})";
    writeBytes(file("hand.safetensors"), fileOf(header, std::string("\x07\xff", 2) + floatBytes({1.5f, -2.0f})));
    const auto read = readSafetensors(file("hand.safetensors"));
    QCOMPARE(read.tensors.size(), std::size_t{2});
    QCOMPARE(read.tensors[0].first, std::string("m"));  // data-offset order
    QCOMPARE(read.tensors[0].second[1].item<std::uint8_t>(), std::uint8_t{255});
    QCOMPARE(read.tensors[1].first, std::string("w"));
    QCOMPARE(read.tensors[1].second.sizes().vec(), (std::vector<std::int64_t>{2, 1}));
    QCOMPARE(read.tensors[1].second[1][0].item<float>(), -2.0f);
    QCOMPARE(read.metadata.at("format"), std::string("pt"));
  }

  void corruptFilesRejected_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const std::string ok = R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    const std::string data = floatBytes({1, 2});
    const auto row = [](const char* name, const std::string& bytes, const char* expected) {
      QTest::newRow(name) << QByteArray(bytes.data(), static_cast<int>(bytes.size())) << QString(expected);
    };
    row("empty file", "", "too short");
    row("short length", std::string("\x10\0\0", 3), "too short");
    row("header past end", u64le(1000) + ok + data, "header length 1000 exceeds");
    row("not json", fileOf("{\"t\":", data), "not valid JSON");
    row("not an object", fileOf("[1,2,3]", data), "does not start with '{'");
    row("missing dtype", fileOf(R"({"t":{"shape":[2],"data_offsets":[0,8]}})", data),
        "tensor 't': missing string 'dtype'");
    row("unknown dtype", fileOf(R"({"t":{"dtype":"F8","shape":[2],"data_offsets":[0,8]}})", data),
        "tensor 't': unsupported dtype 'F8'");
    row("negative dim", fileOf(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data),
        "tensor 't': shape entries must be non-negative");
    row("size mismatch", fileOf(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data),
        "tensor 't': data_offsets [0, 8] span 8 bytes but dtype F32 and shape [3] need 12");
    row("offsets past end", fileOf(R"({"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", data),
        "tensor 't': data_offsets [0, 16] run past the 8-byte data section");
    row("reversed offsets", fileOf(R"({"t":{"dtype":"U8","shape":[0],"data_offsets":[8,0]}})", data),
        "end before they begin");
    row("overlap",
        fileOf(
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
            data),
        "tensor 'b': data_offsets [4, 8] overlap");
    row("gap", fileOf(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data),
        "tensor 'a': data_offsets [4, 8] leave a gap");
    row("trailing bytes", fileOf(ok, data + "xx"), "tensors cover 8 bytes but the data section has 10");
    row("duplicate name",
        fileOf(
            R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
            data),
        "tensor 't': name appears more than once");
    row("bad metadata",
        fileOf(R"({"__metadata__":{"k":1},"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data),
        "'__metadata__' value of 'k' must be a string");
    row("bad bool", fileOf(R"({"t":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\x01\x02", 2)),
        "tensor 't': BOOL element 1 has byte value 2");
  }
  void corruptFilesRejected() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const auto path = file("corrupt.safetensors");
    writeBytes(path, bytes.toStdString());
    const auto m = messageOf([&] { readSafetensors(path); });
    QVERIFY2(contains(m, path.string()), m.c_str());
    QVERIFY2(contains(m, expected.toStdString()), m.c_str());
    QVERIFY(throwsType<fathom::StorageError>([&] { readSafetensors(path); }));
  }

  void missingFile() {
    const auto path = file("nope.safetensors");
    const auto m = messageOf([&] { readSafetensors(path); });
    QVERIFY2(contains(m, path.string()), m.c_str());
    QVERIFY(throwsType<fathom::StorageError>([&] { readSafetensors(path); }));
  }

  void invalidInputWritesNothing() {
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "bad.safetensors";
    const auto bad = [&](const Tensors& t) { return messageOf([&] { writeSafetensors(path, t); }); };
    QVERIFY(contains(bad({{"a", torch::zeros({1})}, {"a", torch::zeros({1})}}), "duplicate tensor name 'a'"));
    QVERIFY(contains(bad({{"u", at::Tensor()}}), "tensor 'u' is undefined"));
    QVERIFY(contains(bad({{"c", torch::zeros({2}, torch::kComplexFloat)}}), "tensor 'c' has unsupported dtype"));
    QVERIFY(contains(bad({{"", torch::zeros({1})}}), "empty name"));
    QVERIFY(contains(bad({{"__metadata__", torch::zeros({1})}}), "reserved"));
    QVERIFY(contains(bad({{"x", torch::zeros({1})}, {"y", at::Tensor()}}), path.string()));
    QVERIFY(throwsType<fathom::ConfigError>([&] { writeSafetensors(path, {{"u", at::Tensor()}}); }));
    QVERIFY(filesIn(dir.path().toStdString()).empty());
  }

  void failedWriteLeavesNothing() {
    QTemporaryDir dir;
    const std::filesystem::path root = dir.path().toStdString();
    // The parent directory does not exist: the temporary file cannot even be created.
    const auto noDir = root / "missing" / "x.safetensors";
    const auto m = messageOf([&] { writeSafetensors(noDir, {{"a", torch::zeros({2})}}); });
    QVERIFY2(contains(m, noDir.string()), m.c_str());
    QVERIFY(!std::filesystem::exists(noDir));
    // The target is a directory: everything is written, then the rename fails; the temporary must go.
    const auto target = root / "taken.safetensors";
    std::filesystem::create_directory(target);
    std::filesystem::create_directory(target / "inside");
    QVERIFY(throwsType<fathom::StorageError>([&] { writeSafetensors(target, {{"a", torch::zeros({2})}}); }));
    QVERIFY(std::filesystem::is_directory(target / "inside"));
    QCOMPARE(filesIn(root), std::vector<std::string>{"taken.safetensors"});
  }

  void overwriteIsAtomicReplace() {
    const auto path = file("over.safetensors");
    writeSafetensors(path, {{"a", torch::zeros({1000})}});
    writeSafetensors(path, {{"b", torch::ones({2})}});
    const auto read = readSafetensors(path);
    QCOMPARE(read.tensors.size(), std::size_t{1});
    QCOMPARE(read.tensors[0].first, std::string("b"));
    for (const auto& name : filesIn(m_dir.path().toStdString())) {
      QVERIFY2(!contains(name, ".tmp-"), name.c_str());
    }
  }

  void stateDictRoundTrip() {
    torch::manual_seed(0);
    torch::nn::Linear linear(3, 2);
    Tensors tensors;
    for (const auto& item : linear->named_parameters()) {
      tensors.emplace_back(item.key(), item.value());
    }
    writeSafetensors(file("linear.safetensors"), tensors);
    const auto read = readSafetensors(file("linear.safetensors"));
    QCOMPARE(read.tensors[0].first, std::string("weight"));
    QVERIFY(torch::equal(read.tensors[0].second, linear->weight));
    QVERIFY(!read.tensors[0].second.requires_grad());
  }
};

QTEST_GUILESS_MAIN(TstSafetensors)
#include "tst_safetensors.moc"
