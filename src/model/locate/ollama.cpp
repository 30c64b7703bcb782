// Resolving `-m ollama:NAME[:TAG]` offline as Ollama lays out its models folder:
// manifests/<host>/<namespace>/<model>/<tag> is a JSON image manifest whose layer of mediaType
// application/vnd.ollama.image.model names the GGUF file, stored as blobs/sha256-<hex>.
#include "attnviz/model/locate/ollama.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_model_media_type = "application/vnd.ollama.image.model";

struct OllamaName {
  std::string host = "registry.ollama.ai", space = "library", model, tag = "latest";
  std::string shown;  // as the user wrote it, for messages
};

// One path component of a name: letters, digits, '_', '-', '.' (and ':' in a host, for a port);
// never "." or "..", so a name cannot climb out of manifests/.
bool is_part(const std::string& s, bool host) {
  if (s.empty() || s == "." || s == ".." || s.size() > 255) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || (host && c == ':');
  });
}

// [[host/]namespace/]model[:tag] (Ollama's types/model/name.go).
OllamaName parse_name(const std::string& spec) {
  OllamaName n;
  n.shown = k_ollama_prefix + spec;
  std::string path = spec;
  const size_t slash = spec.rfind('/');
  if (const size_t colon = spec.rfind(':');
      colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    n.tag = spec.substr(colon + 1);
    path = spec.substr(0, colon);
  }
  std::vector<std::string> parts;
  for (size_t begin = 0;;) {
    const size_t end = path.find('/', begin);
    parts.push_back(path.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  bool valid = parts.size() <= 3 && is_part(n.tag, false);
  for (size_t i = 0; i < parts.size(); ++i)
    valid = valid && is_part(parts[i], i == 0 && parts.size() == 3);
  if (!valid) {
    throw usage_error(
        fmt::format("{}: not an Ollama model name; expected ollama:[[host/]namespace/]model[:tag], "
                    "e.g. ollama:llama3.2:1b or ollama:user/model",
                    printable_text(n.shown)));
  }
  n.model = parts.back();
  if (parts.size() >= 2) n.space = parts[parts.size() - 2];
  if (parts.size() == 3) n.host = parts[0];
  return n;
}

// The tags pulled for the model (file names under its manifests folder), for messages.
std::string tags_of(const fs::path& model_dir) {
  std::vector<std::string> tags;
  std::error_code ec;
  for (fs::directory_iterator it(model_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) tags.push_back(it->path().filename().string());
  }
  std::sort(tags.begin(), tags.end());
  return tags.empty() ? "none" : printable_text(fmt::format("{}", fmt::join(tags, ", ")));
}

// The manifest's one model layer: its digest and size.
std::pair<std::string, uint64_t> model_layer(const nlohmann::json& manifest, const fs::path& file,
                                             const std::string& shown) {
  const nlohmann::json* layers =
      manifest.is_object() && manifest.contains("layers") ? &manifest["layers"] : nullptr;
  if (!layers || !layers->is_array()) {
    throw Error(fmt::format("{}: manifest {} has no \"layers\" array", shown, file.string()));
  }
  std::vector<const nlohmann::json*> models;
  std::vector<std::string> types;
  for (const nlohmann::json& layer : *layers) {
    const bool typed =
        layer.is_object() && layer.contains("mediaType") && layer["mediaType"].is_string();
    types.push_back(typed ? layer["mediaType"].get<std::string>() : "?");
    if (typed && types.back() == k_model_media_type) models.push_back(&layer);
  }
  if (models.size() != 1) {
    throw Error(fmt::format(
        "{}: manifest {} has {} layers of mediaType {} (expected 1; its layers: {})", shown,
        file.string(), models.size(), k_model_media_type,
        types.empty() ? "none" : printable_text(fmt::format("{}", fmt::join(types, ", ")))));
  }
  const nlohmann::json& layer = *models.front();
  if (!layer.contains("digest") || !layer["digest"].is_string() || !layer.contains("size") ||
      !layer["size"].is_number_unsigned()) {
    throw Error(fmt::format(
        "{}: manifest {}: the model layer needs a \"digest\" string and a \"size\" count", shown,
        file.string()));
  }
  return {layer["digest"].get<std::string>(), layer["size"].get<uint64_t>()};
}

// "sha256:<64 hex>" → blobs/sha256-<hex>; anything else could name a path outside blobs/.
fs::path blob_path(const fs::path& models, const std::string& digest, const std::string& shown,
                   const fs::path& file) {
  const bool hex = digest.size() == 7 + 64 && digest.starts_with("sha256:") &&
                   std::all_of(digest.begin() + 7, digest.end(), [](char c) {
                     return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                   });
  if (!hex) {
    throw Error(fmt::format(
        "{}: manifest {}: model layer digest '{}' is not sha256:<64 lowercase hex digits>", shown,
        file.string(), printable_text(digest)));
  }
  return models / "blobs" / ("sha256-" + digest.substr(7));
}

}  // namespace

OllamaModels ollama_models_of(const HfEnvironment& env) {
  if (!env.ollama_models.empty()) return {env.ollama_models, "$OLLAMA_MODELS"};
  return {fs::path(env.home) / ".ollama" / "models", "the default, ~/.ollama/models"};
}

ModelLocation locate_ollama_model(const std::string& spec, const HfEnvironment& env) {
  const OllamaName name = parse_name(spec);
  const OllamaModels models = ollama_models_of(env);
  const fs::path model_dir = models.dir / "manifests" / name.host / name.space / name.model;
  const fs::path manifest = model_dir / name.tag;
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec)) {
    throw Error(fmt::format(
        "{}: no manifest {} (models folder {}, from {}; tags of {} there: {}). attnviz "
        "never downloads: `ollama pull {}`, or set OLLAMA_MODELS to the folder that "
        "holds it (Ollama's Linux service uses /usr/share/ollama/.ollama/models)",
        printable_text(name.shown), printable_text(manifest.string()), models.dir.string(),
        models.chosen_by, printable_text(name.model), tags_of(model_dir), printable_text(spec)));
  }
  const nlohmann::json json = read_json_file(manifest);
  const auto [digest, size] = model_layer(json, manifest, name.shown);
  const fs::path blob = blob_path(models.dir, digest, name.shown, manifest);
  if (!fs::is_regular_file(blob, ec)) {
    throw Error(fmt::format(
        "{}: manifest {} names blob {}, which is missing (an interrupted pull or a pruned "
        "folder); pull it again with `ollama pull`",
        name.shown, manifest.string(), blob.string()));
  }
  if (const uint64_t actual = fs::file_size(blob, ec); actual != size) {
    throw Error(
        fmt::format("{}: blob {} has {} bytes, its manifest {} says {} (an incomplete pull?)",
                    name.shown, blob.string(), actual, manifest.string(), size));
  }
  return {blob, k_ollama_prefix + spec, name.tag, digest};
}

}  // namespace attnviz
