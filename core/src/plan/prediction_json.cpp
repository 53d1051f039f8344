// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/prediction_json.h>

#include <fathom/common/error.h>
#include <fathom/common/json_input.h>
#include <fathom/plan/plan_json.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <concepts>
#include <string>
#include <utility>

namespace fathom::plan {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::int64_t whole(double bytes) {
  return static_cast<std::int64_t>(std::llround(bytes));
}

std::string_view nameOf(Arch v) {
  return archName(v);
}
std::string_view nameOf(CollectiveKind v) {
  return toString(v);
}
std::string_view nameOf(Scope v) {
  return toString(v);
}
std::string_view nameOf(DeviceKind v) {
  return toString(v);
}

/// The enumerator of `E` spelled `text` (every value 0..last is tried), or ConfigError.
template <typename E> E enumNamed(const std::string& text, E last, std::string_view where) {
  for (int i = 0; i <= static_cast<int>(last); ++i) {
    if (nameOf(static_cast<E>(i)) == text) {
      return static_cast<E>(i);
    }
  }
  throw ConfigError(detail::concat(where, ": unknown name '", text, "'"));
}
void assign(const std::string& text, Arch& v, std::string_view where) {
  (void)where;
  v = parseArch(text);
}
void assign(const std::string& text, CollectiveKind& v, std::string_view where) {
  v = enumNamed(text, CollectiveKind::SendRecv, where);
}
void assign(const std::string& text, Scope& v, std::string_view where) {
  v = enumNamed(text, Scope::InterNode, where);
}
void assign(const std::string& text, DeviceKind& v, std::string_view where) {
  v = enumNamed(text, DeviceKind::Cpu, where);
}

/// Writes a report's fields (see describe()).
class Writer {
public:
  explicit Writer(ordered_json& out) : m_out(out) {}

  void number(std::string_view key, double v) { m_out[std::string(key)] = v; }
  void bytes(std::string_view key, double v) { m_out[std::string(key)] = whole(v); }
  /// Written for readers of the JSON, not read back (it follows from the other fields).
  void derivedBytes(std::string_view key, double v) { bytes(key, v); }
  template <std::integral I> void integer(std::string_view key, I v) { m_out[std::string(key)] = v; }
  void flag(std::string_view key, bool v) { m_out[std::string(key)] = v; }
  void text(std::string_view key, const std::string& v) { m_out[std::string(key)] = v; }
  void texts(std::string_view key, const std::vector<std::string>& v) { m_out[std::string(key)] = v; }
  template <typename E> void name(std::string_view key, E v) { m_out[std::string(key)] = std::string(nameOf(v)); }
  /// The plan's applicable fields (plan_json.h), in place.
  void planFields(const Plan& plan) {
    const ordered_json fields = toJson(plan, PlanFields::Applicable);
    for (const auto& [key, value] : fields.items()) {
      m_out[key] = value;
    }
  }
  template <typename F> void object(std::string_view key, F&& fields) {
    ordered_json o = ordered_json::object();
    Writer w(o);
    fields(w);
    m_out[std::string(key)] = std::move(o);
  }
  /// An array of objects; left out when `items` is empty and `omitEmpty` is set.
  template <typename T, typename F>
  void array(std::string_view key, const std::vector<T>& items, F&& fields, bool omitEmpty = false) {
    if (items.empty() && omitEmpty) {
      return;
    }
    ordered_json a = ordered_json::array();
    for (const T& item : items) {
      ordered_json o = ordered_json::object();
      Writer w(o);
      fields(w, item);
      a.push_back(std::move(o));
    }
    m_out[std::string(key)] = std::move(a);
  }

private:
  ordered_json& m_out;
};

/// Reads the fields Writer wrote; absent (or null) keys keep their values.
class Reader {
public:
  Reader(const json& in, std::string origin) : m_in(in), m_origin(std::move(origin)) {}

  void number(std::string_view key, double& v) {
    if (const json* j = find(key)) {
      require(j->is_number(), key, *j);
      v = j->get<double>();
    }
  }
  void bytes(std::string_view key, double& v) { number(key, v); }
  void derivedBytes(std::string_view, double) {}
  template <std::integral I> void integer(std::string_view key, I& v) {
    if (const json* j = find(key)) {
      require(j->is_number_integer(), key, *j);
      v = j->get<I>();
    }
  }
  void flag(std::string_view key, bool& v) {
    if (const json* j = find(key)) {
      require(j->is_boolean(), key, *j);
      v = j->get<bool>();
    }
  }
  void text(std::string_view key, std::string& v) {
    if (const json* j = find(key)) {
      require(j->is_string(), key, *j);
      v = j->get<std::string>();
    }
  }
  void texts(std::string_view key, std::vector<std::string>& v) {
    if (const json* j = find(key)) {
      require(j->is_array(), key, *j);
      v.clear();
      for (const json& item : *j) {
        require(item.is_string(), key, item);
        v.push_back(item.get<std::string>());
      }
    }
  }
  template <typename E> void name(std::string_view key, E& v) {
    if (const json* j = find(key)) {
      require(j->is_string(), key, *j);
      assign(j->get<std::string>(), v, path(key));
    }
  }
  void planFields(Plan& plan) { plan = planFromJson(m_in, plan, m_origin); }
  template <typename F> void object(std::string_view key, F&& fields) {
    if (const json* j = find(key)) {
      require(j->is_object(), key, *j);
      Reader r(*j, path(key));
      fields(r);
    }
  }
  template <typename T, typename F> void array(std::string_view key, std::vector<T>& items, F&& fields, bool = false) {
    if (const json* j = find(key)) {
      require(j->is_array(), key, *j);
      items.assign(j->size(), T{});
      for (std::size_t i = 0; i < j->size(); ++i) {
        require((*j)[i].is_object(), key, (*j)[i]);
        Reader r((*j)[i], path(key) + "[" + std::to_string(i) + "]");
        fields(r, items[i]);
      }
    }
  }

private:
  const json* find(std::string_view key) const {
    const auto it = m_in.find(std::string(key));
    return it == m_in.end() || it->is_null() ? nullptr : &*it;
  }
  std::string path(std::string_view key) const { return m_origin + "." + std::string(key); }
  void require(bool ok, std::string_view key, const json& value) const {
    FATHOM_CHECK(ok, ConfigError, path(key), ": bad value '", quotedJson(value), "'");
  }

  const json& m_in;
  std::string m_origin;
};

/// The report's fields in the order `fathom plan --json` prints them: the one list both Writer and Reader walk. `R`
/// is PredictionReport or const PredictionReport.
template <typename A, typename R> void describe(A& a, R& r) {
  auto& p = r.prediction;
  a.object("model", [&](auto& o) {
    o.text("name", r.modelName);
    o.name("arch", r.modelArch);
    o.integer("total_params", p.totalParams);
    o.integer("largest_unit_params", p.largestUnitParams);
  });
  a.object("hardware", [&](auto& o) {
    o.text("name", r.hardwareName);
    o.name("device", r.hardwareDevice);
    o.integer("memory_bytes", r.hardwareMemoryBytes);
    o.text("source", r.hardwareSource);
  });
  a.object("plan", [&](auto& o) {
    o.planFields(r.plan);
    o.integer("data_parallel", p.dataParallel);
    o.integer("nodes", p.nodes);
    o.integer("seq", p.seqLen);
  });
  a.object("memory", [&](auto& o) {
    o.object("per_rank_bytes", [&](auto& m) {
      for (const auto& field : kMemoryBreakdownFields) {
        m.bytes(toString(field.category), p.memory.*field.member);
      }
      m.bytes("total", p.memory.total);
    });
    o.object("offloaded_per_rank_bytes", [&](auto& m) {
      for (const auto& field : kOffloadedFields) {
        m.bytes(toString(field.category), p.offloaded.*field.member);
      }
      m.derivedBytes("total", p.offloaded.total());
    });
    o.bytes("cpu_bytes_per_node", p.cpuBytesPerNode);
    o.bytes("device_bytes", p.deviceMemoryBytes);
    o.flag("fits", p.fits);
    o.bytes("headroom_bytes", p.headroomBytes);
  });
  a.object("communication", [&](auto& o) {
    o.array("collectives", p.communication.collectives, [](auto& e, auto& c) {
      e.name("kind", c.kind);
      e.text("purpose", c.purpose);
      e.bytes("bytes", c.bytes);
      e.integer("count", c.count);
      e.integer("group_size", c.groupSize);
      e.name("scope", c.scope);
      e.bytes("bytes_sent_per_rank", c.bytesSentPerRank);
      e.number("time_s", c.timeS);
      e.flag("overlapped", c.overlapped);
      e.flag("per_micro_step", c.perMicroStep);
    });
    o.bytes("bytes_per_rank_per_step", p.communication.bytesPerRankPerStep);
    o.number("time_s", p.communication.timeS);
  });
  a.object("compute", [&](auto& o) {
    o.number("model_flops_per_step", p.time.modelFlopsPerStep);
    o.number("hardware_flops_per_step", p.time.hardwareFlopsPerStep);
    o.number("peak_flops_per_gpu", p.time.peakFlopsPerGpu);
    o.number("tokens_per_step", p.time.tokensPerStep);
  });
  a.object("time", [&](auto& o) {
    o.number("step_s", p.time.stepS);
    o.number("tokens_per_s", p.time.tokensPerS);
    o.number("mfu", p.time.mfu);
    o.number("hfu", p.time.hfu);
    o.number("compute_s", p.time.computeS);
    o.number("bubble_s", p.time.bubbleS);
    o.number("comm_s", p.time.commS);
    o.number("exposed_comm_s", p.time.exposedCommS);
    o.number("offload_s", p.time.offloadS);
    o.number("overhead_s", p.time.overheadS);
    o.number("matmul_s", p.time.matmulS);
    o.number("attention_s", p.time.attentionS);
    o.number("elementwise_s", p.time.elementwiseS);
    o.number("optimizer_s", p.time.optimizerS);
  });
  a.texts("notes", p.notes);
  a.array(
      "explanations", p.explanations,
      [](auto& e, auto& x) {
        e.text("key", x.key);
        e.number("value", x.value);
        e.text("formula", x.formula);
        e.text("inputs", x.inputs);
        e.text("source", x.source);
      },
      /*omitEmpty=*/true);
}

}  // namespace

PredictionReport predictionReport(const ModelSpec& model, const HardwareSpec& hardware, const Plan& plan,
                                  const Prediction& prediction) {
  return {model.name,           model.arch,      hardware.name, hardware.device,
          hardware.memoryBytes, hardware.source, plan,          prediction};
}

ordered_json toJson(const PredictionReport& report) {
  ordered_json j = ordered_json::object();
  Writer w(j);
  describe(w, report);
  return j;
}

PredictionReport predictionReportFromJson(const json& j, std::string_view origin) {
  FATHOM_CHECK(j.is_object(), ConfigError, origin, ": a prediction must be an object, got '", quotedJson(j), "'");
  PredictionReport report;
  Reader r(j, std::string(origin));
  describe(r, report);
  return report;
}

SearchReport searchReport(const ModelSpec& model, const HardwareSpec& hardware, const SearchOutcome& outcome) {
  SearchReport report{outcome.evaluated, outcome.fitting, {}};
  for (const SearchResult& result : outcome.results) {
    report.results.push_back(predictionReport(model, hardware, result.plan, result.prediction));
  }
  return report;
}

ordered_json toJson(const SearchReport& report) {
  ordered_json j = ordered_json::object();
  j["evaluated"] = report.evaluated;
  j["fitting"] = report.fitting;
  j["results"] = ordered_json::array();
  for (const PredictionReport& r : report.results) {
    j["results"].push_back(toJson(r));
  }
  return j;
}

SearchReport searchReportFromJson(const json& j, std::string_view origin) {
  FATHOM_CHECK(j.is_object(), ConfigError, origin, ": a search must be an object, got '", quotedJson(j), "'");
  SearchReport report;
  Reader r(j, std::string(origin));
  r.integer("evaluated", report.evaluated);
  r.integer("fitting", report.fitting);
  if (const auto it = j.find("results"); it != j.end()) {
    FATHOM_CHECK(it->is_array(), ConfigError, origin, ".results: bad value '", quotedJson(*it), "'");
    for (std::size_t i = 0; i < it->size(); ++i) {
      report.results.push_back(
          predictionReportFromJson((*it)[i], std::string(origin) + ".results[" + std::to_string(i) + "]"));
    }
  }
  return report;
}

}  // namespace fathom::plan
