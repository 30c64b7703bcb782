// Atomic file writes: mkstemp beside the target, write all, fsync, rename over the target.
// rename(2) within one directory is atomic: readers see the old file or the whole new one. The temp
// file is registered for removal on SIGINT/SIGTERM; only SIGKILL can leave a `*.tmp-XXXXXX`.
#include "attnviz/io/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>

#include "attnviz/core/error.hpp"
#include "attnviz/io/signal_cleanup.hpp"

namespace attnviz {
namespace {

// Permission bits a plain open(path, O_CREAT, 0666) would give: mkstemp makes the file 0600, which
// would surprise users sharing outputs. umask(2) can only be read by setting it, which races with
// other threads creating files, so read it from /proc (Linux >= 4.7) and fall back to 0644.
mode_t default_file_mode() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      const auto mask = static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
      return static_cast<mode_t>(0666 & ~mask);
    }
  }
  return 0644;
}

}  // namespace

namespace detail {
// Owns the temp file until commit(): the destructor closes and unlinks it on any failure path.
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& target) : target_(target) {
    const std::string pattern = target.string() + ".tmp-XXXXXX";
    // Registered for removal on SIGINT/SIGTERM from the moment it exists.
    RegisteredTemp temp = create_registered_temp(pattern, CleanupKind::file);
    if (temp.fd < 0) fail(fmt::format("cannot create temporary file {}", pattern));
    fd_ = temp.fd;
    temp_ = std::move(temp.path);
    cleanup_slot_ = temp.slot;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!temp_.empty()) ::unlink(temp_.c_str());
    unregister_cleanup(cleanup_slot_);
  }

  void write_all(std::string_view bytes) {
    const char* p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(fmt::format("cannot write {}", temp_));
      p += n;
      left -= static_cast<size_t>(n);
    }
  }

  void write_at(uint64_t offset, std::string_view bytes) {
    const char* p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
      const ssize_t n = ::pwrite(fd_, p, left, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(fmt::format("cannot write {}", temp_));
      p += n, offset += static_cast<uint64_t>(n);
      left -= static_cast<size_t>(n);
    }
  }
  int fd() const { return fd_; }

  uint64_t block_size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(fmt::format("cannot stat {}", temp_));
    return st.st_blksize > 0 ? static_cast<uint64_t>(st.st_blksize) : 4096;
  }

  bool insert_front(std::string_view bytes) {
    if (bytes.empty()) return true;
    if (::fallocate(fd_, FALLOC_FL_INSERT_RANGE, 0, static_cast<off_t>(bytes.size())) != 0) {
      // Not supported here (tmpfs, overlayfs, a FUSE mount), or a length that is not a whole number
      // of blocks, or an empty file: nothing moved, and the caller copies instead.
      if (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS || errno == EPERM) return false;
      fail(fmt::format("cannot insert {} bytes at the start of {}", bytes.size(), temp_));
    }
    write_at(0, bytes);
    return true;
  }

  void commit() {
    if (::fchmod(fd_, default_file_mode()) != 0) fail(fmt::format("cannot chmod {}", temp_));
    // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
    if (::fsync(fd_) != 0) fail(fmt::format("cannot fsync {}", temp_));
    const int fd = fd_;
    fd_ = -1;
    // Unregistered before the rename: a signal in between leaves a complete temp file, never
    // removes the finished target.
    unregister_cleanup(std::exchange(cleanup_slot_, -1));
    if (::close(fd) != 0) fail(fmt::format("cannot close {}", temp_));
    if (::rename(temp_.c_str(), target_.c_str()) != 0) {
      fail(fmt::format("cannot rename {} to {}", temp_, target_.string()));
    }
    temp_.clear();  // now owned by the target name: nothing to clean up
    sync_parent_directory();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const int err = errno;
    throw Error(fmt::format("{}: {}: {}", target_.string(), what, std::strerror(err)));
  }

  // Makes the rename itself durable. Best effort: the data is already safe and some filesystems
  // refuse fsync on directories, so errors here are not reported.
  void sync_parent_directory() const {
    const std::filesystem::path dir =
        target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    (void)::fsync(dfd);
    ::close(dfd);
  }

  std::filesystem::path target_;
  std::string temp_;
  int fd_ = -1;
  int cleanup_slot_ = -1;
};
}  // namespace detail

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& target)
    : temp_(std::make_unique<detail::TempFile>(target)) {}
AtomicFileWriter::~AtomicFileWriter() = default;
void AtomicFileWriter::write(std::string_view bytes) {
  temp_->write_all(bytes);
}
void AtomicFileWriter::write_at(uint64_t offset, std::string_view bytes) {
  temp_->write_at(offset, bytes);
}
int AtomicFileWriter::fd() const {
  return temp_->fd();
}
uint64_t AtomicFileWriter::block_size() const {
  return temp_->block_size();
}
bool AtomicFileWriter::insert_front(std::string_view bytes) {
  return temp_->insert_front(bytes);
}
void AtomicFileWriter::commit() {
  temp_->commit();
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  detail::TempFile temp(path);
  temp.write_all(bytes);
  temp.commit();
}

void check_output_file(const std::filesystem::path& path, const std::string& flag) {
  namespace fs = std::filesystem;
  if (path.empty()) throw usage_error(fmt::format("{}: the file name is empty", flag));
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    throw usage_error(
        fmt::format("{} {}: exists and is not a regular file; attnviz replaces the file it "
                    "writes, so give a new name",
                    flag, path.string()));
  }
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    throw Error(
        fmt::format("{} {}: the folder {} does not exist", flag, path.string(), parent.string()));
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw Error(fmt::format("{} {}: cannot write in {}: {}", flag, path.string(), parent.string(),
                            std::strerror(errno)));
  }
}

}  // namespace attnviz
