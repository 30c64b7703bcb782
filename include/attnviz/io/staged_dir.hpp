// A folder of outputs that appears whole or not at all: files are written into a staging folder
// (`DIR.tmp-XXXXXX`, or `DIR/.attnviz.tmp-XXXXXX` when DIR exists) and moved into DIR by commit();
// SIGINT/SIGTERM or an error removes the staging folder.
#pragma once

#include <filesystem>

namespace attnviz {

class StagedDir {
 public:
  // Creates DIR's parent folders and the staging folder; throws Error naming DIR.
  explicit StagedDir(const std::filesystem::path& dir);
  ~StagedDir();  // not committed: removes the staging folder and what was written into it
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  const std::filesystem::path& final_path() const { return final_; }
  const std::filesystem::path& staging_path() const { return staging_; }

  // A new DIR: one rename of the staging folder (atomic). An existing DIR: a marker DIR/INCOMPLETE
  // is written, each file renamed in (replacing older ones of the same name), then the marker and
  // the staging folder removed, so a set cut short in this step is recognisable.
  void commit();

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  int cleanup_slot_ = -1;
  bool committed_ = false;
};

// The marker commit() leaves in an existing DIR until every file has been moved in.
inline constexpr const char* k_incomplete_marker = "INCOMPLETE";

}  // namespace attnviz
