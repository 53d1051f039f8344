// SPDX-License-Identifier: Apache-2.0
#include "open_file.h"

#include <fathom/trace/trace_input.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <array>
#include <exception>

using namespace Qt::StringLiterals;

namespace fathom::studio {
namespace {

/// The first non-blank character of the (decompressed) text, or '\0'. Throws what TraceInput throws.
char firstCharacter(const QString& path) {
  trace::TraceInput input = trace::TraceInput::openFile(path.toStdString());
  std::array<char, 4096> buffer{};
  const std::size_t n = input.read(buffer.data(), buffer.size());
  std::size_t i = 0;
  if (n >= 3 && buffer[0] == '\xEF' && buffer[1] == '\xBB' && buffer[2] == '\xBF') {
    i = 3;  // a UTF-8 byte order mark (the trace reader skips it too)
  }
  while (i < n && (buffer[i] == ' ' || buffer[i] == '\t' || buffer[i] == '\n' || buffer[i] == '\r')) {
    ++i;
  }
  return i < n ? buffer[i] : '\0';
}

}  // namespace

std::optional<OpenFileKind> classifyOpenFile(const QString& path, QString* error) {
  const QString shown = QDir::toNativeSeparators(path);
  auto fail = [error](const QString& message) -> std::optional<OpenFileKind> {
    if (error != nullptr) {
      *error = message;
    }
    return std::nullopt;
  };
  const QFileInfo info(path);
  if (!info.exists()) {
    return fail(QCoreApplication::translate("OpenFile", "%1: no such file").arg(shown));
  }
  if (!info.isFile()) {
    return fail(QCoreApplication::translate("OpenFile", "%1 is not a file").arg(shown));
  }
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    return fail(QCoreApplication::translate("OpenFile", "%1 cannot be read: %2").arg(shown, file.errorString()));
  }
  static constexpr char kSqliteMagic[] = "SQLite format 3";  // 16 bytes with its NUL: the header of every database
  if (file.read(sizeof kSqliteMagic) == QByteArray(kSqliteMagic, sizeof kSqliteMagic)) {
    return OpenFileKind::Workspace;
  }
  if (info.suffix() == u"sqlite"_s) {
    return fail(
        QCoreApplication::translate("OpenFile", "%1 is not a Fathom workspace (not an SQLite database)").arg(shown));
  }
  char first = '\0';
  try {
    first = firstCharacter(path);
  } catch (const std::exception& e) {
    return fail(
        QCoreApplication::translate("OpenFile", "%1 is not a trace: %2").arg(shown, QString::fromUtf8(e.what())));
  }
  if (first == '{' || first == '[') {
    return OpenFileKind::Trace;
  }
  return fail(QCoreApplication::translate(
                  "OpenFile",
                  "%1 is neither a trace (Chrome/Kineto JSON: .json, .json.gz, .pt.trace.json) nor a Fathom "
                  "workspace (.sqlite)")
                  .arg(shown));
}

}  // namespace fathom::studio
