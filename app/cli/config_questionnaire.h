// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/run_spec.h>

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fathom::cli {

/// The `fathom config` questionnaire: the questions `accelerate config` asks for "This machine"
/// (accelerate/commands/config/cluster.py), one answer per line, so it works with answers piped on stdin.
/// A choice is answered by its number or its name; an empty line or end of input takes the default shown in
/// brackets; an invalid answer prints why and asks again.
///
/// It fills a config::RunSpec and offers only what Fathom runs end to end: the choices come from the vocabulary's
/// tables (config/vocabulary.h), values Fathom does not run (NVMe offload, LOCAL_STATE_DICT, fp8, other devices,
/// trackers it does not implement) are not offered, and Accelerate's questions whose answers nothing in Fathom reads
/// (torch dynamo, Megatron-LM, mpirun, DeepSpeed JSON files, NUMA affinity, rendezvous backend) are not asked.
class ConfigQuestionnaire {
public:
  /// Reads answers from `in` and writes questions to `out`.
  ConfigQuestionnaire(std::istream& in, std::ostream& out);

  /// Asks every question that applies and returns the run specification the answers describe.
  config::RunSpec run();

private:
  std::string ask(const std::string& question, const std::string& defaultAnswer);
  bool askYesNo(const std::string& question, bool defaultAnswer);
  std::int64_t askInt(const std::string& question, std::int64_t defaultAnswer, std::int64_t minimum,
                      std::int64_t maximum);
  /// Options are (name, help); the answer is a name or a number.
  std::size_t askChoice(const std::string& question, const std::vector<std::pair<std::string, std::string>>& options,
                        std::size_t defaultIndex);
  /// The values of `table` Fathom runs, in table order, answered by name or number.
  template <typename E, std::size_t N>
  E askValue(const std::string& question, const NameTable<E, N>& table, E defaultValue);
  /// Asks for `path` as text and checks it through the schema and config::runSpecFromConfig() (plus `check`);
  /// re-asks while they refuse the answer. Returns the specification of that one answer, or std::nullopt when the
  /// question was left without an answer.
  std::optional<config::RunSpec> askKey(const std::string& question, const std::string& path,
                                        const std::string& defaultAnswer,
                                        const std::function<void(const config::RunSpec&)>& check = {});

  void askMultiNode();
  bool askDeepSpeed();
  bool askFsdp();
  void askMixedPrecision();

  std::istream& m_in;
  std::ostream& m_out;
  config::RunSpec m_spec;
};

}  // namespace fathom::cli
