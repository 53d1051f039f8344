// SPDX-License-Identifier: Apache-2.0
#include "hardware_calibration_yaml.h"

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace fathom::plan {

double busBandwidthFactor(CollectiveKind kind, int ranks) {
  const double n = std::max(ranks, 1);
  switch (kind) {
  case CollectiveKind::AllReduce: return 2.0 * (n - 1) / n;
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter: return (n - 1) / n;
  case CollectiveKind::Broadcast:
  case CollectiveKind::SendRecv: return 1.0;
  }
  return 1.0;
}

const char* toString(MatmulLayout layout) {
  switch (layout) {
  case MatmulLayout::NN: return "nn";
  case MatmulLayout::NT: return "nt";
  case MatmulLayout::TN: return "tn";
  }
  return "nn";
}

std::optional<MatmulLayout> parseMatmulLayout(std::string_view name) {
  for (MatmulLayout l : {MatmulLayout::NN, MatmulLayout::NT, MatmulLayout::TN}) {
    if (name == toString(l)) {
      return l;
    }
  }
  return std::nullopt;
}

double CollectiveFit::predictSeconds(double bytes) const {
  return predictSeconds(bytes, ranks);
}

double CollectiveFit::predictSeconds(double bytes, int groupRanks) const {
  double a = alpha;
  double b = beta;
  for (const Segment& s : segments) {
    if (&s == &segments.front() || static_cast<double>(s.fromBytes) <= bytes) {
      a = s.alpha;
      b = s.beta;
    }
  }
  const double steps = ranks > 1 ? static_cast<double>(std::max(groupRanks, 2) - 1) / (ranks - 1) : 1.0;
  return a * steps + busBandwidthFactor(kind, groupRanks) * bytes / b;
}

double HardwareCalibration::matmulFlops(std::string_view dtype, int processes, int threads) const {
  double best = 0.0;
  for (const auto& r : matmul) {
    if (r.dtype == dtype && r.processes == processes && r.threads == threads) {
      best = std::max(best, r.flops);
    }
  }
  return best;
}

const CollectiveFit* HardwareCalibration::collective(CollectiveKind kind, int ranks) const {
  for (const auto& c : collectives) {
    if (c.kind == kind && c.ranks == ranks) {
      return &c;
    }
  }
  return nullptr;
}

double RunFit::collectiveFactor(CollectiveKind kind) const {
  for (const Collective& c : collectives) {
    if (c.kind == kind) {
      return c.factor;
    }
  }
  return 1.0;
}

const std::array<RunFit::OperatorClass, 4>& RunFit::operatorClasses() {
  static const std::array<OperatorClass, 4> classes = {
      OperatorClass{"matmul", &RunFit::matmul}, OperatorClass{"attention", &RunFit::attention},
      OperatorClass{"elementwise", &RunFit::elementwise}, OperatorClass{"optimizer", &RunFit::optimizer}};
  return classes;
}

std::vector<RunFit::NamedFactor> RunFit::factors() const {
  std::vector<NamedFactor> out;
  for (const auto& [name, member] : operatorClasses()) {
    out.push_back({name, this->*member});
  }
  for (const Collective& c : collectives) {
    out.push_back({toString(c.kind), c.factor});
  }
  return out;
}

namespace calibration_yaml {
namespace {

constexpr std::array kCalibratedKinds = {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                                         CollectiveKind::ReduceScatter, CollectiveKind::Broadcast};

/// Reads one section of the file; every message names the file and the key's full path.
class Reader {
public:
  explicit Reader(const std::string& origin) : m_origin(origin) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ConfigError(fathom::detail::concat(m_origin, ": 'calibration", key.empty() ? "" : ".", key, "' ", what));
  }

  void requireMap(const YAML::Node& node, const std::string& key) const {
    if (!node || !node.IsMap()) {
      fail(key, "must be a map");
    }
  }

  std::string text(const YAML::Node& node, const std::string& key, bool required) const {
    if (!node || node.IsNull()) {
      if (required) {
        fail(key, "is missing");
      }
      return {};
    }
    if (!node.IsScalar()) {
      fail(key, "must be a string");
    }
    if (!isValidUtf8(node.Scalar())) {
      fail(key, "is not UTF-8 text");
    }
    return node.Scalar();
  }

  std::string oneOf(const YAML::Node& node, const std::string& key, std::initializer_list<const char*> allowed) const {
    const std::string value = text(node, key, true);
    std::string list;
    for (const char* a : allowed) {
      if (value == a) {
        return value;
      }
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    fail(key, fathom::detail::concat("must be one of ", list, ", got '", terminalSafe(value), "'"));
  }

  /// A finite number >= low (> low when `strictly`).
  double number(const YAML::Node& node, const std::string& key, double low, bool strictly) const {
    if (!node || node.IsNull()) {
      fail(key, "is missing");
    }
    double value = 0.0;
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      fail(key, fathom::detail::concat("must be a number, got '",
                                       terminalSafe(node.IsScalar() ? node.Scalar()
                                                                    : "a "
                                                                      "collection"),
                                       "'"));
    }
    if (!std::isfinite(value) || value < low || (strictly && value == low)) {
      fail(key, fathom::detail::concat("must be a finite number ", strictly ? "> " : ">= ", low, ", got ",
                                       fathom::detail::numberText(value)));
    }
    return value;
  }

  template <typename T> T whole(const YAML::Node& node, const std::string& key, T low) const {
    const double value = number(node, key, -1e300, false);
    return checkedNarrow<T>(value, fathom::detail::concat(m_origin, ": 'calibration.", key, "'"), low);
  }

  const std::string& origin() const { return m_origin; }

private:
  const std::string& m_origin;
};

/// "YYYY-MM-DDTHH:MM:SSZ", as `fathom calibrate` writes it.
bool isUtcTimestamp(const std::string& s) {
  static constexpr std::string_view kPattern = "dddd-dd-ddTdd:dd:ddZ";
  if (s.size() != kPattern.size()) {
    return false;
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool ok = kPattern[i] == 'd' ? std::isdigit(static_cast<unsigned char>(s[i])) != 0 : s[i] == kPattern[i];
    if (!ok) {
      return false;
    }
  }
  return true;
}

CollectiveKind kindFrom(const Reader& r, const YAML::Node& node, const std::string& key) {
  const std::string value = r.text(node, key, true);
  for (CollectiveKind k : kCalibratedKinds) {
    if (value == toString(k)) {
      return k;
    }
  }
  r.fail(key, fathom::detail::concat("must be all_reduce, all_gather, reduce_scatter or broadcast, got '",
                                     terminalSafe(value), "'"));
}

MatmulRate matmulRate(const Reader& r, const YAML::Node& node, const std::string& key) {
  r.requireMap(node, key);
  MatmulRate m;
  m.dtype = r.oneOf(node["dtype"], key + ".dtype", {"fp32", "tf32", "fp16", "bf16"});
  if (node["layout"]) {  // absent in files written before layouts were measured: the plain product
    m.layout = *parseMatmulLayout(r.oneOf(node["layout"], key + ".layout", {"nn", "nt", "tn"}));
  }
  m.processes = r.whole<int>(node["processes"], key + ".processes", 1);
  m.threads = r.whole<int>(node["threads"], key + ".threads", 1);
  m.m = r.whole<std::int64_t>(node["m"], key + ".m", 1);
  m.k = r.whole<std::int64_t>(node["k"], key + ".k", 1);
  m.n = r.whole<std::int64_t>(node["n"], key + ".n", 1);
  m.flops = r.number(node["flops"], key + ".flops", 0.0, true);
  return m;
}

ElementwiseRate elementwiseRate(const Reader& r, const YAML::Node& node, const std::string& key) {
  r.requireMap(node, key);
  ElementwiseRate e;
  e.processes = r.whole<int>(node["processes"], key + ".processes", 1);
  e.threads = r.whole<int>(node["threads"], key + ".threads", 1);
  e.secondsPerElement = r.number(node["seconds_per_element"], key + ".seconds_per_element", 0.0, true);
  e.secondsPerCall = r.number(node["seconds_per_call"], key + ".seconds_per_call", 0.0, true);
  return e;
}

OptimizerRate optimizerRate(const Reader& r, const YAML::Node& node, const std::string& key) {
  r.requireMap(node, key);
  OptimizerRate o;
  o.name = r.oneOf(node["name"], key + ".name", {"adamw", "sgd"});
  o.processes = r.whole<int>(node["processes"], key + ".processes", 1);
  o.threads = r.whole<int>(node["threads"], key + ".threads", 1);
  o.secondsPerParameter = r.number(node["seconds_per_parameter"], key + ".seconds_per_parameter", 0.0, true);
  return o;
}

/// The optional list `name` of rows read by `row` (absent in files written before it was measured).
template <typename Row, typename ReadRow>
std::vector<Row> optionalRows(const Reader& r, const YAML::Node& node, const char* name, ReadRow row) {
  std::vector<Row> rows;
  const YAML::Node list = node[name];
  if (!list || list.IsNull()) {
    return rows;
  }
  if (!list.IsSequence()) {
    r.fail(name, "must be a list of measured rates");
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    rows.push_back(row(r, list[i], fathom::detail::concat(name, "[", i, "]")));
  }
  return rows;
}

CollectiveFit collectiveFit(const Reader& r, const YAML::Node& node, const std::string& key) {
  r.requireMap(node, key);
  CollectiveFit c;
  c.kind = kindFrom(r, node["kind"], key + ".kind");
  c.ranks = r.whole<int>(node["ranks"], key + ".ranks", 2);
  c.alpha = r.number(node["alpha"], key + ".alpha", 0.0, false);
  c.beta = r.number(node["beta"], key + ".beta", 0.0, true);
  c.path = r.text(node["path"], key + ".path", false);
  if (const YAML::Node segments = node["segments"]; segments && !segments.IsNull()) {
    if (!segments.IsSequence()) {
      r.fail(key + ".segments", "must be a list of {from_bytes, alpha, beta}");
    }
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const std::string sk = fathom::detail::concat(key, ".segments[", i, "]");
      r.requireMap(segments[i], sk);
      CollectiveFit::Segment seg;
      seg.fromBytes = r.whole<std::int64_t>(segments[i]["from_bytes"], sk + ".from_bytes", 0);
      seg.alpha = r.number(segments[i]["alpha"], sk + ".alpha", 0.0, false);
      seg.beta = r.number(segments[i]["beta"], sk + ".beta", 0.0, true);
      if (!c.segments.empty() && seg.fromBytes <= c.segments.back().fromBytes) {
        r.fail(sk + ".from_bytes", fathom::detail::concat("must grow from segment to segment, got ", seg.fromBytes,
                                                          " after ", c.segments.back().fromBytes));
      }
      c.segments.push_back(seg);
    }
  }
  const YAML::Node points = node["points"];
  if (!points || !points.IsSequence() || points.size() == 0) {
    r.fail(key + ".points", "must be a non-empty list of [bytes, seconds] pairs");
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string pk = fathom::detail::concat(key, ".points[", i, "]");
    const YAML::Node p = points[i];
    if (!p.IsSequence() || p.size() != 2) {
      r.fail(pk, "must be a [bytes, seconds] pair");
    }
    c.points.push_back({r.whole<std::int64_t>(p[0], pk + "[0]", 1), r.number(p[1], pk + "[1]", 0.0, true)});
  }
  return c;
}

RunFit runFit(const Reader& r, const YAML::Node& node) {
  const std::string key = "run_fit";
  r.requireMap(node, key);
  RunFit f;
  f.fittedAt = r.text(node["fitted_at"], key + ".fitted_at", true);
  if (!isUtcTimestamp(f.fittedAt)) {
    r.fail(key + ".fitted_at",
           fathom::detail::concat("must be a UTC time as YYYY-MM-DDTHH:MM:SSZ, got '", terminalSafe(f.fittedAt), "'"));
  }
  f.run = r.whole<std::int64_t>(node["run"], key + ".run", 1);
  f.runName = r.text(node["run_name"], key + ".run_name", false);
  f.processes = r.whole<int>(node["processes"], key + ".processes", 1);
  f.threads = r.whole<int>(node["threads"], key + ".threads", 1);
  f.ranks = r.whole<int>(node["ranks"], key + ".ranks", 1);
  f.steps = r.whole<int>(node["steps"], key + ".steps", 1);
  f.measuredStepS = r.number(node["measured_step_s"], key + ".measured_step_s", 0.0, true);
  const YAML::Node factors = node["factors"];
  r.requireMap(factors, key + ".factors");
  for (const auto& [name, member] : RunFit::operatorClasses()) {
    const std::string k(name);
    f.*member = r.number(factors[k], key + ".factors." + k, 0.0, true);
  }
  f.overheadPerMicroStepS = r.number(node["overhead_per_micro_step_s"], key + ".overhead_per_micro_step_s", 0.0, false);
  const YAML::Node collectives = node["collectives"];
  if (collectives && !collectives.IsNull()) {
    if (!collectives.IsSequence()) {
      r.fail(key + ".collectives", "must be a list of {kind, ranks, factor, calls_per_step}");
    }
    for (std::size_t i = 0; i < collectives.size(); ++i) {
      const std::string ck = fathom::detail::concat(key, ".collectives[", i, "]");
      r.requireMap(collectives[i], ck);
      RunFit::Collective c;
      c.kind = kindFrom(r, collectives[i]["kind"], ck + ".kind");
      c.ranks = r.whole<int>(collectives[i]["ranks"], ck + ".ranks", 1);
      c.factor = r.number(collectives[i]["factor"], ck + ".factor", 0.0, true);
      c.callsPerStep = r.whole<std::int64_t>(collectives[i]["calls_per_step"], ck + ".calls_per_step", 0);
      for (const RunFit::Collective& seen : f.collectives) {
        if (seen.kind == c.kind) {
          r.fail(ck, fathom::detail::concat("repeats ", toString(c.kind)));
        }
      }
      f.collectives.push_back(c);
    }
  }
  return f;
}

void emitRunFit(YAML::Emitter& out, const RunFit& f) {
  out << YAML::Key << "run_fit" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "fitted_at" << YAML::Value << f.fittedAt;
  out << YAML::Key << "run" << YAML::Value << f.run;
  out << YAML::Key << "run_name" << YAML::Value << YAML::DoubleQuoted << f.runName;
  out << YAML::Key << "processes" << YAML::Value << f.processes;
  out << YAML::Key << "threads" << YAML::Value << f.threads;
  out << YAML::Key << "ranks" << YAML::Value << f.ranks;
  out << YAML::Key << "steps" << YAML::Value << f.steps;
  out << YAML::Key << "measured_step_s" << YAML::Value << f.measuredStepS;
  out << YAML::Key << "factors" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const auto& [name, member] : RunFit::operatorClasses()) {
    out << YAML::Key << std::string(name) << YAML::Value << f.*member;
  }
  out << YAML::EndMap;
  out << YAML::Key << "overhead_per_micro_step_s" << YAML::Value << f.overheadPerMicroStepS;
  out << YAML::Key << "collectives" << YAML::Value << YAML::BeginSeq;
  for (const RunFit::Collective& c : f.collectives) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << toString(c.kind) << YAML::Key
        << "ranks" << YAML::Value << c.ranks << YAML::Key << "factor" << YAML::Value << c.factor << YAML::Key
        << "calls_per_step" << YAML::Value << c.callsPerStep << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

}  // namespace

HardwareCalibration parseCalibration(const YAML::Node& node, const std::string& origin) {
  const Reader r(origin);
  r.requireMap(node, "");
  HardwareCalibration c;
  try {
    c.measuredAt = r.text(node["measured_at"], "measured_at", true);
    if (!isUtcTimestamp(c.measuredAt)) {
      r.fail("measured_at", fathom::detail::concat("must be a UTC time as YYYY-MM-DDTHH:MM:SSZ, got '",
                                                   terminalSafe(c.measuredAt), "'"));
    }
    c.host = r.text(node["host"], "host", true);
    c.device = r.oneOf(node["device"], "device", {"cpu", "cuda"});
    c.deviceName = r.text(node["device_name"], "device_name", false);
    c.backend = r.oneOf(node["backend"], "backend", {"gloo", "nccl"});
    c.mode = r.oneOf(node["mode"], "mode", {"quick", "default", "thorough"});
    c.cpuCores = r.whole<int>(node["cpu_cores"], "cpu_cores", 1);
    c.seconds = r.number(node["seconds"], "seconds", 0.0, false);

    const YAML::Node matmul = node["matmul"];
    if (!matmul || !matmul.IsSequence() || matmul.size() == 0) {
      r.fail("matmul", "must be a non-empty list of measured rates");
    }
    for (std::size_t i = 0; i < matmul.size(); ++i) {
      c.matmul.push_back(matmulRate(r, matmul[i], fathom::detail::concat("matmul[", i, "]")));
    }
    const YAML::Node memory = node["memory_bandwidth"];
    r.requireMap(memory, "memory_bandwidth");
    c.memoryCopyBandwidth = r.number(memory["copy"], "memory_bandwidth.copy", 0.0, true);
    c.memoryAddBandwidth = r.number(memory["add"], "memory_bandwidth.add", 0.0, true);

    c.elementwise = optionalRows<ElementwiseRate>(r, node, "elementwise", elementwiseRate);
    c.optimizer = optionalRows<OptimizerRate>(r, node, "optimizer", optimizerRate);
    if (const YAML::Node fit = node["run_fit"]; fit && !fit.IsNull()) {
      c.runFit = runFit(r, fit);
    }

    const YAML::Node collectives = node["collectives"];
    if (!collectives || !collectives.IsSequence()) {
      r.fail("collectives", "must be a list of alpha-beta fits");
    }
    for (std::size_t i = 0; i < collectives.size(); ++i) {
      CollectiveFit fit = collectiveFit(r, collectives[i], fathom::detail::concat("collectives[", i, "]"));
      if (c.collective(fit.kind, fit.ranks) != nullptr) {
        r.fail(fathom::detail::concat("collectives[", i, "]"),
               fathom::detail::concat("repeats ", toString(fit.kind), " at ", fit.ranks, " ranks"));
      }
      c.collectives.push_back(std::move(fit));
    }
  } catch (const YAML::Exception& e) {
    throw ConfigError(fathom::detail::concat(origin, ": 'calibration' is malformed: ", e.what()));
  }
  return c;
}

void emitCalibration(YAML::Emitter& out, const HardwareCalibration& c) {
  out << YAML::BeginMap;
  out << YAML::Key << "measured_at" << YAML::Value << c.measuredAt;
  out << YAML::Key << "host" << YAML::Value << YAML::DoubleQuoted << c.host;
  out << YAML::Key << "device" << YAML::Value << c.device;
  out << YAML::Key << "device_name" << YAML::Value << YAML::DoubleQuoted << c.deviceName;
  out << YAML::Key << "backend" << YAML::Value << c.backend;
  out << YAML::Key << "mode" << YAML::Value << c.mode;
  out << YAML::Key << "cpu_cores" << YAML::Value << c.cpuCores;
  out << YAML::Key << "seconds" << YAML::Value << c.seconds;
  out << YAML::Key << "matmul" << YAML::Value << YAML::BeginSeq;
  for (const auto& m : c.matmul) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "dtype" << YAML::Value << m.dtype << YAML::Key << "layout"
        << YAML::Value << toString(m.layout) << YAML::Key << "processes" << YAML::Value << m.processes << YAML::Key
        << "threads" << YAML::Value << m.threads << YAML::Key << "m" << YAML::Value << m.m << YAML::Key << "k"
        << YAML::Value << m.k << YAML::Key << "n" << YAML::Value << m.n << YAML::Key << "flops" << YAML::Value
        << m.flops << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "memory_bandwidth" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "copy" << YAML::Value << c.memoryCopyBandwidth;
  out << YAML::Key << "add" << YAML::Value << c.memoryAddBandwidth;
  out << YAML::EndMap;
  out << YAML::Key << "elementwise" << YAML::Value << YAML::BeginSeq;
  for (const auto& e : c.elementwise) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "processes" << YAML::Value << e.processes << YAML::Key
        << "threads" << YAML::Value << e.threads << YAML::Key << "seconds_per_element" << YAML::Value
        << e.secondsPerElement << YAML::Key << "seconds_per_call" << YAML::Value << e.secondsPerCall << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "optimizer" << YAML::Value << YAML::BeginSeq;
  for (const auto& o : c.optimizer) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << o.name << YAML::Key << "processes"
        << YAML::Value << o.processes << YAML::Key << "threads" << YAML::Value << o.threads << YAML::Key
        << "seconds_per_parameter" << YAML::Value << o.secondsPerParameter << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "collectives" << YAML::Value << YAML::BeginSeq;
  for (const auto& f : c.collectives) {
    out << YAML::BeginMap;
    out << YAML::Key << "kind" << YAML::Value << toString(f.kind);
    out << YAML::Key << "ranks" << YAML::Value << f.ranks;
    out << YAML::Key << "alpha" << YAML::Value << f.alpha;
    out << YAML::Key << "beta" << YAML::Value << f.beta;
    if (!f.path.empty()) {
      out << YAML::Key << "path" << YAML::Value << f.path;
    }
    if (!f.segments.empty()) {
      out << YAML::Key << "segments" << YAML::Value << YAML::BeginSeq;
      for (const auto& seg : f.segments) {
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "from_bytes" << YAML::Value << seg.fromBytes << YAML::Key
            << "alpha" << YAML::Value << seg.alpha << YAML::Key << "beta" << YAML::Value << seg.beta << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    out << YAML::Key << "points" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : f.points) {
      out << YAML::Flow << YAML::BeginSeq << p.bytes << p.seconds << YAML::EndSeq;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (c.runFit) {
    emitRunFit(out, *c.runFit);
  }
  out << YAML::EndMap;
}

}  // namespace calibration_yaml
}  // namespace fathom::plan
