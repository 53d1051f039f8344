// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/report.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace fathom::plan {
namespace {

using nlohmann::ordered_json;

std::int64_t whole(double bytes) {
  return static_cast<std::int64_t>(std::llround(bytes));
}

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

ordered_json planJson(const Plan& p) {
  ordered_json j;
  j["strategy"] = std::string(toString(p.strategy));
  if (p.strategy == Strategy::Fsdp) {
    j["fsdp_sharding_strategy"] = std::string(toString(p.fsdpSharding));
  }
  if (p.strategy == Strategy::Fsdp || p.strategy == Strategy::Zero3) {
    j["fsdp_auto_wrap_policy"] = std::string(toString(p.fsdpWrap));
    j["fsdp_min_num_params"] = p.fsdpMinNumParams;
  }
  if (p.strategy == Strategy::Zero1 || p.strategy == Strategy::Zero2) {
    j["zero_bucket_size"] = p.zeroBucketElements;
  }
  j["num_gpus"] = p.numGpus;
  j["gpus_per_node"] = p.gpusPerNode;
  j["offload_optimizer"] = p.offloadOptimizer;
  j["offload_params"] = p.offloadParams;
  j["tp"] = p.tp;
  j["pp"] = p.pp;
  j["sequence_parallel"] = p.sequenceParallel;
  j["micro_batch"] = p.microBatch;
  j["gradient_accumulation_steps"] = p.gradAccum;
  j["precision"] = std::string(toString(p.precision));
  j["master_weights"] = std::string(toString(p.masterWeights));
  j["optimizer"] = std::string(toString(p.optimizer));
  j["recompute"] = std::string(toString(p.recompute));
  j["flash_attention"] = p.flashAttention;
  j["bytes_convention"] = std::string(toString(p.bytes));
  j["grad_sync"] = std::string(toString(p.gradSync));
  return j;
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

namespace {

ordered_json predictionJson(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan, const Prediction& r) {
  ordered_json j;
  j["model"] = {{"name", model.name},
                {"arch", std::string(archName(model.arch))},
                {"total_params", r.totalParams},
                {"largest_unit_params", r.largestUnitParams}};
  j["hardware"] = {{"name", hw.name},
                   {"device", std::string(toString(hw.device))},
                   {"memory_bytes", hw.memoryBytes},
                   {"source", hw.source}};
  j["plan"] = planJson(plan);
  j["plan"]["data_parallel"] = r.dataParallel;
  j["plan"]["nodes"] = r.nodes;
  j["plan"]["seq"] = r.seqLen;
  const MemoryBreakdown& m = r.memory;
  ordered_json perRank = {{"parameters", whole(m.parameters)},
                          {"gradients", whole(m.gradients)},
                          {"optimizer_states", whole(m.optimizerStates)},
                          {"master_weights", whole(m.masterWeights)},
                          {"activations", whole(m.activations)},
                          {"gathered_parameters", whole(m.gatheredParameters)},
                          {"comm_buffers", whole(m.commBuffers)},
                          {"framework_overhead", whole(m.frameworkOverhead)},
                          {"total", whole(m.total)}};
  const Prediction::Offloaded& o = r.offloaded;
  j["memory"] = {{"per_rank_bytes", perRank},
                 {"offloaded_per_rank_bytes", ordered_json{{"parameters", whole(o.parameters)},
                                                           {"gradients", whole(o.gradients)},
                                                           {"optimizer_states", whole(o.optimizerStates)},
                                                           {"master_weights", whole(o.masterWeights)},
                                                           {"total", whole(o.total())}}},
                 {"cpu_bytes_per_node", whole(r.cpuBytesPerNode)},
                 {"device_bytes", whole(r.deviceMemoryBytes)},
                 {"fits", r.fits},
                 {"headroom_bytes", whole(r.headroomBytes)}};
  ordered_json collectives = ordered_json::array();
  for (const Collective& c : r.communication.collectives) {
    collectives.push_back({{"kind", toString(c.kind)},
                           {"purpose", c.purpose},
                           {"bytes", whole(c.bytes)},
                           {"count", c.count},
                           {"group_size", c.groupSize},
                           {"scope", toString(c.scope)},
                           {"bytes_sent_per_rank", whole(c.bytesSentPerRank)},
                           {"time_s", c.timeS},
                           {"overlapped", c.overlapped},
                           {"per_micro_step", c.perMicroStep}});
  }
  j["communication"] = {{"collectives", collectives},
                        {"bytes_per_rank_per_step", whole(r.communication.bytesPerRankPerStep)},
                        {"time_s", r.communication.timeS}};
  const TimePrediction& t = r.time;
  j["compute"] = {{"model_flops_per_step", t.modelFlopsPerStep},
                  {"hardware_flops_per_step", t.hardwareFlopsPerStep},
                  {"peak_flops_per_gpu", t.peakFlopsPerGpu},
                  {"tokens_per_step", t.tokensPerStep}};
  j["time"] = {{"step_s", t.stepS}, {"tokens_per_s", t.tokensPerS},     {"mfu", t.mfu},
               {"hfu", t.hfu},      {"compute_s", t.computeS},          {"bubble_s", t.bubbleS},
               {"comm_s", t.commS}, {"exposed_comm_s", t.exposedCommS}, {"offload_s", t.offloadS}};
  j["notes"] = r.notes;
  if (!r.explanations.empty()) {
    ordered_json ex = ordered_json::array();
    for (const Explanation& e : r.explanations) {
      ex.push_back(
          {{"key", e.key}, {"value", e.value}, {"formula", e.formula}, {"inputs", e.inputs}, {"source", e.source}});
    }
    j["explanations"] = ex;
  }
  return j;
}

}  // namespace

std::string formatPredictionJson(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan,
                                 const Prediction& r) {
  return predictionJson(model, hw, plan, r).dump(2);
}

std::string formatSearchJson(const ModelSpec& model, const HardwareSpec& hw, const SearchOutcome& outcome) {
  ordered_json j;
  j["evaluated"] = outcome.evaluated;
  j["fitting"] = outcome.fitting;
  j["results"] = ordered_json::array();
  for (const SearchResult& r : outcome.results) {
    j["results"].push_back(predictionJson(model, hw, r.plan, r.prediction));
  }
  return j.dump(2);
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
  const std::pair<const char*, double> rows[] = {{"parameters", m.parameters},
                                                 {"gradients", m.gradients},
                                                 {"optimizer_states", m.optimizerStates},
                                                 {"master_weights", m.masterWeights},
                                                 {"activations", m.activations},
                                                 {"gathered_parameters", m.gatheredParameters},
                                                 {"comm_buffers", m.commBuffers},
                                                 {"framework_overhead", m.frameworkOverhead},
                                                 {"total", m.total}};
  for (const auto& [name, value] : rows) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-22s %s\n", name, formatBytes(value).c_str());
    o << line;
  }
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
