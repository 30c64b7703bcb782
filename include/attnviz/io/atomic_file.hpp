// Atomic file writes: write a temp file beside the target, then rename, so a failed run never
// leaves a half-written output.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

namespace attnviz {

// Writes bytes to path atomically (temp file in the same directory + fsync + rename).
// Throws Error naming the path on any failure; the temp file is removed on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

namespace detail {
class TempFile;
}

// The same, written piece by piece: a registered temp file beside the target (removed on any error,
// destruction or signal) that commit() fsyncs and renames into place. For outputs streamed while
// they are computed (--save), so no copy of them is held in memory.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::filesystem::path& target);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void write(std::string_view bytes);                      // appends at the end written so far
  void write_at(uint64_t offset, std::string_view bytes);  // pwrite: anywhere, holes allowed
  int fd() const;
  // The filesystem's block size for this file (st_blksize): the unit insert_front works in.
  uint64_t block_size() const;
  // Makes the file's first `size` bytes `bytes` and moves everything written so far after them,
  // without copying it: fallocate's FALLOC_FL_INSERT_RANGE (ext4, XFS). bytes.size() must be a
  // multiple of block_size() and the file must not be empty. Returns false, changing nothing, where
  // the filesystem cannot (then the caller copies); throws on a failed write.
  bool insert_front(std::string_view bytes);
  void commit();

 private:
  std::unique_ptr<detail::TempFile> temp_;
};

// Checks, before any work, that write_file_atomically(path, …) can replace `path`: refuses an empty
// name, an existing path that is not a regular file (a device such as /dev/null, a FIFO, a folder:
// the rename would replace it), a parent folder that does not exist or cannot be written.
void check_output_file(const std::filesystem::path& path, const std::string& flag);

}  // namespace attnviz
