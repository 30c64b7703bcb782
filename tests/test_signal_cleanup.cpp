// SIGINT/SIGTERM leave no temporary output: the registry and its handler (in a forked child), the
// staged figure folder, and the CLI killed while writing figures or a --save file.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/io/signal_cleanup.hpp"
#include "attnviz/io/staged_dir.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& path) {
  std::ofstream(path) << "x";
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Waits for a child, polling, at most `limit`; kills it (and fails) past that.
int wait_for(pid_t pid, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL("the child did not end in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status;
}

// Starts attnviz with `args` (stdout and stderr to /dev/null), from the source directory.
pid_t start_attnviz(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text = {ATTNVIZ_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1), ::dup2(null, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// The first path under `dir` (one level of folders) whose name contains `part`, or empty.
fs::path find_under(const fs::path& dir, const std::string& part) {
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.path().filename().string().find(part) != std::string::npos) return e.path();
  }
  return {};
}

// A model and a token file of n tokens in `dir`, made with `attnviz init`.
void make_model(const test::TempDir& dir, const std::string& arch_flags, int n) {
  const auto r = test::run_attnviz("init " + arch_flags + " -o '" + (dir / "model").string() + "'");
  REQUIRE(r.exit_code == 0);
  std::ofstream tokens(dir / "tokens.txt");
  for (int i = 0; i < n; ++i) tokens << "t" << i % 97 << ' ';
}

}  // namespace

TEST_CASE("signal cleanup: SIGTERM removes registered files and folders, then ends by SIGTERM") {
  test::TempDir dir;
  touch(dir / "out.tmp-AAAAAA");
  fs::create_directories(dir / "figs.tmp-BBBBBB");
  touch(dir / "figs.tmp-BBBBBB" / "layer0.self.head0.png");
  touch(dir / "figs.tmp-BBBBBB" / "layer0.self.head1.png.tmp-CCCCCC");
  touch(dir / "keep.txt");
  install_signal_cleanup();
  const int file = register_cleanup((dir / "out.tmp-AAAAAA").string(), CleanupKind::file);
  const int folder = register_cleanup((dir / "figs.tmp-BBBBBB").string(), CleanupKind::directory);
  REQUIRE(file >= 0);
  REQUIRE(folder >= 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::raise(SIGTERM);
    ::_exit(0);  // reached only if the handler swallowed the signal
  }
  unregister_cleanup(file);  // the parent's registry: the child has its own copy
  unregister_cleanup(folder);
  const int status = wait_for(pid, std::chrono::seconds(30));
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"keep.txt"});
}

TEST_CASE("signal cleanup: an unregistered path is left alone") {
  test::TempDir dir;
  touch(dir / "done.png");
  const int slot = register_cleanup((dir / "done.png").string(), CleanupKind::file);
  unregister_cleanup(slot);
  remove_registered_paths();
  CHECK(fs::exists(dir / "done.png"));
}

TEST_CASE("staged dir: a new folder appears whole at commit, and not at all without it") {
  test::TempDir dir;
  {
    StagedDir staged(dir / "figs/");
    CHECK(staged.final_path() == dir / "figs");
    CHECK(staged.staging_path().filename().string().rfind("figs.tmp-", 0) == 0);
    touch(staged.staging_path() / "a.png");
    CHECK_FALSE(fs::exists(dir / "figs"));
    staged.commit();
  }
  CHECK(names_in(dir.path()) == std::vector<std::string>{"figs"});
  CHECK(names_in(dir / "figs") == std::vector<std::string>{"a.png"});
  {
    StagedDir staged(dir / "never");
    touch(staged.staging_path() / "a.png");
  }  // an error before commit: nothing left
  CHECK(names_in(dir.path()) == std::vector<std::string>{"figs"});
}

TEST_CASE(
    "staged dir: into an existing folder, files are replaced and others kept, no marker left") {
  test::TempDir dir;
  fs::create_directories(dir / "figs");
  std::ofstream(dir / "figs" / "a.png") << "old";
  touch(dir / "figs" / "notes.txt");
  StagedDir staged(dir / "figs");
  CHECK(staged.staging_path().parent_path() ==
        dir / "figs");  // inside: no write access to the parent needed
  std::ofstream(staged.staging_path() / "a.png") << "new";
  staged.commit();
  CHECK(names_in(dir / "figs") == std::vector<std::string>{"a.png", "notes.txt"});
  CHECK(test::slurp(dir / "figs" / "a.png") == "new");
}

TEST_CASE("signal cleanup: run --png killed by SIGTERM mid-way leaves no figure folder") {
  test::TempDir dir;
  // 4 layers × 8 heads at N = 600: dozens of figures, seconds of work; killed after the first.
  make_model(dir, "--arch encoder --layers 4 --heads 8 --d-model 64", 600);
  const pid_t pid =
      start_attnviz({"run", "-m", (dir / "model").string(), "-t", (dir / "tokens.txt").string(),
                     "--table", "none", "--no-heatmap", "--png", (dir / "figs").string()});
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (find_under(dir.path(), ".png").empty()) {
    REQUIRE(std::chrono::steady_clock::now() < end);
    int status = 0;
    REQUIRE_MESSAGE(::waitpid(pid, &status, WNOHANG) == 0, "the run ended before its first figure");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(::kill(pid, SIGTERM) == 0);
  const int status = wait_for(pid, std::chrono::seconds(60));
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"model", "tokens.txt"});
}

TEST_CASE("signal cleanup: run --save killed by SIGTERM while writing leaves no temp file") {
  test::TempDir dir;
  // 8 heads at N = 1,024: a 67 MB file, written after the forward pass; SIGTERM as soon as its
  // temp file exists. Should the write ever finish before the poll sees it, the case is rerun
  // larger rather than reported as passed.
  for (int n : {1024, 1448, 2048}) {
    CAPTURE(n);
    fs::remove_all(dir / "model");
    make_model(dir, "--arch mha --heads 8 --d-model 64", n);
    const fs::path save = dir / "maps.safetensors";
    const pid_t pid =
        start_attnviz({"run", "-m", (dir / "model").string(), "-t", (dir / "tokens.txt").string(),
                       "--table", "none", "--no-heatmap", "--save", save.string()});
    int status = 0;
    bool ended = false;
    while (find_under(dir.path(), "maps.safetensors.tmp-").empty()) {
      if (::waitpid(pid, &status, WNOHANG) != 0) {
        ended = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    if (ended) {
      REQUIRE(WIFEXITED(status));
      REQUIRE(WEXITSTATUS(status) == 0);
      fs::remove(save);
      continue;  // finished before we looked: try a larger file
    }
    REQUIRE(::kill(pid, SIGTERM) == 0);
    status = wait_for(pid, std::chrono::seconds(60));
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(find_under(dir.path(), ".tmp-").empty());
    // The signal may land just after the rename: then the file is whole, never a partial one.
    if (fs::exists(save)) CHECK_NOTHROW(SafetensorsFile::open(save));
    return;
  }
  FAIL("the --save write was never seen in progress");
}

TEST_CASE("staged dir: a move that fails leaves the folder marked INCOMPLETE and says so") {
  test::TempDir dir;
  fs::create_directories(dir / "figs" / "a.png");  // a folder where a figure must go: rename fails
  touch(dir / "figs" / "a.png" / "keep");
  StagedDir staged(dir / "figs");
  touch(staged.staging_path() / "a.png");
  try {
    staged.commit();
    FAIL("expected an Error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("marked INCOMPLETE") != std::string::npos);
  }
  CHECK(fs::exists(dir / "figs" / k_incomplete_marker));
}
