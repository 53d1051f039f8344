// SPDX-License-Identifier: Apache-2.0
// Parameter counts from transformer dimensions and Hugging Face config.json files, checked against the counts
// the transformers implementations produce (sum of p.numel(), shared parameters once).
#include <fathom/common/error.h>
#include <fathom/plan/hf_config.h>
#include <fathom/plan/model_spec.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace fathom::plan;
using namespace Qt::StringLiterals;

namespace {
std::string fixture(const char* name) {
  return std::string(FATHOM_TEST_DATA_DIR) + "/hf_configs/" + name + "/config.json";
}
}  // namespace

class TestPlanModelSpec : public QObject {
  Q_OBJECT

private slots:
  void hfConfigCounts_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<qlonglong>("params");
    QTest::addColumn<qlonglong>("largestUnit");
    // GPT2LMHeadModel (tied): 124,439,808; largest unit = wte (50257 x 768).
    QTest::newRow("gpt2") << "gpt2" << 124'439'808LL << 38'597'376LL;
    // LlamaForCausalLM 7B: 6,738,415,616; largest unit = one decoder layer.
    QTest::newRow("llama-2-7b") << "llama-2-7b" << 6'738'415'616LL << 202'383'360LL;
    // MistralForCausalLM 7B (GQA 8 kv heads, ffn 14336): 7,241,732,096.
    QTest::newRow("mistral-7b") << "mistral-7b" << 7'241'732'096LL << 218'112'000LL;
    // MixtralForCausalLM 8x7B: 46,702,792,704.
    QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << 46'702'792'704LL << 1'451'270'144LL;
    // BertModel (with pooler), bert-base-uncased: 109,482,240; largest = word embeddings.
    QTest::newRow("bert-base-uncased") << "bert-base-uncased" << 109'482'240LL << 23'440'896LL;
    // T5ForConditionalGeneration t5-small (shared, tied): 60,506,624; largest = shared embedding.
    QTest::newRow("t5-small") << "t5-small" << 60'506'624LL << 16'449'536LL;
    // Qwen2-0.5B (q/k/v biases, GQA 14/2, tied): 494,032,768.
    QTest::newRow("qwen2-0.5b") << "qwen2-0.5b" << 494'032'768LL << 136'134'656LL;
    // google/t5-v1_1-small (gated-GeLU, untied lm_head, 8+8 layers): 76,961,152.
    QTest::newRow("t5-v1_1-small") << "t5-v1_1-small" << 76'961'152LL << 16'449'536LL;
  }

  void hfConfigCounts() {
    QFETCH(QString, name);
    QFETCH(qlonglong, params);
    QFETCH(qlonglong, largestUnit);
    const ModelSpec m = modelFromHfConfig(fixture(name.toUtf8().constData()));
    QCOMPARE(m.totalParams, params);
    QCOMPARE(m.largestUnitParams, largestUnit);
    QCOMPARE(QString::fromStdString(m.name), name);
  }

  void dimensionsMatchConfigs() {
    // The same Llama-2-7B from flags: llama derives ffn = 8h/3 rounded up to 256 = 11008 and unties embeddings.
    TransformerDims d;
    d.arch = Arch::Llama;
    d.layers = 32;
    d.hidden = 4096;
    d.heads = 32;
    d.vocab = 32000;
    d.tiedEmbeddings = false;
    const ModelSpec m = modelFromDims(d);
    QCOMPARE(m.dims.ffnHidden, 11008LL);
    QCOMPARE(m.totalParams, 6'738'415'616LL);
    // GPT-2 medium from dimensions: 354,823,168 (GPT2LMHeadModel).
    TransformerDims g;
    g.arch = Arch::Gpt;
    g.layers = 24;
    g.hidden = 1024;
    g.heads = 16;
    g.vocab = 50257;
    g.maxPositions = 1024;
    QCOMPARE(modelFromDims(g).totalParams, 354'823'168LL);
  }

  void matmulWeightsFollowEq7() {
    // Korthikanti Eq. 7 counts 12h² matmul weights per GPT layer plus the h·v output layer.
    TransformerDims g;
    g.arch = Arch::Gpt;
    g.layers = 48;
    g.hidden = 6144;
    g.heads = 64;
    g.vocab = 51200;
    const ModelSpec m = modelFromDims(g);
    QCOMPARE(m.matmulParamsPerToken, 12LL * 6144 * 6144 * 48 + 6144LL * 51200);
  }

  void paramsOnly() {
    const ModelSpec m = modelFromParams(7'500'000'000LL);
    QVERIFY(!m.hasDims());
    QCOMPARE(m.totalParams, 7'500'000'000LL);
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, modelFromParams(0));
  }

  void badInputsNameTheValue() {
    TransformerDims d;
    d.arch = Arch::Gpt;
    d.layers = 12;
    d.hidden = 770;
    d.heads = 12;
    d.vocab = 100;
    try {
      modelFromDims(d);
      QFAIL("hidden not divisible by heads was accepted");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("770") != std::string::npos, e.what());
    }
    d.hidden = 768;
    d.kvHeads = 5;
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, modelFromDims(d));
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, parseArch("rnn"));
  }

  // Issue 20: sizes that do not fit are errors naming the input, never a count that wrapped around (2^62 layers
  // and hidden gave 4.6e18 parameters with exit 0; 2^16 layers of width 2^22 gave "no parameters").
  void hugeDimensionsAreErrorsNotWrappedCounts_data() {
    QTest::addColumn<qlonglong>("layers");
    QTest::addColumn<qlonglong>("hidden");
    QTest::addColumn<qlonglong>("vocab");
    QTest::addColumn<QString>("message");
    QTest::newRow("2^62 layers and hidden")
        << (1LL << 62) << (1LL << 62) << 1000LL << u"layers must be between 1 and 16777216, got 4611686018427387904"_s;
    QTest::newRow("2^62 layers") << (1LL << 62) << 64LL << 1000LL
                                 << u"layers must be between 1 and 16777216, got 4611686018427387904"_s;
    QTest::newRow("2^31 hidden") << 2LL << (1LL << 31) << 1000LL
                                 << u"hidden must be between 1 and 2147483647, got 2147483648"_s;
    QTest::newRow("2^31 vocab") << 2LL << 64LL << (1LL << 31)
                                << u"vocab must be between 1 and 2147483647, got 2147483648"_s;
    QTest::newRow("in range, product beyond 2^63") << (1LL << 16) << (1LL << 22) << 1000LL
                                                   << u"the model's parameter count does not fit in 64 bits (layers "
                                                      u"65536, decoder_layers 0, hidden 4194304"_s;
    QTest::newRow("widest in range") << (1LL << 24) << 2147483647LL << 2147483647LL
                                     << u"the model's parameter count does not fit in 64 bits"_s;
  }
  void hugeDimensionsAreErrorsNotWrappedCounts() {
    QFETCH(qlonglong, layers);
    QFETCH(qlonglong, hidden);
    QFETCH(qlonglong, vocab);
    QFETCH(QString, message);
    TransformerDims d;
    d.arch = Arch::Gpt;
    d.layers = layers;
    d.hidden = hidden;
    d.heads = 1;
    d.vocab = vocab;
    try {
      const ModelSpec m = modelFromDims(d);
      QFAIL(qPrintable(u"accepted with %1 parameters"_s.arg(m.totalParams)));
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).startsWith(message), e.what());
    }
  }

  // Large but countable: the exact count, not a wrapped one. GPT-2 with h = 2^20, 2 layers, vocab 1000:
  // per block 12h^2 + 13h, embeddings (1000 + 2048)h, ln_f 2h.
  void largeDimensionsCountExactly() {
    TransformerDims d;
    d.arch = Arch::Gpt;
    d.layers = 2;
    d.hidden = 1LL << 20;
    d.heads = 1;
    d.vocab = 1000;
    const qlonglong h = d.hidden;
    const ModelSpec m = modelFromDims(d);
    QCOMPARE(m.totalParams, 2 * (12 * h * h + 13 * h) + (1000 + 2048) * h + 2 * h);
  }

  void badConfigsAreClearErrors() {
    const auto message = [](const std::string& json) {
      try {
        modelFromHfConfigText(json, "cfg");
      } catch (const fathom::ConfigError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    QVERIFY(message("{").find("not valid JSON") != std::string::npos);
    QVERIFY(message(R"({"model_type": "rwkv"})").find("unsupported model_type 'rwkv'") != std::string::npos);
    QVERIFY(message(R"({"model_type": "gpt2", "n_embd": 8, "n_head": 2, "vocab_size": 10})").find("'n_layer'") !=
            std::string::npos);
    QVERIFY(message(R"({"model_type": "llama", "num_hidden_layers": -1})").find("num_hidden_layers") !=
            std::string::npos);
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, modelFromHfConfig("/nonexistent/config.json"));
    // A number beyond 2^63 - 1 is refused, not wrapped to a negative or small one.
    QVERIFY(message(R"({"model_type": "gpt2", "n_layer": 18446744073709551615, "n_embd": 8, "n_head": 2, )"
                    R"("vocab_size": 10})")
                .find("'n_layer' must be an integer from 0 to 9223372036854775807, got 18446744073709551615") !=
            std::string::npos);
    // A number JSON allows but a double cannot hold (nlohmann's out_of_range, not a parse_error) is the same clear
    // error (found by fuzz_hf_config; tests/fuzz/regressions/hf_config/number_out_of_range).
    const std::string huge = message(R"({"model_type": "gpt2", "n_layer": 1e400})");
    QVERIFY2(huge.find("cfg: not valid JSON") != std::string::npos && huge.find("1e400") != std::string::npos,
             huge.c_str());
  }

  // Issue 20: errors name the file's path (they named its folder or stem: "gpt2: config.json has no 'n_layer'"), and
  // what the file holds reaches the message escaped.
  void hfConfigErrorsNameThePath() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = dir.filePath(u"my-model"_s);
    QVERIFY(QDir().mkpath(folder));
    const QString path = folder + u"/config.json"_s;
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"model_type\": \"gpt2\\u001b[2J\", \"n_layer\": 2}");  // a JSON escape: ESC
    file.close();
    try {
      modelFromHfConfig(path.toStdString());
      QFAIL("no error");
    } catch (const fathom::ConfigError& e) {
      QCOMPARE(QString::fromUtf8(e.what()),
               path + u": unsupported model_type 'gpt2\\x1b[2J' (supported: gpt2, llama, mistral, mixtral, qwen2, "
                      u"bert, roberta, t5, mt5)"_s);
    }
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 8, "n_head": 2, "vocab_size": 4294967296})");
    file.close();
    try {
      modelFromHfConfig(path.toStdString());
      QFAIL("no error");
    } catch (const fathom::ConfigError& e) {
      QCOMPARE(QString::fromUtf8(e.what()), path + u": vocab must be between 1 and 2147483647, got 4294967296"_s);
    }
    // The model keeps its display name (the folder's).
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 8, "n_head": 2, "vocab_size": 10})");
    file.close();
    QCOMPARE(modelFromHfConfig(path.toStdString()).name, std::string("my-model"));
  }
};

QTEST_GUILESS_MAIN(TestPlanModelSpec)
#include "tst_plan_model_spec.moc"
