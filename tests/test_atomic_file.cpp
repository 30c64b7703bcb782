// Tests for write_file_atomically: exact bytes, overwrite, and failures that leave nothing behind.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "temp_dir.hpp"

using attnviz::test::slurp;
using attnviz::test::TempDir;

namespace fs = std::filesystem;

namespace {

size_t count_entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("atomic_file: writes exactly the given bytes, NULs included") {
  TempDir dir;
  const fs::path target = dir.path() / "out.bin";
  const std::string bytes("a\0b\nc\xff", 6);
  attnviz::write_file_atomically(target, bytes);
  CHECK(slurp(target) == bytes);
  CHECK(count_entries(dir.path()) == 1);  // no temp file left beside it
}

TEST_CASE("atomic_file: overwrites an existing file and leaves no temp file") {
  TempDir dir;
  const fs::path target = dir.path() / "out.txt";
  attnviz::write_file_atomically(target, "first version, longer than the second");
  attnviz::write_file_atomically(target, "second");
  CHECK(slurp(target) == "second");
  CHECK(count_entries(dir.path()) == 1);
}

TEST_CASE("atomic_file: writes an empty file") {
  TempDir dir;
  const fs::path target = dir.path() / "empty";
  attnviz::write_file_atomically(target, "");
  CHECK(fs::exists(target));
  CHECK(fs::file_size(target) == 0);
}

TEST_CASE("atomic_file: a missing directory throws naming the path and the OS error") {
  TempDir dir;
  const fs::path target = dir.path() / "no-such-dir" / "out.txt";
  try {
    attnviz::write_file_atomically(target, "data");
    FAIL("write into a missing directory succeeded");
  } catch (const attnviz::Error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find(target.string()) != std::string::npos);
    CHECK(msg.find(std::strerror(ENOENT)) != std::string::npos);
    CHECK(e.exit_code() == attnviz::k_exit_runtime);
  }
  CHECK(count_entries(dir.path()) == 0);
}

TEST_CASE("atomic_file: a failed rename removes the temp file and keeps the target") {
  // rename(2) of a file over a non-empty directory fails after the temp file was written.
  TempDir dir;
  const fs::path target = dir.path() / "a-directory";
  fs::create_directory(target);
  attnviz::write_file_atomically(target / "inside", "keep me");
  try {
    attnviz::write_file_atomically(target, "data");
    FAIL("rename over a directory succeeded");
  } catch (const attnviz::Error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("cannot rename") != std::string::npos);
    CHECK(msg.find(target.string()) != std::string::npos);
  }
  CHECK(fs::is_directory(target));
  CHECK(slurp(target / "inside") == "keep me");
  CHECK(count_entries(dir.path()) == 1);  // only the directory: the temp file is gone
}

TEST_CASE("atomic_file: new files get 0666 minus umask, not mkstemp's 0600") {
  TempDir dir;
  const fs::path target = dir.path() / "perm";
  const mode_t old_mask = ::umask(022);
  attnviz::write_file_atomically(target, "x");
  ::umask(old_mask);
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE(
    "atomic_file: insert_front puts whole blocks before what was written, or changes nothing") {
  TempDir dir;
  const fs::path target = dir.path() / "front.bin";
  attnviz::AtomicFileWriter out(target);
  const std::string body(10000, 'd');
  out.write(body);
  const std::string front(out.block_size(), 'h');
  const bool inserted = out.insert_front(front);
  out.commit();
  // Either way the file holds every byte written; where the filesystem inserts ranges (ext4,
  // XFS) the block comes first, elsewhere (tmpfs, overlayfs) nothing moved and the caller copies.
  CHECK(slurp(target) == (inserted ? front + body : body));
  MESSAGE(
      "insert_front on this filesystem: " << std::string(inserted ? "inserted" : "not supported"));
}
