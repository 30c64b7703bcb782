// `-m ollama:NAME[:TAG]`: a model Ollama pulled, found offline through its manifest to the GGUF
// blob (OLLAMA_MODELS, else ~/.ollama/models). attnviz never downloads.
#pragma once

#include <filesystem>
#include <string>

#include "attnviz/model/locate/hf_cache.hpp"

namespace attnviz {

inline constexpr const char* k_ollama_prefix = "ollama:";

// The models folder and what chose it ("$OLLAMA_MODELS", "the default, ~/.ollama/models").
struct OllamaModels {
  std::filesystem::path dir;
  std::string chosen_by;
};
OllamaModels ollama_models_of(const HfEnvironment& env);

// `spec` is what follows "ollama:": [[host/]namespace/]model[:tag], as Ollama names models (host
// registry.ollama.ai, namespace library and tag latest by default). Reads
// manifests/<host>/<namespace>/<model>/<tag> (JSON), takes its one layer of mediaType
// application/vnd.ollama.image.model, and returns blobs/sha256-<hex> (size checked against the
// manifest). Each failure (a malformed name, no manifest, bad JSON, no or several model layers, a
// bad digest, a missing or truncated blob) is an Error naming what it looked for and where.
ModelLocation locate_ollama_model(const std::string& spec, const HfEnvironment& env);

}  // namespace attnviz
