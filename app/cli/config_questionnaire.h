// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/accelerate_config.h>

#include <iosfwd>
#include <string>
#include <vector>

namespace fathom::cli {

/// The `fathom config` questionnaire: the questions `accelerate config` asks for "This machine"
/// (accelerate/commands/config/cluster.py), one answer per line, so it works with answers piped on stdin.
/// A choice is answered by its number or its text; an empty line or end of input takes the default shown in
/// brackets; an invalid answer prints why and asks again.
class ConfigQuestionnaire {
public:
  /// Reads answers from `in` and writes questions to `out`.
  ConfigQuestionnaire(std::istream& in, std::ostream& out);

  /// Asks every question that applies and returns the finished config (Accelerate's defaults filled in).
  config::AccelerateConfig run();

private:
  std::string ask(const std::string& question, const std::string& defaultAnswer);
  bool askYesNo(const std::string& question, bool defaultAnswer);
  std::int64_t askInt(const std::string& question, std::int64_t defaultAnswer, std::int64_t minimum);
  std::size_t askChoice(const std::string& question, const std::vector<std::string>& options, std::size_t defaultIndex);
  /// Asks for `path` as text and stores it through the schema; re-asks while the schema rejects the answer.
  void askKey(const std::string& question, const std::string& path, const std::string& defaultAnswer);

  void askMultiNode();
  void askDynamo();
  bool askDeepSpeed();
  bool askFsdp();
  void askMegatron();
  void askMixedPrecision(bool deepspeedJson);

  std::istream& m_in;
  std::ostream& m_out;
  config::AccelerateConfig m_config;
};

}  // namespace fathom::cli
