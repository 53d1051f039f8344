// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

namespace fathom::calibrate {

/// One rank of a calibration, in a process the launcher started (RANK, WORLD_SIZE, MASTER_ADDR/PORT set): reads the
/// task that calibrate() wrote to `taskFile`, joins the group (Gloo on the CPU, NCCL on CUDA) and runs, in step with
/// every rank: the matmul rates for each processes x threads x dtype x shape (ranks below the process count measure
/// at once, the others wait at a barrier), the memory bandwidth (rank 0), and the collectives over 2..N ranks. Rank 0
/// writes progress.json as it goes and result.json at the end, next to the task file (data for calibrate(), not
/// text for people). Returns 0; throws the failure as ConfigError or Error, its message starting with the rank
/// ("calibration rank 1: ...") for the caller to print (the launcher shows a failed rank's last lines).
int runCalibrationWorker(const std::filesystem::path& taskFile);

}  // namespace fathom::calibrate
