// SPDX-License-Identifier: Apache-2.0
// A private SLURM cluster on this machine for the `fathom launch --slurm` tests: Debian's slurm-wlm and munge, never
// their system services. start(dir) writes everything under `dir` (a munge key, munged's socket, pid, log and seed,
// slurm.conf, slurmctld's state, each slurmd's spool, pid and log), picks free ports on 127.0.0.1, and starts
//   munged -F (its own socket and key; slurm.conf's AuthInfo=socket=... points every daemon and client at it),
//   slurmctld -D, and one `slurmd -D -N nK` per node (Debian builds SLURM with --enable-multiple-slurmd: nodes
//   n1, n2, ... are all this machine, each slurmd on its own port, each node with this machine's CPUs),
// then waits (bounded) until every node is idle. environment() is what a child process needs to use the cluster
// (SLURM_CONF set, no SLURM_* variable of an outer allocation). The destructor cancels every job, stops the daemons
// (SIGTERM, then SIGKILL) and kills whatever still carries this cluster's SLURM_CONF (slurmstepd and the jobs'
// processes are not the fixture's children: slurmd starts them). Needs root (slurmd runs jobs as their users).
#pragma once

#include "fixture_io.h"
#include "process_survivors.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QList>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QString>
#include <QStringList>
#include <QTest>

#include <memory>
#include <vector>

#include <csignal>
#include <unistd.h>

namespace fathom::test {

using namespace Qt::StringLiterals;

class SlurmCluster {
public:
  SlurmCluster() = default;
  ~SlurmCluster() { stop(); }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  /// Why this machine cannot run the cluster (not root, packages missing); empty when it can. Tests QSKIP with it.
  static QString unavailable() {
    if (::geteuid() != 0) {
      return QStringLiteral("the SLURM tests run slurmd, which must run as root");
    }
    for (const char* program : {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/srun",
                                "/usr/bin/sbatch", "/usr/bin/squeue", "/usr/bin/scancel", "/usr/bin/sinfo"}) {
      if (!QFile::exists(QLatin1String(program))) {
        return QStringLiteral("no %1: install the multinode group (installer/install-deps.sh --groups multinode)")
            .arg(QLatin1String(program));
      }
    }
    return {};
  }

  /// Writes the configuration in `dir` and starts munged, slurmctld and `nodes` slurmd; returns an error text (with
  /// the daemons' log tails), empty once every node is idle.
  QString start(const QString& dir, int nodes = 2) {
    m_dir = dir;
    QDir().mkpath(m_dir);
    m_nodes.clear();
    for (int i = 1; i <= nodes; ++i) {
      m_nodes << QStringLiteral("n%1").arg(i);
    }
    QElapsedTimer timer;
    timer.start();
    if (QString e = startMunge(); !e.isEmpty()) {
      return e;
    }
    // Ports: slurmctld's, then one per slurmd (bound and released: a race with other processes, as SshServer's).
    QList<quint16> ports;
    for (int i = 0; i < 1 + nodes; ++i) {
      const quint16 port = freePort(ports);
      if (port == 0) {
        return QStringLiteral("no free port on 127.0.0.1");
      }
      ports << port;
    }
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    const QString shortHost = QString::fromLocal8Bit(host).section(QLatin1Char('.'), 0, 0);
    QString conf =
        QStringLiteral("ClusterName=fathomtest\n"
                       "SlurmctldHost=%1(127.0.0.1)\n"
                       "SlurmctldPort=%2\n"
                       "AuthType=auth/munge\n"
                       "AuthInfo=socket=%3\n"
                       "CredType=cred/munge\n"
                       "SlurmUser=root\n"
                       "SlurmdUser=root\n"
                       // No cgroups here (a container may have none to give): processes tracked by parentage, tasks
                       // not bound. linuxproc finds a job's every descendant, so scancel reaches grandchildren too.
                       "ProctrackType=proctrack/linuxproc\n"
                       "TaskPlugin=task/none\n"
                       "JobAcctGatherType=jobacct_gather/none\n"
                       "AccountingStorageType=accounting_storage/none\n"  // no slurmdbd: sacct says it is disabled
                       "JobCompType=jobcomp/none\n"
                       "MpiDefault=none\n"
                       "SwitchType=switch/none\n"
                       "SelectType=select/cons_tres\n"
                       "SelectTypeParameters=CR_CPU\n"
                       "SchedulerType=sched/backfill\n"
                       "ReturnToService=2\n"
                       "MailProg=/bin/true\n"
                       "StateSaveLocation=%4/state\n"
                       "SlurmdSpoolDir=%4/spool/%n\n"
                       "SlurmctldPidFile=%4/slurmctld.pid\n"
                       "SlurmdPidFile=%4/slurmd-%n.pid\n"
                       "SlurmctldLogFile=%4/slurmctld.log\n"
                       "SlurmdLogFile=%4/slurmd-%n.log\n"
                       "SlurmctldDebug=info\n"
                       "SlurmdDebug=info\n"
                       // A finished job stays in slurmctld's memory (squeue -t all) for MinJobAge seconds.
                       "MinJobAge=300\n"
                       "KillWait=2\n"  // scancel: SIGTERM, then SIGKILL 2 s later (default 30 s)
                       "InactiveLimit=0\n"
                       "SlurmdTimeout=60\n")
            .arg(shortHost)
            .arg(ports[0])
            .arg(path(QStringLiteral("munge.socket")), m_dir);
    const int cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    for (int i = 0; i < nodes; ++i) {
      conf += QStringLiteral("NodeName=%1 NodeHostname=%2 NodeAddr=127.0.0.1 Port=%3 CPUs=%4 State=UNKNOWN\n")
                  .arg(m_nodes[i], shortHost)
                  .arg(ports[1 + i])
                  .arg(cpus);
    }
    conf += QStringLiteral("PartitionName=debug Nodes=%1 Default=YES MaxTime=INFINITE State=UP\n")
                .arg(m_nodes.join(QLatin1Char(',')));
    QDir().mkpath(path(QStringLiteral("state")));
    for (const QString& node : m_nodes) {
      QDir().mkpath(path(QStringLiteral("spool/") + node));
    }
    writeWholeFile(configFile(), conf.toLatin1());

    if (QString e = startDaemon(u"slurmctld"_s, QStringLiteral("/usr/sbin/slurmctld"),
                                {QStringLiteral("-D"), QStringLiteral("-f"), configFile()});
        !e.isEmpty()) {
      return e;
    }
    for (const QString& node : m_nodes) {
      if (QString e =
              startDaemon(QStringLiteral("slurmd-") + node, QStringLiteral("/usr/sbin/slurmd"),
                          {QStringLiteral("-D"), QStringLiteral("-N"), node, QStringLiteral("-f"), configFile()});
          !e.isEmpty()) {
        return e;
      }
    }
    // Ready when sinfo (one "NODE|STATE" line per node, machine format) shows every node idle.
    for (;;) {
      QString out;
      run(QStringLiteral("sinfo"),
          {QStringLiteral("-h"), QStringLiteral("-N"), QStringLiteral("-o"), QStringLiteral("%N|%t")}, &out);
      int idle = 0;
      for (const QString& line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        idle += line.section(QLatin1Char('|'), 1) == QStringLiteral("idle") ? 1 : 0;
      }
      if (idle == nodes) {
        break;
      }
      for (const auto& d : m_daemons) {
        if (d->process.state() != QProcess::Running) {
          return QStringLiteral("%1 ended (exit code %2)\n").arg(d->name).arg(d->process.exitCode()) + logTails();
        }
      }
      if (timer.elapsed() > 30'000) {
        return QStringLiteral("the nodes are not idle after 30 s (sinfo: %1)\n").arg(out) + logTails();
      }
      QTest::qWait(100);
    }
    m_startMs = timer.elapsed();
    return {};
  }

  /// Cancels every job, stops the daemons and kills whatever of the cluster is left. Idempotent.
  void stop() {
    if (m_daemons.empty()) {
      return;
    }
    if (running(u"slurmctld")) {
      run(QStringLiteral("scancel"), {QStringLiteral("--user=root")});
      QElapsedTimer timer;
      timer.start();
      QString out = QStringLiteral("?");
      while (!out.isEmpty() && timer.elapsed() < 10'000) {
        out.clear();
        if (!run(QStringLiteral("squeue"), {QStringLiteral("-h"), QStringLiteral("-o"), QStringLiteral("%i")}, &out)) {
          break;
        }
        QTest::qWait(100);
      }
    }
    // slurmd first (its steps' slurmstepd see it go), then slurmctld, then munged, each SIGTERM then SIGKILL.
    for (auto it = m_daemons.rbegin(); it != m_daemons.rend(); ++it) {
      QProcess& p = (*it)->process;
      if (p.state() != QProcess::NotRunning) {
        p.terminate();
        if (!p.waitForFinished(5000)) {
          p.kill();
          p.waitForFinished(5000);
        }
      }
    }
    m_daemons.clear();
    // slurmstepd and the jobs' processes: started by slurmd, reparented, found by the SLURM_CONF they inherited.
    const QList<pid_t> left = processesOfCluster();
    for (pid_t pid : left) {
      ::kill(pid, SIGKILL);
    }
    QElapsedTimer timer;
    timer.start();
    while (!processesOfCluster().isEmpty() && timer.elapsed() < 5000) {
      QTest::qWait(20);
    }
  }

  /// This machine's environment with SLURM_CONF set to the cluster's and no SLURM_* variable of an allocation.
  QProcessEnvironment environment() const {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& name : env.keys()) {
      if (name.startsWith(QStringLiteral("SLURM_"))) {
        env.remove(name);
      }
    }
    env.insert(QStringLiteral("SLURM_CONF"), configFile());
    return env;
  }

  QString configFile() const { return path(QStringLiteral("slurm.conf")); }
  QStringList nodes() const { return m_nodes; }
  /// How long start() took until every node was idle.
  qint64 startMs() const { return m_startMs; }

  /// The daemons' pids (munged, slurmctld, slurmd...), while they run.
  QList<pid_t> daemonPids() const {
    QList<pid_t> pids;
    for (const auto& d : m_daemons) {
      if (d->process.state() == QProcess::Running) {
        pids << static_cast<pid_t>(d->process.processId());
      }
    }
    return pids;
  }

  /// Every process other than this one whose environment has this cluster's SLURM_CONF: the daemons, each
  /// slurmstepd, and every process of every job (they inherit it from slurmd or from the submitting client).
  QList<pid_t> processesOfCluster() const {
    const QByteArray marker = "SLURM_CONF=" + configFile().toLocal8Bit();
    QList<pid_t> pids;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
      bool number = false;
      const pid_t pid = static_cast<pid_t>(entry.toInt(&number));
      if (!number || pid == ::getpid()) {
        continue;
      }
      QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
      if (!environ.open(QIODevice::ReadOnly)) {
        continue;
      }
      const QByteArray text = environ.readAll();
      if (text.split('\0').contains(marker) && processRunning(pid)) {
        pids << pid;
      }
    }
    return pids;
  }

  /// The last lines of every daemon's log (for failure messages).
  QString logTails() const {
    QString text;
    QStringList logs{QStringLiteral("munged.log"), QStringLiteral("slurmctld.log")};
    for (const QString& node : m_nodes) {
      logs << QStringLiteral("slurmd-%1.log").arg(node);
    }
    for (const QString& log : logs) {
      const QStringList lines = QString::fromLocal8Bit(readWholeFile(path(log))).split(QLatin1Char('\n'));
      text += QStringLiteral("--- %1 (last lines) ---\n").arg(log) + lines.mid(qMax(0, lines.size() - 15)).join(u'\n');
    }
    return text;
  }

  /// Asks `squeue -h -t all -j JOB -o %T` until the job is in a state other than PENDING, CONFIGURING, RUNNING or
  /// COMPLETING (`timeoutMs` at most); returns the last state seen.
  QString waitForJobEnd(const QString& job, int timeoutMs = 20'000) const {
    QElapsedTimer timer;
    timer.start();
    QString state;
    while (timer.elapsed() < timeoutMs) {
      run(u"squeue"_s, {u"-h"_s, u"-t"_s, u"all"_s, u"-j"_s, job, u"-o"_s, u"%T"_s}, &state);
      state = state.trimmed();
      if (!state.isEmpty() &&
          !QStringList{u"PENDING"_s, u"CONFIGURING"_s, u"RUNNING"_s, u"COMPLETING"_s}.contains(state)) {
        break;
      }
      QTest::qWait(100);
    }
    return state;
  }

  /// Runs a SLURM client command with environment(); its stdout in `out`. True when it exited 0 within 30 s.
  bool run(const QString& program, const QStringList& args, QString* out = nullptr, QString* err = nullptr) const {
    QProcess p;
    p.setProcessEnvironment(environment());
    p.start(program, args);
    const bool finished = p.waitForFinished(30'000);
    if (!finished) {
      p.kill();
      p.waitForFinished();
    }
    if (out) {
      *out = QString::fromLocal8Bit(p.readAllStandardOutput());
    }
    if (err) {
      *err = QString::fromLocal8Bit(p.readAllStandardError());
    }
    return finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  }

  /// A TCP port free on 127.0.0.1 and not in `taken` (bound and released: another process could take it later).
  static quint16 freePort(const QList<quint16>& taken = {}) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      const quint16 port = bindFreePort("127.0.0.1");
      if (port != 0 && !taken.contains(port)) {
        return port;
      }
    }
    return 0;
  }

private:
  struct Daemon {
    QString name;
    QProcess process;
  };

  QString path(const QString& name) const { return m_dir + QLatin1Char('/') + name; }

  QString startMunge() {
    // munged refuses a key readable by others; 1 KiB of random bytes, as `mungekey` writes.
    QByteArray key(1024, '\0');
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(key.data()), key.size() / 4);
    const QString keyFile = path(QStringLiteral("munge.key"));
    writeWholeFile(keyFile, key);
    QFile::setPermissions(keyFile, QFile::ReadOwner | QFile::WriteOwner);
    // --force: munged refuses a socket directory whose parents others may write (/tmp) unless forced.
    return startDaemon(u"munged"_s, QStringLiteral("/usr/sbin/munged"),
                       {QStringLiteral("-F"), QStringLiteral("--force"),
                        QStringLiteral("--socket=") + path(QStringLiteral("munge.socket")),
                        QStringLiteral("--key-file=") + keyFile,
                        QStringLiteral("--pid-file=") + path(QStringLiteral("munged.pid")),
                        QStringLiteral("--log-file=") + path(QStringLiteral("munged.log")),
                        QStringLiteral("--seed-file=") + path(QStringLiteral("munged.seed"))},
                       path(QStringLiteral("munge.socket")));
  }

  /// Starts `program` in the foreground with SLURM_CONF set, its output in `name`.out; with `waitFor`, waits (5 s
  /// at most) until that file exists (munged's socket).
  QString startDaemon(const QString& name, const QString& program, const QStringList& args,
                      const QString& waitFor = {}) {
    auto daemon = std::make_unique<Daemon>();
    daemon->name = name;
    daemon->process.setProcessEnvironment(environment());
    daemon->process.setStandardOutputFile(path(name + QStringLiteral(".out")));
    daemon->process.setStandardErrorFile(path(name + QStringLiteral(".out")), QIODevice::Append);
    daemon->process.start(program, args);
    if (!daemon->process.waitForStarted()) {
      return QStringLiteral("%1 did not start: %2").arg(name, daemon->process.errorString());
    }
    QProcess& p = daemon->process;
    m_daemons.push_back(std::move(daemon));
    QElapsedTimer timer;
    timer.start();
    while (!waitFor.isEmpty() && !QFile::exists(waitFor)) {
      if (p.state() != QProcess::Running || timer.elapsed() > 5000) {
        return QStringLiteral("%1 did not create %2: %3")
            .arg(name, waitFor, QString::fromLocal8Bit(readWholeFile(path(name + QStringLiteral(".out")))));
      }
      QTest::qWait(20);
    }
    return {};
  }

  bool running(QStringView name) const {
    for (const auto& d : m_daemons) {
      if (d->name == name) {
        return d->process.state() == QProcess::Running;
      }
    }
    return false;
  }

  QString m_dir;
  QStringList m_nodes;
  std::vector<std::unique_ptr<Daemon>> m_daemons;  ///< in start order: munged, slurmctld, slurmd...
  qint64 m_startMs = 0;
};

}  // namespace fathom::test
