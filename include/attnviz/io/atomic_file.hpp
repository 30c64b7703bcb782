// Atomic file writes: write a temp file beside the target, then rename, so a failed run never
// leaves a half-written output.
#pragma once

#include <filesystem>
#include <string_view>

namespace attnviz {

// Writes bytes to path atomically (temp file in the same directory + fsync + rename).
// Throws Error naming the path on any failure; the temp file is removed on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// Checks, before any work, that write_file_atomically(path, …) can replace `path`: refuses an empty
// name, an existing path that is not a regular file (a device such as /dev/null, a FIFO, a folder:
// the rename would replace it), a parent folder that does not exist or cannot be written.
void check_output_file(const std::filesystem::path& path, const std::string& flag);

}  // namespace attnviz
