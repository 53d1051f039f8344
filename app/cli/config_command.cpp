// SPDX-License-Identifier: Apache-2.0
// `fathom config`: the questionnaire, and `default`, `update`, `show`, as `accelerate config` (see
// accelerate/commands/config/{config,default,update}.py) plus `show`, which prints the effective configuration
// after precedence and where each value came from.
#include "command.h"
#include "config_questionnaire.h"

#include <fathom/common/error.h>
#include <fathom/config/basic_config.h>
#include <fathom/config/config_format.h>
#include <fathom/config/config_paths.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/config_writer.h>
#include <fathom/config/run_spec.h>
#include <fathom/runtime/cuda_probe.h>

#include <iostream>
#include <memory>

namespace fathom::cli {

namespace {
struct ConfigFlags {
  std::string configFile;
  std::string mixedPrecision = "no";
  bool json = false;
};

std::filesystem::path targetFile(const ConfigFlags& flags) {
  return flags.configFile.empty() ? config::defaultConfigFile() : std::filesystem::path(flags.configFile);
}

int runQuestionnaire(const ConfigFlags& flags) {
  ConfigQuestionnaire questionnaire(std::cin, std::cout);
  config::AccelerateConfig result = config::toConfig(questionnaire.run(), {}, config::DefaultKeys::Write);
  result.fillAccelerateDefaults();
  const auto file = targetFile(flags);
  config::saveConfigFile(result, file);
  std::cout << "\nfathom configuration saved at " << file.string() << '\n';
  return 0;
}

int runDefault(const ConfigFlags& flags) {
  config::BasicConfigOptions options;
  options.mixedPrecision = flags.mixedPrecision;
  options.cudaDeviceCount = static_cast<int>(runtime::probeCuda().devices.size());
  const auto file = targetFile(flags);
  if (!config::writeBasicConfig(options, file)) {
    std::cout << "Configuration already exists at " << file.string()
              << ", will not override. Run `fathom config` manually or pass a different `--config_file`.\n";
    return 0;
  }
  std::cout << "fathom configuration saved at " << file.string() << '\n';
  return 0;
}

int runUpdate(const ConfigFlags& flags) {
  const auto file = targetFile(flags);
  std::error_code ec;
  FATHOM_CHECK(std::filesystem::is_regular_file(file, ec), ConfigError, "The passed config file located at ",
               file.string(), " doesn't exist.");
  const config::LoadedConfig loaded = config::loadConfigFile(file);
  for (const auto& note : loaded.notes) {
    std::cout << "note: " << note << '\n';
  }
  // Through the run specification, so a file `fathom launch` would refuse (gpu_ids, num_processes) is not rewritten.
  config::AccelerateConfig updated = config::toConfig(config::runSpecFromConfig(loaded.config), loaded.config);
  updated.fillAccelerateDefaults();
  config::saveConfigFile(updated, file);
  std::cout << "Successfully updated the configuration file at " << file.string() << ".\n";
  return 0;
}

int runShow(const ConfigFlags& flags) {
  config::ResolveInputs inputs;
  if (!flags.configFile.empty()) {
    inputs.configFile = flags.configFile;
  }
  const config::EffectiveConfig effective = config::resolveConfig(inputs);
  if (flags.json) {
    std::cout << config::formatEffectiveConfigJson(effective) << '\n';
  } else {
    std::cout << config::formatEffectiveConfigText(effective);
  }
  return 0;
}

void addConfigFileOption(CLI::App* app, ConfigFlags& flags, const char* what) {
  app->add_option("--config_file,--config-file", flags.configFile, what);
}
}  // namespace

void addConfigCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<ConfigFlags>();
  CLI::App* cmd = root.add_subcommand("config", "Create, update or show the run configuration (Accelerate's "
                                                "default_config.yaml format); with no subcommand, ask questions");
  addConfigFileOption(cmd, *flags, "Where to save the answers (default: the Fathom default config file)");
  cmd->require_subcommand(0, 1);

  CLI::App* def = cmd->add_subcommand("default", "Write a basic config for this machine (as `accelerate config "
                                                 "default`); never overwrites an existing file");
  def->add_option("--mixed_precision,--mixed-precision", flags->mixedPrecision,
                  "Mixed precision: no, fp16, bf16 or fp8 (default: no)");
  addConfigFileOption(def, *flags, "Where to write (default: the Fathom default config file)");

  CLI::App* update = cmd->add_subcommand("update", "Rewrite a config file with the current key names and "
                                                   "defaults (as `accelerate config update`)");
  addConfigFileOption(update, *flags, "The file to update (default: the Fathom default config file)");

  CLI::App* show = cmd->add_subcommand("show", "Print the effective configuration after precedence (code > flag > "
                                               "environment > file > defaults) and where each value came from");
  addConfigFileOption(show, *flags, "The file to read (default: Fathom's default config, else Accelerate's)");
  show->add_flag("--json", flags->json, "Print one JSON object with Accelerate's key names");

  def->callback([flags, &action] { action = [flags] { return runDefault(*flags); }; });
  update->callback([flags, &action] { action = [flags] { return runUpdate(*flags); }; });
  show->callback([flags, &action] { action = [flags] { return runShow(*flags); }; });
  cmd->callback([cmd, flags, &action] {
    if (cmd->get_subcommands().empty()) {
      action = [flags] { return runQuestionnaire(*flags); };
    }
  });
}

}  // namespace fathom::cli
