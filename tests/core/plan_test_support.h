// SPDX-License-Identifier: Apache-2.0
// Shared fixtures for the planner tests: a hardware spec built in code (no preset files involved) and model
// shapes from the papers.
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <utility>

namespace plantest {

/// A device large enough that nothing in a test runs out of memory; links with round numbers.
inline fathom::plan::HardwareSpec bigDevice() {
  fathom::plan::HardwareSpec hw;
  hw.name = "test-device";
  hw.memoryBytes = 1LL << 50;
  hw.peak.fp32 = 100e12;
  hw.peak.fp16 = 312e12;
  hw.peak.bf16 = 312e12;
  hw.memoryBandwidth = 2e12;
  hw.gpusPerNode = 8;
  hw.intraNode = {100e9, 1e-6};
  hw.interNode = {10e9, 1e-5};
  hw.hostMemoryBytes = 1LL << 50;
  hw.hostToDeviceBandwidth = 20e9;
  return hw;
}

/// GPT-style model as in Korthikanti et al. Table 3 (s = 2048, v = 51200).
inline fathom::plan::ModelSpec gptModel(long long layers, long long hidden, long long heads) {
  fathom::plan::TransformerDims d;
  d.arch = fathom::plan::Arch::Gpt;
  d.layers = layers;
  d.hidden = hidden;
  d.heads = heads;
  d.vocab = 51200;
  d.maxPositions = 2048;
  return fathom::plan::modelFromDims(d);
}

/// The built-in gpt-tiny (h 64, 2 layers, 2 heads, vocab 128, 64 positions, tied) as models::introspectModel
/// describes it, written out by hand: each parameter tensor in registration order (wte 128·64, wpe 64·64, per block
/// ln_1 64+64, c_attn 64·192+192, c_proj 64·64+64, ln_2 64+64, c_fc 64·256+256, mlp c_proj 256·64+64 = 49,984,
/// ln_f 64+64) and the two blocks. Total 112,384 = 2·49,984 + 12,416 outside the blocks.
inline fathom::plan::ModelSpec gptTiny() {
  fathom::plan::TransformerDims d;
  d.arch = fathom::plan::Arch::Gpt;
  d.layers = 2;
  d.hidden = 64;
  d.heads = 2;
  d.vocab = 128;
  d.maxPositions = 64;
  d.dropout = false;
  fathom::plan::ModelSpec m = fathom::plan::modelFromDims(d, "gpt-tiny");
  const std::vector<std::int64_t> block{64, 64, 12288, 192, 4096, 64, 64, 64, 16384, 256, 16384, 64};
  m.parameterTensors = {8192, 4096};
  for (int layer = 0; layer < 2; ++layer) {
    m.parameterTensors.insert(m.parameterTensors.end(), block.begin(), block.end());
  }
  m.parameterTensors.push_back(64);
  m.parameterTensors.push_back(64);
  m.blockElements = {49984, 49984};
  return m;
}

/// A 2-core CPU measured at 1 process x 2 threads and 2 processes x 1 thread, with layout rates in the ratio
/// Debian's reference BLAS shows (nt slower): round numbers, so the expected times are plain arithmetic.
inline fathom::plan::HardwareSpec calibratedCpu() {
  fathom::plan::HardwareCalibration c;
  c.measuredAt = "2026-11-28T10:00:00Z";
  c.host = "test";
  c.device = "cpu";
  c.backend = "gloo";
  c.mode = "default";
  c.cpuCores = 2;
  for (auto [p, t] : {std::pair{1, 2}, std::pair{2, 1}}) {
    c.matmul.push_back({"fp32", fathom::plan::MatmulLayout::NT, p, t, 256, 256, 1024, 1e9});
    c.matmul.push_back({"fp32", fathom::plan::MatmulLayout::NN, p, t, 256, 256, 1024, 2e9});
    c.matmul.push_back({"fp32", fathom::plan::MatmulLayout::TN, p, t, 256, 256, 1024, 4e9});
    c.elementwise.push_back({p, t, 1e-9, 1e-6});
    c.optimizer.push_back({"adamw", p, t, 2e-9});
    c.optimizer.push_back({"sgd", p, t, 5e-10});
  }
  c.memoryCopyBandwidth = 2e10;
  c.memoryAddBandwidth = 2e10;
  fathom::plan::CollectiveFit allReduce;
  allReduce.kind = fathom::plan::CollectiveKind::AllReduce;
  allReduce.ranks = 2;
  allReduce.alpha = 2e-4;
  allReduce.beta = 1e9;
  allReduce.points = {{1024, 2e-4}, {1 << 20, 1.2e-3}};
  c.collectives.push_back(allReduce);

  fathom::plan::HardwareSpec hw = bigDevice();
  hw.name = "this-machine";
  hw.device = fathom::plan::DeviceKind::Cpu;
  hw.gpusPerNode = 2;
  hw.peak = {};
  hw.peak.fp32 = 1e9;
  hw.calibration = c;
  return hw;
}

/// A CPU data-parallel plan of `ranks` processes on one node, micro-batch 2 x 64 tokens, fp32.
inline fathom::plan::Plan cpuPlan(int ranks, fathom::plan::Strategy strategy = fathom::plan::Strategy::Ddp) {
  fathom::plan::Plan p;
  p.strategy = strategy;
  p.numGpus = ranks;
  p.gpusPerNode = ranks;
  p.microBatch = 2;
  p.seqLen = 64;
  p.precision = fathom::plan::Precision::Fp32;
  return p;
}

}  // namespace plantest
