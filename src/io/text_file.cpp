// Bounded whole-file reads: stat the opened descriptor before reading, so only regular files
// (or standard input) are read, and stop at the cap instead of exhausting memory.
#include "attnviz/io/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

// Closes the descriptor on every path out of read_regular_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string too_large(const std::string& what, size_t max_bytes) {
  constexpr size_t k_mib = size_t{1} << 20;
  const std::string limit = max_bytes % k_mib == 0 ? fmt::format("{} MiB", max_bytes / k_mib)
                                                   : fmt::format("{} bytes", max_bytes);
  return fmt::format("{}: larger than the limit of {} for this input", what, limit);
}

// Appends everything readable from fd; at most max_bytes, else Error.
void read_all(int fd, const std::string& what, size_t max_bytes, std::string& out) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("{}: cannot read: {}", what, std::strerror(errno)));
    if (n == 0) return;
    if (out.size() + static_cast<size_t>(n) > max_bytes) throw Error(too_large(what, max_bytes));
    out.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

std::string read_regular_file(const std::string& path, size_t max_bytes) {
  std::string out;
  if (path == "-") {  // standard input may be a pipe or a terminal: read it, but only up to the cap
    read_all(STDIN_FILENO, "standard input", max_bytes, out);
    return out;
  }
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before fstat.
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) throw Error(fmt::format("{}: cannot open file: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw Error(fmt::format("{}: cannot stat: {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: is a directory, expected a file", path));
  if (!S_ISREG(st.st_mode)) throw Error(fmt::format("{}: is not a regular file", path));
  if (static_cast<uint64_t>(st.st_size) > max_bytes) throw Error(too_large(path, max_bytes));
  out.reserve(static_cast<size_t>(st.st_size));
  read_all(f.fd, path, max_bytes, out);  // still capped: the file may grow while we read
  return out;
}

std::string read_text_file(const std::string& path) {
  return read_regular_file(path, k_max_text_file_bytes);
}

}  // namespace attnviz
