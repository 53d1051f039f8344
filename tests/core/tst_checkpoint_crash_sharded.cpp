// SPDX-License-Identifier: Apache-2.0
// Crash safety of sharded checkpoints (issue 22; docs/checkpoint.md, "Atomicity"), on 4 real Gloo processes:
//  - the whole job is SIGKILLed at random moments while it saves (FSDP FULL_SHARD, SHARDED_STATE_DICT, total_limit 2),
//    and each time the next job's loadState() takes the previous or the new checkpoint, verified complete (sizes and
//    CRC-32s of every file), never a partial one;
//  - a full disk (a small tmpfs, filled up) fails the save on every process with the reason, publishes nothing, and
//    the previous checkpoint loads as it was.
// The workers append what they do to progress.txt (rank 0, one line per event, written before the next event starts):
// "begin <n> <steps>" before saving checkpoint_<n> after <steps> optimizer steps, "end <n> <steps>" after it, and
// "loaded <n> <steps>" after loadState(), each with the time in microseconds.
// FATHOM_CRASH_MOMENTS sets the number of kills (default 8; the 50: tests/crash/checkpoint_kill.sh),
// FATHOM_CRASH_SEED the random moments' seed (printed).
#include "killable_job.h"
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/common/error.h>
#include <fathom/models/model.h>
#include <fathom/models/model_factory.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <torch/optim/adamw.h>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using fathom::train::Accelerator;
using Checker = fathom::test::RankChecker;
namespace fs = std::filesystem;

namespace {

constexpr int kWorld = 4;
constexpr int kTimeoutMs = 30'000;

/// One line of progress.txt.
struct Event {
  std::string what;  ///< "begin", "end" or "loaded"
  int checkpoint = -1;
  std::int64_t steps = -1;
  std::int64_t atUs = 0;  ///< when, in microseconds of the system clock
};

void appendEvent(const std::string& dir, const std::string& what, int checkpoint, std::int64_t steps) {
  const auto now =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch());
  const std::string line =
      what + " " + std::to_string(checkpoint) + " " + std::to_string(steps) + " " + std::to_string(now.count()) + "\n";
  // One write(2) per line on an O_APPEND descriptor: a SIGKILL leaves whole lines (the page cache survives it).
  const int fd = ::open((dir + "/progress.txt").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    (void)!::write(fd, line.data(), line.size());
    ::close(fd);
  }
}

std::vector<Event> readEvents(const QString& dir) {
  std::vector<Event> events;
  std::ifstream in((dir + u"/progress.txt"_s).toStdString());
  Event e;
  while (in >> e.what >> e.checkpoint >> e.steps >> e.atUs)
    events.push_back(e);
  return events;
}

fathom::train::AcceleratorOptions optionsFor(const std::string& dir) {
  fathom::train::AcceleratorOptions options;
  options.cpu = true;
  options.processGroup.storeRole = fathom::runtime::StoreRole::ClientOnly;  // the test hosts the store
  options.processGroup.timeout = std::chrono::milliseconds(kTimeoutMs);
  options.projectDir = dir;
  options.checkpoint.automaticCheckpointNaming = true;
  options.checkpoint.totalLimit = 2;
  fathom::parallel::FsdpOptions fsdp;
  fsdp.shardingStrategy = fathom::parallel::FsdpShardingStrategy::FullShard;
  fsdp.stateDictType = fathom::parallel::FsdpStateDictType::ShardedStateDict;
  options.fsdp = fsdp;
  return options;
}

/// "save": loads the latest checkpoint when there is one, then trains one step and saves, over and over, until killed.
/// "verify": loads the latest checkpoint and exits. "diskfull": saves checkpoint_0, fills the disk, checks that the
/// next save fails everywhere and publishes nothing, loads checkpoint_0 back, and saves once the disk has room again.
void scenario(Checker& c, const std::string& mode, int rank, int world, int port, const std::string& dir) {
  Accelerator accelerator(optionsFor(dir), fathom::test::workerProcessState(rank, world, port));
  fathom::models::ModelRequest request;
  // About 1 MiB of parameters and 2 MiB of optimizer state: a save takes long enough for kills to land inside it.
  request.set(fathom::models::ModelDimension::Hidden, 256).set(fathom::models::ModelDimension::Layers, 4);
  torch::manual_seed(7);
  std::shared_ptr<fathom::models::Model> model0 = fathom::models::makeModel(request);
  auto optimizer0 = std::make_shared<torch::optim::AdamW>(model0->parameters(), torch::optim::AdamWOptions(1e-3));
  auto [model, optimizer] = accelerator.prepare(model0, optimizer0);
  const auto step = [&] {
    const at::Tensor input = at::randn({8, 256});
    accelerator.backward(model->loss(model->forward(input), at::randn({8, 1})));
    optimizer->step();
    optimizer->zeroGrad();
  };
  const bool main = accelerator.isMainProcess();
  const auto save = [&] {
    const int n = accelerator.saveIteration();
    if (main)
      appendEvent(dir, "begin", n, accelerator.optimizerSteps());
    accelerator.saveState();
    if (main)
      appendEvent(dir, "end", n, accelerator.optimizerSteps());
  };
  if (mode == "save" || mode == "verify") {
    if (!fathom::checkpoint::listCheckpoints(fs::path(dir) / "checkpoints").empty()) {
      const fs::path folder = accelerator.loadState();
      if (main)
        appendEvent(dir, "loaded", fathom::checkpoint::checkpointNumber(folder).value_or(-1),
                    accelerator.optimizerSteps());
    }
    while (mode == "save") {
      step();
      save();
    }
    return;
  }
  // diskfull
  step();
  save();
  const fs::path ballast = fs::path(dir) / "ballast";
  if (main) {
    struct statvfs disk {};
    c.check(::statvfs(dir.c_str(), &disk) == 0, "statvfs ", dir);
    // All but 64 KiB taken: less than one rank file of the next checkpoint.
    const auto free = static_cast<off_t>(disk.f_bavail * disk.f_frsize);
    const int fd = ::open(ballast.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    c.check(fd >= 0 && ::posix_fallocate(fd, 0, free - 64 * 1024) == 0, "cannot fill the disk with ", ballast);
    ::close(fd);
  }
  accelerator.waitForEveryone();
  step();
  std::string error;
  try {
    accelerator.saveState();
  } catch (const fathom::StorageError& e) {
    error = e.what();
  }
  // The processes that ran out of space name their file; any other says which processes failed.
  c.check(error.find("no space left on the device") != std::string::npos || error.find("failed") != std::string::npos,
          "the save on a full disk: '", error, "'");
  std::cout << "rank " << rank << " full disk: " << error << std::endl;
  const fs::path checkpoints = fs::path(dir) / "checkpoints";
  // The main process removes the staging folder before it throws (the others may throw before it is gone).
  c.check(!main || (!fs::exists(checkpoints / "checkpoint_1") && !fs::exists(checkpoints / ".checkpoint_1.staging")),
          "the failed save left checkpoint_1 or its staging folder");
  const fs::path loaded = accelerator.loadState();
  c.check(loaded.filename() == "checkpoint_0" && accelerator.optimizerSteps() == 1, "loaded ", loaded, " at step ",
          accelerator.optimizerSteps());
  if (main)
    fs::remove(ballast);
  accelerator.waitForEveryone();
  step();
  c.check(accelerator.saveState().filename() == "checkpoint_1", "the save after freeing the disk");
}

int runWorker(int rank, int world, int port, int /*timeoutMs*/) {
  return fathom::test::runRankChecks(rank, [&](Checker& c) {
    const std::string mode =
        std::getenv("FATHOM_TEST_SCENARIO");  // "save", "verify", or "diskfull:" (runScenarioPhase)
    scenario(c, mode.substr(0, mode.find(':')), rank, world, port, std::getenv("FATHOM_TEST_DIR"));
  });
}

/// The published checkpoints under `dir`, as "checkpoint_3 checkpoint_4".
QString published(const QString& dir) {
  QStringList names;
  for (const fs::path& p : fathom::checkpoint::listCheckpoints((dir + u"/checkpoints"_s).toStdString()))
    names << QString::fromStdString(p.filename().string());
  return names.join(u' ');
}

/// Unmounts a tmpfs when the test ends, however it ends.
struct TmpfsMount {
  std::string path;
  bool mounted = false;
  int error = 0;  ///< mount(2)'s errno when it failed
  TmpfsMount(std::string where, const char* size) : path(std::move(where)) {
    fs::create_directories(path);
    mounted = ::mount("fathom-test", path.c_str(), "tmpfs", 0, size) == 0;
    error = mounted ? 0 : errno;
  }
  ~TmpfsMount() {
    if (mounted)
      ::umount2(path.c_str(), MNT_DETACH);
  }
};

}  // namespace

class TestCheckpointCrashSharded : public QObject {
  Q_OBJECT

  /// Waits until progress.txt holds an event `what` after its first `count`; false after 60 s or when `job` ended.
  static bool waitForEvent(const QString& dir, std::size_t count, const std::string& what,
                           fathom::test::KillableJob& job) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline && job.running()) {
      const auto events = readEvents(dir);
      for (std::size_t i = count; i < events.size(); ++i) {
        if (events[i].what == what)
          return true;
      }
      std::this_thread::sleep_for(2ms);
    }
    return false;
  }

private slots:
  void killedSavesLeaveALoadableCheckpoint() {
    const int moments = qEnvironmentVariableIntValue("FATHOM_CRASH_MOMENTS") > 0
                            ? qEnvironmentVariableIntValue("FATHOM_CRASH_MOMENTS")
                            : 8;
    const unsigned seed = qEnvironmentVariableIsSet("FATHOM_CRASH_SEED")
                              ? static_cast<unsigned>(qEnvironmentVariableIntValue("FATHOM_CRASH_SEED"))
                              : std::random_device{}();
    qInfo("%d kills, FATHOM_CRASH_SEED=%u", moments, seed);
    std::mt19937 random(seed);
    // A kill lands at a random point of a save: once a job's third save has begun, after a delay of up to 1.1 times
    // its second save's duration (so a few land just after a save, between the rename, the rotation and the next).
    std::uniform_real_distribution<double> fraction(0.0, 1.1);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    qputenv("FATHOM_TEST_DIR", dir.path().toUtf8());
    qputenv("FATHOM_TEST_SCENARIO", "save");
    int duringSave = 0;
    std::int64_t saveUsTotal = 0;
    int stagingSeen = 0;
    Event expected[2];  // what the next job may load: the previous and the new checkpoint
    int choices = 0;
    // Job `moments` only loads (and checks what it loaded) and exits.
    for (int kill = 0; kill <= moments; ++kill) {
      const bool last = kill == moments;
      qputenv("FATHOM_TEST_SCENARIO", last ? "verify" : "save");
      const std::size_t before = readEvents(dir.path()).size();
      auto job = std::make_unique<fathom::test::KillableJob>(kWorld, kTimeoutMs);
      // Saving: its first save ended, so the previous kill's checkpoint was loaded (checked below) and a new one
      // published. Verifying: it loaded.
      if (!waitForEvent(dir.path(), before, last ? "loaded" : "end", *job)) {
        job->kill();
        QString outputs;
        for (const auto& r : job->wait(0))
          outputs += r.out + r.err;
        QFAIL(qPrintable(u"job %1: no checkpoint published or loaded (within 60 s):\n"_s.arg(kill) + outputs));
      }
      if (choices > 0) {
        const Event loaded =
            readEvents(dir.path())[before];  // the first event of this job (a copy: the vector is a temporary)
        QVERIFY2(loaded.what == "loaded",
                 qPrintable(u"job %1 began with '%2'"_s.arg(kill).arg(QString::fromStdString(loaded.what))));
        bool ok = false;
        for (int i = 0; i < choices; ++i)
          ok = ok || (loaded.checkpoint == expected[i].checkpoint && loaded.steps == expected[i].steps);
        QVERIFY2(ok,
                 qPrintable(
                     u"job %1 loaded checkpoint_%2 at step %3; expected checkpoint_%4 (step %5)%6"_s.arg(kill)
                         .arg(loaded.checkpoint)
                         .arg(loaded.steps)
                         .arg(expected[0].checkpoint)
                         .arg(expected[0].steps)
                         .arg(choices > 1
                                  ? u" or checkpoint_%1 (step %2)"_s.arg(expected[1].checkpoint).arg(expected[1].steps)
                                  : QString())));
      }
      if (last) {
        const QString failure = fathom::test::firstFailure(job->wait(60'000), u"verify"_s);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        break;
      }
      // The job's second save (the first one of a job is slower: it warms the allocator and the page cache) gives
      // the duration; the kill lands in the third.
      if (!waitForEvent(dir.path(), before + 3, "end", *job)) {
        job->kill();
        QFAIL(qPrintable(u"job %1 did not save twice"_s.arg(kill)));
      }
      const auto events = readEvents(dir.path());
      auto secondEnd = events.begin() + static_cast<std::ptrdiff_t>(before);
      for (int ends = 0; ends < 2; ++secondEnd)
        ends += secondEnd->what == "end" ? 1 : 0;
      --secondEnd;
      const std::int64_t saveUs = secondEnd->atUs - std::prev(secondEnd)->atUs;
      saveUsTotal += saveUs;
      QVERIFY2(waitForEvent(dir.path(), static_cast<std::size_t>(secondEnd - events.begin()) + 1, "begin", *job),
               qPrintable(u"job %1 began no third save"_s.arg(kill)));
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<std::int64_t>(fraction(random) * saveUs)));
      job->kill();
      job.reset();
      // The last event tells where the kill landed: inside saving checkpoint n ("begin": the previous one or n may be
      // loaded, n if its rename happened) or between saves ("end": n).
      const auto after = readEvents(dir.path());
      const Event& latest = after.back();
      if (latest.what == "begin") {
        ++duringSave;
        const auto previous = std::find_if(after.rbegin() + 1, after.rend(),
                                           [](const Event& e) { return e.what == "end" || e.what == "loaded"; });
        QVERIFY(previous != after.rend());
        expected[0] = *previous;
        expected[1] = latest;
        choices = 2;
      } else {
        expected[0] = latest;
        choices = 1;
      }
      for (const auto& entry : fs::directory_iterator(dir.path().toStdString() + "/checkpoints"))
        stagingSeen += entry.path().filename().string().ends_with(".staging") ? 1 : 0;
    }
    qInfo("%d kills: %d inside a save (a save took %.1f ms on average), %d left a staging folder behind (none taken); "
          "published at the end: %s",
          moments, duringSave, static_cast<double>(saveUsTotal) / moments / 1000.0, stagingSeen,
          qPrintable(published(dir.path())));
  }

  void fullDiskFailsTheSaveAndKeepsThePreviousCheckpoint() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    TmpfsMount disk(dir.path().toStdString() + "/disk", "size=64m");
    if (!disk.mounted)
      QSKIP(qPrintable(u"cannot mount a tmpfs at %1 (%2): mounting needs root"_s.arg(
          QString::fromStdString(disk.path), QString::fromLocal8Bit(std::strerror(disk.error)))));
    const auto results =
        fathom::test::runScenarioPhase(u"diskfull"_s, QString(), kWorld, QString::fromStdString(disk.path));
    const QString failure = fathom::test::firstFailure(results, u"diskfull"_s);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    int named = 0;
    for (const auto& r : results)
      named += r.out.contains(u"no space left on the device (or the disk quota is used up) while writing"_s) ? 1 : 0;
    QVERIFY2(named > 0, qPrintable(results[0].out));
    qInfo("%d of %d processes ran out of space; rank 0: %s", named, kWorld, qPrintable(results[0].out.trimmed()));
  }
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker")
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  QCoreApplication app(argc, argv);
  TestCheckpointCrashSharded test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_checkpoint_crash_sharded.moc"
