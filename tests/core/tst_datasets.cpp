// SPDX-License-Identifier: Apache-2.0
// data::collate and the built-in datasets (RegressionDataset, CharTextDataset on the shipped corpus).
#include "fathom/common/error.h"
#include "fathom/data/dataset.h"
#include "fathom/models/char_text_dataset.h"
#include "fathom/models/model_factory.h"
#include "fathom/models/regression_dataset.h"

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QTest>

#include "error_helpers.h"

#include <cstdlib>
#include <fstream>

using namespace fathom::models;
using fathom::data::collate;
using fathom::data::Example;

namespace {

using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::throwsType;

const std::filesystem::path kCorpus =
    std::filesystem::path(FATHOM_SOURCE_DIR) / "resources/corpus/kjv_genesis_exodus.txt";

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace

class TstDatasets : public QObject {
  Q_OBJECT

private slots:
  void collateStacks() {
    std::vector<Example> examples;
    for (int i = 0; i < 3; ++i) {
      examples.push_back({torch::full({4}, float(i)), torch::full({1}, float(10 * i))});
    }
    const auto batch = collate(examples, {7, 8, 9});
    QCOMPARE(batch.size(), std::int64_t{3});
    QCOMPARE(batch.input.sizes().vec(), (std::vector<std::int64_t>{3, 4}));
    QCOMPARE(batch.target.sizes().vec(), (std::vector<std::int64_t>{3, 1}));
    QCOMPARE(batch.input[2][0].item<float>(), 2.0f);
    QCOMPARE(batch.target[1][0].item<float>(), 10.0f);
    QCOMPARE(batch.indices, (std::vector<std::int64_t>{7, 8, 9}));
    QVERIFY(collate(examples).indices.empty());
  }

  void collateErrors() {
    QVERIFY(contains(messageOf([] { collate({}); }), "empty list"));
    std::vector<Example> shape = {{torch::zeros({4}), torch::zeros({1})},
                                  {torch::zeros({4}), torch::zeros({1})},
                                  {torch::zeros({5}), torch::zeros({1})}};
    const auto m = messageOf([&] { collate(shape); });
    QVERIFY2(contains(m, "example 2 input has shape [5] but example 0 has [4]"), m.c_str());
    std::vector<Example> dtype = {{torch::zeros({4}), torch::zeros({1})},
                                  {torch::zeros({4}), torch::zeros({1}, torch::kLong)}};
    const auto d = messageOf([&] { collate(dtype); });
    QVERIFY2(contains(d, "example 1 target has dtype Long but example 0 has Float"), d.c_str());
    std::vector<Example> undefined = {{torch::zeros({4}), torch::zeros({1})}, {at::Tensor(), torch::zeros({1})}};
    QVERIFY(contains(messageOf([&] { collate(undefined); }), "example 1 has an undefined input"));
    const auto idx = messageOf([&] { collate({shape[0], shape[1]}, {1}); });
    QVERIFY2(contains(idx, "1 indices for 2 examples"), idx.c_str());
    QVERIFY(throwsType<fathom::ConfigError>([] { collate({}); }));
  }

  void regressionDeterministic() {
    torch::manual_seed(1);
    RegressionDataset a({.numSamples = 64, .dim = 16, .seed = 5});
    torch::manual_seed(2);  // the global seed must not matter
    RegressionDataset b({.numSamples = 64, .dim = 16, .seed = 5});
    RegressionDataset c({.numSamples = 64, .dim = 16, .seed = 6});
    QCOMPARE(a.size(), std::int64_t{64});
    for (std::int64_t i : {0, 1, 63}) {
      QVERIFY(torch::equal(a.get(i).input, b.get(i).input));
      QVERIFY(torch::equal(a.get(i).target, b.get(i).target));
    }
    QVERIFY(!torch::equal(a.get(0).input, c.get(0).input));
    QVERIFY(torch::equal(a.weights(), b.weights()));
    // The generator does not touch the global RNG: two draws after the same manual_seed agree.
    torch::manual_seed(9);
    const at::Tensor r1 = torch::rand({3});
    torch::manual_seed(9);
    RegressionDataset d({.numSamples = 8, .dim = 4});
    const at::Tensor r2 = torch::rand({3});
    QVERIFY(torch::equal(r1, r2));
  }

  void regressionShapesAndTask() {
    RegressionDataset ds({.numSamples = 2048, .dim = 32, .seed = 0, .noise = 0.1});
    const Example e = ds.get(5);
    QCOMPARE(e.input.sizes().vec(), (std::vector<std::int64_t>{32}));
    QCOMPARE(e.target.sizes().vec(), (std::vector<std::int64_t>{1}));
    QCOMPARE(e.input.scalar_type(), at::kFloat);
    // Clones: writing into a sample does not change the dataset.
    e.input.fill_(100.0f);
    QVERIFY(ds.get(5).input.abs().max().item<float>() < 100.0f);
    // y − x·w/√d is the noise: std ≈ 0.1.
    std::vector<Example> all;
    for (std::int64_t i = 0; i < ds.size(); ++i) {
      all.push_back(ds.get(i));
    }
    const auto batch = collate(all);
    const at::Tensor residual = batch.target.squeeze(1) - at::matmul(batch.input, ds.weights()) / std::sqrt(32.0);
    QVERIFY(std::abs(residual.std().item<double>() - 0.1) < 0.01);
    QVERIFY(std::abs(batch.target.std().item<double>() - 1.0) < 0.35);  // |w|²/d ≈ 1
  }

  void regressionErrors() {
    QVERIFY(contains(messageOf([] { RegressionDataset d({.numSamples = 0}); }), "num_samples must be >= 1, got 0"));
    QVERIFY(contains(messageOf([] { RegressionDataset d({.dim = -2}); }), "dim must be >= 1, got -2"));
    QVERIFY(contains(messageOf([] { RegressionDataset d({.noise = -1}); }), "noise must be finite and >= 0, got -1"));
    RegressionDataset d({.numSamples = 4, .dim = 2});
    QVERIFY(contains(messageOf([&] { d.get(4); }), "index 4 is out of range [0, 4)"));
  }

  void corpusFound() {
    qunsetenv("FATHOM_CORPUS");
    const auto path = defaultCorpusPath();
    QVERIFY(std::filesystem::equivalent(path, kCorpus));
    qputenv("FATHOM_CORPUS", "/nonexistent/corpus.txt");
    const auto m = messageOf([] { defaultCorpusPath(); });
    QVERIFY2(contains(m, "tried FATHOM_CORPUS=/nonexistent/corpus.txt"), m.c_str());
    QVERIFY(throwsType<fathom::StorageError>([] { defaultCorpusPath(); }));
    qunsetenv("FATHOM_CORPUS");
  }

  void corpusVocabularyAndRoundTrip() {
    CharTextDataset ds({.blockSize = 64});
    QCOMPARE(ds.vocabSize(), std::int64_t{73});
    QVERIFY(std::is_sorted(ds.vocabulary().begin(), ds.vocabulary().end()));
    QCOMPARE(ds.numTokens(), static_cast<std::int64_t>(std::filesystem::file_size(kCorpus)));
    QCOMPARE(ds.size(), (ds.numTokens() - 1) / 64);

    std::ifstream in(kCorpus, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto ids = ds.encode(text);
    QCOMPARE(ds.decode(ids), text);
    QCOMPARE(ds.decode(ds.get(0).input), text.substr(0, 64));
    QVERIFY(text.rfind("THE FIRST BOOK OF MOSES, CALLED GENESIS", 0) == 0);

    const auto bad = messageOf([&] { ds.encode("abc~"); });
    QVERIFY2(contains(bad, "byte value 126 at offset 3"), bad.c_str());
    QVERIFY(contains(messageOf([&] { ds.decode(std::vector<std::int64_t>{73}); }), "token id 73 is out of range"));
  }

  void windows() {
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "abc.txt";
    writeFile(path, "abcdefghij");  // 10 tokens, block 3: windows [0,4) [3,7) [6,10)
    CharTextDataset ds({.path = path, .blockSize = 3});
    QCOMPARE(ds.size(), std::int64_t{3});
    QCOMPARE(ds.vocabSize(), std::int64_t{10});
    QCOMPARE(ds.decode(ds.get(0).input), std::string("abc"));
    QCOMPARE(ds.decode(ds.get(0).target), std::string("bcd"));
    QCOMPARE(ds.decode(ds.get(2).input), std::string("ghi"));
    QCOMPARE(ds.decode(ds.get(2).target), std::string("hij"));
    QCOMPARE(ds.get(1).input.scalar_type(), at::kLong);
    QCOMPARE(ds.get(1).input.sizes().vec(), (std::vector<std::int64_t>{3}));
    QVERIFY(contains(messageOf([&] { ds.get(3); }), "index 3 is out of range [0, 3)"));
    QCOMPARE(collate({ds.get(0), ds.get(1)}).target.sizes().vec(), (std::vector<std::int64_t>{2, 3}));
    // Exactly blockSize + 1 characters: one sample.
    writeFile(path, "abcd");
    QCOMPARE(CharTextDataset({.path = path, .blockSize = 3}).size(), std::int64_t{1});
  }

  void textErrors() {
    QTemporaryDir dir;
    const auto missing = std::filesystem::path(dir.path().toStdString()) / "missing.txt";
    const auto m = messageOf([&] { CharTextDataset ds({.path = missing}); });
    QVERIFY2(contains(m, missing.string()), m.c_str());
    QVERIFY(throwsType<fathom::StorageError>([&] { CharTextDataset ds({.path = missing}); }));

    const auto shortFile = std::filesystem::path(dir.path().toStdString()) / "short.txt";
    writeFile(shortFile, "hello");
    const auto s = messageOf([&] { CharTextDataset ds({.path = shortFile, .blockSize = 5}); });
    QVERIFY2(contains(s, shortFile.string()) && contains(s, "has 5 characters") && contains(s, "block_size 5"),
             s.c_str());
    QVERIFY(throwsType<fathom::ConfigError>([&] { CharTextDataset ds({.path = shortFile, .blockSize = 5}); }));
    QVERIFY(contains(messageOf([&] { CharTextDataset ds({.path = shortFile, .blockSize = 0}); }),
                     "block_size must be >= 1, got 0"));
    QVERIFY(throwsType<fathom::StorageError>([&] { CharTextDataset ds({.path = dir.path().toStdString()}); }));
  }

  void factoryCoupling() {
    const auto regression = makeDataset({.name = "regression", .numSamples = 10},
                                        {.name = "mlp", .dimensions = {{ModelDimension::Hidden, 12}}});
    QCOMPARE(regression->size(), std::int64_t{10});
    QCOMPARE(regression->get(0).input.size(0), std::int64_t{12});

    const auto text =
        makeDataset({.name = "text"}, {.name = "gpt-tiny", .dimensions = {{ModelDimension::BlockSize, 32}}});
    QCOMPARE(text->get(0).input.size(0), std::int64_t{32});

    const auto vocab = messageOf([] {
      makeDataset({.name = "text"}, {.name = "gpt", .dimensions = {{ModelDimension::VocabSize, 50}}});
    });
    QVERIFY2(contains(vocab, "73 distinct characters") && contains(vocab, "vocab_size is 50"), vocab.c_str());
    QVERIFY(contains(messageOf([] { makeDataset({.name = "text"}, {.name = "mlp"}); }), "needs a gpt model"));
    QVERIFY(contains(messageOf([] { makeDataset({.name = "regression"}, {.name = "gpt"}); }), "needs model 'mlp'"));
    const auto unknown = messageOf([] { makeDataset({.name = "imagenet"}, {}); });
    QVERIFY2(contains(unknown, "'imagenet'") && contains(unknown, "regression, text"), unknown.c_str());
  }
};

QTEST_GUILESS_MAIN(TstDatasets)
#include "tst_datasets.moc"
