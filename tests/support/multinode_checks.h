// SPDX-License-Identifier: Apache-2.0
// What the multi-node launch tests (tst_launch_ssh over ssh, tst_launch_slurm under SLURM) check alike: arguments a
// shell would interpret reaching the workers unchanged, and a small DDP `fathom train` whose per-step losses must be
// bit-identical to the same processes launched on one machine.
#pragma once

#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstring>

namespace fathom::test {

/// The workers of the multi-node tests. $1: where to record; $2: the mode (args: record and end; fail: rank 3 exits 7
/// once every rank has started; anything else: wait); the rest: arguments to record. Records pid.$RANK,
/// child.$RANK (a grandchild of the agent: `sleep 300 &`), agent.$RANK (its parent: the agent), ssh.$RANK
/// ($SSH_CONNECTION: which address an ssh agent was reached at), node.$RANK ($SLURMD_NODENAME: the SLURM node) and
/// args.$RANK (its arguments, NUL-separated), and prints "rank R on NODE".
constexpr auto kMultinodeWorker = R"(#!/bin/bash
dir=$1; mode=$2; shift 2
cd "$dir" || exit 99
printf '%s\0' "$@" > args.$RANK
echo "$SSH_CONNECTION" > ssh.$RANK
echo "$SLURMD_NODENAME" > node.$RANK
sleep 300 &
echo $! > child.$RANK
echo $PPID > agent.$RANK
echo $$ > pid.$RANK
echo "rank $RANK on $SLURMD_NODENAME"
case "$mode" in
  args) kill $!; exit 0 ;;
  fail) if [ "$RANK" = 3 ]; then
          while [ $(ls pid.* | wc -l) -lt $WORLD_SIZE ]; do sleep 0.05; done
          echo "rank 3 gives up"; exit 7
        fi ;;
esac
wait
)";

/// Arguments with spaces, quotes, shell metacharacters, a newline, an empty one, a flag-like one and non-ASCII.
inline QStringList nastyArguments() {
  using namespace Qt::StringLiterals;
  return {u"two words"_s,     u"it's"_s,         u"\"double\""_s, u"$HOME"_s,       u"$(touch pwned)"_s,
          u"`touch pwned`"_s, u"a;b && c | d"_s, u"*"_s,          u"back\\slash"_s, u"line\nbreak"_s,
          QString(),          u"--flag"_s,       u"é 中文"_s};
}

/// NUL-terminated words (as `printf '%s\0' "$@"` writes them), decoded as UTF-8.
inline QStringList splitNul(const QByteArray& data) {
  QStringList words;
  QByteArray current;
  for (const char c : data) {
    if (c == '\0') {
      words << QString::fromUtf8(current);
      current.clear();
    } else {
      current += c;
    }
  }
  return words;
}

/// `fathom train` of a tiny MLP for kDdpSteps steps, ending in --stats_json (append the file's path).
constexpr int kDdpSteps = 6;
inline QStringList ddpTrainCommand() {
  using namespace Qt::StringLiterals;
  return {fathomExecutable(), u"train"_s, u"--model"_s,      u"mlp"_s, u"--hidden"_s, u"16"_s,
          u"--layers"_s,      u"1"_s,     u"--batch_size"_s, u"4"_s,   u"--steps"_s,  QString::number(kDdpSteps),
          u"--log_every"_s,   u"0"_s,     u"--stats_json"_s};
}

/// Every rank's loss at every step, rank by rank, from a --stats_json file.
inline QList<double> stepLosses(const QString& statsFile) {
  using namespace Qt::StringLiterals;
  QFile f(statsFile);
  if (!f.open(QIODevice::ReadOnly)) {
    return {};
  }
  QList<double> result;
  const QJsonObject stats = QJsonDocument::fromJson(f.readAll()).object();
  for (const QJsonValue& rank : stats[u"ranks"_s].toArray()) {
    for (const QJsonValue& step : rank.toObject()[u"steps"_s].toArray()) {
      result << step.toObject()[u"loss"_s].toDouble();
    }
  }
  return result;
}

/// Empty when `got` holds the same `ranks` x kDdpSteps losses as `expected`, bit for bit; else the first difference.
inline QString lossDifference(const QList<double>& got, const QList<double>& expected, int ranks, const QString& how) {
  if (expected.size() != ranks * kDdpSteps || got.size() != expected.size()) {
    return QStringLiteral("%1 losses %2, %3 locally; expected %4")
        .arg(how)
        .arg(got.size())
        .arg(expected.size())
        .arg(ranks * kDdpSteps);
  }
  for (qsizetype i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &expected[i], sizeof(double)) != 0) {
      return QStringLiteral("rank %1 step %2: %3 %4, %5 locally")
          .arg(i / kDdpSteps)
          .arg(i % kDdpSteps + 1)
          .arg(got[i], 0, 'g', 17)
          .arg(how)
          .arg(expected[i], 0, 'g', 17);
    }
  }
  return {};
}

}  // namespace fathom::test
