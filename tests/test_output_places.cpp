// Where outputs go, checked before the model runs: --save never replaces a device, FIFO or folder,
// a missing folder is reported at once, empty names are refused; --png folders get mkdir's mode and
// a dangling symlink is refused up front.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>

#include "run_cli.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE(
    "output places: --save refuses a FIFO, a missing folder and an empty name before running") {
  TempDir dir;
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --save " + (dir / "fifo").string());
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "exists and is not a regular file"));
  CHECK(fs::is_fifo(dir / "fifo"));  // still a FIFO, not replaced by a file
  CHECK(r.out.empty());              // nothing ran
  r = run_attnviz("run -m samples/mha -t samples/english.txt --save " +
                  (dir / "no" / "x.safetensors").string());
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "does not exist"));
  CHECK(r.out.empty());
  r = run_attnviz("run -m samples/mha -t samples/english.txt --save ''");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--save: the file name is empty"));
  r = run_attnviz("run -m samples/mha -t samples/english.txt --png ''");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--png: the folder name is empty"));
}

TEST_CASE(
    "output places: a new --png folder has mkdir's mode, a dangling symlink is refused first") {
  TempDir dir;
  const mode_t mask = ::umask(022);
  auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --no-heatmap --table none --png " +
                  (dir / "figs").string());
  ::umask(mask);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  struct stat st {};
  REQUIRE(::stat((dir / "figs").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0755);  // not mkdtemp's 0700
  fs::create_symlink(dir / "nowhere", dir / "dang");
  r = run_attnviz("run -m samples/mha -t samples/english.txt --no-heatmap --table none --png " +
                  (dir / "dang").string());
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "is a symbolic link to a folder that does not exist"));
  for (const auto& e : fs::directory_iterator(dir.path())) {
    CHECK_MESSAGE(e.path().filename().string().find(".tmp-") == std::string::npos,
                  e.path().string());
  }
}
