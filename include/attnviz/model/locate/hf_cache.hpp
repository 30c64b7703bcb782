// What `-m` names: a path, or a Hugging Face cache id (`org/name[@revision]`) found offline in the
// hub cache as huggingface_hub lays it out. attnviz never downloads.
#pragma once

#include <filesystem>
#include <string>

namespace attnviz {

// The environment variables the hub cache's place depends on; empty = unset. A parameter, so
// tests need no setenv.
struct HfEnvironment {
  std::string hf_hub_cache;           // $HF_HUB_CACHE: the hub cache itself
  std::string huggingface_hub_cache;  // $HUGGINGFACE_HUB_CACHE: its older name
  std::string hf_home;                // $HF_HOME: the cache is $HF_HOME/hub
  std::string xdg_cache_home;  // $XDG_CACHE_HOME: the cache is $XDG_CACHE_HOME/huggingface/hub
  std::string home;            // $HOME (else the passwd entry): ~/.cache/huggingface/hub
  std::string ollama_models;   // $OLLAMA_MODELS: Ollama's models folder (ollama.hpp)
  static HfEnvironment of_process();
};

// The hub cache folder and the variable that chose it ("$HF_HOME/hub"), for messages.
struct HubCache {
  std::filesystem::path dir;
  std::string chosen_by;
};

// huggingface_hub's constants.py: HF_HUB_CACHE, then HUGGINGFACE_HUB_CACHE, then HF_HOME/hub, then
// XDG_CACHE_HOME/huggingface/hub, then ~/.cache/huggingface/hub; a leading ~ is the home folder.
HubCache hub_cache_of(const HfEnvironment& env);

// Where a model came from: the path to load, and for a cache id the repo, revision and commit.
struct ModelLocation {
  std::filesystem::path path;  // the file or folder to load (a cache snapshot folder for an id)
  std::string repo_id;         // "meta-llama/Llama-3.2-1B"; empty for a plain path
  std::string revision;        // as asked ("main" when none was)
  std::string commit;          // the snapshot folder's name (an Ollama model: the blob's digest)
  bool from_cache() const { return !repo_id.empty(); }
  bool from_ollama() const { return repo_id.starts_with("ollama:"); }  // repo_id "ollama:name:tag"
  // "tests/m", "HF cache: org/name @ 0123abc (/root/.cache/huggingface/hub/models--org--name/…)"
  // or "Ollama: llama3.2:1b, blob sha256:0123abc (/root/.ollama/models/blobs/sha256-…)".
  std::string description() const;
};

// An existing path is always a path. Otherwise an argument shaped as a hub repo id (`name` or
// `org/name`, optionally `@revision`: a ref under refs/ or a commit) is looked up in the cache:
// refs/<revision> (default main) names the snapshot; with no ref, a lone snapshot is used. A
// missing model, an ambiguous or unknown revision, or a snapshot file whose blob is gone is an
// error naming what was tried and where. `ollama:NAME[:TAG]` is an Ollama model (ollama.hpp).
ModelLocation locate_model(const std::string& argument, const HfEnvironment& env);

}  // namespace attnviz
