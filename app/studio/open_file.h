// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>

namespace fathom::studio {

/// What a file given to `fathom-studio FILE` (or --open FILE, or by the desktop through the MIME types of
/// installer/fathom-studio.xml) is.
enum class OpenFileKind {
  Trace,      ///< a Chrome/Kineto JSON trace: .json, .json.gz, torch.profiler's .pt.trace.json, merged or per rank
  Workspace,  ///< a Fathom workspace: an SQLite database (fathom.sqlite)
};

/// Decides what `path` is by its content, not its name: the SQLite header makes a workspace; JSON text starting with
/// `{` or `[` (after a byte order mark and white space, gunzipped when it starts with the gzip magic) makes a trace.
/// The full parse happens when the trace loads (its errors name the byte offset). Returns nullopt with `error` set to
/// a message naming the file when it is missing, unreadable, or neither (a `.sqlite` name that is not SQLite too).
std::optional<OpenFileKind> classifyOpenFile(const QString& path, QString* error);

}  // namespace fathom::studio
