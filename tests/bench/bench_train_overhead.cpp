// SPDX-License-Identifier: Apache-2.0
// Fathom's training-loop overhead on one process: `fathom train --model mlp --dataset regression --optimizer sgd`
// against a hand-written LibTorch loop doing the same work (docs/benchmarks.md). The anchor is plain LibTorch:
// this file uses no Fathom class and does not link fathom_core.
//
// Hand loop (in this process): torch::nn::Sequential of L blocks Linear(H,H)+ReLU, then Linear(H,1); a fixed
// regression set of 4096 samples generated up front (x ~ N(0,1), y = x.w/sqrt(H) + 0.1 noise); every step a batch
// of B rows gathered with index_select, in dataset order (with --shuffle: a new permutation every epoch, and
// `fathom train --shuffle`), indices computed before the loop; SGD without momentum, lr 0.01; MSE loss. Timed with steady_clock from the start of the first step to the end of the last
// (setup excluded), as `fathom train` times its loop.
// Fathom: `fathom train --model mlp --hidden H --layers L --batch_size B --steps S --optimizer sgd --lr 0.01
// --seed 0 --dataset regression --log_every 0 --json` as a child process (no launch, one process); its summary
// line gives steps_per_second.
// The two alternate, R repeats each, per size (256,2,8) and (1024,4,32). Prints the medians (min-max) and
// overhead % = (hand steps/s / fathom steps/s - 1) * 100 (> 0: Fathom is slower than the hand loop).
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Size {
  int hidden;
  int layers;
  int batch;
  int steps;
};

struct Options {
  std::string fathom;
  int repeats = 5;
  int steps = 0;  // 0: each size's default
  std::optional<int> threads;
  bool handOnly = false;
  bool shuffle = false;
  std::vector<Size> sizes{{256, 2, 8, 3000}, {1024, 4, 32, 40}};
};

struct Result {
  double stepsPerSecond = 0;
  double loopSeconds = 0;
  double finalLoss = 0;
};

constexpr int kDatasetSize = 4096;
constexpr double kLr = 0.01;
constexpr int kSeed = 0;

void usage(std::FILE* to) {
  std::fprintf(to,
               "Usage: bench_train_overhead [--fathom PATH] [--repeats R] [--steps S] [--threads T] [--shuffle]\n"
               "                            [--hand-only]\n"
               "  Hand-written LibTorch training loop vs `fathom train` on one process, sizes (H,L,B) = (256,2,8)\n"
               "  and (1024,4,32), alternating R repeats (default 5). Prints medians and the overhead %%.\n"
               "  --fathom PATH  fathom binary (default: ../bin/fathom next to this program's directory)\n"
               "  --steps S      steps for every size (default: 3000 for 256x2x8, 40 for 1024x4x32)\n"
               "  --threads T    at::set_num_threads(T) here and OMP_NUM_THREADS=T for fathom (default: neither;\n"
               "                 both use LibTorch's default)\n"
               "  --shuffle      a new permutation every epoch on both sides (default: dataset order)\n"
               "  --hand-only    run only the hand-written loop (no fathom)\n");
}

int toInt(const char* flag, const char* value) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || v < 1) {
    throw std::invalid_argument(std::string(flag) + ": expected a positive integer, got '" + value + "'");
  }
  return static_cast<int>(v);
}

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) throw std::invalid_argument(a + ": needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--fathom") {
      o.fathom = value();
    } else if (a == "--repeats") {
      o.repeats = toInt("--repeats", value());
    } else if (a == "--steps") {
      o.steps = toInt("--steps", value());
    } else if (a == "--threads") {
      o.threads = toInt("--threads", value());
    } else if (a == "--shuffle") {
      o.shuffle = true;
    } else if (a == "--hand-only") {
      o.handOnly = true;
    } else {
      throw std::invalid_argument("unknown argument '" + a + "'");
    }
  }
  return o;
}

std::string defaultFathom() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (self.parent_path().parent_path() / "bin" / "fathom").string();
}

// ---- the hand-written loop: plain LibTorch ----

Result handLoop(const Size& s, bool shuffle) {
  torch::manual_seed(kSeed);
  torch::nn::Sequential model;
  for (int i = 0; i < s.layers; ++i) {
    model->push_back(torch::nn::Linear(s.hidden, s.hidden));
    model->push_back(torch::nn::ReLU());
  }
  model->push_back(torch::nn::Linear(s.hidden, 1));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(kLr).momentum(0.0));

  const auto x = torch::randn({kDatasetSize, s.hidden});
  const auto w = torch::randn({s.hidden, 1});
  const auto y = torch::matmul(x, w) / std::sqrt(static_cast<double>(s.hidden)) + 0.1 * torch::randn({kDatasetSize, 1});

  // Batch indices for every step, as a sampler would hand them out: a new permutation per epoch.
  const int perEpoch = kDatasetSize / s.batch;
  std::vector<torch::Tensor> batches;
  batches.reserve(static_cast<std::size_t>(s.steps));
  for (int epoch = 0; static_cast<int>(batches.size()) < s.steps; ++epoch) {
    const auto perm = shuffle ? torch::randperm(kDatasetSize, torch::TensorOptions().dtype(torch::kLong))
                              : torch::arange(kDatasetSize, torch::TensorOptions().dtype(torch::kLong));
    for (int j = 0; j < perEpoch && static_cast<int>(batches.size()) < s.steps; ++j) {
      batches.push_back(perm.slice(0, static_cast<int64_t>(j) * s.batch, static_cast<int64_t>(j + 1) * s.batch).clone());
    }
  }

  torch::Tensor loss;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& idx : batches) {
    const auto xb = x.index_select(0, idx);
    const auto yb = y.index_select(0, idx);
    opt.zero_grad();
    loss = torch::mse_loss(model->forward(xb), yb);
    loss.backward();
    opt.step();
  }
  const double finalLoss = loss.defined() ? loss.item<double>() : NAN;
  const auto t1 = std::chrono::steady_clock::now();
  Result r;
  r.loopSeconds = std::chrono::duration<double>(t1 - t0).count();
  r.stepsPerSecond = r.loopSeconds > 0 ? s.steps / r.loopSeconds : 0;
  r.finalLoss = finalLoss;
  return r;
}

// ---- fathom train as a child process ----

// The number after "key": in a one-line JSON object, or nullopt.
std::optional<double> jsonNumber(const std::string& line, const char* key) {
  const std::string quoted = std::string("\"") + key + "\"";
  auto pos = line.find(quoted);
  if (pos == std::string::npos) return std::nullopt;
  pos += quoted.size();
  while (pos < line.size() && (line[pos] == ' ' || line[pos] == ':')) ++pos;
  const char* begin = line.c_str() + pos;
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  return v;
}

// A line that is a JSON object whose "event" is "summary".
bool isSummary(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos || line[first] != '{') return false;
  const auto pos = line.find("\"event\"");
  if (pos == std::string::npos) return false;
  auto q = line.find('"', line.find(':', pos) + 1);
  return q != std::string::npos && line.compare(q, 9, "\"summary\"") == 0;
}

Result fathomRun(const std::string& fathom, const Size& s, bool shuffle) {
  std::vector<std::string> args{fathom,     "train",    "--model", "mlp",         "--hidden",
                                      std::to_string(s.hidden), "--layers", std::to_string(s.layers),
                                      "--batch_size", std::to_string(s.batch), "--steps", std::to_string(s.steps),
                                      "--optimizer", "sgd", "--lr", "0.01", "--seed", std::to_string(kSeed),
                                      "--dataset", "regression", "--log_every", "0", "--json"};
  if (shuffle) args.emplace_back("--shuffle");
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(fathom.c_str(), argv.data());
    std::fprintf(stderr, "exec %s: %s\n", fathom.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(out[1]);
  std::string text;
  std::array<char, 4096> buf{};
  for (ssize_t n; (n = read(out[0], buf.data(), buf.size())) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    text.append(buf.data(), static_cast<std::size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  auto fail = [&](const std::string& why) {
    const auto tail = text.size() > 2000 ? text.substr(text.size() - 2000) : text;
    return std::runtime_error("fathom train " + why + "\n" + tail);
  };
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw fail("failed (status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  std::optional<std::string> summary;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(start, nl - start);
    if (isSummary(line)) summary = line;
    start = nl + 1;
  }
  if (!summary) throw fail("printed no summary line");
  const auto sps = jsonNumber(*summary, "steps_per_second");
  const auto loop = jsonNumber(*summary, "loop_seconds");
  const auto steps = jsonNumber(*summary, "steps");
  if (!sps || !loop || !steps) throw fail("summary lacks steps/loop_seconds/steps_per_second: " + *summary);
  if (static_cast<int>(*steps) != s.steps) throw fail("ran " + std::to_string(*steps) + " steps, not " + std::to_string(s.steps));
  Result r;
  r.stepsPerSecond = *sps;
  r.loopSeconds = *loop;
  r.finalLoss = jsonNumber(*summary, "final_loss").value_or(NAN);
  return r;
}

struct Stats {
  double median, min, max;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {median, v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parseArgs(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_train_overhead: %s\n", e.what());
    usage(stderr);
    return 2;
  }
  if (o.threads) {
    at::set_num_threads(*o.threads);
    setenv("OMP_NUM_THREADS", std::to_string(*o.threads).c_str(), 1);
  }
  if (!o.handOnly) {
    if (o.fathom.empty()) o.fathom = defaultFathom();
    if (o.fathom.empty() || access(o.fathom.c_str(), X_OK) != 0) {
      std::fprintf(stderr,
                   "bench_train_overhead: no fathom binary at '%s': build it (cmake --build <build dir> --target "
                   "fathom) or pass --fathom PATH (--hand-only runs the LibTorch loop alone)\n",
                   o.fathom.c_str());
      return 2;
    }
  }
  std::printf("bench_train_overhead: LibTorch %s, %d intra-op thread(s) here%s, %d repeats; fathom: %s\n",
              TORCH_VERSION, at::get_num_threads(), o.threads ? " (--threads)" : " (LibTorch default)", o.repeats,
              o.handOnly ? "(not run)" : o.fathom.c_str());
  std::printf("%-12s %6s  %-28s %-29s %10s\n", "size HxLxB", "steps", "hand steps/s med [min-max]",
              "fathom steps/s med [min-max]", "overhead %");
  std::fflush(stdout);  // before any fork
  for (Size s : o.sizes) {
    if (o.steps > 0) s.steps = o.steps;
    std::vector<double> hand, fathom;
    try {
      for (int r = 0; r < o.repeats; ++r) {
        // Alternate the order so that both sides share the machine's noise.
        const bool handFirst = r % 2 == 0;
        for (int k = 0; k < 2; ++k) {
          if ((k == 0) == handFirst) {
            hand.push_back(handLoop(s, o.shuffle).stepsPerSecond);
          } else if (!o.handOnly) {
            fathom.push_back(fathomRun(o.fathom, s, o.shuffle).stepsPerSecond);
          }
        }
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_train_overhead: %s\n", e.what());
      return 1;
    }
    const Stats h = stats(hand);
    char size[32], handCol[64], fathomCol[64] = "-", overhead[32] = "-";
    std::snprintf(size, sizeof size, "%dx%dx%d", s.hidden, s.layers, s.batch);
    std::snprintf(handCol, sizeof handCol, "%.2f [%.2f-%.2f]", h.median, h.min, h.max);
    if (!fathom.empty()) {
      const Stats f = stats(fathom);
      std::snprintf(fathomCol, sizeof fathomCol, "%.2f [%.2f-%.2f]", f.median, f.min, f.max);
      std::snprintf(overhead, sizeof overhead, "%+.1f", (h.median / f.median - 1) * 100);
    }
    std::printf("%-12s %6d  %-28s %-29s %10s\n", size, s.steps, handCol, fathomCol, overhead);
    std::fflush(stdout);
  }
  return 0;
}
