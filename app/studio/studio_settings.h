// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace fathom::studio {

/// The Studio's persistent settings (QSettings, organisation "Fathom", application "Fathom Studio"), typed.
namespace settings {

/// The UI language: "" = the system's, else a locale name ("en", "de", "zh_CN"). Read at start-up.
QString language();
void setLanguage(const QString& name);

/// Workspaces opened most recently, newest first, at most kMaxRecent, only files that still exist.
QStringList recentWorkspaces();
/// Moves `path` to the front of the recent list.
void addRecentWorkspace(const QString& path);
void clearRecentWorkspaces();
inline constexpr int kMaxRecent = 8;

/// The workspace open when the Studio last closed ("" when none).
QString lastWorkspace();
void setLastWorkspace(const QString& path);

/// The runs whose pages were open in `workspace` when the Studio last closed: reopened (and, when live, followed
/// again) when that workspace opens.
QList<qint64> openRuns(const QString& workspace);
void setOpenRuns(const QString& workspace, const QList<qint64>& runs);

/// Main window geometry and dock/toolbar state (QMainWindow::saveGeometry/saveState).
QByteArray windowGeometry();
QByteArray windowState();
void setWindowLayout(const QByteArray& geometry, const QByteArray& state);

/// The languages with a shipped translation, as (locale name, native name) pairs, English first.
QList<std::pair<QString, QString>> availableLanguages();

}  // namespace settings
}  // namespace fathom::studio
