// SPDX-License-Identifier: Apache-2.0
// Collectives per optimizer step for each strategy (ZeRO §7, FSDP §3.2, Megatron TP/SP/PP) and their alpha-beta
// time. A collective's bytes are the whole buffer it operates on, summed over its calls.
#include <fathom/plan/comm_model.h>

#include "context.h"

#include <fathom/plan/shard_layout.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace fathom::plan {

double ringBytesSent(CollectiveKind kind, double bytes, int group) {
  if (group <= 1) {
    return 0.0;
  }
  const double n = group;
  switch (kind) {
  case CollectiveKind::AllReduce: return 2.0 * (n - 1) / n * bytes;
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::Broadcast: return (n - 1) / n * bytes;
  case CollectiveKind::SendRecv: return bytes;
  }
  return 0.0;
}

double collectiveTime(CollectiveKind kind, double bytes, int group, const LinkSpec& link) {
  if (group <= 1) {
    return 0.0;
  }
  const double n = group;
  const double a = link.latency;
  const double bw = link.bandwidth;
  switch (kind) {
  case CollectiveKind::AllReduce: {
    const double ring = 2 * (n - 1) * a + 2 * (n - 1) / n * bytes / bw;
    const double tree = 2 * std::ceil(std::log2(n)) * a + 2 * bytes / bw;
    return std::min(ring, tree);
  }
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter: return (n - 1) * a + (n - 1) / n * bytes / bw;
  case CollectiveKind::Broadcast: return (n - 1) * a + bytes / bw;
  case CollectiveKind::SendRecv: return a + bytes / bw;
  }
  return 0.0;
}

const char* toString(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce: return "all_reduce";
  case CollectiveKind::AllGather: return "all_gather";
  case CollectiveKind::ReduceScatter: return "reduce_scatter";
  case CollectiveKind::Broadcast: return "broadcast";
  case CollectiveKind::SendRecv: return "send_recv";
  }
  return "all_reduce";
}

const char* toString(Scope scope) {
  return scope == Scope::IntraNode ? "intra_node" : "inter_node";
}

namespace detail {
namespace {

class Builder {
public:
  Builder(const Context& ctx, Prediction& out) : m_ctx(ctx), m_out(out.communication) {}

  // Adds `calls` calls moving `bytesPerCall` each (whole buffer) in a group of `group` ranks.
  void add(CollectiveKind kind, const char* purpose, double bytesPerCall, double calls, int group, Scope scope,
           bool overlapped, bool perMicroStep, const char* source) {
    push(kind, purpose, bytesPerCall * calls, bytesPerCall, calls, group, scope, overlapped, perMicroStep, source);
  }

  // Adds `calls` calls moving `totalBytes` together (calls of different sizes: the exact layouts). The time is
  // linear in the bytes, so it is computed for the mean call.
  void addTotal(CollectiveKind kind, const char* purpose, double totalBytes, double calls, int group, Scope scope,
                bool overlapped, bool perMicroStep, const char* source) {
    if (calls > 0) {
      push(kind, purpose, totalBytes, totalBytes / calls, calls, group, scope, overlapped, perMicroStep, source);
    }
  }

private:
  /// One call's time from the calibrated profile's fit of `kind` (its own rank count, else the nearest measured one
  /// with the same latency per ring step and bus bandwidth), inside a node; std::nullopt without such a fit (a
  /// preset, send_recv, or a link between nodes, which the calibration did not measure).
  std::optional<double> calibratedCallSeconds(CollectiveKind kind, double bytes, int group, Scope scope) const {
    const std::optional<HardwareCalibration>& cal = m_ctx.hw.calibration;
    if (!cal || (scope == Scope::InterNode && m_ctx.nodes > 1)) {
      return std::nullopt;
    }
    const CollectiveFit* fit = nullptr;  // the fit of `kind` at the rank count nearest `group`
    for (const CollectiveFit& f : cal->collectives) {
      if (f.kind == kind && (fit == nullptr || std::abs(f.ranks - group) < std::abs(fit->ranks - group))) {
        fit = &f;
      }
    }
    if (fit == nullptr) {
      return std::nullopt;
    }
    // A profiled run's correction scales the kind's alpha and beta together (hardware_calibration.h, RunFit).
    return fit->predictSeconds(bytes, group) * (cal->runFit ? cal->runFit->collectiveFactor(kind) : 1.0);
  }

  void push(CollectiveKind kind, const char* purpose, double totalBytes, double bytesPerCall, double calls, int group,
            Scope scope, bool overlapped, bool perMicroStep, const char* source) {
    if (group <= 1 || calls <= 0 || bytesPerCall <= 0) {
      return;
    }
    const LinkSpec& link = scope == Scope::IntraNode ? m_ctx.hw.intraNode : m_ctx.hw.interNode;
    Collective c;
    c.kind = kind;
    c.purpose = purpose;
    c.count = static_cast<std::int64_t>(std::llround(calls));
    c.bytes = totalBytes;
    c.groupSize = group;
    c.scope = scope;
    c.bytesSentPerRank = ringBytesSent(kind, bytesPerCall, group) * calls;
    const std::optional<double> calibrated = calibratedCallSeconds(kind, bytesPerCall, group, scope);
    c.timeS = (calibrated ? *calibrated : collectiveTime(kind, bytesPerCall, group, link)) * calls;
    c.overlapped = overlapped && m_ctx.opt.overlapGradReduce;
    c.perMicroStep = perMicroStep;
    m_out.bytesPerRankPerStep += c.bytesSentPerRank;
    m_out.timeS += c.timeS;
    if (m_ctx.ex != nullptr) {
      std::string key = std::string("communication.") + toString(kind) + "." + purpose;
      m_ctx.explain(key.c_str(), c.bytes,
                    "bytes = whole buffer per call · calls; sent per rank (ring): AR 2(N-1)/N·S, "
                    "AG/RS (N-1)/N·S, P2P S; time alpha-beta (the calibrated fit of the kind when the profile has one)",
                    source, "bytes_per_call=", bytesPerCall, ", calls=", calls, ", N=", group,
                    ", scope=", toString(scope), ", bandwidth=", link.bandwidth, ", latency=", link.latency,
                    ", calibrated_fit=", calibrated ? "yes" : "no", ", time_s=", c.timeS);
    }
    m_out.collectives.push_back(std::move(c));
  }

  const Context& m_ctx;
  CommunicationPrediction& m_out;
};

/// The collectives of the exact layouts (docs/planner.md, "Exact layout for built-in models"): one call per unit
/// or bucket, each moving its padded flat buffer (NO_SHARD: unpadded).
void exactCollectives(const Context& ctx, Builder& b, Scope dpScope) {
  const Plan& p = ctx.plan;
  const ExactLayout& l = ctx.layout;
  const double m = ctx.microSteps;
  const double syncs = ctx.gradsReducedEachMicroStep ? m : 1.0;
  const bool each = ctx.gradsReducedEachMicroStep;
  const double e = ctx.gatherBytes;
  const double r = ctx.reduceBytes;
  if (p.strategy == Strategy::Zero1 || p.strategy == Strategy::Zero2) {
    const auto buckets = static_cast<double>(l.buckets.size());
    const auto padded = static_cast<double>(paddedSum(l.buckets, ctx.dp));
    b.addTotal(CollectiveKind::ReduceScatter, "gradients", padded * r * syncs, buckets * syncs, ctx.dp, dpScope, true,
               each, "zero-7");
    b.addTotal(CollectiveKind::AllGather, "parameters (after step)", padded * e, buckets, ctx.dp, dpScope, false, false,
               "zero-7");
    return;
  }
  const auto units = static_cast<double>(l.units.size());
  if (ctx.isFsdp(FsdpSharding::NoShard)) {
    const auto elements = static_cast<double>(paddedSum(l.units, 1));
    b.addTotal(CollectiveKind::AllReduce, "gradients", elements * r * syncs, units * syncs, ctx.dp, dpScope, true, each,
               "fsdp-api");
    return;
  }
  const int group = ctx.shardGroup;
  const Scope scope = ctx.isHybridFsdp() ? Scope::IntraNode : dpScope;
  const auto padded = static_cast<double>(paddedSum(l.units, group));
  const char* source = p.strategy == Strategy::Zero3 ? "zero-7" : "fsdp-3.2";
  b.addTotal(CollectiveKind::AllGather, kForwardGatherPurpose, padded * e * m, units * m, group, scope, true, true,
             source);
  if (p.strategy == Strategy::Zero3) {
    // DeepSpeed frees every module after forward, the root included, and gathers each again in backward.
    b.addTotal(CollectiveKind::AllGather, "parameters (backward)", padded * e * m, units * m, group, scope, true, true,
               source);
  } else if (!ctx.keepsUnitsGathered()) {
    // FSDP keeps the root gathered from forward to backward: every other unit is gathered again (SHARD_GRAD_OP and
    // HYBRID_SHARD_ZERO2 keep every unit gathered, so backward gathers nothing).
    const double root = l.hasRoot ? static_cast<double>(paddedElements(l.units.front(), group)) : 0.0;
    const double calls = units - (l.hasRoot ? 1.0 : 0.0);
    b.addTotal(CollectiveKind::AllGather, "parameters (backward)", (padded - root) * e * m, calls * m, group, scope,
               true, true, source);
  }
  b.addTotal(CollectiveKind::ReduceScatter, "gradients", padded * r * syncs, units * syncs, group, scope, true, each,
             source);
  if (ctx.isHybridFsdp() && ctx.replicas > 1) {
    const auto shard = static_cast<double>(shardSum(l.units, group));
    b.addTotal(CollectiveKind::AllReduce, "gradient shards (replicas)", shard * r * syncs, units * syncs, ctx.replicas,
               Scope::InterNode, true, each, source);
  }
}

/// The collectives per strategy when the layout is not known: equal slices of the stage's parameters.
void approximateCollectives(const Context& ctx, Builder& b, Scope dpScope) {
  const Plan& p = ctx.plan;
  const double psi = ctx.stageParams;
  const double m = ctx.microSteps;
  const double syncs = ctx.gradsReducedEachMicroStep ? m : 1.0;
  const bool each = ctx.gradsReducedEachMicroStep;
  const double gradBuf = psi * ctx.reduceBytes;
  const double paramBuf = psi * ctx.gatherBytes;
  const double units = ctx.units;
  switch (p.strategy) {
  case Strategy::Ddp: {
    // PyTorch DDP buckets: the first holds 1 MiB, the rest bucket_cap_mb (25 MiB) each.
    double buckets = 0;
    if (!ctx.model.parameterTensors.empty() && p.tp == 1 && p.pp == 1) {
      // Exact, as torch's compute_bucket_assignment_by_size (docs/ddp.md): walk the tensors in reverse
      // registration order; a bucket closes once its bytes reach the cap (1 MiB for the first, then
      // bucket_cap_mb), so a tensor is never split and the last bucket may be smaller.
      double open = 0;
      double cap = ctx.opt.ddpFirstBucketBytes;
      for (auto it = ctx.model.parameterTensors.rbegin(); it != ctx.model.parameterTensors.rend(); ++it) {
        open += static_cast<double>(*it) * ctx.reduceBytes;
        if (open >= cap) {
          buckets += 1;
          open = 0;
          cap = ctx.opt.ddpBucketBytes;
        }
      }
      buckets += open > 0 ? 1 : 0;
    } else {
      // Tensor sizes unknown: as if gradients could be cut anywhere.
      const double rest = std::max(0.0, gradBuf - ctx.opt.ddpFirstBucketBytes);
      buckets = 1.0 + std::ceil(rest / ctx.opt.ddpBucketBytes);
    }
    b.add(CollectiveKind::AllReduce, "gradients", gradBuf / buckets, buckets * syncs, ctx.dp, dpScope, true, each,
          "zero-7");
    break;
  }
  case Strategy::Zero1:
  case Strategy::Zero2: {
    const double buckets = std::ceil(psi / static_cast<double>(p.zeroBucketElements));
    b.add(CollectiveKind::ReduceScatter, "gradients", gradBuf / buckets, buckets * syncs, ctx.dp, dpScope, true, each,
          "zero-7");
    b.add(CollectiveKind::AllGather, "parameters (after step)", paramBuf / buckets, buckets, ctx.dp, dpScope, false,
          false, "zero-7");
    break;
  }
  case Strategy::Zero3:
    b.add(CollectiveKind::AllGather, kForwardGatherPurpose, paramBuf / units, units * m, ctx.dp, dpScope, true, true,
          "zero-7");
    b.add(CollectiveKind::AllGather, "parameters (backward)", paramBuf / units, units * m, ctx.dp, dpScope, true, true,
          "zero-7");
    b.add(CollectiveKind::ReduceScatter, "gradients", gradBuf / units, units * syncs, ctx.dp, dpScope, true, each,
          "zero-7");
    break;
  case Strategy::Fsdp: {
    const FsdpSharding s = p.fsdpSharding;
    if (s == FsdpSharding::NoShard) {
      b.add(CollectiveKind::AllReduce, "gradients", gradBuf / units, units * syncs, ctx.dp, dpScope, true, each,
            "fsdp-api");
      break;
    }
    const int group = ctx.shardGroup;
    const Scope scope = isHybrid(s) ? Scope::IntraNode : dpScope;
    b.add(CollectiveKind::AllGather, kForwardGatherPurpose, paramBuf / units, units * m, group, scope, true, true,
          "fsdp-3.2");
    if (reshardsAfterForward(s)) {
      // The root unit is not resharded after forward, so backward re-gathers every unit but the root.
      const double backwardParams = psi - ctx.rootParams;
      const double calls = std::max(1.0, units - 1.0);
      b.add(CollectiveKind::AllGather, "parameters (backward)", backwardParams * ctx.gatherBytes / calls, calls * m,
            group, scope, true, true, "fsdp-3.2");
    }
    b.add(CollectiveKind::ReduceScatter, "gradients", gradBuf / units, units * syncs, group, scope, true, each,
          "fsdp-3.2");
    if (isHybrid(s) && ctx.replicas > 1) {
      b.add(CollectiveKind::AllReduce, "gradient shards (replicas)", gradBuf / group / units, units * syncs,
            ctx.replicas, Scope::InterNode, true, each, "fsdp-3.2");
    }
    break;
  }
  }
}

}  // namespace

void predictCommunication(const Context& ctx, Prediction& out) {
  const Plan& p = ctx.plan;
  Builder b(ctx, out);
  const double m = ctx.microSteps;
  const int rpn = std::min(ctx.gpusPerNode, p.numGpus);
  // Megatron rank order: tensor-parallel ranks are adjacent, then data-parallel, then pipeline stages.
  const Scope dpScope = p.tp * ctx.dp <= rpn ? Scope::IntraNode : Scope::InterNode;
  const Scope tpScope = p.tp <= rpn ? Scope::IntraNode : Scope::InterNode;
  const Scope ppScope = p.numGpus <= rpn ? Scope::IntraNode : Scope::InterNode;

  if (ctx.layout.known) {
    exactCollectives(ctx, b, dpScope);
  } else {
    approximateCollectives(ctx, b, dpScope);
  }

  if (p.tp > 1 && ctx.model.hasDims()) {
    // Megatron: two all-reduces of the s·b·h activation per layer in forward and two in backward (f/g operators);
    // full recomputation repeats the forward pair. Sequence parallelism turns each into all-gather + reduce-scatter.
    const double act = ctx.seq * p.microBatch * static_cast<double>(ctx.model.dims.hidden) * ctx.actBytes;
    const double perLayer = 4.0 + (p.recompute == Recompute::Full ? 2.0 : 0.0);
    const double layers =
        ctx.model.dims.decoderLayers > 0 ? static_cast<double>(ctx.model.totalLayers()) : ctx.layersPerStage;
    const double calls = perLayer * layers * m + m;  // + the vocab-parallel embedding's forward all-reduce
    if (p.sequenceParallel) {
      b.add(CollectiveKind::AllGather, "tp activations", act, calls, p.tp, tpScope, false, true, "korthikanti-4.2.2");
      b.add(CollectiveKind::ReduceScatter, "tp activations", act, calls, p.tp, tpScope, false, true,
            "korthikanti-4.2.2");
    } else {
      b.add(CollectiveKind::AllReduce, "tp activations", act, calls, p.tp, tpScope, false, true, "megatron-tp");
    }
  }
  if (p.pp > 1 && ctx.model.hasDims()) {
    // 1F1B: a middle stage sends one activation forward and one gradient backward per micro-batch. Megatron's
    // scatter/gather optimisation sends 1/t of the tensor.
    const double act = ctx.seq * p.microBatch * static_cast<double>(ctx.model.dims.hidden) * ctx.actBytes / p.tp;
    const double calls = (p.pp > 2 ? 2.0 : 1.0) * m;
    b.add(CollectiveKind::SendRecv, "pipeline activations", act, calls, 2, ppScope, false, true, "narayanan-2021");
    if (ctx.model.dims.tiedEmbeddings && ctx.model.arch != Arch::Bert) {
      const double emb = static_cast<double>(ctx.model.dims.vocab * ctx.model.dims.hidden) / p.tp * ctx.reduceBytes;
      b.add(CollectiveKind::AllReduce, "tied embedding gradients", emb, 1, 2, ppScope, false, false, "megatron-tp");
    }
  }
}

}  // namespace detail
}  // namespace fathom::plan
