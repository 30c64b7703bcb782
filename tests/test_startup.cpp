// The OpenBLAS settings main adds before re-running itself: never over the user's own, and never
// twice (the re-executed process must not run again).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "attnviz/cli/startup.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {

using Env = std::map<std::string, std::string>;

Env settings(const Env& env) {
  return openblas_settings([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace

TEST_CASE("startup: OpenBLAS's idle threads sleep at once unless the user chose otherwise") {
  CHECK(settings({}) == Env{{"OPENBLAS_THREAD_TIMEOUT", "4"}});
  CHECK(settings({{"OPENBLAS_CORETYPE", "Haswell"}}) == Env{{"OPENBLAS_THREAD_TIMEOUT", "4"}});
  CHECK(settings({{"OPENBLAS_THREAD_TIMEOUT", "28"}}).empty());
  CHECK(settings({{"OPENBLAS_THREAD_TIMEOUT", ""}}).empty());
  // What the first process adds, the second finds set: it runs on.
  CHECK(settings(settings({})).empty());
}

TEST_CASE("startup: attnviz runs once more with the timeout set, and only once") {
  // OPENBLAS_VERBOSE=2 makes OpenBLAS print "Core: <name>" on stderr as it is loaded: the first
  // process and the re-executed one print twice what one execution prints.
  const std::string verbose = "OPENBLAS_VERBOSE=2 ";
  const auto count = [](const std::string& text) {
    size_t n = 0;
    for (size_t at = text.find("Core: "); at != std::string::npos; at = text.find("Core: ", at + 1))
      ++n;
    return n;
  };
  const auto fresh = run_attnviz("--version", "", "env -u OPENBLAS_THREAD_TIMEOUT " + verbose);
  CHECK(fresh.exit_code == 0);
  CHECK(fresh.out == "attnviz 0.1.0\n");
  const auto mine = run_attnviz("--version", "", verbose + "OPENBLAS_THREAD_TIMEOUT=28");
  CHECK(mine.out == "attnviz 0.1.0\n");
  REQUIRE_MESSAGE(count(mine.err) > 0, mine.err);
  CHECK_MESSAGE(count(fresh.err) == 2 * count(mine.err), fresh.err);
}
