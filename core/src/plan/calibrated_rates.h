// SPDX-License-Identifier: Apache-2.0
// Internal: the rates `fathom calibrate` measured (plan::HardwareCalibration), looked up for one rank of a plan: its
// processes per node and threads per process, and for a matmul its layout and inner dimension.
#pragma once

#include <fathom/plan/hardware_calibration.h>

#include <string>
#include <string_view>

namespace fathom::plan::detail {

/// The measured rates for one RankSetting. A setting the calibration did not measure takes the nearest measured one
/// (by |log P' − log P| + |log T' − log T|) scaled by the share of the cores each process gets,
/// min(1, cores / (P·T)), there and here: a process time-shares its cores in proportion (`matmulSetting()` says
/// which setting the matmul rates came from).
class CalibratedRates {
public:
  CalibratedRates(const HardwareCalibration& calibration, RankSetting setting);

  /// FLOP/s of one process for `dtype` matmuls in `layout` with inner dimension `k`: the measured rates at the
  /// setting, interpolated linearly in log k between the measured shapes (the nearest outside them). A layout the
  /// file lacks (written before layouts were measured) takes nn's rate; a dtype the file lacks takes bf16's for
  /// fp16 and fp8 (a CPU measures neither) and 0 when neither is there.
  double matmulFlops(std::string_view dtype, MatmulLayout layout, double k) const;
  /// Seconds per element of element-wise work; 0 when the file has no element-wise rates.
  double secondsPerElement() const;
  /// Seconds of one operator call's dispatch; 0 when not measured.
  double secondsPerCall() const;
  /// Seconds per parameter of an optimizer step ("adamw", "sgd"; Adam and SGD with momentum take the nearer of the
  /// two); 0 when not measured.
  double secondsPerParameter(std::string_view optimizer) const;

  /// The setting the rates are for, and the measured one the matmul rates were taken from.
  RankSetting setting() const { return m_setting; }
  RankSetting matmulSetting() const { return m_matmulSetting; }

private:
  /// The factor turning a rate measured at `from` into one at the requested setting (1 when they are the same).
  double speedup(RankSetting from) const;

  const HardwareCalibration& m_calibration;
  RankSetting m_setting;
  RankSetting m_matmulSetting;  ///< the measured setting the matmul rates are taken from
};

}  // namespace fathom::plan::detail
