// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "comm_work.h"

#include <fathom/parallel/comm.h>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fathom::parallel {

/// One sharded unit's parameters as a single flat buffer (torch FSDP's FlatParameter, DeepSpeed ZeRO-3's
/// partitioned parameters): the unit's parameters, in registration order, are laid end to end in a "full"
/// buffer of plan::paddedElements(numel, world) elements (zero padding at the end), and each rank of the shard
/// group owns the contiguous slice [rank·S, (rank+1)·S), S = plan::shardElements(numel, world).
///
/// The module's parameter tensors are re-pointed into the full buffer once, at construction, and never change
/// again: freeing releases the full buffer's memory (its storage keeps its identity, with 0 bytes) and
/// gathering allocates new memory for the same storage and all-gathers the shards into it. So the tensors
/// autograd saved for backward stay valid across free/gather and their version counters never move (the
/// mechanism of torch FSDP's _free_storage / _alloc_storage). Between a free and the next gather the
/// parameters must not be read: the engine guarantees it through UnitScope and its backward hooks.
///
/// Unsharded (NO_SHARD, world 1 or `sharded` false): the full buffer is the shard; nothing is freed.
class FlatParam {
public:
  struct Options {
    std::string label;              ///< "root", "h.0", ...: names its collectives ("<prefix>.<label>")
    int rank = 0;                   ///< this rank in the shard group
    int world = 1;                  ///< ranks in the shard group (1 = unsharded)
    c10::Device device{c10::kCPU};  ///< compute device: where the full buffer lives
    bool offloadShard = false;      ///< keep the shard (and its gradient) in host memory
  };
  /// One parameter's place in the flat buffer.
  struct Entry {
    std::string name;                 ///< parameter name in the module
    at::Tensor param;                 ///< the module's parameter tensor (points into the full buffer)
    std::vector<std::int64_t> sizes;  ///< its shape
    std::int64_t offset = 0;          ///< first element in the flat buffer
    std::int64_t numel = 0;           ///< elements
  };

  /// Takes over `params` (float32, contiguous, on options.device; ConfigError naming the parameter otherwise):
  /// copies their current values into the full buffer, re-points them into it and cuts this rank's shard.
  /// The unit starts gathered.
  FlatParam(const std::vector<std::pair<std::string, at::Tensor>>& params, Options options);
  FlatParam(const FlatParam&) = delete;
  FlatParam& operator=(const FlatParam&) = delete;

  const std::string& label() const { return m_options.label; }
  const std::vector<Entry>& entries() const { return m_entries; }
  std::int64_t numel() const { return m_numel; }            ///< Σ parameter elements
  std::int64_t paddedNumel() const { return m_padded; }     ///< the full buffer's elements
  std::int64_t shardNumel() const { return m_shardNumel; }  ///< this rank's shard's elements
  bool sharded() const { return m_options.world > 1; }
  /// The full buffer is allocated and its all-gather issued (see gatherPending for whether it has arrived).
  bool gathered() const { return m_gathered; }
  /// Bytes the full buffer occupies while gathered (paddedNumel × 4).
  std::int64_t fullBytes() const { return m_padded * 4; }

  /// This rank's shard: a leaf the optimizer steps on (a view of the full buffer when unsharded). Its grad()
  /// is the reduced gradient shard.
  at::Tensor& shard() { return m_shard; }
  const at::Tensor& shard() const { return m_shard; }
  /// The full flat buffer (undefined data while freed).
  const at::Tensor& full() const { return m_full; }

  /// Allocates the full buffer and all-gathers every rank's shard into it (label `label`); nothing if gathered.
  /// Waits for an all-gather gatherAsync left in flight. comm may be null only when unsharded.
  void gather(Comm* comm, std::string_view label);
  /// Allocates the full buffer and issues the all-gather into it without waiting (a prefetch): gathered() is
  /// true from here on, but the parameters may be read only after waitGathered() (or gather()). Nothing if
  /// gathered; unsharded units are copied at once. Until the wait, the shard must not be modified (the
  /// backend's threads read it): the engine waits before the optimizer steps.
  void gatherAsync(Comm* comm, std::string_view label);
  /// Whether an all-gather issued by gatherAsync has not been waited for yet.
  bool gatherPending() const { return m_pendingGather.valid(); }
  /// Waits for the all-gather gatherAsync issued, if any (CommError when it failed); the parameters are then
  /// readable.
  void waitGathered();
  /// Releases the full buffer's memory (after waiting for an all-gather in flight into it); nothing if unsharded
  /// or already freed.
  void free();

  /// Whether some parameter holds a gradient.
  bool hasParamGrads() const;
  /// The parameters' gradients laid out flat and padded (zeros where a parameter has none), in `dtype`.
  at::Tensor flatParamGrads(c10::ScalarType dtype) const;
  /// Drops the parameters' gradients (set to undefined).
  void releaseParamGrads();
  /// Bytes of the parameters' gradients currently held.
  std::int64_t paramGradBytes() const;

private:
  Options m_options;
  std::vector<Entry> m_entries;
  std::int64_t m_numel = 0;
  std::int64_t m_padded = 0;
  std::int64_t m_shardNumel = 0;
  at::Tensor m_full;
  at::Tensor m_shard;
  bool m_gathered = true;    ///< the full buffer has memory (its all-gather may still be in flight)
  CommWork m_pendingGather;  ///< gatherAsync's all-gather, until waited for
};

}  // namespace fathom::parallel
