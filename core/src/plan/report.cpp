// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/report.h>

#include <fathom/plan/prediction_json.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace fathom::plan {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string flops(double v) {
  const char* units[] = {"", "K", "M", "G", "T", "P", "E", "Z"};
  int i = 0;
  while (std::fabs(v) >= 1000.0 && i < 7) {
    v /= 1000.0;
    ++i;
  }
  return fixed(v, 2) + " " + units[i] + "FLOP";
}

}  // namespace

std::string formatBytes(double bytes) {
  return fixed(bytes / 1e9, 2) + " GB (" + fixed(bytes / 1073741824.0, 2) + " GiB)";
}

std::string formatRanks(const HardwareSpec& hw, int count) {
  const char* noun =
      hw.device == DeviceKind::Cpu ? (count == 1 ? "CPU process" : "CPU processes") : (count == 1 ? "GPU" : "GPUs");
  return std::to_string(count) + " " + noun;
}

std::string_view rankNoun(const HardwareSpec& hw) {
  return hw.device == DeviceKind::Cpu ? "process" : "GPU";
}

std::string formatPredictionJson(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan,
                                 const Prediction& r) {
  return toJson(predictionReport(model, hw, plan, r)).dump(2);
}

std::string formatSearchJson(const ModelSpec& model, const HardwareSpec& hw, const SearchOutcome& outcome) {
  return toJson(searchReport(model, hw, outcome)).dump(2);
}

std::string formatPredictionTable(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan,
                                  const Prediction& r) {
  std::ostringstream o;
  o << "Model: " << model.name << " (" << archName(model.arch) << "), " << r.totalParams << " parameters, largest unit "
    << r.largestUnitParams << "\n";
  o << "Hardware: " << hw.description << " (" << hw.name << "), " << formatBytes(static_cast<double>(hw.memoryBytes))
    << " per " << rankNoun(hw) << "\n";
  o << "Plan: " << strategyLabel(plan) << ", " << formatRanks(hw, plan.numGpus) << " on " << r.nodes << " node(s), dp "
    << r.dataParallel << ", tp " << plan.tp << ", pp " << plan.pp << (plan.sequenceParallel ? " +sp" : "")
    << ", micro-batch " << plan.microBatch << " x " << plan.gradAccum << " accumulation, seq " << r.seqLen << ", "
    << toString(plan.precision) << " (master " << toString(plan.masterWeights) << "), " << toString(plan.optimizer)
    << ", recompute " << toString(plan.recompute) << ", bytes convention " << toString(plan.bytes)
    << (plan.offloadOptimizer ? ", optimizer offload" : "") << (plan.offloadParams ? ", parameter offload" : "")
    << "\n\n";

  const MemoryBreakdown& m = r.memory;
  o << "Memory per rank\n";
  auto row = [&o](std::string_view name, double value) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-22.*s %s\n", static_cast<int>(name.size()), name.data(),
                  formatBytes(value).c_str());
    o << line;
  };
  for (const auto& field : kMemoryBreakdownFields) {
    row(toString(field.category), m.*field.member);
  }
  row("total", m.total);
  if (r.cpuBytesPerNode > 0) {
    o << "  cpu per node           " << formatBytes(r.cpuBytesPerNode) << "\n";
  }
  o << "  fits: " << (r.fits ? "yes" : "NO") << ", headroom " << formatBytes(r.headroomBytes) << " of "
    << formatBytes(r.deviceMemoryBytes) << "\n\n";

  o << "Communication per optimizer step (bytes = whole buffer, summed over calls)\n";
  if (r.communication.collectives.empty()) {
    o << "  none (a single rank)\n";
  }
  for (const Collective& c : r.communication.collectives) {
    o << "  " << formatCollective(c) << "\n";
  }
  o << "  bytes sent per rank per step: " << formatBytes(r.communication.bytesPerRankPerStep) << "\n\n";

  const TimePrediction& t = r.time;
  o << "Compute and time per optimizer step\n";
  o << "  model FLOPs " << flops(t.modelFlopsPerStep) << ", hardware FLOPs " << flops(t.hardwareFlopsPerStep)
    << ", peak " << flops(t.peakFlopsPerGpu) << "/s per " << rankNoun(hw) << "\n";
  o << "  compute " << fixed(t.computeS, 4) << " s (bubble " << fixed(t.bubbleS, 4) << " s), communication "
    << fixed(t.commS, 4) << " s, exposed " << fixed(t.exposedCommS, 4) << " s";
  if (t.offloadS > 0) {
    o << ", offload " << fixed(t.offloadS, 4) << " s";
  }
  if (t.overheadS > 0) {  // a run fit's (docs/calibrate.md): without it the parts would not add up to the step
    o << ", overhead " << fixed(t.overheadS, 4) << " s";
  }
  o << "\n  step " << fixed(t.stepS, 4) << " s, " << fixed(t.tokensPerS, 0) << " tokens/s, MFU "
    << fixed(100.0 * t.mfu, 1) << "%\n";
  for (const std::string& note : r.notes) {
    o << "note: " << note << "\n";
  }
  return o.str();
}

std::string formatCollective(const Collective& c) {
  char line[256];
  std::snprintf(line, sizeof line, "%-15s %-28s %s x%lld, group %d %s, sent/rank %s, %.4g s%s", toString(c.kind),
                c.purpose.c_str(), formatBytes(c.bytes).c_str(), static_cast<long long>(c.count), c.groupSize,
                toString(c.scope), formatBytes(c.bytesSentPerRank).c_str(), c.timeS,
                c.overlapped ? " (overlapped)" : "");
  return line;
}

std::string formatExplanation(const Explanation& e) {
  std::ostringstream o;
  o << e.key << " = " << e.value << "\n    formula: " << e.formula << "\n    inputs:  " << e.inputs
    << "\n    source:  " << e.source << "\n";
  return o.str();
}

std::string formatExplanations(const Prediction& r) {
  std::string out;
  for (const Explanation& e : r.explanations) {
    out += formatExplanation(e);
  }
  return out;
}

std::string formatExplanations(const Prediction& r, std::string_view key) {
  std::string out;
  for (const Explanation& e : r.explanations) {
    const std::string_view k = e.key;
    if (k == key || (k.size() > key.size() && k.substr(0, key.size()) == key && k[key.size()] == '.')) {
      out += formatExplanation(e);
    }
  }
  return out;
}

}  // namespace fathom::plan
