// -m as a Hugging Face cache id: fake hub caches laid out as huggingface_hub writes them (refs/,
// snapshots/<commit>/ of symlinks into blobs/), resolved offline; and `inspect -m org/name`.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "attnviz/core/error.hpp"
#include "attnviz/model/locate/hf_cache.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::HfEnvironment;
using attnviz::locate_model;
using attnviz::test::contains;
using attnviz::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string k_commit_a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const std::string k_commit_b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

// models--{org}--{name}/snapshots/<commit>/<file> → ../../blobs/<commit>-<file>, holding `text`.
void add_snapshot(const fs::path& repo_dir, const std::string& commit,
                  const std::map<std::string, std::string>& files) {
  fs::create_directories(repo_dir / "blobs");
  fs::create_directories(repo_dir / "snapshots" / commit);
  for (const auto& [name, text] : files) {
    const std::string blob = commit + "-" + name;
    std::ofstream(repo_dir / "blobs" / blob, std::ios::binary) << text;
    fs::create_symlink(fs::path("../../blobs") / blob, repo_dir / "snapshots" / commit / name);
  }
}

// A ref as huggingface_hub writes it: the commit hash, no newline.
void add_ref(const fs::path& repo_dir, const std::string& ref, const std::string& commit) {
  fs::create_directories((repo_dir / "refs" / ref).parent_path());
  std::ofstream(repo_dir / "refs" / ref, std::ios::binary) << commit;
}

HfEnvironment env_with_home(const fs::path& hf_home) {
  HfEnvironment env;
  env.hf_home = hf_home.string();
  env.home = "/nonexistent-home";
  return env;
}

std::string error_of_locate(const std::string& argument, const HfEnvironment& env,
                            int* code = nullptr) {
  return attnviz::test::error_of([&] { locate_model(argument, env); }, code);
}

}  // namespace

TEST_CASE("hf cache: the cache folder is chosen as huggingface_hub's constants.py chooses it") {
  HfEnvironment env;
  env.home = "/home/u";
  CHECK(attnviz::hub_cache_of(env).dir == "/home/u/.cache/huggingface/hub");
  env.xdg_cache_home = "/xdg";
  CHECK(attnviz::hub_cache_of(env).dir == "/xdg/huggingface/hub");
  env.hf_home = "~/hf";  // expanduser
  CHECK(attnviz::hub_cache_of(env).dir == "/home/u/hf/hub");
  CHECK(attnviz::hub_cache_of(env).chosen_by == "$HF_HOME/hub");
  env.huggingface_hub_cache = "/legacy";
  CHECK(attnviz::hub_cache_of(env).dir == "/legacy");
  env.hf_hub_cache = "/hub";
  CHECK(attnviz::hub_cache_of(env).dir == "/hub");
  CHECK(attnviz::hub_cache_of(env).chosen_by == "$HF_HUB_CACHE");
}

TEST_CASE("hf cache: refs/main names the snapshot, a lone snapshot serves without a ref") {
  TempDir hf;
  const fs::path repo = hf / "hub/models--org--name";
  add_snapshot(repo, k_commit_a, {{"config.json", "{}"}});
  // One snapshot, no refs/: it is the one.
  auto where = locate_model("org/name", env_with_home(hf.path()));
  CHECK(where.path == repo / "snapshots" / k_commit_a);
  CHECK(where.repo_id == "org/name");
  CHECK(where.commit == k_commit_a);
  CHECK(where.description() ==
        "HF cache: org/name @ aaaaaaa (" + (repo / "snapshots" / k_commit_a).string() + ")");
  // A second snapshot: refs/main decides (b, the newer one, not the first by name).
  add_snapshot(repo, k_commit_b, {{"config.json", "{}"}});
  add_ref(repo, "main", k_commit_b);
  where = locate_model("org/name", env_with_home(hf.path()));
  CHECK(where.path == repo / "snapshots" / k_commit_b);
  CHECK(where.revision == "main");
  // A name without an org is models--{name}.
  add_snapshot(hf / "hub/models--gpt2", k_commit_a, {{"config.json", "{}"}});
  CHECK(locate_model("gpt2", env_with_home(hf.path())).path ==
        hf / "hub/models--gpt2/snapshots" / k_commit_a);
}

TEST_CASE("hf cache: several snapshots and no ref is a usage error listing them") {
  TempDir hf;
  const fs::path repo = hf / "hub/models--org--name";
  add_snapshot(repo, k_commit_a, {{"config.json", "{}"}});
  add_snapshot(repo, k_commit_b, {{"config.json", "{}"}});
  int code = 0;
  const std::string e = error_of_locate("org/name", env_with_home(hf.path()), &code);
  CHECK(code == 2);
  CHECK_MESSAGE(
      contains(e, "has no refs/main and 2 snapshots (" + k_commit_a + ", " + k_commit_b + ")"), e);
  CHECK(contains(e, "name one as org/name@<commit>"));
  // Either is then reachable by its commit.
  CHECK(locate_model("org/name@" + k_commit_b, env_with_home(hf.path())).commit == k_commit_b);
}

TEST_CASE("hf cache: org/name@revision is a ref under refs/ or a commit") {
  TempDir hf;
  const fs::path repo = hf / "hub/models--org--name";
  add_snapshot(repo, k_commit_a, {{"config.json", "{}"}});
  add_snapshot(repo, k_commit_b, {{"config.json", "{}"}});
  add_ref(repo, "main", k_commit_b);
  add_ref(repo, "v1.0", k_commit_a);
  add_ref(repo, "refs/pr/1", k_commit_a);  // huggingface_hub keeps PR refs at refs/refs/pr/N
  const auto env = env_with_home(hf.path());
  auto where = locate_model("org/name@v1.0", env);
  CHECK(where.commit == k_commit_a);
  CHECK(where.description() == "HF cache: org/name (v1.0) @ aaaaaaa (" + where.path.string() + ")");
  CHECK(locate_model("org/name@refs/pr/1", env).commit == k_commit_a);
  CHECK(locate_model("org/name@" + k_commit_a, env).commit == k_commit_a);
  CHECK(locate_model("org/name@main", env).commit == k_commit_b);
  const std::string unknown = error_of_locate("org/name@v2", env);
  CHECK_MESSAGE(contains(unknown, "org/name@v2: neither a ref (no " + (repo / "refs/v2").string() +
                                      ") nor a snapshot in " + (repo / "snapshots").string()),
                unknown);
  // A revision cannot climb out of the repo's folder: not an id, so only "no such file".
  CHECK(error_of_locate("org/name@../../x", env) == "org/name@../../x: no such file or directory");
}

TEST_CASE(
    "hf cache: a ref to a missing snapshot, or a snapshot file whose blob is gone, is an error "
    "naming it") {
  TempDir hf;
  const fs::path repo = hf / "hub/models--org--name";
  add_snapshot(repo, k_commit_a, {{"config.json", "{}"}, {"model.safetensors", "x"}});
  add_ref(repo, "main", k_commit_b);
  const auto env = env_with_home(hf.path());
  std::string e = error_of_locate("org/name", env);
  CHECK_MESSAGE(contains(e, "org/name: refs/main names commit " + k_commit_b + ", but " +
                                (repo / "snapshots").string() +
                                " has no such snapshot (snapshots: " + k_commit_a + ")"),
                e);
  add_ref(repo, "main", k_commit_a);
  fs::remove(repo / "blobs" / (k_commit_a + "-model.safetensors"));
  int code = 0;
  e = error_of_locate("org/name", env, &code);
  CHECK(code == 1);
  CHECK_MESSAGE(
      contains(e, "org/name: " + (repo / "snapshots" / k_commit_a / "model.safetensors").string() +
                      " points to ../../blobs/" + k_commit_a +
                      "-model.safetensors, which is missing"),
      e);
  CHECK(contains(e, "huggingface-cli download org/name"));
}

TEST_CASE(
    "hf cache: a refs/main larger than a commit hash is refused by its size, not read whole") {
  TempDir hf;
  const fs::path repo = hf / "hub/models--org--name";
  add_snapshot(repo, k_commit_a, {{"config.json", "{}"}});
  add_ref(repo, "main",
          std::string(1u << 20, 'a'));  // 1 MiB; a commit hash is 40 (SHA-1) to 128 characters
  int code = 0;
  const std::string e = error_of_locate("org/name", env_with_home(hf.path()), &code);
  CHECK(code == 1);
  CHECK_MESSAGE(e == (repo / "refs/main").string() +
                         ": more than 130 bytes; expected a commit hash (at most 128 characters "
                         "and a line end)",
                e);
  // 128 characters and "\r\n" are still read as a hash (no snapshot of that name: the next error).
  add_ref(repo, "main", std::string(128, 'a') + "\r\n");
  CHECK(contains(error_of_locate("org/name", env_with_home(hf.path())),
                 "refs/main names commit " + std::string(128, 'a')));
}

TEST_CASE(
    "hf cache: a model in no cache names the path tried, the cache folder, and never downloads") {
  TempDir hf;
  int code = 0;
  const std::string e = error_of_locate("meta-llama/Llama-3.2-1B", env_with_home(hf.path()), &code);
  CHECK(code == 1);
  CHECK_MESSAGE(
      contains(
          e,
          "meta-llama/Llama-3.2-1B: no such file or directory, nor a model in the Hugging Face "
          "cache: no " +
              (hf / "hub/models--meta-llama--Llama-3.2-1B").string() + " (the cache is " +
              (hf / "hub").string() + ", from $HF_HOME/hub)"),
      e);
  CHECK(contains(
      e,
      "attnviz never downloads: fetch it with `huggingface-cli download meta-llama/Llama-3.2-1B`"));
  // Not shaped as a repo id (two slashes, "--"): only the path was tried.
  CHECK(error_of_locate("a/b/c", env_with_home(hf.path())) == "a/b/c: no such file or directory");
  CHECK(error_of_locate("org/a--b", env_with_home(hf.path())) ==
        "org/a--b: no such file or directory");
  CHECK(error_of_locate("modle.safetensors", env_with_home(hf.path())) ==
        "modle.safetensors: no such file or directory");
}

TEST_CASE("hf cache: HF_HUB_CACHE wins over HF_HOME, which wins over XDG_CACHE_HOME") {
  TempDir root;
  add_snapshot(root / "hub_cache/models--org--name", k_commit_a, {{"config.json", "{}"}});
  add_snapshot(root / "hf_home/hub/models--org--name", k_commit_b, {{"config.json", "{}"}});
  const std::string k_commit_c(40, 'c');
  add_snapshot(root / "xdg/huggingface/hub/models--org--name", k_commit_c, {{"config.json", "{}"}});
  HfEnvironment env;
  env.home = "/nonexistent-home";
  env.xdg_cache_home = (root / "xdg").string();
  CHECK(locate_model("org/name", env).commit == k_commit_c);
  env.hf_home = (root / "hf_home").string();
  CHECK(locate_model("org/name", env).commit == k_commit_b);
  env.hf_hub_cache = (root / "hub_cache").string();
  CHECK(locate_model("org/name", env).commit == k_commit_a);
}

TEST_CASE("hf cache: an existing path is a path, even when it reads as a cached repo id") {
  TempDir hf;
  add_snapshot(hf / "hub/models--samples--mha", k_commit_a, {{"config.json", "{}"}});
  // The CLI runs in the source folder, where samples/mha is a model folder.
  const std::string env =
      "HF_HUB_CACHE= HUGGINGFACE_HUB_CACHE= HF_HOME='" + hf.path().string() + "'";
  const auto r = attnviz::test::run_attnviz("inspect -m samples/mha", "", env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "source: samples/mha\n"));
  // The resolver alone: an absolute path that exists comes back as given.
  CHECK(locate_model(hf.path().string(), env_with_home(hf.path())).path == hf.path());
  CHECK_FALSE(locate_model(hf.path().string(), env_with_home(hf.path())).from_cache());
}

TEST_CASE(
    "hf cache: inspect, run and tokenize -m org/name read a cached copy of a fixture, tokenizer "
    "included") {
  TempDir hf;
  const fs::path fixture = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/torch/hf_gpt2";
  const std::string tokenizer =
      R"({"version":"1.0","added_tokens":[],"normalizer":null,)"
      R"("pre_tokenizer":{"type":"Split","pattern":{"String":" "},"behavior":"Removed","invert":false},)"
      R"("post_processor":null,"decoder":null,"model":{"type":"WordLevel","vocab":{"the":0,"cat":1,"[UNK]":2},"unk_token":"[UNK]"}})";
  const fs::path repo = hf / "hub/models--tiny-org--tiny-gpt2";
  add_snapshot(repo, k_commit_a,
               {{"config.json", attnviz::test::slurp(fixture / "config.json")},
                {"model.safetensors", attnviz::test::slurp(fixture / "model.safetensors")},
                {"tokenizer.json", tokenizer}});
  add_ref(repo, "main", k_commit_a);
  const std::string env =
      "HF_HUB_CACHE= HUGGINGFACE_HUB_CACHE= HF_HOME='" + hf.path().string() + "'";
  auto r = attnviz::test::run_attnviz("inspect -m tiny-org/tiny-gpt2", "", env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "source: HF cache: tiny-org/tiny-gpt2 @ aaaaaaa (" +
                                    (repo / "snapshots" / k_commit_a).string() + ")\n"),
                r.out);
  CHECK(contains(r.out, "\nmodel: layout gpt2"));
  CHECK(contains(r.out, "tokenizer: tokenizer.json (WordLevel, 3 tokens)\n"));
  r = attnviz::test::run_attnviz("tokenize -m tiny-org/tiny-gpt2 --text 'the cat'", "", env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "tokenizer.json (WordLevel, 3 tokens) · 2 tokens\n"));
  r = attnviz::test::run_attnviz(
      "run -m tiny-org/tiny-gpt2 --text 'the cat' --head 0 --no-heatmap --color=never", "", env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "tiny-org/tiny-gpt2 · layer 0 · self · head 0"),
                r.out);  // titled by the id
  for (const std::string command : {"stats", "check"}) {
    r = attnviz::test::run_attnviz(command + " -m tiny-org/tiny-gpt2 --text 'the cat'", "", env);
    CHECK_MESSAGE(r.exit_code == 0, command, r.err);
  }
  // The same id with no cache: the error names where it looked.
  r = attnviz::test::run_attnviz(
      "run -m tiny-org/tiny-gpt2 --text 'the cat'", "",
      "HF_HUB_CACHE= HUGGINGFACE_HUB_CACHE= HF_HOME='" + (hf / "elsewhere").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "no " + (hf / "elsewhere/hub/models--tiny-org--tiny-gpt2").string()));
}

TEST_CASE("hf cache: a sharded model's snapshot reads its shards through the blob symlinks") {
  TempDir hf;
  const fs::path fixture = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/torch/hf_gpt2_sharded";
  std::map<std::string, std::string> files;
  for (const char* name :
       {"config.json", "model.safetensors.index.json", "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors"}) {
    files[name] = attnviz::test::slurp(fixture / name);
  }
  add_snapshot(hf / "hub/models--org--sharded", k_commit_a, files);
  const auto r = attnviz::test::run_attnviz("inspect org/sharded", "",
                                            "HF_HUB_CACHE='" + (hf / "hub").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, (hf / "hub/models--org--sharded/snapshots" / k_commit_a).string() +
                                    " (2 shards)\n"),
                r.out);
  CHECK(contains(r.out, "\nmodel: layout gpt2"));
}
