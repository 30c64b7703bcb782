// Staged output folders: write beside, then rename into place (see staged_dir.hpp).
#include "attnviz/io/staged_dir.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/signal_cleanup.hpp"

namespace attnviz {
namespace fs = std::filesystem;

namespace {

// "out/" and "out/." name the folder "out".
fs::path folder_name(const fs::path& dir) {
  fs::path p = dir.lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  if (p.empty() || p.filename() == "." || p.filename() == "..")
    p = fs::absolute(p).lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p;
}

}  // namespace

StagedDir::StagedDir(const fs::path& dir) : final_(folder_name(dir)) {
  std::error_code ec;
  if (final_.has_parent_path()) fs::create_directories(final_.parent_path(), ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
  if (fs::exists(final_, ec) && !fs::is_directory(final_, ec)) {
    throw Error(fmt::format("{}: exists and is not a directory", dir.string()));
  }
  if (fs::is_symlink(fs::symlink_status(final_, ec)) && !fs::exists(final_, ec)) {
    throw Error(
        fmt::format("{}: is a symbolic link to a folder that does not exist", dir.string()));
  }
  // A new DIR is staged beside it (renamed whole at the end); an existing one inside it, which
  // needs no write access to its parent (`--png .`).
  const bool exists = fs::exists(final_, ec);
  const std::string tmpl =
      exists ? (final_ / ".attnviz.tmp-XXXXXX").string() : final_.string() + ".tmp-XXXXXX";
  RegisteredTemp temp = create_registered_temp(tmpl, CleanupKind::directory);
  if (temp.path.empty()) {
    throw Error(fmt::format("{}: cannot create the staging folder {}: {}", dir.string(), tmpl,
                            std::strerror(errno)));
  }
  staging_ = temp.path;
  cleanup_slot_ = temp.slot;
  // mkdtemp makes the folder 0700; the folder the user gets has the mode mkdir would give it.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  fs::permissions(staging_, static_cast<fs::perms>(0777 & ~mask), ec);
}

StagedDir::~StagedDir() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
  unregister_cleanup(cleanup_slot_);
}

void StagedDir::commit() {
  std::error_code ec;
  // Unregistered first: a signal from here on never deletes finished figures; at worst it leaves
  // a complete staging folder or a marked partial set.
  unregister_cleanup(std::exchange(cleanup_slot_, -1));
  committed_ = true;
  if (!fs::exists(final_, ec)) {
    fs::rename(staging_, final_, ec);
    if (!ec) return;
  }
  const fs::path marker = final_ / k_incomplete_marker;
  std::ofstream(marker) << "attnviz was writing this folder; a file may be missing or stale\n";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(staging_, ec)) files.push_back(entry.path());
  if (ec)
    throw Error(
        fmt::format("{}: cannot list {}: {}", final_.string(), staging_.string(), ec.message()));
  for (const fs::path& f : files) {
    fs::rename(f, final_ / f.filename(), ec);
    if (ec) {
      throw Error(fmt::format("{}: cannot move {} into place: {} (the folder is marked {})",
                              final_.string(), f.string(), ec.message(), k_incomplete_marker));
    }
  }
  fs::remove(staging_, ec);
  fs::remove(marker, ec);
}

}  // namespace attnviz
