// SPDX-License-Identifier: Apache-2.0
// Synthetic GPU activity and a sink that keeps what GpuTraceBuilder emits as comparable text, for
// tst_gpu_trace_builder and the GPU capture in tst_cupti_tracer.
#pragma once

#include <fathom/profile/cupti/gpu_activity.h>
#include <fathom/profile/cupti/gpu_trace_builder.h>
#include <fathom/trace/trace_event.h>

#include <QString>
#include <QStringList>

#include <string_view>
#include <vector>

namespace gpu_test {

using namespace fathom::profile;
using namespace fathom::trace;

inline GpuActivity kernel(std::uint32_t correlation, std::int64_t start, std::int64_t end, std::uint32_t device = 0,
                          std::uint32_t stream = 7, std::string_view name = "sm90_gemm") {
  GpuActivity a;
  a.kind = GpuActivityKind::Kernel;
  a.startNs = start;
  a.endNs = end;
  a.device = DeviceIndex{device};
  a.context = ContextId{1};
  a.stream = StreamId{stream};
  a.correlation = CorrelationId{correlation};
  a.name = name;
  KernelInfo info;
  info.grid = {132, 1, 1};
  info.block = {128, 1, 1};
  info.registersPerThread = 32;
  info.staticSharedMemory = 1024;
  info.dynamicSharedMemory = 2048;
  a.detail = info;
  return a;
}

inline GpuActivity api(GpuActivityKind kind, std::uint32_t correlation, std::int64_t start, std::int64_t end,
                       std::uint32_t cuptiThread = 0x5A5A0700u, std::uint32_t cbid = 211,
                       std::string_view name = "cudaLaunchKernel") {
  GpuActivity a;
  a.kind = kind;
  a.startNs = start;
  a.endNs = end;
  a.correlation = CorrelationId{correlation};
  a.name = name;
  ApiInfo info;
  info.cbid = cbid;
  info.processId = 4242;
  info.threadId = CuptiThreadId{cuptiThread};
  a.detail = info;
  return a;
}

inline GpuActivity runtime(std::uint32_t correlation, std::int64_t start, std::int64_t end,
                           std::uint32_t cuptiThread = 0x5A5A0700u, std::uint32_t cbid = 211,
                           std::string_view name = "cudaLaunchKernel") {
  return api(GpuActivityKind::Runtime, correlation, start, end, cuptiThread, cbid, name);
}

inline GpuActivity external(std::uint32_t correlation, std::uint64_t externalId,
                            ExternalKind kind = ExternalKind::Custom0) {
  GpuActivity a;
  a.kind = GpuActivityKind::ExternalCorrelation;
  a.correlation = CorrelationId{correlation};
  a.detail = ExternalCorrelationInfo{kind, ExternalId{externalId}};
  return a;
}

/// What the sink saw, one line per event: "X|kernel|name|pid/tid|start+dur|key=value,..." (flows carry id=N;
/// metadata M|Trace|process_name|pid/tid|...).
class RecordingSink {
public:
  GpuTraceBuilder::Sink sink() {
    return [this](const TraceEvent& event) { lines.append(format(event)); };
  }
  /// Lines whose category field equals `category` (e.g. "kernel", "ac2g", "Trace").
  QStringList withCategory(const QString& category) const {
    QStringList out;
    for (const QString& line : lines) {
      if (line.section(u'|', 1, 1) == category) {
        out.append(line);
      }
    }
    return out;
  }
  static QString format(const TraceEvent& event) {
    QStringList args;
    for (const TraceArg& arg : event.args) {
      QString value;
      switch (arg.type) {
      case TraceArg::Type::Int: value = QString::number(arg.i); break;
      case TraceArg::Type::Double: value = QString::number(arg.d, 'g', 10); break;
      case TraceArg::Type::String:
      case TraceArg::Type::Json: value = QString::fromUtf8(arg.s.data(), qsizetype(arg.s.size())); break;
      case TraceArg::Type::Bool: value = arg.i != 0 ? QStringLiteral("true") : QStringLiteral("false"); break;
      }
      args.append(QString::fromUtf8(arg.key.data(), qsizetype(arg.key.size())) + u'=' + value);
    }
    QString line = QString(QChar::fromLatin1(static_cast<char>(event.phase))) + u'|' +
                   QString::fromUtf8(toString(event.category).data(), qsizetype(toString(event.category).size())) +
                   u'|' + QString::fromUtf8(event.name.data(), qsizetype(event.name.size())) + u'|' +
                   QString::number(event.pid) + u'/' + QString::number(event.tid) + u'|' +
                   QString::number(event.startNs);
    if (event.phase == TracePhase::Complete) {
      line += u'+' + QString::number(event.durationNs);
    }
    if (event.phase == TracePhase::FlowStart || event.phase == TracePhase::FlowEnd) {
      line += QStringLiteral("|id=") + QString::number(event.id);
    }
    if (!args.isEmpty()) {
      line += u'|' + args.join(u',');
    }
    return line;
  }

  QStringList lines;
};

}  // namespace gpu_test
