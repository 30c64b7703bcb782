// Reading a whole input file with bounds: regular files (or standard input) only, never blocking
// on a FIFO, never reading past a size cap (so `/dev/zero` or a huge file ends in a clear error).
#pragma once

#include <cstddef>
#include <string>

namespace attnviz {

// The cap for text inputs (tokens, ids, masks, config.json, layout files, vocab.txt, JSON indexes).
inline constexpr size_t k_max_text_file_bytes = size_t{256} << 20;  // 256 MiB

// Reads a whole regular file, or standard input when path is "-". Throws Error naming the path
// for a directory ("is a directory"), any other non-regular file (FIFO, device: "is not a regular
// file"; opened non-blocking, so a FIFO with no writer is refused at once) and for content over
// max_bytes (the message gives the limit).
std::string read_regular_file(const std::string& path, size_t max_bytes);

// read_regular_file with the text cap, k_max_text_file_bytes.
std::string read_text_file(const std::string& path);

}  // namespace attnviz
