// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_request.h"

#include <fathom/config/accelerate_config.h>

#include <QString>
#include <QStringList>

namespace fathom::views {

/// What the configuration wizard edits: one run's settings in typed fields. toConfig() renders them as an
/// Accelerate config with Fathom's `fathom:` section (the file `fathom launch --config_file` and `fathom plan
/// --config_file` read), fromConfig() reads any config back (Accelerate's own files included). Keys the wizard
/// does not edit (dynamo_config, fp8_config, tpu_*, ...) are kept from the file that was opened.
struct RunSpec {
  // --- environment ---------------------------------------------------------------------------------------------
  enum class Target { ThisMachine, RemoteHosts };
  Target target = Target::ThisMachine;
  bool useCpu = false;                                 ///< use_cpu: train on the CPU (Gloo) even where GPUs exist
  QStringList hosts;                                   ///< fathom.hosts (remote runs, rank order)
  QString launcher = QStringLiteral("ssh");            ///< fathom.launcher for remote runs: ssh or slurm
  QString sshUser;                                     ///< fathom.ssh_user
  int numMachines = 1;                                 ///< num_machines
  QString mainProcessIp;                               ///< main_process_ip (remote runs)
  int mainProcessPort = 0;                             ///< main_process_port; 0 = unset (the launcher picks)
  QString hardware = QStringLiteral("h100-sxm-80gb");  ///< fathom.planner.hardware: the device planned for
  int gpusPerNode = 0;                                 ///< fathom.planner.gpus_per_node; 0 = the preset's

  // --- training paradigm ---------------------------------------------------------------------------------------
  enum class Paradigm { Single, Ddp, Fsdp, DeepSpeed };
  Paradigm paradigm = Paradigm::Single;
  int numProcesses = 1;  ///< num_processes: processes (GPUs) over all machines
  // FSDP (fsdp_config)
  int fsdpVersion = 0;  ///< 0 = unset, 1 or 2
  QString fsdpShardingStrategy = QStringLiteral("FULL_SHARD");
  QString fsdpAutoWrapPolicy = QStringLiteral("TRANSFORMER_BASED_WRAP");
  QString fsdpTransformerLayerClsToWrap;  ///< empty: the model's own blocks
  qint64 fsdpMinNumParams = 100'000'000;  ///< SIZE_BASED_WRAP only
  QString fsdpBackwardPrefetch = QStringLiteral("BACKWARD_PRE");
  QString fsdpStateDictType = QStringLiteral("SHARDED_STATE_DICT");
  bool fsdpOffloadParams = false;
  bool fsdpForwardPrefetch = false;
  bool fsdpActivationCheckpointing = false;
  bool fsdpCpuRamEfficientLoading = true;
  bool fsdpSyncModuleStates = true;
  bool fsdpUseOrigParams = true;
  // DeepSpeed ZeRO (deepspeed_config)
  QString deepspeedConfigFile;  ///< when set, DeepSpeed's JSON drives the stage and offload: those keys are not written
  int zeroStage = 2;
  QString offloadOptimizerDevice = QStringLiteral("none");  ///< none, cpu, nvme
  QString offloadParamDevice = QStringLiteral("none");      ///< stage 3 only
  bool zero3InitFlag = false;                               ///< stage 3 only
  double gradientClipping = 0;                              ///< 0 = unset

  // --- precision, batch ------------------------------------------------------------------------------------------
  QString mixedPrecision = QStringLiteral("no");  ///< no, fp16, bf16, fp8
  int microBatch = 8;                             ///< per process per micro-step (--batch_size, planner micro_batch)
  int gradientAccumulation = 1;
  int sequenceLength = 0;  ///< planner seq; 0 = the model's context (built-in gpt) or 2048

  // --- model and data ---------------------------------------------------------------------------------------------
  enum class Program { Builtin, UserProgram };
  Program program = Program::Builtin;
  /// `fathom train --model ...`
  models::ModelRequest builtin{.name = "gpt-tiny"};
  int steps = 100;                              ///< --steps
  int logEvery = 10;                            ///< --log_every
  QString optimizer = QStringLiteral("adamw");  ///< fathom train: adamw or sgd; the planner's optimizer
  QString programPath;                          ///< a user's program
  QStringList programArguments;
  ModelSource plannerModel;  ///< the model a user's program trains, for the planner (dims, config.json, params)

  // --- profiler and trackers ---------------------------------------------------------------------------------------
  QStringList trackers{QStringLiteral("sqlite")};
  QString projectDir;
  QString workspace;
  bool profilerEnabled = false;
  QStringList profilerActivities{QStringLiteral("cpu")};
  int scheduleWait = 1;
  int scheduleWarmup = 1;
  int scheduleActive = 3;
  int scheduleRepeat = 1;
  bool recordShapes = false;
  bool profileMemory = false;
  bool withStack = false;
  QString traceDir;

  /// The config file as it will be saved: `base` (the file opened, else empty) with every key the wizard edits
  /// replaced by this spec's values. Throws fathom::ConfigError when a value is refused by the schema.
  config::AccelerateConfig toConfig(const config::AccelerateConfig& base = {}) const;
  /// The wizard's view of any config. Keys it cannot show are left to the base (see toConfig()); `notes` gets one
  /// line per setting it had to reinterpret (e.g. a distributed_type it edits as DDP).
  static RunSpec fromConfig(const config::AccelerateConfig& config, QStringList* notes = nullptr);

  /// The words after `fathom launch --config_file F`: `fathom train --model ...` for a built-in model, else the
  /// user's program and its arguments.
  QStringList command() const;
  /// What the planner panel predicts: the plan `fathom plan --config_file` reads from toConfig() (so the panel and
  /// the CLI agree), the model (the built-in one introspected, else plannerModel) and the hardware preset.
  /// Throws fathom::ConfigError when the config cannot be planned.
  PlanRequest planRequest(const config::AccelerateConfig& base = {}) const;
};

}  // namespace fathom::views
