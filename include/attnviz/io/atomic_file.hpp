// Atomic file writes: write a temp file beside the target, then rename, so a failed run never
// leaves a half-written output.
#pragma once

#include <filesystem>
#include <string_view>

namespace attnviz {

// Writes bytes to path atomically (temp file in the same directory + fsync + rename).
// Throws Error naming the path on any failure; the temp file is removed on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace attnviz
