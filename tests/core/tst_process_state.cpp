// SPDX-License-Identifier: Apache-2.0
// fathom::runtime::ProcessState: Accelerate's PartialState read from torchrun, SLURM, Open MPI and MPICH
// variables; bad values as ConfigErrors naming the variable; and the self-check over a real Gloo group whose ranks
// are threads of this process (each with its own ProcessState).
#include <fathom/common/error.h>
#include <fathom/runtime/free_port.h>
#include <fathom/runtime/process_state.h>
#include <fathom/runtime/self_check.h>

#include <QTest>

#include <map>
#include <thread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace fathom::runtime;
using Vars = std::map<std::string, std::string>;

Q_DECLARE_METATYPE(Vars)

namespace {

EnvLookup lookup(const Vars& vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

ProcessState read(const Vars& vars, int cudaDevices = 0, bool cpu = false) {
  return ProcessState::fromVariables(lookup(vars), {.cpu = cpu, .cudaDeviceCount = cudaDevices});
}

}  // namespace

class TestProcessState : public QObject {
  Q_OBJECT

private slots:
  void noVariablesIsOneProcess() {
    const auto s = read({});
    QCOMPARE(s.distributedType(), DistributedType::No);
    QCOMPARE(s.numProcesses(), 1);
    QCOMPARE(s.processIndex(), 0);
    QVERIFY(s.isMainProcess() && s.isLocalMainProcess() && s.isLastProcess());
    QVERIFY(!s.useDistributed());
    QCOMPARE(s.device().toString(), std::string("cpu"));
    QCOMPARE(s.masterPort(), std::uint16_t(29500));
    QCOMPARE(s.masterAddr(), std::string("127.0.0.1"));
    QVERIFY(s.rankSource().empty());
    // Accelerate's NO with a GPU: torch.device("cuda"), no index.
    QCOMPARE(read({}, 2).device().toString(), std::string("cuda"));
    QCOMPARE(read({}, 2, true).device().toString(), std::string("cpu"));
  }

  void torchrunVariables() {
    const Vars vars{{"RANK", "2"},
                    {"WORLD_SIZE", "4"},
                    {"LOCAL_RANK", "2"},
                    {"LOCAL_WORLD_SIZE", "4"},
                    {"MASTER_ADDR", "10.1.2.3"},
                    {"MASTER_PORT", "29555"}};
    const auto cpu = read(vars);
    QCOMPARE(cpu.distributedType(), DistributedType::MultiCpu);
    QCOMPARE(cpu.processIndex(), 2);
    QCOMPARE(cpu.localProcessIndex(), 2);
    QCOMPARE(cpu.numProcesses(), 4);
    QCOMPARE(cpu.localNumProcesses(), 4);
    QVERIFY(!cpu.isMainProcess() && !cpu.isLocalMainProcess() && !cpu.isLastProcess());
    QVERIFY(cpu.useDistributed());
    QCOMPARE(cpu.masterAddr(), std::string("10.1.2.3"));
    QCOMPARE(cpu.masterPort(), std::uint16_t(29555));
    QCOMPARE(cpu.rankSource(), std::string("RANK"));
    QCOMPARE(cpu.device().toString(), std::string("cpu"));
    QCOMPARE(cpu.describe(), std::string("Distributed environment: MULTI_CPU  Backend: gloo\nNum processes: 4\n"
                                         "Process index: 2\nLocal process index: 2\nDevice: cpu\n"));

    const auto gpu = read(vars, 4);
    QCOMPARE(gpu.distributedType(), DistributedType::MultiGpu);
    QCOMPARE(gpu.device().toString(), std::string("cuda:2"));
    // --cpu / ACCELERATE_USE_CPU keep a GPU machine on the CPU path.
    QCOMPARE(read(vars, 4, true).distributedType(), DistributedType::MultiCpu);
    auto forcedCpu = vars;
    forcedCpu["ACCELERATE_USE_CPU"] = "True";
    QCOMPARE(read(forcedCpu, 4).device().toString(), std::string("cpu"));
  }

  void slurmVariables() {
    const Vars vars{{"SLURM_PROCID", "5"},
                    {"SLURM_NTASKS", "8"},
                    {"SLURM_LOCALID", "1"},
                    {"SLURM_NTASKS_PER_NODE", "4"},
                    {"MASTER_ADDR", "node001"}};
    const auto s = read(vars, 4);
    QCOMPARE(s.processIndex(), 5);
    QCOMPARE(s.numProcesses(), 8);
    QCOMPARE(s.localProcessIndex(), 1);
    QCOMPARE(s.localNumProcesses(), 4);
    QCOMPARE(s.rankSource(), std::string("SLURM_PROCID"));
    QCOMPARE(s.worldSizeSource(), std::string("SLURM_NTASKS"));
    QCOMPARE(s.distributedType(), DistributedType::MultiGpu);
    QCOMPARE(s.device().toString(), std::string("cuda:1"));
  }

  void openMpiAndMpichVariables() {
    const auto ompi = read({{"OMPI_COMM_WORLD_RANK", "1"},
                            {"OMPI_COMM_WORLD_SIZE", "2"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                            {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
    QCOMPARE(ompi.processIndex(), 1);
    QCOMPARE(ompi.numProcesses(), 2);
    QCOMPARE(ompi.localProcessIndex(), 1);
    QVERIFY(ompi.isLastProcess());
    QCOMPARE(ompi.rankSource(), std::string("OMPI_COMM_WORLD_RANK"));
    QCOMPARE(ompi.distributedType(), DistributedType::MultiCpu);

    const auto mpich = read({{"PMI_RANK", "3"}, {"PMI_SIZE", "6"}, {"MPI_LOCALRANKID", "0"}, {"MPI_LOCALNRANKS", "6"}});
    QCOMPARE(mpich.processIndex(), 3);
    QCOMPARE(mpich.numProcesses(), 6);
    QCOMPARE(mpich.rankSource(), std::string("PMI_RANK"));
  }

  void preferenceOrder() {
    // torchrun's names beat MPI's, which beat SLURM's (the allocation around a `fathom launch` inside srun).
    Vars vars{
        {"RANK", "0"},         {"WORLD_SIZE", "2"},   {"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"},
        {"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "16"}};
    auto s = read(vars);
    QCOMPARE(s.processIndex(), 0);
    QCOMPARE(s.numProcesses(), 2);
    QCOMPARE(s.rankSource(), std::string("RANK"));
    // Accelerate's get_int_from_env skips negative values: RANK=-1 falls through to the next name.
    vars["RANK"] = "-1";
    vars["WORLD_SIZE"] = "-1";
    s = read(vars);
    QCOMPARE(s.processIndex(), 1);
    QCOMPARE(s.numProcesses(), 4);
    QCOMPARE(s.rankSource(), std::string("OMPI_COMM_WORLD_RANK"));
    vars.erase("OMPI_COMM_WORLD_RANK");
    vars.erase("OMPI_COMM_WORLD_SIZE");
    s = read(vars);
    QCOMPARE(s.processIndex(), 7);
    QCOMPARE(s.rankSource(), std::string("SLURM_PROCID"));
    // An empty value counts as unset.
    QCOMPARE(read({{"RANK", ""}, {"WORLD_SIZE", " 3 "}}).numProcesses(), 3);
  }

  void distributedTypes() {
    const Vars base{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}};
    auto with = [&](std::initializer_list<std::pair<const std::string, std::string>> extra) {
      Vars v = base;
      v.insert(extra);
      return v;
    };
    QCOMPARE(read(with({{"ACCELERATE_USE_FSDP", "true"}}), 2).distributedType(), DistributedType::Fsdp);
    QCOMPARE(read(with({{"ACCELERATE_USE_FSDP", "true"}}), 2).device().toString(), std::string("cuda:1"));
    // Fathom runs FSDP over Gloo too, so the type also applies on the CPU (Accelerate keeps MULTI_CPU there).
    QCOMPARE(read(with({{"ACCELERATE_USE_FSDP", "yes"}})).distributedType(), DistributedType::Fsdp);
    QCOMPARE(read(with({{"ACCELERATE_USE_FSDP", "false"}})).distributedType(), DistributedType::MultiCpu);
    QCOMPARE(read(with({{"ACCELERATE_USE_FSDP", "true"}, {"ACCELERATE_USE_DEEPSPEED", "true"}})).distributedType(),
             DistributedType::DeepSpeed);
    const auto megatron = read(with({{"ACCELERATE_USE_FSDP", "1"}, {"ACCELERATE_USE_MEGATRON_LM", "true"}}));
    QCOMPARE(megatron.distributedType(), DistributedType::MegatronLm);
    // Accelerate: under Megatron-LM the last process is the main one.
    QVERIFY(megatron.isMainProcess());
    QVERIFY(megatron.isLocalMainProcess());
    // A single, unlaunched process stays NO whatever the flags say.
    QCOMPARE(read({{"ACCELERATE_USE_FSDP", "true"}}).distributedType(), DistributedType::No);
    QCOMPARE(read(with({{"ACCELERATE_TORCH_DEVICE", "cuda:0"}}), 2).device().toString(), std::string("cuda:0"));

    for (auto t : {DistributedType::No, DistributedType::MultiCpu, DistributedType::MultiGpu, DistributedType::Fsdp,
                   DistributedType::DeepSpeed, DistributedType::MegatronLm}) {
      QCOMPARE(distributedTypeFromString(toString(t)), std::optional<DistributedType>(t));
    }
    QCOMPARE(std::string(toString(DistributedType::MegatronLm)), std::string("MEGATRON_LM"));
    QVERIFY(!distributedTypeFromString("multi_gpu"));
  }

  void badValuesNameTheVariable_data() {
    QTest::addColumn<Vars>("vars");
    QTest::addColumn<int>("cudaDevices");
    QTest::addColumn<QString>("message");
    QTest::newRow("RANK=abc") << Vars{{"RANK", "abc"}, {"WORLD_SIZE", "2"}} << 0 << "RANK=abc is not an integer";
    QTest::newRow("RANK=1.5") << Vars{{"RANK", "1.5"}} << 0 << "RANK=1.5 is not an integer";
    QTest::newRow("RANK >= WORLD_SIZE") << Vars{{"RANK", "4"}, {"WORLD_SIZE", "4"}} << 0
                                        << "RANK=4 is out of range: WORLD_SIZE=4 allows ranks 0..3";
    QTest::newRow("RANK without WORLD_SIZE")
        << Vars{{"RANK", "1"}} << 0 << "RANK=1 is out of range: the default world size 1 allows ranks 0..0";
    QTest::newRow("WORLD_SIZE=0") << Vars{{"WORLD_SIZE", "0"}} << 0
                                  << "WORLD_SIZE=0 is not a valid world size (must be between 1 and 16777216)";
    QTest::newRow("SLURM_PROCID >= SLURM_NTASKS")
        << Vars{{"SLURM_PROCID", "9"}, {"SLURM_NTASKS", "4"}, {"MASTER_ADDR", "n1"}} << 0
        << "SLURM_PROCID=9 is out of range: SLURM_NTASKS=4 allows ranks 0..3";
    QTest::newRow("OMPI size not a number")
        << Vars{{"OMPI_COMM_WORLD_SIZE", "two"}} << 0 << "OMPI_COMM_WORLD_SIZE=two is not an integer";
    QTest::newRow("LOCAL_RANK >= LOCAL_WORLD_SIZE")
        << Vars{{"RANK", "3"},
                {"WORLD_SIZE", "4"},
                {"LOCAL_RANK", "3"},
                {"LOCAL_WORLD_SIZE", "2"},
                {"MASTER_ADDR", "a"}}
        << 0 << "LOCAL_RANK=3 is out of range: the local world size is 2 (LOCAL_WORLD_SIZE)";
    QTest::newRow("LOCAL_WORLD_SIZE > WORLD_SIZE")
        << Vars{{"WORLD_SIZE", "2"}, {"LOCAL_WORLD_SIZE", "8"}} << 0
        << "LOCAL_WORLD_SIZE=8 is not a valid local world size with a world size of 2";
    QTest::newRow("MASTER_PORT=70000") << Vars{{"MASTER_PORT", "70000"}} << 0
                                       << "MASTER_PORT=70000 is not a port number (1..65535)";
    QTest::newRow("MASTER_PORT=http") << Vars{{"MASTER_PORT", "http"}} << 0 << "MASTER_PORT=http is not an integer";
    QTest::newRow("ACCELERATE_USE_FSDP=maybe")
        << Vars{{"ACCELERATE_USE_FSDP", "maybe"}} << 0
        << "ACCELERATE_USE_FSDP=maybe is not a boolean (use true/false, yes/no, on/off or 1/0)";
    QTest::newRow("more ranks than GPUs")
        << Vars{{"RANK", "2"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "4"}} << 2
        << "LOCAL_RANK=2 has no CUDA device: only 2 visible (check CUDA_VISIBLE_DEVICES and --num_processes)";
    QTest::newRow("ACCELERATE_TORCH_DEVICE=tpu")
        << Vars{{"ACCELERATE_TORCH_DEVICE", "tpu"}} << 0
        << "ACCELERATE_TORCH_DEVICE=tpu is not a device (use cpu, cuda or cuda:N)";
    QTest::newRow("multi-node without MASTER_ADDR")
        << Vars{{"RANK", "0"}, {"WORLD_SIZE", "8"}, {"LOCAL_WORLD_SIZE", "4"}} << 0
        << "Tried to launch on distributed with multinode (world size 8, local world size 4), but MASTER_ADDR was "
           "not set: export rank 0's host name as MASTER_ADDR";
  }

  void badValuesNameTheVariable() {
    QFETCH(Vars, vars);
    QFETCH(int, cudaDevices);
    QFETCH(QString, message);
    try {
      read(vars, cudaDevices);
      QFAIL("accepted");
    } catch (const fathom::ConfigError& e) {
      QCOMPARE(QString::fromUtf8(e.what()), message);
    }
  }

  void freePortIsBindable() {
    const std::uint16_t port = findFreePort("127.0.0.1");
    QVERIFY(port != 0);
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    close(fd);
    QVERIFY_THROWS_EXCEPTION(fathom::CommError, findFreePort("192.0.2.1"));  // TEST-NET: not this machine
  }

  void selfCheckOverThreads() {
    // Three ranks as threads, each reading its own variables as a launched worker would.
    constexpr int kWorld = 3;
    const std::string port = std::to_string(findFreePort());
    std::vector<SelfCheckReport> reports(kWorld);
    std::vector<std::thread> threads;
    for (int r = 0; r < kWorld; ++r) {
      threads.emplace_back([&, r] {
        const Vars vars{{"RANK", std::to_string(r)},       {"WORLD_SIZE", std::to_string(kWorld)},
                        {"LOCAL_RANK", std::to_string(r)}, {"LOCAL_WORLD_SIZE", std::to_string(kWorld)},
                        {"MASTER_ADDR", "127.0.0.1"},      {"MASTER_PORT", port}};
        reports[r] = runSelfCheck(read(vars), {.timeout = std::chrono::seconds(30)});
      });
    }
    for (auto& t : threads) {
      t.join();
    }
    for (int r = 0; r < kWorld; ++r) {
      QVERIFY2(reports[r].ok(), reports[r].failure.c_str());
      QCOMPARE(reports[r].steps.size(), std::size_t(7));
      QVERIFY(reports[r].steps[5].rfind("gather (uneven sizes) ok", 0) == 0);
    }
  }

  void selfCheckReportsAMissingRank() {
    // World of 2, only rank 0 present: the rendezvous fails, names rank and address, and nothing throws.
    const std::string port = std::to_string(findFreePort());
    const auto report = runSelfCheck(read({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", port}}),
                                     {.timeout = std::chrono::milliseconds(1500)});
    QVERIFY(!report.ok());
    const QString failure = QString::fromStdString(report.failure);
    QVERIFY2(failure.startsWith(QStringLiteral("rendezvous failed: rank 0/2 (gloo, store 127.0.0.1:")),
             qPrintable(failure));
    QVERIFY2(failure.contains(QStringLiteral("did not complete within 1500 ms")), qPrintable(failure));
  }
};

QTEST_GUILESS_MAIN(TestProcessState)
#include "tst_process_state.moc"
