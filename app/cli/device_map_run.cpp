// SPDX-License-Identifier: Apache-2.0
#include "device_map_run.h"

#include "text_table.h"
#include "train_cuda_memory.h"

#include <fathom/bigmodel/dispatched_model.h>
#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/common/temporary_folder.h>
#include <fathom/models/model_factory.h>
#include <fathom/telemetry/process_memory.h>
#include <fathom/telemetry/sqlite_tracker.h>
#include <fathom/telemetry/telemetry_sender.h>

#include <torch/torch.h>

#include <chrono>
#include <malloc.h>
#include <set>
#include <unistd.h>

namespace fathom::cli {
namespace {

using ojson = nlohmann::ordered_json;

at::Tensor inputFor(const DispatchRunOptions& o) {
  torch::manual_seed(o.seed + 1);
  if (o.model.info().family == models::ModelFamily::Gpt) {
    const models::GptOptions gpt = models::resolveGptOptions(o.model);
    const std::int64_t time = o.sequenceLength > 0 ? o.sequenceLength : gpt.blockSize;
    FATHOM_CHECK(time <= gpt.blockSize, ConfigError, "--seq_len ", time, " exceeds the model's block size ",
                 gpt.blockSize);
    return torch::randint(gpt.vocabSize, {o.batchSize, time}, torch::kLong);
  }
  return torch::randn({o.batchSize, models::resolveMlpOptions(o.model).hidden});
}

struct Timed {
  at::Tensor output;
  double seconds = 0;
  std::int64_t rssBefore = 0;
  std::optional<std::int64_t> peakRss;
};

Timed timedForward(models::Model& model, const at::Tensor& input) {
  // Both forwards start from a heap handed back to the system, so neither peak carries what an earlier step freed
  // (glibc returns freed memory only from the top of its heap by itself).
  ::malloc_trim(0);
  Timed t;
  t.rssBefore = telemetry::readProcessMemory().residentBytes;
  const bool reset = telemetry::resetPeakResident();
  const auto start = std::chrono::steady_clock::now();
  t.output = model.forward(input).to(at::kCPU);  // the copy waits for the device
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (reset) {
    t.peakRss = telemetry::peakResidentSinceReset();
  }
  return t;
}

ojson optionalBytes(const std::optional<std::int64_t>& bytes) {
  return bytes ? ojson(*bytes) : ojson(nullptr);
}

/// Records the dispatch with the launcher's run; the run's id, or null outside `fathom launch`.
ojson recordWithRun(const bigmodel::DispatchRecord& record) {
  if (!telemetry::TelemetryEndpoint::fromEnvironment()) {
    return nullptr;
  }
  telemetry::SqliteTracker tracker(track::TrackerOptions{});
  tracker.deviceMap(bigmodel::toJson(record).dump(), unixNowSeconds());
  tracker.finish();
  return tracker.run().value;
}

}  // namespace

ojson runDispatch(const DispatchRunOptions& options, const bigmodel::DeviceMap& map) {
  FATHOM_CHECK(options.batchSize >= 1, ConfigError, "--batch_size must be >= 1, got ", options.batchSize);
  torch::manual_seed(options.seed);
  const std::shared_ptr<models::Model> model = models::makeModel(options.model);
  const at::Tensor input = inputFor(options);
  const torch::NoGradGuard noGrad;
  // A first forward sets up what every later one reuses (LibTorch's thread pool and its stacks, the math libraries'
  // buffers): unmeasured, so the two measured forwards start from the same runtime state.
  (void)model->forward(input);
  const Timed reference = timedForward(*model, input);

  std::optional<TemporaryFolder> temporary;
  if (options.offloadFolder.empty()) {
    temporary.emplace("fathom-offload");
  }
  std::set<c10::DeviceIndex> gpus;
  for (const bigmodel::DeviceMapEntry& e : map) {
    if (e.device.isGpu()) {
      gpus.insert(static_cast<c10::DeviceIndex>(e.device.index()));
    }
  }
  bigmodel::DispatchedModel dispatched(
      model, map,
      {.unitClasses = model->unitClasses(), .offloadFolder = temporary ? temporary->path() : options.offloadFolder});
  for (const c10::DeviceIndex gpu : gpus) {
    resetCudaMemoryPeaks(c10::Device(c10::kCUDA, gpu));
  }
  const Timed run = timedForward(*model, input);

  ojson report;
  report["model"] = options.model.name;
  report["main_device"] = dispatched.mainDevice().str();
  report["placed_bytes"] = dispatched.placedBytes();
  report["units"] = ojson::array();
  for (const bigmodel::DispatchedUnit& u : dispatched.units()) {
    report["units"].push_back(
        {{"module", u.module}, {"device", u.executionDevice.str()}, {"streamed_bytes", u.streamedBytes}});
  }
  const double difference = (run.output - reference.output).abs().max().item<double>();
  report["max_abs_difference"] = difference;
  report["identical"] = difference == 0.0;
  report["reference"] = {{"seconds", reference.seconds},
                         {"rss_before_bytes", reference.rssBefore},
                         {"peak_rss_bytes", optionalBytes(reference.peakRss)}};
  ojson cuda = ojson::array();
  for (const c10::DeviceIndex gpu : gpus) {
    cuda.push_back(ojson(cudaMemoryPeaks(c10::Device(c10::kCUDA, gpu))));
  }
  report["dispatched"] = {{"seconds", run.seconds},
                          {"rss_before_bytes", run.rssBefore},
                          {"peak_rss_bytes", optionalBytes(run.peakRss)},
                          {"cuda", std::move(cuda)}};
  bigmodel::DispatchRecord record = dispatched.record(options.maxMemory, options.model.name);
  if (!options.noSplitClasses.empty()) {
    record.noSplitClasses = options.noSplitClasses;
  }
  report["recorded_in_run"] = recordWithRun(record);
  const auto disk = dispatched.placedBytes().find("disk");
  if (reference.peakRss && run.peakRss) {
    const std::int64_t saved = *reference.peakRss - *run.peakRss;
    report["rss_saved_bytes"] = saved;
    report["rss_saved_fraction_of_disk"] = disk != dispatched.placedBytes().end() && disk->second > 0
                                               ? ojson(static_cast<double>(saved) / static_cast<double>(disk->second))
                                               : ojson(nullptr);
  } else {
    report["rss_saved_bytes"] = nullptr;
    report["rss_saved_fraction_of_disk"] = nullptr;
  }
  return report;
}

void printDispatchRun(std::ostream& out, const ojson& report) {
  out << "\nDispatched " << report.at("model").get<std::string>() << " (offloaded modules compute on "
      << report.at("main_device").get<std::string>() << "):\n";
  std::vector<std::vector<std::string>> rows{{"unit", "computes on", "streamed per forward"}};
  for (const ojson& u : report.at("units")) {
    const std::string module = u.at("module").get<std::string>();
    rows.push_back({module.empty() ? "(the model)" : module, u.at("device").get<std::string>(),
                    formatBinaryBytes(u.at("streamed_bytes").get<double>(), 2)});
  }
  printTable(out, rows);
  out << "\nPlaced bytes:";
  for (const auto& [device, bytes] : report.at("placed_bytes").items()) {
    out << "  " << device << " " << formatBinaryBytes(bytes.get<double>(), 2);
  }
  const double difference = report.at("max_abs_difference").get<double>();
  out << "\nOutput against the undispatched model: "
      << (difference == 0.0 ? std::string("identical (max abs difference 0)")
                            : "max abs difference " + std::to_string(difference))
      << "\n";
  const ojson& ref = report.at("reference");
  const ojson& run = report.at("dispatched");
  out << "Forward: " << std::to_string(ref.at("seconds").get<double>()) << " s undispatched, "
      << std::to_string(run.at("seconds").get<double>()) << " s dispatched\n";
  if (!ref.at("peak_rss_bytes").is_null() && !run.at("peak_rss_bytes").is_null()) {
    out << "Peak RSS over the forward: " << formatBinaryBytes(ref.at("peak_rss_bytes").get<double>(), 2)
        << " undispatched, " << formatBinaryBytes(run.at("peak_rss_bytes").get<double>(), 2) << " dispatched";
    if (!report.at("rss_saved_fraction_of_disk").is_null()) {
      out << " (saved " << formatBinaryBytes(report.at("rss_saved_bytes").get<double>(), 2) << ", "
          << static_cast<int>(report.at("rss_saved_fraction_of_disk").get<double>() * 100 + 0.5)
          << "% of the bytes on disk)";
    }
    out << "\n";
  } else {
    out << "Peak RSS: not measured (the kernel refused to reset the peak: /proc/self/clear_refs)\n";
  }
  for (const ojson& gpu : run.at("cuda")) {
    if (gpu.value("available", false)) {
      out << "Peak CUDA memory on " << gpu.at("device").get<std::string>() << ": "
          << formatBinaryBytes(gpu.at("max_memory_allocated").get<double>(), 2) << " allocated, "
          << formatBinaryBytes(gpu.at("max_memory_reserved").get<double>(), 2) << " reserved\n";
    }
  }
}

}  // namespace fathom::cli
