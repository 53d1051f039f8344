// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_request.h"

#include <fathom/config/accelerate_config.h>
#include <fathom/config/run_spec.h>

#include <QString>
#include <QStringList>

namespace fathom::views {

/// What the configuration wizard edits: core's typed run specification (config::RunSpec: Accelerate's keys and the
/// `fathom:` section, enums and optionals, never text) plus the few choices of the wizard's own that are not
/// configuration: where the run goes, whether the built-in trainer or the user's program runs, the built-in model
/// with its steps and logging interval, and the model the planner assumes for a user's program. The pages read and
/// write `spec` field by field; text exists only at their widgets. YAML is written only when saving (toConfig(),
/// through config::toConfig(), so keys of the opened file that the spec has no field for survive), and the planner
/// panel's plan is plan::planFromRunSpec() of the same spec (planRequest()), as `fathom plan --config_file` reads the
/// saved file.
struct WizardRun {
  enum class Target { ThisMachine, RemoteHosts };
  /// The wizard's view of distributed_type (paradigm()): the four it edits.
  enum class Paradigm { Single, Ddp, Fsdp, DeepSpeed };
  enum class Program { Builtin, UserProgram };

  /// Everything the file carries. Fields that depend on the wizard's own choices (fathom.command, the planner's
  /// model keys, the sections of paradigms not chosen, the remote-only keys) are made from them by toRunSpec().
  config::RunSpec spec = defaultSpec();

  Target target = Target::ThisMachine;
  Program program = Program::Builtin;
  /// `fathom train --model ...`
  models::ModelRequest builtin{.name = "gpt-tiny"};
  int steps = 100;    ///< --steps
  int logEvery = 10;  ///< --log_every
  /// The model a user's program trains, for the planner (dimensions, config.json, parameters).
  ModelSource plannerModel;

  /// A new configuration's spec: one process, the workspace's sqlite tracker, planned on an H100 with a micro-batch
  /// of 8 and AdamW.
  static config::RunSpec defaultSpec();

  /// The paradigm distributed_type stands for: NO single, FSDP, DEEPSPEED; every other type is edited as DDP.
  Paradigm paradigm() const;
  /// Sets distributed_type: Ddp is MULTI_CPU when the spec trains on the CPU, else MULTI_GPU.
  void setParadigm(Paradigm paradigm);
  /// Processes over all machines (num_processes; 1 when unset or single).
  int processes() const;
  /// The micro-batch and accumulation `fathom train` is given (fathom.planner's, which mirror them).
  int microBatch() const;
  int gradientAccumulation() const;

  /// The spec as saved and planned: `spec` with fathom.command (command()), the planner's model keys (the built-in
  /// model, else plannerModel), the sections and keys of the choices not made (fsdp_config unless FSDP,
  /// deepspeed_config unless DEEPSPEED, hosts, launcher, ssh_user and ssh_config unless remote) cleared, and
  /// DeepSpeed's accumulation mirrored from the batch page.
  config::RunSpec toRunSpec() const;
  /// The configuration file as it will be saved: config::toConfig(toRunSpec(), base). `base` is the file that was
  /// opened (else empty): its keys the spec has no field for are kept, and the sections of paradigms not chosen are
  /// dropped, as the wizard always did. A new file gets num_processes, num_machines and mixed_precision (and
  /// machine_rank for other hosts) even where they hold Accelerate's defaults. Throws fathom::ConfigError when the
  /// schema refuses a value.
  config::AccelerateConfig toConfig(const config::AccelerateConfig& base = {}) const;
  /// The wizard's view of a spec (config::runSpecFromConfig() of a file). `notes` gets one line per setting it had
  /// to reinterpret (a distributed_type it edits as DDP, a file without a program, a tracker Fathom does not run).
  static WizardRun fromSpec(const config::RunSpec& spec, QStringList* notes = nullptr);
  /// fromSpec(config::runSpecFromConfig(config)). Throws fathom::ConfigError for a value the spec refuses.
  static WizardRun fromConfig(const config::AccelerateConfig& config, QStringList* notes = nullptr);

  /// The words after `fathom launch --config_file F`: `fathom train --model ...` for a built-in model, else the
  /// user's program and its arguments (the spec's fathom.command).
  QStringList command() const;
  /// The user's program and its arguments (empty for none).
  QString programPath() const;
  QStringList programArguments() const;
  void setProgram(const QString& path, const QStringList& arguments);

  /// What the planner panel predicts: plan::planFromRunSpec(toRunSpec()) (what `fathom plan --config_file` reads
  /// from the saved file), the model (the built-in one introspected, else plannerModel) and the hardware preset.
  /// Throws fathom::ConfigError when the configuration cannot be planned.
  PlanRequest planRequest() const;
};

}  // namespace fathom::views
