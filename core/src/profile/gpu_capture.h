// SPDX-License-Identifier: Apache-2.0
// The Profiler's GPU side: a CuptiTracer started and stopped with the collectors, and the window's GPU rows
// linked to the CPU operators and collectives that launched them. Private to core/profile.
#pragma once

#include <memory>
#include <string>

namespace fathom::profile {
struct WindowData;
}

namespace fathom::profile::detail {

class GpuCapture {
public:
  /// Empty when GPU activity can be traced here; otherwise why not ("no CUDA driver: ...").
  static std::string unavailableReason();

  /// Loads CUPTI and installs the external-correlation hooks. `status` receives a line for the trace's metadata.
  explicit GpuCapture(std::string& status);
  ~GpuCapture();
  GpuCapture(const GpuCapture&) = delete;
  GpuCapture& operator=(const GpuCapture&) = delete;

  /// Starts / stops CUPTI's activity collection (with the CPU collectors).
  void start();
  void stop();
  /// Drains the activity records of the window that just ended and makes `window` emit its GPU rows (kernels,
  /// copies, runtime calls, ac2g flows) and count them in its stats.
  void finishWindow(WindowData& window);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::profile::detail
