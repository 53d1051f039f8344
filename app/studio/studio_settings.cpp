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
