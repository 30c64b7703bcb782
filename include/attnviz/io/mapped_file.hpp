// A regular file mapped read-only (mmap), shared by the safetensors and GGUF readers: their
// validation works on the bytes, and tensor data is read in place, never copied whole.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace attnviz::detail {

// A whole file mapped read-only and private; unmapped on destruction. Empty files are not mapped
// (mmap rejects length 0) and read as zero bytes. FIFOs, devices and folders are refused (Error).
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {data_ ? data_ : "", size_}; }

 private:
  void unmap();

  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace attnviz::detail
