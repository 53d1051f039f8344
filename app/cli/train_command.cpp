// SPDX-License-Identifier: Apache-2.0
// `fathom train`: trains a built-in model (MLP or GPT) on a built-in dataset with fathom::Accelerator, alone or
// under `fathom launch` (DDP over Gloo/NCCL). The loop itself is in train_loop.cpp. docs/train.md.
#include "bool_flag.h"
#include "command.h"
#include "flag_choices.h"
#include "model_flags.h"
#include "train_checkpoint_flags.h"
#include "train_loop.h"
#include "train_profile_flags.h"
#include "train_sharding_flags.h"

#include <fathom/common/error.h>
#include <fathom/config/run_spec.h>
#include <fathom/parallel/ddp_options.h>
#include <fathom/precision/mixed_precision.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>

namespace fathom::cli {

namespace {
struct TrainFlags {
  TrainOptions options;
  std::string mixedPrecision;
  std::string commHook = "no";
  std::string saveFinal;
  std::string evenBatches = "true";
  std::string dispatchBatches;
  std::string textPath;
  std::string logWith;
  std::string projectDir = ".";
  std::string workspace;
  BuiltinModelFlags model;
  int gradientAccumulationSteps = 0;
  std::string statsJson;
  TrainShardingFlags sharding;
  TrainProfileFlags profiling;
  TrainCheckpointFlags checkpoints;
};

/// What a parse that selected `fathom train` leaves: the options it trains with under the launcher's variables
/// `env` (the sharding flags are resolved against them, as Accelerate's scripts read the launcher's choice).
using TrainResolver = std::function<TrainOptions(const runtime::EnvLookup& env)>;

/// Registers `fathom train` and its flags on `root`; a parse that selects it hands `onParsed` the resolver.
void registerTrain(CLI::App& root, std::function<void(TrainResolver)> onParsed) {
  auto flags = std::make_shared<TrainFlags>();
  TrainOptions& o = flags->options;
  CLI::App* cmd = root.add_subcommand(
      "train", "Train a built-in model (" + builtinModelChoices(", ") +
                   ") with fathom::Accelerator: alone, or under `fathom launch --num_processes N` as DDP");
  cmd->footer(
      "Examples:\n"
      "  fathom train --model mlp --steps 100\n"
      "  fathom launch --num_processes 2 fathom train --model gpt-tiny --dataset text --steps 200\n"
      "  fathom train --model mlp --gradient_accumulation_steps 4 --batch_size 4 --save_final w.safetensors\n"
      "  fathom launch --num_processes 4 fathom train --model gpt-tiny --strategy fsdp --stats_json s.json\n"
      "  fathom launch --num_processes 2 fathom train --model gpt-tiny --steps 20 --profile --profile_dir traces\n"
      "  fathom train --model mlp --steps 100 --checkpointing_steps 10 --save_total_limit 3 --project_dir run1\n"
      "  fathom train --model mlp --steps 200 --resume_from_checkpoint latest --project_dir run1\n"
      "See docs/train.md.");
  cmd->add_option("--model", o.model.name, builtinModelChoices(" | "))->capture_default_str();
  flags->model.add(cmd, /*withMlp=*/true);
  CLI::Option* dataset =
      cmd->add_option("--dataset", o.dataset.name,
                      "regression (synthetic, for mlp) | text (character-level corpus, for gpt); default: the "
                      "model's");
  cmd->add_option("--num_samples,--num-samples", o.dataset.numSamples, "Rows of the regression dataset")
      ->capture_default_str();
  cmd->add_option("--data_path,--data-path", flags->textPath,
                  "Text file for --dataset text (default: the shipped corpus)");
  cmd->add_option("--steps", o.steps, "Optimizer steps to run")->capture_default_str();
  cmd->add_option("--batch_size,--batch-size", o.batchSize,
                  "Batch size per process (the global batch with --split_batches), as Accelerate")
      ->capture_default_str();
  cmd->add_option("--lr", o.lr, "Learning rate")->capture_default_str();
  cmd->add_option("--optimizer", o.optimizer, "adamw | sgd")->capture_default_str();
  cmd->add_option("--weight_decay,--weight-decay", o.weightDecay, "AdamW weight decay")->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed for the weights and the shuffle order")->capture_default_str();
  cmd->add_option("--gradient_accumulation_steps,--gradient-accumulation-steps", flags->gradientAccumulationSteps,
                  "Batches per optimizer step (default 1; ACCELERATE_GRADIENT_ACCUMULATION_STEPS, which `launch "
                  "--gradient_accumulation_steps` sets, takes precedence, as in Accelerate)");
  cmd->add_option("--mixed_precision,--mixed-precision", flags->mixedPrecision,
                  choices(config::kMixedPrecisions) + " (default: ACCELERATE_MIXED_PRECISION, else no)");
  cmd->add_flag("--shuffle", o.shuffle, "Shuffle every epoch with the seeded sampler");
  cmd->add_flag("--drop_last,--drop-last", o.dropLast, "Drop the last incomplete batch");
  cmd->add_flag("--split_batches,--split-batches", o.accelerator.dataLoader.splitBatches,
                "--batch_size is the global batch, split across the processes");
  cmd->add_option("--even_batches,--even-batches", flags->evenBatches,
                  "true: top the last round up from the start so every process gets as many batches")
      ->capture_default_str();
  cmd->add_option("--dispatch_batches,--dispatch-batches", flags->dispatchBatches,
                  "true: rank 0 reads every batch and sends each process its slice");
  cmd->add_option("--max_grad_norm,--max-grad-norm", o.maxGradNorm, "Clip the gradient norm on sync steps (0: off)");
  cmd->add_option("--bucket_cap_mb,--bucket-cap-mb", o.accelerator.ddp.bucketCapMb, "DDP bucket size in MiB")
      ->capture_default_str();
  cmd->add_flag("--find_unused_parameters,--find-unused-parameters", o.accelerator.ddp.findUnusedParameters,
                "Tolerate parameters without a gradient (DDP)");
  cmd->add_option("--comm_hook,--comm-hook", flags->commHook, "DDP gradient compression: no | fp16 | bf16")
      ->capture_default_str();
  cmd->add_flag("--cpu", o.accelerator.cpu, "Run on the CPU even when a GPU is present");
  CLI::Option* logWith = cmd->add_option("--log_with,--log-with", flags->logWith,
                                         "Experiment trackers, comma-separated: " + choices(config::kTrackers) +
                                             " (docs/trackers.md; default: the configuration's fathom.trackers, "
                                             "which `fathom launch --config_file` passes as FATHOM_TRACKERS)");
  CLI::Option* projectDir = cmd->add_option("--project_dir,--project-dir", flags->projectDir,
                                            "Where the trackers write (mlruns/, dvclive/, TensorBoard event files) "
                                            "and checkpoints go (checkpoints/checkpoint_<n>); default: the "
                                            "configuration's fathom.project_dir, else .)")
                                ->capture_default_str();
  CLI::Option* workspace =
      cmd->add_option("--workspace", flags->workspace,
                      "The workspace the run's metrics, memory samples and log lines go to without `fathom launch` "
                      "(under it, the launcher's); default: FATHOM_WORKSPACE, else the config's fathom.workspace, "
                      "else ./fathom.sqlite");
  cmd->add_option("--save_final,--save-final", flags->saveFinal,
                  "Write the final parameters to PATH.safetensors (names as in named_parameters())");
  cmd->add_option("--log_every,--log-every", o.logEvery, "Log every N optimizer steps (0: summary only)")
      ->capture_default_str();
  flags->sharding.add(cmd);
  flags->profiling.add(cmd);
  flags->checkpoints.add(cmd);
  cmd->add_option("--stats_json,--stats-json", flags->statsJson,
                  "Write per-rank model-state bytes and per-step losses and collectives to PATH (JSON, rank 0)");
  cmd->add_flag("--json", o.json, "Print JSON lines: {\"event\":\"log\",...} and a final {\"event\":\"summary\",...}");

  cmd->callback([flags, dataset, workspace, logWith, projectDir, onParsed = std::move(onParsed)] {
    TrainOptions& opts = flags->options;
    // An unknown name is reported where the model is built (exit code 2, listing the known ones).
    const auto names = models::builtinModelNames();
    const bool known = std::find(names.begin(), names.end(), opts.model.name) != names.end();
    if (known) {
      try {
        opts.model = flags->model.request(opts.model.name);
      } catch (const ConfigError& error) {
        throw CLI::ValidationError("--model", error.what());  // dimension flags of the other family
      }
    }
    if (dataset->count() == 0)
      opts.dataset.name = known && opts.model.isGpt() ? "text" : "regression";
    opts.dataset.seed = opts.seed;
    if (!flags->textPath.empty())
      opts.dataset.textPath = flags->textPath;
    if (!flags->saveFinal.empty())
      opts.saveFinal = flags->saveFinal;
    if (flags->gradientAccumulationSteps != 0) {
      opts.accelerator.gradientAccumulationSteps = flags->gradientAccumulationSteps;
    }
    if (!flags->mixedPrecision.empty()) {
      opts.accelerator.mixedPrecision = precision::parseMixedPrecision(flags->mixedPrecision);
    }
    const auto hook = parallel::gradCompressionFromString(flags->commHook);
    if (!hook)
      throw CLI::ValidationError("--comm_hook", "'" + flags->commHook + "' is not one of: no, fp16, bf16");
    opts.accelerator.ddp.commHook = *hook;
    opts.accelerator.dataLoader.evenBatches = boolFlag("--even_batches", flags->evenBatches);
    if (!flags->dispatchBatches.empty()) {
      opts.accelerator.dataLoader.dispatchBatches = boolFlag("--dispatch_batches", flags->dispatchBatches);
    }
    if (!flags->logWith.empty())
      opts.accelerator.logWith = {flags->logWith};
    opts.accelerator.projectDir = flags->projectDir;
    if (!flags->statsJson.empty())
      opts.statsJson = flags->statsJson;
    if (workspace->count() > 0) {
      // Else AcceleratorOptions resolves it: FATHOM_WORKSPACE > the config's fathom.workspace > ./fathom.sqlite.
      opts.accelerator.workspace = flags->workspace;
    }
    const bool logWithGiven = logWith->count() > 0;
    const bool projectDirGiven = projectDir->count() > 0;
    onParsed([flags, logWithGiven, projectDirGiven](const runtime::EnvLookup& env) {
      // In the action, not the parse callback: a ConfigError here is a usage error (exit code 2).
      TrainOptions options = flags->options;  // resolved on a copy: the resolver may run more than once
      train::AcceleratorOptions& accelerator = options.accelerator;
      // The configuration's fathom section, as `fathom launch --config_file F` passes it; the flags win.
      const config::FathomSpec launched = config::workerSettingsFromEnvironment();
      if (!logWithGiven && !launched.trackers.empty()) {
        std::string names;
        for (const config::Tracker tracker : launched.trackers) {
          config::kTrackers.requireSupported(tracker, "FATHOM_TRACKERS (the configuration's fathom.trackers)");
          names += names.empty() ? "" : ",";
          names += config::kTrackers.toString(tracker);
        }
        accelerator.logWith = {names};
      }
      if (!projectDirGiven && launched.projectDir) {
        accelerator.projectDir = *launched.projectDir;
      }
      if (launched.loggingDir) {
        accelerator.loggingDir = *launched.loggingDir;
      }
      flags->sharding.apply(accelerator, env);
      options.profile = flags->profiling.options(launched.profiler);
      flags->checkpoints.apply(options);
      return options;
    });
  });
}

}  // namespace

void addTrainCommand(CLI::App& root, CommandAction& action) {
  registerTrain(root, [&action](TrainResolver resolve) {
    action = [resolve = std::move(resolve)] {
      return runTraining(resolve([](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
      }));
    };
  });
}

TrainOptions parseTrainArguments(const std::vector<std::string>& arguments, const runtime::EnvLookup& env) {
  CLI::App root("fathom");
  TrainResolver resolver;
  registerTrain(root, [&resolver](TrainResolver r) { resolver = std::move(r); });
  std::vector<std::string> args{"train"};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    root.parse(args);
  } catch (const CLI::Error& e) {
    throw ConfigError(detail::concat("fathom train: ", e.get_name() == "CallForHelp" ? "--help" : e.what()));
  }
  FATHOM_CHECK(resolver != nullptr, ConfigError, "fathom train: the arguments did not select the command");
  return resolver(env);
}

}  // namespace fathom::cli
