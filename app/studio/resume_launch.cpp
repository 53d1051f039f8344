// SPDX-License-Identifier: Apache-2.0
#include "resume_launch.h"

#include <fathom/common/error.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/run_spec.h>

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace fathom::studio {
namespace {

/// `words` without `--flag VALUE` / `--flag=VALUE` in either spelling (`flag` with underscores).
QStringList withoutFlag(const QStringList& words, const QString& flag) {
  QString dashed = flag;
  dashed.replace(u'_', u'-');
  QStringList out;
  for (qsizetype i = 0; i < words.size(); ++i) {
    const QString& word = words[i];
    if (word == flag || word == dashed) {
      ++i;  // and its value
      continue;
    }
    if (word.startsWith(flag + u'=') || word.startsWith(dashed + u'='))
      continue;
    out << word;
  }
  return out;
}

bool isFathomTrain(const QStringList& words) {
  return words.size() >= 2 && QFileInfo(words[0]).fileName() == u"fathom"_s && words[1] == u"train"_s;
}

}  // namespace

QStringList resumeCommand(const std::vector<std::string>& command, const QString& checkpoint) {
  QStringList words;
  for (const std::string& word : command)
    words << QString::fromStdString(word);
  words = withoutFlag(words, u"--resume_from_checkpoint"_s);
  const QDir parent = QFileInfo(checkpoint).dir();
  if (isFathomTrain(words) && parent.dirName() == u"checkpoints"_s) {
    words = withoutFlag(words, u"--project_dir"_s);
    words << u"--project_dir"_s << QFileInfo(parent.absolutePath()).absolutePath();
  }
  words << u"--resume_from_checkpoint"_s << checkpoint;
  return words;
}

ResumeLaunch prepareResume(qint64 runId, const QString& runSpec, const QString& checkpoint, const QString& folder) {
  FATHOM_CHECK(!runSpec.isEmpty(), ConfigError, "run ", runId,
               " has no stored run specification (it was not started by fathom launch)");
  const std::string name = "run " + std::to_string(runId) + "'s specification";
  const config::RunSpec spec = config::runSpecFromConfig(config::parseConfig(runSpec.toStdString(), name).config);
  FATHOM_CHECK(!spec.fathom.command.empty(), ConfigError, name,
               " names no command (fathom.command): start it again from the command line with "
               "--resume_from_checkpoint ",
               checkpoint.toStdString());
  ResumeLaunch out;
  out.configPath = QDir(folder).absoluteFilePath(u"run_%1_resume.yaml"_s.arg(runId));
  QSaveFile file(out.configPath);
  const QByteArray bytes = runSpec.toUtf8();
  FATHOM_CHECK(file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.commit(), StorageError,
               "cannot write ", out.configPath.toStdString(), ": ", file.errorString().toStdString());
  out.command = resumeCommand(spec.fathom.command, checkpoint);
  return out;
}

}  // namespace fathom::studio
