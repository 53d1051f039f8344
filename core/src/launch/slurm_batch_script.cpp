// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/shell_quote.h>
#include <fathom/launch/slurm_batch_script.h>

#include <regex>

namespace fathom::launch {
namespace {

constexpr int kMaxNodes = 100'000;
constexpr std::size_t kMaxName = 128;

bool matches(const std::string& text, const char* pattern) {
  return std::regex_match(text, std::regex(pattern));
}

void checkName(const std::string& value, const char* flag, const char* pattern, const char* what) {
  FATHOM_CHECK(value.size() <= kMaxName && matches(value, pattern), ConfigError, flag, " ", shellQuote(value),
               ": expected ", what);
}

}  // namespace

SlurmBatchScript::SlurmBatchScript(SlurmBatchOptions options) : m_options(std::move(options)) {
  const SlurmBatchOptions& o = m_options;
  FATHOM_CHECK(o.nodes >= 1 && o.nodes <= kMaxNodes, ConfigError, "--nodes must be between 1 and ", kMaxNodes, ", got ",
               o.nodes);
  FATHOM_CHECK(o.gpusPerNode >= 0 && o.gpusPerNode <= 1024, ConfigError,
               "--gpus_per_node must be between 0 and 1024, got ", o.gpusPerNode);
  FATHOM_CHECK(o.cpusPerNode >= 0 && o.cpusPerNode <= 100'000, ConfigError,
               "--cpus_per_node must be between 0 and 100000, got ", o.cpusPerNode);
  if (!o.partition.empty()) {
    checkName(o.partition, "--partition", "[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*",
              "a partition name, or several separated by ',' (letters, digits, '.', '_', '-')");
  }
  if (!o.account.empty()) {
    checkName(o.account, "--account", "[A-Za-z0-9._-]+", "an account name (letters, digits, '.', '_', '-')");
  }
  checkName(o.jobName, "--job_name", "[A-Za-z0-9._+-]+", "a job name of letters, digits, '.', '_', '+', '-'");
  if (!o.time.empty()) {
    FATHOM_CHECK(
        matches(o.time, "([0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}|"
                        "[0-9]+-[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}|UNLIMITED|INFINITE)"),
        ConfigError, "--time ", shellQuote(o.time),
        ": expected SLURM's time limit: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, UNLIMITED or INFINITE");
  }
  const std::string run = o.runDirectory.string();
  FATHOM_CHECK(o.runDirectory.is_absolute() && run.find_first_of(" \t\n\r\"'\\%#") == std::string::npos, ConfigError,
               "the run folder ", shellQuote(run),
               " (--log_dir) must be an absolute path without whitespace, quotes, '\\', '%' or '#': sbatch reads it "
               "from an #SBATCH line");
  FATHOM_ASSERT(o.workingDirectory.is_absolute(), "working directory not absolute: ", o.workingDirectory.string());
  FATHOM_ASSERT(!o.command.empty(), "no command for the batch job");
}

std::string SlurmBatchScript::text() const {
  const SlurmBatchOptions& o = m_options;
  std::string s = "#!/bin/bash\n";
  s += "# Written by `fathom launch --slurm` and submitted with `sbatch --parsable` (docs/launch.md, \"Multi-node\n"
       "# under SLURM\"). One task per node: `fathom launch --slurm` starts one `fathom agent` per node with srun.\n";
  s += "#SBATCH --job-name=" + o.jobName + "\n";
  s += "#SBATCH --nodes=" + std::to_string(o.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=1\n";
  if (o.gpusPerNode > 0) {
    s += "#SBATCH --gpus-per-node=" + std::to_string(o.gpusPerNode) + "\n";
  }
  if (o.cpusPerNode > 0) {
    s += "#SBATCH --cpus-per-task=" + std::to_string(o.cpusPerNode) + "\n";
  }
  if (!o.partition.empty()) {
    s += "#SBATCH --partition=" + o.partition + "\n";
  }
  if (!o.time.empty()) {
    s += "#SBATCH --time=" + o.time + "\n";
  }
  if (!o.account.empty()) {
    s += "#SBATCH --account=" + o.account + "\n";
  }
  s += "#SBATCH --output=" + (o.runDirectory / "slurm-%j.out").string() + "\n";
  s += "\n";
  s += "cd " + shellQuote(o.workingDirectory.string()) + " || exit 1\n";
  // exec: the launcher is the batch step's process, so scancel's SIGTERM reaches it and it stops every node.
  s += "exec " + shellCommand(o.command) + "\n";
  return s;
}

std::filesystem::path SlurmBatchScript::scriptFile() const {
  return m_options.runDirectory / "job.sbatch";
}

std::filesystem::path SlurmBatchScript::outputFile(const std::string& jobId) const {
  return m_options.runDirectory / ("slurm-" + jobId + ".out");
}

}  // namespace fathom::launch
