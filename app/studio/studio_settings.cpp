// SPDX-License-Identifier: Apache-2.0
#include "studio_settings.h"

#include <QFileInfo>
#include <QLocale>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace fathom::studio::settings {

QString language() {
  return QSettings().value(u"ui/language"_s).toString();
}

void setLanguage(const QString& name) {
  QSettings().setValue(u"ui/language"_s, name);
}

QStringList recentWorkspaces() {
  QStringList out;
  for (const QString& path : QSettings().value(u"workspaces/recent"_s).toStringList()) {
    if (QFileInfo::exists(path) && !out.contains(path)) {
      out << path;
    }
  }
  return out.mid(0, kMaxRecent);
}

void addRecentWorkspace(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = recentWorkspaces();
  list.removeAll(absolute);
  list.prepend(absolute);
  QSettings().setValue(u"workspaces/recent"_s, list.mid(0, kMaxRecent));
}

void clearRecentWorkspaces() {
  QSettings().remove(u"workspaces/recent"_s);
}

QString lastWorkspace() {
  return QSettings().value(u"workspaces/last"_s).toString();
}

void setLastWorkspace(const QString& path) {
  QSettings().setValue(u"workspaces/last"_s, path);
}

QList<qint64> openRuns(const QString& workspace) {
  QList<qint64> out;
  const QVariantMap byWorkspace = QSettings().value(u"workspaces/openRuns"_s).toMap();
  for (const QVariant& id : byWorkspace.value(workspace).toList()) {
    out << id.toLongLong();
  }
  return out;
}

void setOpenRuns(const QString& workspace, const QList<qint64>& runs) {
  QSettings settings;
  // One workspace's entry only: the last session of each workspace is remembered.
  QVariantMap byWorkspace = settings.value(u"workspaces/openRuns"_s).toMap();
  QVariantList ids;
  for (const qint64 id : runs) {
    ids << id;
  }
  if (ids.isEmpty()) {
    byWorkspace.remove(workspace);
  } else {
    byWorkspace.insert(workspace, ids);
  }
  settings.setValue(u"workspaces/openRuns"_s, byWorkspace);
}

QByteArray windowGeometry() {
  return QSettings().value(u"window/geometry"_s).toByteArray();
}

QByteArray windowState() {
  return QSettings().value(u"window/state"_s).toByteArray();
}

void setWindowLayout(const QByteArray& geometry, const QByteArray& state) {
  QSettings s;
  s.setValue(u"window/geometry"_s, geometry);
  s.setValue(u"window/state"_s, state);
}

QList<std::pair<QString, QString>> availableLanguages() {
  QList<std::pair<QString, QString>> out;
  for (const QString& name : {u"en"_s, u"de"_s, u"zh_CN"_s}) {
    const QLocale locale(name);
    QString native = locale.nativeLanguageName();
    if (name == u"zh_CN"_s) {
      native = u"简体中文"_s;
    } else if (!native.isEmpty()) {
      native[0] = native[0].toUpper();
    }
    out.append({name, native});
  }
  return out;
}

}  // namespace fathom::studio::settings
