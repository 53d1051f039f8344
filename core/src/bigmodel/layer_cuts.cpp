// SPDX-License-Identifier: Apache-2.0
// The optimal cuts of a layer sequence (layer_cuts.h). Why the greedy fill and the dynamic programme agree:
// docs/bigmodel.md, "The optimal strategy".
#include <fathom/bigmodel/layer_cuts.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace fathom::bigmodel {

namespace {

constexpr ByteCount kUnreachable = std::numeric_limits<ByteCount>::infinity();

void checkBytes(ByteCount bytes, const char* what, std::size_t index) {
  FATHOM_CHECK(std::isfinite(bytes) && bytes >= 0, ConfigError, "layer cuts: ", what, " ", index,
               " must be a size >= 0, got ", bytes);
}

/// One problem, checked, with its prefix sums. Invariants: m_prefix[i] is the bytes of layers [0, i) and never
/// decreases; m_suffixReserve[i] is the largest reserve among layers [i, n), 0 at n, and never increases with i.
class CutSolver {
public:
  explicit CutSolver(const LayerCutProblem& problem) : m_problem(problem), m_n(problem.sizes.size()) {
    FATHOM_CHECK(problem.reserves.empty() || problem.reserves.size() == m_n, ConfigError,
                 "layer cuts: ", problem.reserves.size(), " reserves for ", m_n, " layers");
    m_prefix.assign(m_n + 1, 0);
    m_suffixReserve.assign(m_n + 1, 0);
    for (std::size_t i = 0; i < m_n; ++i) {
      checkBytes(problem.sizes[i], "the size of layer", i);
      m_prefix[i + 1] = m_prefix[i] + problem.sizes[i];
    }
    for (std::size_t i = m_n; i-- > 0;) {
      const ByteCount reserve = problem.reserves.empty() ? problem.sizes[i] : problem.reserves[i];
      checkBytes(reserve, "the reserve of layer", i);
      m_suffixReserve[i] = std::max(m_suffixReserve[i + 1], reserve);
    }
    for (std::size_t j = 0; j < problem.gpuLimits.size(); ++j) {
      checkBytes(problem.gpuLimits[j], "the limit of GPU", j);
    }
    if (problem.cpuLimit) {
      checkBytes(*problem.cpuLimit, "the limit of cpu", 0);
    }
  }

  std::size_t layers() const { return m_n; }

  /// What the main GPU keeps free when layers [offloadBegin, n) are offloaded: 0 when nothing is.
  ByteCount reserveFor(std::size_t offloadBegin) const { return m_suffixReserve[offloadBegin]; }

  /// The load of layers [begin, end) on one GPU. A non-empty run starting at layer 0 is on the main GPU (the first
  /// that holds anything), which also keeps `reserve` free. Grows with `end`, shrinks as `begin` grows.
  ByteCount load(std::size_t begin, std::size_t end, ByteCount reserve) const {
    return m_prefix[end] - m_prefix[begin] + (begin == 0 && end > 0 ? reserve : 0);
  }

  /// Greedy fill: each GPU in order takes layers while its load stays <= min(bound, its limit), up to layer
  /// `stop`. Returns how far it got; `ends` (when given) receives each GPU's end. No placement of layers [0, stop)
  /// with every load <= that bound gets further (the fill is ahead after every GPU: starting no earlier, a run that
  /// fits still fits, as loads only shrink when a run starts later, also past the main GPU's reserve).
  std::size_t greedyReach(ByteCount bound, ByteCount reserve, std::size_t stop, std::vector<std::size_t>* ends) const {
    std::size_t at = 0;
    for (const ByteCount limit : m_problem.gpuLimits) {
      const ByteCount cap = std::min(bound, limit);
      std::size_t end = at;
      while (end < stop && load(at, end + 1, reserve) <= cap) {
        ++end;
      }
      at = end;
      if (ends != nullptr) {
        ends->push_back(at);
      }
    }
    return at;
  }

  /// The longest prefix the GPUs can hold within their limits. A prefix p fits when the greedy fill with p's
  /// reserve reaches p; the reserve shrinks as p grows, so every p is tried, longest first (one fill per reserve).
  std::size_t longestGpuPrefix() const {
    std::map<ByteCount, std::size_t> reachByReserve;
    for (std::size_t p = m_n + 1; p-- > 0;) {
      const ByteCount reserve = reserveFor(p);
      auto it = reachByReserve.find(reserve);
      if (it == reachByReserve.end()) {
        it = reachByReserve.emplace(reserve, greedyReach(kUnreachable, reserve, m_n, nullptr)).first;
      }
      if (it->second >= p) {
        return p;
      }
    }
    return 0;  // unreachable: p = 0 always fits (every GPU empty)
  }

  /// The smallest largest GPU load that places layers [0, p) on the GPUs within their limits, layers [p, n)
  /// offloaded. best[i]: the smallest largest load of the GPUs so far holding [0, i) (kUnreachable when they cannot);
  /// each GPU either stays empty or takes a run [i, i2). Pruned: a run's load grows as it starts earlier.
  ByteCount smallestMaxLoad(std::size_t p) const {
    const ByteCount reserve = reserveFor(p);
    std::vector<ByteCount> best(p + 1, kUnreachable);
    best[0] = 0;
    std::vector<ByteCount> next;
    for (const ByteCount limit : m_problem.gpuLimits) {
      next = best;  // this GPU stays empty
      for (std::size_t i2 = 1; i2 <= p; ++i2) {
        ByteCount b = next[i2];
        for (std::size_t i = i2 - 1; i >= 1; --i) {
          const ByteCount l = load(i, i2, reserve);
          if (l > limit || l >= b) {
            break;
          }
          b = std::min(b, std::max(best[i], l));
        }
        if (const ByteCount l = load(0, i2, reserve); l <= limit) {
          b = std::min(b, l);  // the main GPU: every GPU before it is empty (best[0] == 0)
        }
        next[i2] = b;
      }
      best.swap(next);
    }
    return best[p];
  }

  /// How far cpu reaches from `begin`: the furthest end whose run, plus the largest reserve among the layers left
  /// for disk, fits cpu's limit; `begin` itself (cpu empty) without cpu.
  std::size_t cpuEnd(std::size_t begin) const {
    if (!m_problem.cpuLimit) {
      return begin;
    }
    for (std::size_t end = m_n; end > begin; --end) {
      if (m_prefix[end] - m_prefix[begin] + reserveFor(end) <= *m_problem.cpuLimit) {
        return end;
      }
    }
    return begin;
  }

  /// The loads of given cuts (see layer_cuts.h).
  LayerCuts evaluate(std::vector<std::size_t> gpuEnds, std::size_t cpuEnd) const {
    LayerCuts cuts;
    cuts.gpuEnds = std::move(gpuEnds);
    cuts.cpuEnd = cpuEnd;
    const ByteCount reserve = reserveFor(cuts.offloadBegin());
    std::size_t begin = 0;
    for (const std::size_t end : cuts.gpuEnds) {
      cuts.gpuLoads.push_back(load(begin, end, reserve));
      cuts.maxGpuLoad = std::max(cuts.maxGpuLoad, cuts.gpuLoads.back());
      begin = end;
    }
    return cuts;
  }

private:
  const LayerCutProblem& m_problem;
  std::size_t m_n;
  std::vector<ByteCount> m_prefix;
  std::vector<ByteCount> m_suffixReserve;
};

}  // namespace

LayerCuts optimalLayerCuts(const LayerCutProblem& problem) {
  const CutSolver solver(problem);
  const std::size_t p = solver.longestGpuPrefix();
  const ByteCount bound = solver.smallestMaxLoad(p);
  FATHOM_ASSERT(bound < kUnreachable, "layer cuts: the prefix the greedy fill reached has no placement");
  std::vector<std::size_t> ends;
  const std::size_t reached = solver.greedyReach(bound, solver.reserveFor(p), p, &ends);
  FATHOM_ASSERT(reached == p, "layer cuts: the greedy fill under the optimal load stopped at ", reached, " of ", p);
  return solver.evaluate(std::move(ends), solver.cpuEnd(p));
}

LayerCuts evaluateLayerCuts(const LayerCutProblem& problem, std::vector<std::size_t> gpuEnds, std::size_t cpuEnd) {
  const CutSolver solver(problem);
  FATHOM_CHECK(gpuEnds.size() == problem.gpuLimits.size(), ConfigError, "layer cuts: ", gpuEnds.size(),
               " GPU ends for ", problem.gpuLimits.size(), " GPUs");
  std::size_t previous = 0;
  for (const std::size_t end : gpuEnds) {
    FATHOM_CHECK(end >= previous && end <= solver.layers(), ConfigError, "layer cuts: GPU end ", end, " is not in [",
                 previous, ", ", solver.layers(), "]");
    previous = end;
  }
  FATHOM_CHECK(cpuEnd >= previous && cpuEnd <= solver.layers(), ConfigError, "layer cuts: cpu end ", cpuEnd,
               " is not in [", previous, ", ", solver.layers(), "]");
  return solver.evaluate(std::move(gpuEnds), cpuEnd);
}

}  // namespace fathom::bigmodel
