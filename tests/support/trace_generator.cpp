// SPDX-License-Identifier: Apache-2.0
#include "trace_generator.h"

#include <zlib.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string_view>

namespace fathom::test {
namespace {

constexpr std::array<std::string_view, 12> kOuterOps = {
    "aten::linear",    "aten::layer_norm", "aten::gelu",      "aten::scaled_dot_product_attention",
    "aten::embedding", "aten::dropout",    "aten::softmax",   "aten::matmul",
    "aten::add",       "aten::mul",        "aten::transpose", "aten::cross_entropy_loss"};
constexpr std::array<std::string_view, 6> kInnerOps = {
    "aten::addmm", "aten::native_layer_norm", "aten::mm", "aten::bmm", "aten::copy_", "aten::empty"};
constexpr std::array<std::string_view, 6> kKernels = {"sm90_xmma_gemm_f32f32_tf32f32_f32",
                                                      "void at::native::vectorized_elementwise_kernel<4>",
                                                      "void at::native::reduce_kernel<512, 1>",
                                                      "ampere_sgemm_128x64_tn",
                                                      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>",
                                                      "void at::native::layer_norm_kernel<float>"};
constexpr std::array<std::string_view, 8> kMemoryCategories = {
    "parameters", "gradients", "optimizer_states", "master_weights", "activations", "temporaries", "inputs", "other"};

/// Buffered output to a plain or gzip file.
class Output {
public:
  explicit Output(const std::filesystem::path& path) : m_gzip(path.extension() == ".gz") {
    if (m_gzip) {
      m_gz = gzopen(path.c_str(), "wb1");
    } else {
      m_file = std::fopen(path.c_str(), "wb");
    }
    if (m_gz == nullptr && m_file == nullptr) {
      throw std::runtime_error("cannot write " + path.string());
    }
    m_buffer.reserve(kFlushAt + 4096);
  }
  ~Output() {
    if (m_gz != nullptr) {
      gzclose(m_gz);
    }
    if (m_file != nullptr) {
      std::fclose(m_file);
    }
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  void write(std::string_view text) {
    m_buffer.append(text);
    if (m_buffer.size() >= kFlushAt) {
      flush();
    }
  }
  void flush() {
    if (m_buffer.empty()) {
      return;
    }
    const bool ok = m_gzip ? gzwrite(m_gz, m_buffer.data(), static_cast<unsigned>(m_buffer.size())) > 0
                           : std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) == m_buffer.size();
    if (!ok) {
      throw std::runtime_error("write failed");
    }
    m_buffer.clear();
  }

private:
  static constexpr std::size_t kFlushAt = std::size_t{1} << 20;
  bool m_gzip;
  gzFile m_gz = nullptr;
  FILE* m_file = nullptr;
  std::string m_buffer;
};

/// Microseconds with exactly three decimals from integer nanoseconds, as Kineto and Fathom write them.
std::string micros(std::int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
  return text;
}

class Generator {
public:
  Generator(Output& out, const TraceGeneratorOptions& options) : m_out(out), m_options(options), m_rng(options.seed) {}

  GeneratedTrace run() {
    m_out.write("{\"schemaVersion\":1,\"deviceProperties\":[],\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,"
                "\"world_size\":" +
                std::to_string(m_options.ranks) + ",\"ranks\":[");
    for (int r = 0; r < m_options.ranks; ++r) {
      m_out.write(r > 0 ? "," : "");
      m_out.write(std::to_string(r));
    }
    m_out.write("]},\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[\n");
    const std::uint64_t perRank = (m_options.events + m_options.ranks - 1) / m_options.ranks;
    for (int r = 0; r < m_options.ranks; ++r) {
      rank(r, perRank);
    }
    m_out.write("\n],\"traceName\":\"generated\"}\n");
    m_out.flush();
    return m_result;
  }

private:
  void event(const std::string& text) {
    m_out.write(m_first ? "" : ",\n");
    m_out.write(text);
    m_first = false;
    ++m_result.events;
  }

  void metadata(int pid, int tid, std::string_view name, const std::string& args) {
    event("{\"ph\":\"M\",\"name\":\"" + std::string(name) + "\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":" + std::to_string(tid) + ",\"ts\":0.000,\"args\":" + args + "}");
  }

  void slice(std::string_view cat, std::string_view name, int pid, int tid, std::int64_t start, std::int64_t dur,
             const std::string& args = {}) {
    event("{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + std::string(name) +
          "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + micros(start) +
          ",\"dur\":" + micros(dur) + (args.empty() ? "" : ",\"args\":" + args) + "}");
    ++m_result.slices;
  }

  void flow(char phase, std::uint64_t id, int pid, int tid, std::int64_t ts) {
    event(std::string("{\"ph\":\"") + phase + "\",\"id\":" + std::to_string(id) + ",\"pid\":" + std::to_string(pid) +
          ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + micros(ts) + ",\"cat\":\"ac2g\",\"name\":\"ac2g\"" +
          (phase == 'f' ? ",\"bp\":\"e\"}" : "}"));
  }

  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(m_rng);
  }
  template <std::size_t N> std::string_view pick(const std::array<std::string_view, N>& names) {
    return names[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(N) - 1))];
  }

  /// A launch on the CPU at `at` (inside its caller), its kernel on `stream` no earlier than the stream is free,
  /// and the ac2g flow between them. Returns the launch's end.
  std::int64_t launch(int cpuPid, int cpuTid, int gpuPid, int stream, std::int64_t at, std::string_view kernel,
                      const std::string& kernelArgs, std::int64_t& streamFree) {
    const std::uint64_t correlation = ++m_correlation;
    const std::int64_t launchDur = uniform(3'000, 6'000);
    slice("cuda_runtime", "cudaLaunchKernel", cpuPid, cpuTid, at, launchDur,
          "{\"cbid\":211,\"correlation\":" + std::to_string(correlation) + "}");
    flow('s', correlation, cpuPid, cpuTid, at);
    const std::int64_t kernelStart = std::max(streamFree, at + uniform(5'000, 20'000));
    const std::int64_t kernelDur = uniform(2'000, 80'000);
    slice("kernel", kernel, gpuPid, stream, kernelStart, kernelDur,
          "{\"device\":" + std::to_string(gpuPid % 1000) + ",\"stream\":" + std::to_string(stream) +
              ",\"correlation\":" + std::to_string(correlation) + kernelArgs + "}");
    flow('f', correlation, gpuPid, stream, kernelStart);
    streamFree = kernelStart + kernelDur + uniform(500, 3'000);
    ++m_result.kernels;
    ++m_result.flows;
    return at + launchDur;
  }

  void rank(int r, std::uint64_t budget) {
    const int cpu = r * 1000;
    const int gpu = r * 1000 + 1;
    const int mainTid = 100 + r;
    const int collTid = 1073741824;
    const std::uint64_t startEvents = m_result.events;
    metadata(cpu, 0, "process_name", "{\"name\":\"rank " + std::to_string(r) + "\"}");
    metadata(cpu, mainTid, "thread_name", "{\"name\":\"main thread\"}");
    metadata(cpu, collTid, "thread_name", "{\"name\":\"collectives (nccl) #0\"}");
    metadata(gpu, 0, "process_name", "{\"name\":\"GPU " + std::to_string(r) + "\"}");
    metadata(gpu, 7, "thread_name", "{\"name\":\"stream 7\"}");
    metadata(gpu, 13, "thread_name", "{\"name\":\"stream 13\"}");
    std::int64_t t = 1'000'000 + r * 7'000;  // ranks start a few µs apart
    std::int64_t computeFree = t;
    std::int64_t ncclFree = t;
    std::int64_t collFree = t;
    std::int64_t activations = 0;
    for (std::int64_t step = 0; m_result.events - startEvents < budget; ++step) {
      const std::int64_t stepStart = t;
      const std::int64_t loaderDur = uniform(20'000, 80'000);
      slice("user_annotation", "fathom::data_loader", cpu, mainTid, t + 1'000, loaderDur);
      t += 1'000 + loaderDur + 1'000;
      const std::array<std::pair<std::string_view, int>, 3> phases = {
          std::pair<std::string_view, int>{"fathom::forward", m_options.opsPerStep * 4 / 10},
          {"fathom::backward", m_options.opsPerStep * 5 / 10},
          {"fathom::optimizer_step", std::max(1, m_options.opsPerStep / 10)}};
      for (const auto& [phase, ops] : phases) {
        if (phase == "fathom::backward" && r == m_options.slowRank) {
          // The whole rank loses the time, its streams too: else its GPU backlog would hide a CPU-side wait.
          t += m_options.slowRankDelayNs;
          computeFree += m_options.slowRankDelayNs;
          ncclFree += m_options.slowRankDelayNs;
          collFree += m_options.slowRankDelayNs;
        }
        const std::int64_t phaseStart = t;
        t += 500;
        for (int k = 0; k < ops; ++k) {
          const std::int64_t opStart = t;
          const std::int64_t innerStart = opStart + uniform(500, 2'000);
          const std::int64_t launchAt = innerStart + uniform(500, 2'000);
          const std::int64_t launchEnd = launch(cpu, mainTid, gpu, 7, launchAt, pick(kKernels), "", computeFree);
          const std::int64_t innerEnd = launchEnd + uniform(500, 3'000);
          slice("cpu_op", pick(kInnerOps), cpu, mainTid, innerStart, innerEnd - innerStart,
                "{\"External id\":" + std::to_string(m_correlation) + "}");
          const std::int64_t opEnd = innerEnd + uniform(500, 5'000);
          slice("cpu_op", pick(kOuterOps), cpu, mainTid, opStart, opEnd - opStart,
                "{\"External id\":" + std::to_string(m_correlation) + "}");
          t = opEnd + uniform(200, 2'000);
          if (k % 4 == 0) {
            activations += phase == "fathom::backward" ? -uniform(0, activations / 4 + 1) : uniform(1'000, 100'000);
            std::string args = "{";
            for (std::size_t c = 0; c < kMemoryCategories.size(); ++c) {
              const std::int64_t bytes = kMemoryCategories[c] == "activations"
                                             ? std::max<std::int64_t>(activations, 0)
                                             : static_cast<std::int64_t>(c + 1) * 1'048'576;
              args += c > 0 ? ",\"" : "\"";
              args += kMemoryCategories[c];
              args += "\":" + std::to_string(bytes);
            }
            event("{\"ph\":\"C\",\"cat\":\"memory\",\"name\":\"Memory\",\"pid\":" + std::to_string(cpu) +
                  ",\"tid\":0,\"ts\":" + micros(t) + ",\"args\":" + args + "}}");
            ++m_result.counters;
          }
          if (phase == "fathom::backward" && k % 50 == 49) {  // a gradient bucket is ready: all-reduce it
            const std::int64_t collStart = std::max(collFree, t);
            const std::int64_t bytes = 25 << 20;
            const std::string args = ",\"Collective name\":\"all_reduce\",\"bytes\":" + std::to_string(bytes);
            const std::int64_t launchEnd2 = launch(cpu, collTid, gpu, 13, collStart + 1'000,
                                                   "ncclDevKernel_AllReduce_Sum_f32_RING_LL", args, ncclFree);
            const std::int64_t collEnd = std::max(launchEnd2, ncclFree) + 1'000;
            slice("user_annotation", "fathom::all_reduce", cpu, collTid, collStart, collEnd - collStart,
                  "{\"Collective name\":\"all_reduce\",\"bytes\":" + std::to_string(bytes) + "}");
            collFree = collEnd + 500;
          }
        }
        slice("user_annotation", phase, cpu, mainTid, phaseStart, t - phaseStart);
        t += 500;
      }
      t = std::max(t, std::max(computeFree, ncclFree));  // the step ends when its GPU work has
      slice("user_annotation", "ProfilerStep#" + std::to_string(step), cpu, mainTid, stepStart, t - stepStart);
      ++m_result.steps;
      t += 2'000;
    }
  }

  Output& m_out;
  TraceGeneratorOptions m_options;
  std::mt19937_64 m_rng;
  GeneratedTrace m_result;
  std::uint64_t m_correlation = 0;
  bool m_first = true;
};

}  // namespace

GeneratedTrace generateTrace(const std::filesystem::path& path, const TraceGeneratorOptions& options) {
  GeneratedTrace result;
  {
    Output out(path);
    result = Generator(out, options).run();
  }
  result.bytes = std::filesystem::file_size(path);
  return result;
}

}  // namespace fathom::test
