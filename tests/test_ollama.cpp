// -m ollama:NAME[:TAG]: fake Ollama models folders laid out as Ollama writes them
// (manifests/<host>/ <namespace>/<model>/<tag> JSON, blobs/sha256-<hex>), resolved offline; each
// failure named.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "attnviz/io/gguf/gguf_write.hpp"
#include "attnviz/model/locate/hf_cache.hpp"
#include "attnviz/model/locate/ollama.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::HfEnvironment;
using attnviz::locate_model;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string k_hex = std::string(60, 'a') + "0123";  // 64 lowercase hex digits

HfEnvironment env_of(const fs::path& models) {
  HfEnvironment env;
  env.ollama_models = models.string();
  env.home = "/nonexistent-home";
  return env;
}

// A manifest with a config layer, a model layer of `blob_size` bytes and a license layer; the blob
// holds `blob` bytes.
void add_model(const fs::path& models, const std::string& rel, const std::string& blob,
               uint64_t blob_size) {
  fs::create_directories((models / "manifests" / rel).parent_path());
  std::ofstream(models / "manifests" / rel)
      << R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",)"
         R"("config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:)" +
             std::string(64, 'c') +
             R"(","size":10},"layers":[{"mediaType":"application/vnd.ollama.image.model",)"
             R"("digest":"sha256:)" +
             k_hex + R"(","size":)" + std::to_string(blob_size) +
             R"(},{"mediaType":"application/vnd.ollama.image.license","digest":"sha256:)" +
             std::string(64, 'd') + R"(","size":5}]})";
  fs::create_directories(models / "blobs");
  std::ofstream(models / "blobs" / ("sha256-" + k_hex), std::ios::binary) << blob;
}

}  // namespace

TEST_CASE("ollama: name:tag, the default tag latest, a user's namespace and a host") {
  TempDir dir;
  const fs::path models = dir / "models";
  add_model(models, "registry.ollama.ai/library/llama3.2/1b", "GGUF....", 8);
  const auto where = locate_model("ollama:llama3.2:1b", env_of(models));
  CHECK(where.path == models / "blobs" / ("sha256-" + k_hex));
  CHECK(where.from_ollama());
  CHECK(where.description() == "Ollama: llama3.2:1b, blob sha256:aaaaaaa (" +
                                   (models / "blobs" / ("sha256-" + k_hex)).string() + ")");
  add_model(models, "registry.ollama.ai/library/qwen3/latest", "GGUF", 4);
  CHECK(locate_model("ollama:qwen3", env_of(models)).path.filename() == "sha256-" + k_hex);
  add_model(models, "registry.ollama.ai/someone/tiny/q4", "GGUF", 4);
  CHECK(locate_model("ollama:someone/tiny:q4", env_of(models)).repo_id == "ollama:someone/tiny:q4");
  add_model(models, "hf.co/org/repo/Q4_K_M", "GGUF", 4);
  CHECK(locate_model("ollama:hf.co/org/repo:Q4_K_M", env_of(models)).revision == "Q4_K_M");
  // Without $OLLAMA_MODELS: ~/.ollama/models.
  HfEnvironment home;
  home.home = dir.path().string();
  CHECK(attnviz::ollama_models_of(home).dir == dir.path() / ".ollama" / "models");
}

TEST_CASE("ollama: each failure names where it looked") {
  TempDir dir;
  const fs::path models = dir / "models";
  add_model(models, "registry.ollama.ai/library/llama3.2/1b", "GGUF....", 8);
  const fs::path lib = models / "manifests" / "registry.ollama.ai" / "library";
  int code = 0;
  // A tag not pulled: the manifest path, the folder and its origin, the tags there.
  CHECK(error_of([&] { locate_model("ollama:llama3.2:3b", env_of(models)); }, &code) ==
        "ollama:llama3.2:3b: no manifest " + (lib / "llama3.2" / "3b").string() +
            " (models folder " + models.string() +
            ", from $OLLAMA_MODELS; tags of llama3.2 there: 1b). attnviz never downloads: "
            "`ollama pull llama3.2:3b`, or set OLLAMA_MODELS to the folder that holds it (Ollama's "
            "Linux "
            "service uses /usr/share/ollama/.ollama/models)");
  CHECK(code == 1);
  CHECK(error_of([&] { locate_model("ollama:../../etc:x", env_of(models)); }, &code)
            .find("not an Ollama model name") != std::string::npos);
  CHECK(code == 2);
  CHECK(error_of([&] {
          locate_model("ollama:a/b/c/d", env_of(models));
        }).find("not an Ollama model name") != std::string::npos);
  // Bad JSON: the reader's error names the manifest.
  std::ofstream(lib / "llama3.2" / "bad") << "{\"layers\": [";
  CHECK(contains(error_of([&] { locate_model("ollama:llama3.2:bad", env_of(models)); }),
                 (lib / "llama3.2" / "bad").string()));
  // No model layer.
  std::ofstream(lib / "llama3.2" / "nomodel")
      << R"({"layers":[{"mediaType":"application/vnd.ollama.image.license"}]})";
  CHECK(
      error_of([&] { locate_model("ollama:llama3.2:nomodel", env_of(models)); }) ==
      "ollama:llama3.2:nomodel: manifest " + (lib / "llama3.2" / "nomodel").string() +
          " has 0 layers of mediaType application/vnd.ollama.image.model (expected 1; its layers: "
          "application/vnd.ollama.image.license)");
  // A digest that is not sha256 hex could name a path outside blobs/.
  std::ofstream(lib / "llama3.2" / "evil")
      << R"({"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:../../x","size":1}]})";
  CHECK(contains(error_of([&] { locate_model("ollama:llama3.2:evil", env_of(models)); }),
                 "model layer digest 'sha256:../../x' is not sha256:<64 lowercase hex digits>"));
  // The blob: truncated, then missing.
  add_model(models, "registry.ollama.ai/library/short/latest", "GGU", 8);
  CHECK(contains(error_of([&] { locate_model("ollama:short", env_of(models)); }),
                 "has 3 bytes, its manifest"));
  fs::remove(models / "blobs" / ("sha256-" + k_hex));
  CHECK(contains(
      error_of([&] { locate_model("ollama:llama3.2:1b", env_of(models)); }),
      "names blob " + (models / "blobs" / ("sha256-" + k_hex)).string() + ", which is missing"));
}

TEST_CASE("ollama: inspect -m ollama:NAME shows the blob's GGUF, found through $OLLAMA_MODELS") {
  TempDir dir;
  const fs::path models = dir / "models";
  attnviz::GgufWriter w;
  w.set("general.architecture", attnviz::gguf_string("llama"));
  w.add_tensor("t", {4}, 0, std::vector<float>{1, 2, 3, 4});
  const std::string bytes = w.bytes();
  add_model(models, "registry.ollama.ai/library/tiny/latest", bytes, bytes.size());
  const auto r = attnviz::test::run_attnviz("inspect -m ollama:tiny", "",
                                            "OLLAMA_MODELS='" + models.string() + "'");
  CHECK(r.exit_code == 1);  // the blob is shown, then refused as a model (one tensor 't')
  CHECK(r.out.rfind("source: Ollama: tiny, blob sha256:aaaaaaa (", 0) == 0);
  CHECK(contains(r.out, "\nformat: GGUF v3, alignment 32"));
  CHECK(contains(r.out, "1 tensor, 4 parameters\n"));
}
