// SPDX-License-Identifier: Apache-2.0
// Shared fixtures for the planner tests: a hardware spec built in code (no preset files involved) and model
// shapes from the papers.
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>

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

}  // namespace plantest
