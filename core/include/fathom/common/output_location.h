// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace fathom {

/// A place a program will write to later: checked before the work that produces it starts, so a read-only folder
/// or a missing one fails at once, not after hours of training (checkOutputLocations()).
struct OutputLocation {
  enum class Kind {
    File,    ///< a file written into an existing folder (replaced atomically if it exists)
    Folder,  ///< a folder, created (with its parents) if missing, that files are written into
  };
  std::filesystem::path path;
  /// What it is, for messages: "--save_final file", "trace folder (--profile_dir)".
  std::string what = "output";
  Kind kind = Kind::File;
};

/// Why `location` cannot be written, or std::nullopt when it can: the folder that will hold it (for a File, its
/// parent; for a Folder, the folder itself or, when missing, its nearest existing ancestor) must be a folder in
/// which a probe file can be created and written (a real file, removed at once: permission bits, read-only mounts,
/// ACLs, a full disk and the file size limit all show). A File must not be a folder; a Folder must not be a file.
std::optional<std::string> outputLocationProblem(const OutputLocation& location);

/// Checks every location; throws StorageError "cannot write <what> <path>: <reason>" for the first that fails.
void checkOutputLocations(std::span<const OutputLocation> locations);

}  // namespace fathom
