// SPDX-License-Identifier: Apache-2.0
// The profiler's pure parts: the schedule (torch.profiler.schedule, step by step), the FLOP formulas, and the
// memory timeline's categories and series from synthetic allocator events.
#include "fathom/common/error.h"
#include "fathom/profile/memory_timeline.h"
#include "fathom/profile/profiler_options.h"
#include "profile/op_flops.h"

#include <QTest>

#include <limits>

using namespace fathom;
using namespace fathom::profile;
using namespace Qt::StringLiterals;

namespace {

/// A category's name, so QCOMPARE prints it.
QString name(MemoryCategory category) {
  return QString::fromStdString(std::string(toString(category)));
}

/// The schedule's actions for steps 0..n-1 as letters: . none, w warmup, r record, S record_and_save.
QString actions(const ProfileSchedule& s, int n) {
  QString out;
  for (int step = 0; step < n; ++step) {
    switch (s.action(step)) {
    case ProfilerAction::None: out += u'.'; break;
    case ProfilerAction::Warmup: out += u'w'; break;
    case ProfilerAction::Record: out += u'r'; break;
    case ProfilerAction::RecordAndSave: out += u'S'; break;
    }
  }
  return out;
}

constexpr MemoryDevice kCpu{0, -1};

AllocatorEvent alloc(std::int64_t ns, std::uintptr_t ptr, std::int64_t bytes, std::uint32_t instance) {
  AllocatorEvent e;
  e.ns = ns;
  e.ptr = ptr;
  e.bytes = bytes;
  e.phaseInstance = instance;
  e.device = kCpu;
  return e;
}

AllocatorEvent freeOf(std::int64_t ns, std::uintptr_t ptr, std::int64_t bytes, std::uint32_t instance) {
  return alloc(ns, ptr, -bytes, instance);
}

}  // namespace

class TestProfilerUnits : public QObject {
  Q_OBJECT

private slots:
  void scheduleMatchesTorch_data();
  void scheduleMatchesTorch();
  void scheduleParse();
  void scheduleWithHugeCounts();
  void scheduleRejects_data();
  void scheduleRejects();
  void flops_data();
  void flops();
  void forwardSurvivorsAreActivations();
  void phasesGiveCategories();
  void hintWins();
  void classificationMovesAndAddsPreexisting();
  void pendingBaselineDecidedInWindow();
  void unknownFreesAreCounted();
  void devicesHaveTheirOwnSeries();
};

void TestProfilerUnits::scheduleMatchesTorch_data() {
  QTest::addColumn<int>("skipFirst");
  QTest::addColumn<int>("wait");
  QTest::addColumn<int>("warmup");
  QTest::addColumn<int>("active");
  QTest::addColumn<int>("repeat");
  QTest::addColumn<QString>("expected");
  // Expected strings worked out by hand from torch.profiler.schedule's schedule_fn.
  QTest::newRow("wait1 warmup1 active3 repeat1") << 0 << 1 << 1 << 3 << 1 << u".wrrS......"_s;
  QTest::newRow("repeat 2") << 0 << 1 << 1 << 2 << 2 << u".wrS.wrS...."_s;
  QTest::newRow("repeat 0 cycles forever") << 0 << 0 << 1 << 2 << 0 << u"wrSwrSwrSwrS"_s;
  QTest::newRow("skip_first") << 3 << 1 << 0 << 2 << 1 << u"....rS....."_s;
  QTest::newRow("active 1 saves every step") << 0 << 0 << 0 << 1 << 3 << u"SSS...."_s;
}

void TestProfilerUnits::scheduleMatchesTorch() {
  QFETCH(int, skipFirst);
  QFETCH(int, wait);
  QFETCH(int, warmup);
  QFETCH(int, active);
  QFETCH(int, repeat);
  QFETCH(QString, expected);
  const ProfileSchedule s{skipFirst, wait, warmup, active, repeat};
  QCOMPARE(actions(s, static_cast<int>(expected.size())), expected);
}

void TestProfilerUnits::scheduleParse() {
  QCOMPARE(ProfileSchedule::parse("1,2,3,4"), (ProfileSchedule{0, 1, 2, 3, 4}));
  QCOMPARE(ProfileSchedule::parse("5,1,2,3,4"), (ProfileSchedule{5, 1, 2, 3, 4}));
}

// Counts up to INT_MAX are valid (torch takes any int): wait + warmup must not overflow int (found by fuzz_text_values;
// tests/fuzz/regressions/text_values/schedule_int_overflow). Step INT_MAX is the warm-up step of this cycle.
void TestProfilerUnits::scheduleWithHugeCounts() {
  constexpr int kMax = std::numeric_limits<int>::max();
  const auto actionName = [](ProfilerAction a) {
    return QString::fromUtf8(toString(a).data(), qsizetype(toString(a).size()));
  };
  const ProfileSchedule s = ProfileSchedule::parse("2147483647,1,1,0");
  QCOMPARE(s, (ProfileSchedule{0, kMax, 1, 1, 0}));
  QCOMPARE(actionName(s.action(0)), u"none"_s);
  QCOMPARE(actionName(s.action(kMax - 1)), u"none"_s);
  QCOMPARE(actionName(s.action(kMax)), u"warmup"_s);
  QCOMPARE(actionName(s.action(std::int64_t{kMax} + 1)), u"record_and_save"_s);
  QCOMPARE(actionName(s.action(std::int64_t{kMax} + 2)), u"none"_s);  // the next cycle waits again
  const ProfileSchedule all{kMax, kMax, kMax, kMax, kMax};            // skip, wait, warm up, record: kMax steps each
  QCOMPARE(actionName(all.action(kMax - 1)), u"none"_s);
  QCOMPARE(actionName(all.action(kMax)), u"none"_s);
  QCOMPARE(actionName(all.action(std::int64_t{kMax} * 2)), u"warmup"_s);
  QCOMPARE(actionName(all.action(std::int64_t{kMax} * 3)), u"record"_s);
  QCOMPARE(actionName(all.action(std::int64_t{kMax} * 4 - 1)), u"record_and_save"_s);
}

void TestProfilerUnits::scheduleRejects_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("message");
  QTest::newRow("three numbers") << u"1,1,3"_s << u"has 3 numbers"_s;
  QTest::newRow("not a number") << u"1,x,3,1"_s << u"'x' is not an integer"_s;
  QTest::newRow("empty part") << u"1,,3,1"_s << u"'' is not an integer"_s;
  QTest::newRow("active 0") << u"1,1,0,1"_s << u"active must be >= 1, got 0"_s;
  QTest::newRow("negative wait") << u"-1,1,3,1"_s << u"wait must be >= 0, got -1"_s;
}

void TestProfilerUnits::scheduleRejects() {
  QFETCH(QString, text);
  QFETCH(QString, message);
  try {
    ProfileSchedule::parse(text.toStdString());
    QFAIL("no ConfigError");
  } catch (const ConfigError& e) {
    QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
  }
}

void TestProfilerUnits::flops_data() {
  QTest::addColumn<QString>("op");
  QTest::addColumn<QList<QList<qint64>>>("shapes");
  QTest::addColumn<double>("expected");
  QTest::newRow("mm") << u"aten::mm"_s << QList<QList<qint64>>{{4, 8}, {8, 16}} << 2.0 * 4 * 8 * 16;
  QTest::newRow("addmm skips the bias") << u"aten::addmm"_s << QList<QList<qint64>>{{16}, {4, 8}, {8, 16}}
                                        << 2.0 * 4 * 8 * 16;
  QTest::newRow("bmm") << u"aten::bmm"_s << QList<QList<qint64>>{{3, 4, 8}, {3, 8, 5}} << 2.0 * 3 * 4 * 8 * 5;
  QTest::newRow("baddbmm") << u"aten::baddbmm"_s << QList<QList<qint64>>{{3, 4, 5}, {3, 4, 8}, {3, 8, 5}}
                           << 2.0 * 3 * 4 * 8 * 5;
  QTest::newRow("mul broadcasts") << u"aten::mul"_s << QList<QList<qint64>>{{4, 1, 8}, {3, 1}} << 4.0 * 3 * 8;
  QTest::newRow("add with a scalar") << u"aten::add"_s << QList<QList<qint64>>{{5, 6}, {}} << 30.0;
  QTest::newRow("mm shapes that do not fit") << u"aten::mm"_s << QList<QList<qint64>>{{4, 8}, {7, 16}} << -1.0;
  QTest::newRow("no formula") << u"aten::relu"_s << QList<QList<qint64>>{{4, 8}} << -1.0;
}

void TestProfilerUnits::flops() {
  QFETCH(QString, op);
  QFETCH(QList<QList<qint64>>, shapes);
  QFETCH(double, expected);
  std::vector<fathom::profile::detail::Shape> in;
  for (const auto& s : shapes)
    in.emplace_back(s.begin(), s.end());
  QCOMPARE(fathom::profile::detail::estimateFlops(op.toStdString(), in), expected);
}

void TestProfilerUnits::forwardSurvivorsAreActivations() {
  // Instance 1 = forward (ns 100..200), instance 2 = backward (200..).
  MemoryTimelineInput in;
  in.startNs = 100;
  in.endNs = 400;
  in.phases = {{1, Phase::Forward, 100}, {2, Phase::Backward, 200}};
  in.events = {alloc(110, 0xA, 1000, 1),   // kept for backward: activation
               alloc(120, 0xB, 300, 1),    // freed inside forward: temporary
               freeOf(130, 0xB, 300, 1),   //
               alloc(140, 0xC, 500, 1),    // kept: activation
               freeOf(250, 0xA, 1000, 2),  // backward frees the activations
               freeOf(260, 0xC, 500, 2)};
  const MemoryTimeline t = buildMemoryTimeline(in);
  QCOMPARE(name(t.eventCategories[0]), name(MemoryCategory::Activations));
  QCOMPARE(name(t.eventCategories[1]), name(MemoryCategory::Temporaries));
  QCOMPARE(name(t.eventCategories[2]), name(MemoryCategory::Temporaries));
  QCOMPARE(name(t.eventCategories[3]), name(MemoryCategory::Activations));
  QCOMPARE(name(t.eventCategories[4]), name(MemoryCategory::Activations));
  const DeviceMemorySeries* s = t.series(kCpu);
  QVERIFY(s != nullptr);
  QCOMPARE(s->peak[MemoryCategory::Activations], 1500);
  QCOMPARE(s->peak[MemoryCategory::Temporaries], 300);
  QCOMPARE(s->peakTotal, 1500);  // A and C alive at 140 (B, 300, was freed at 130)
  QCOMPARE(s->atEnd.total(), 0);
  QCOMPARE(s->points.size(), std::size_t(7));  // the start plus one per event
  QCOMPARE(s->points.front().ns, 100);
}

void TestProfilerUnits::phasesGiveCategories() {
  MemoryTimelineInput in;
  in.startNs = 0;
  in.endNs = 1000;
  in.phases = {{1, Phase::DataLoader, 0}, {2, Phase::Forward, 100},       {3, Phase::Backward, 200},
               {4, Phase::None, 300},     {5, Phase::OptimizerStep, 400}, {6, Phase::Checkpoint, 500}};
  in.events = {alloc(10, 1, 8, 1),   alloc(110, 2, 16, 2),  alloc(210, 3, 32, 3),
               alloc(310, 4, 64, 4), alloc(410, 5, 128, 5), alloc(510, 6, 256, 6)};
  const MemoryTimeline t = buildMemoryTimeline(in);
  const std::vector<MemoryCategory> expected{MemoryCategory::Inputs,          MemoryCategory::Activations,
                                             MemoryCategory::Gradients,       MemoryCategory::Other,
                                             MemoryCategory::OptimizerStates, MemoryCategory::Other};
  QVERIFY(t.eventCategories == expected);
  const CategoryBytes& end = t.series(kCpu)->atEnd;
  QCOMPARE(end[MemoryCategory::Inputs], 8);
  QCOMPARE(end[MemoryCategory::Activations], 16);
  QCOMPARE(end[MemoryCategory::Gradients], 32);
  QCOMPARE(end[MemoryCategory::OptimizerStates], 128);
  QCOMPARE(end[MemoryCategory::Other], 64 + 256);
}

void TestProfilerUnits::hintWins() {
  MemoryTimelineInput in;
  in.phases = {{1, Phase::Forward, 0}};
  AllocatorEvent gathered = alloc(10, 7, 4096, 1);
  gathered.hint = static_cast<std::uint8_t>(MemoryCategory::Parameters);  // FSDP's gathered unit
  in.events = {gathered, freeOf(20, 7, 4096, 1)};
  const MemoryTimeline t = buildMemoryTimeline(in);
  QCOMPARE(name(t.eventCategories[0]), name(MemoryCategory::Parameters));  // not temporary, though freed within forward
  QCOMPARE(t.series(kCpu)->peak[MemoryCategory::Parameters], 4096);
  QCOMPARE(t.series(kCpu)->peak[MemoryCategory::Temporaries], 0);
}

void TestProfilerUnits::classificationMovesAndAddsPreexisting() {
  MemoryTimelineInput in;
  in.startNs = 0;
  in.phases = {{1, Phase::Backward, 0}, {2, Phase::None, 100}};
  in.events = {alloc(10, 0x10, 400, 1)};  // a gradient, by phase
  // At 150 Fathom says 0x10 is a parameter (say, a re-pointed buffer), and names a parameter the allocator never
  // reported (allocated before profiling).
  in.classifications = {{150, 0x10, 400, MemoryCategory::Parameters, kCpu},
                        {150, 0x20, 1000, MemoryCategory::Parameters, kCpu},
                        {160, 0x20, 1000, MemoryCategory::Parameters, kCpu}};  // known, same category: no point
  const MemoryTimeline t = buildMemoryTimeline(in);
  const DeviceMemorySeries* s = t.series(kCpu);
  QCOMPARE(name(t.eventCategories[0]), name(MemoryCategory::Gradients));
  QCOMPARE(s->atEnd[MemoryCategory::Gradients], 0);
  QCOMPARE(s->atEnd[MemoryCategory::Parameters], 1400);
  QCOMPARE(s->peak[MemoryCategory::Gradients], 400);
  QCOMPARE(s->points.size(), std::size_t(4));  // start, alloc, move, preexisting
}

void TestProfilerUnits::pendingBaselineDecidedInWindow() {
  // The window starts inside forward instance 5; two blocks of it are alive. One is freed before forward ends
  // (temporary), the other outlives it (activation).
  MemoryTimelineInput in;
  in.startNs = 1000;
  in.phases = {{5, Phase::Forward, 900}, {6, Phase::Backward, 1200}};
  in.baseline = {{0x1, 64, kCpu, MemoryCategory::Activations, 5},
                 {0x2, 32, kCpu, MemoryCategory::Activations, 5},
                 {0x3, 128, kCpu, MemoryCategory::Parameters, 0}};
  in.events = {freeOf(1100, 0x1, 64, 5), freeOf(1300, 0x2, 32, 6)};
  const MemoryTimeline t = buildMemoryTimeline(in);
  const DeviceMemorySeries* s = t.series(kCpu);
  QCOMPARE(s->atStart[MemoryCategory::Temporaries], 64);
  QCOMPARE(s->atStart[MemoryCategory::Activations], 32);
  QCOMPARE(s->atStart[MemoryCategory::Parameters], 128);
  QCOMPARE(name(t.eventCategories[0]), name(MemoryCategory::Temporaries));
  QCOMPARE(name(t.eventCategories[1]), name(MemoryCategory::Activations));
  QCOMPARE(s->atEnd.total(), 128);
}

void TestProfilerUnits::unknownFreesAreCounted() {
  MemoryTimelineInput in;
  in.phases = {{1, Phase::Forward, 0}};
  in.events = {freeOf(10, 0x99, 8, 1), alloc(20, 0x98, 8, 1)};
  const MemoryTimeline t = buildMemoryTimeline(in);
  QCOMPARE(t.unknownFrees, 1);
  QCOMPARE(t.series(kCpu)->atEnd[MemoryCategory::Activations], 8);
}

void TestProfilerUnits::devicesHaveTheirOwnSeries() {
  MemoryTimelineInput in;
  in.phases = {{1, Phase::Forward, 0}};
  AllocatorEvent gpu = alloc(10, 0x5, 2048, 1);
  gpu.device = {1, 0};
  in.events = {alloc(5, 0x4, 16, 1), gpu};
  const MemoryTimeline t = buildMemoryTimeline(in);
  QCOMPARE(t.devices.size(), std::size_t(2));
  QCOMPARE(t.series(MemoryDevice{1, 0})->atEnd[MemoryCategory::Activations], 2048);
  QCOMPARE(t.series(kCpu)->atEnd[MemoryCategory::Activations], 16);
  QCOMPARE(MemoryDevice(1, 0).name(), std::string("cuda:0"));
  QCOMPARE(kCpu.name(), std::string("cpu"));
}

QTEST_GUILESS_MAIN(TestProfilerUnits)
#include "tst_profiler_units.moc"
