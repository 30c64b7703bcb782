// Resolving `-m`: an existing path, or a repo id in the Hugging Face hub cache, looked up offline
// as huggingface_hub's try_to_load_from_cache does (models--{org}--{name}/refs, snapshots, blobs).
#include "attnviz/model/locate/hf_cache.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/model/locate/ollama.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// os.path.expanduser: a leading "~" is the home folder ("~user" is left alone).
fs::path expand_home(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.rfind("~/", 0) == 0) return fs::path(home) / path.substr(2);
  return path;
}

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// One part of REPO_ID_REGEX (huggingface_hub's _validators.py): word characters, '-' and '.',
// starting and ending with a word character.
bool is_repo_part(const std::string& s, size_t max_size) {
  if (s.empty() || s.size() > max_size || !is_word_char(s.front()) || !is_word_char(s.back()))
    return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return is_word_char(c) || c == '-' || c == '.'; });
}

// validate_repo_id: `name` or `namespace/name` (name at most 96 characters), no "--" or "..",
// no ".git" at the end.
bool is_repo_id(const std::string& id) {
  const size_t slash = id.find('/');
  const std::string name = slash == std::string::npos ? id : id.substr(slash + 1);
  if (slash != std::string::npos && !is_repo_part(id.substr(0, slash), id.size())) return false;
  if (!is_repo_part(name, 96)) return false;
  if (id.find("--") != std::string::npos || id.find("..") != std::string::npos) return false;
  return !id.ends_with(".git");
}

// A revision names a file under refs/ (branch, tag, "refs/pr/1") or a snapshot folder: plain path
// components only, so "@../../x" cannot reach outside the repo's folder.
bool is_revision(const std::string& rev) {
  if (rev.empty() || rev.front() == '/' || rev.back() == '/') return false;
  size_t begin = 0;
  while (begin <= rev.size()) {
    const size_t end = std::min(rev.find('/', begin), rev.size());
    const std::string part = rev.substr(begin, end - begin);
    if (part.empty() || part == "." || part == "..") return false;
    if (!std::all_of(part.begin(), part.end(),
                     [](char c) { return is_word_char(c) || c == '-' || c == '.'; })) {
      return false;
    }
    begin = end + 1;
  }
  return true;
}

struct RepoRef {
  std::string id, revision;
  bool revision_given = false;
};

std::optional<RepoRef> parse_repo_ref(const std::string& argument) {
  const size_t at = argument.find('@');
  RepoRef ref{argument.substr(0, at), at == std::string::npos ? "main" : argument.substr(at + 1),
              at != std::string::npos};
  // "modle.safetensors" is a mistyped file, not a repo: say only that the file is missing.
  if (ref.id.ends_with(".safetensors") || !is_repo_id(ref.id) || !is_revision(ref.revision))
    return std::nullopt;
  return ref;
}

std::string repo_folder_name(const std::string& id) {
  std::string name = "models--" + id;
  if (const size_t slash = name.find('/'); slash != std::string::npos) name.replace(slash, 1, "--");
  return name;
}

// The snapshot folders, by name (commit hashes), sorted so messages are stable.
std::vector<std::string> snapshot_names(const fs::path& repo_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(repo_dir / "snapshots", ec)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// refs/<revision>'s commit hash (huggingface_hub writes it without a newline; one is tolerated).
std::optional<std::string> read_ref(const fs::path& repo_dir, const std::string& revision) {
  const fs::path file = repo_dir / "refs" / revision;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  // A commit hash is at most 128 bytes, with a line end: read one byte past that bound, never the
  // whole file (a hostile cache's refs/main may be gigabytes).
  constexpr size_t k_max_ref_bytes = 130;
  std::ifstream in(file, std::ios::binary);
  std::string commit(k_max_ref_bytes + 1, '\0');
  in.read(commit.data(), static_cast<std::streamsize>(commit.size()));
  commit.resize(static_cast<size_t>(in.gcount()));
  if (commit.size() > k_max_ref_bytes) {
    throw Error(fmt::format(
        "{}: more than {} bytes; expected a commit hash (at most 128 characters and a line end)",
        file.string(), k_max_ref_bytes));
  }
  while (!commit.empty() &&
         (commit.back() == '\n' || commit.back() == '\r' || commit.back() == ' '))
    commit.pop_back();
  if (commit.empty() || commit.size() > 128 || !is_revision(commit) ||
      commit.find('/') != std::string::npos) {
    throw Error(fmt::format("{}: expected a commit hash, found '{}'", file.string(),
                            printable_text(commit)));
  }
  return commit;
}

std::string listed(const std::vector<std::string>& names) {
  return names.empty() ? "none"
                       : printable_text(
                             fmt::format("{}", fmt::join(names, ", ")));  // folder names: any bytes
}

// The commit whose snapshot to load: refs/<revision>, else the revision as a commit, else (no
// revision asked, no refs/main) the one snapshot there is.
std::string choose_commit(const RepoRef& ref, const fs::path& repo_dir) {
  const std::vector<std::string> snapshots = snapshot_names(repo_dir);
  const auto has = [&](const std::string& c) {
    return std::count(snapshots.begin(), snapshots.end(), c) > 0;
  };
  if (const auto commit = read_ref(repo_dir, ref.revision)) {
    if (has(*commit)) return *commit;
    throw Error(
        fmt::format("{}: refs/{} names commit {}, but {} has no such snapshot (snapshots: {}): an "
                    "incomplete download; fetch it again with `huggingface-cli download {}`",
                    ref.id, ref.revision, *commit, (repo_dir / "snapshots").string(),
                    listed(snapshots), ref.id));
  }
  if (ref.revision_given) {
    if (has(ref.revision)) return ref.revision;
    throw Error(fmt::format("{}@{}: neither a ref (no {}) nor a snapshot in {} (snapshots: {})",
                            ref.id, ref.revision, (repo_dir / "refs" / ref.revision).string(),
                            (repo_dir / "snapshots").string(), listed(snapshots)));
  }
  if (snapshots.size() == 1) return snapshots.front();
  if (snapshots.empty()) {
    throw Error(
        fmt::format("{}: {} holds no snapshot (an interrupted download?); fetch it with "
                    "`huggingface-cli download {}`",
                    ref.id, repo_dir.string(), ref.id));
  }
  throw usage_error(
      fmt::format("{}: {} has no refs/main and {} snapshots ({}): name one as {}@<commit>", ref.id,
                  repo_dir.string(), snapshots.size(), listed(snapshots), ref.id));
}

// A snapshot holds symlinks into blobs/; one whose blob is gone is an incomplete or pruned
// download, and would otherwise surface as a puzzling "no such file" deep in the loader.
void check_blobs(const fs::path& snapshot, const std::string& id) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(snapshot, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path());
  if (ec) throw Error(fmt::format("{}: cannot list {}: {}", id, snapshot.string(), ec.message()));
  std::sort(entries.begin(), entries.end());
  for (const fs::path& p : entries) {
    if (!fs::is_symlink(p, ec) || fs::exists(p, ec)) continue;
    throw Error(fmt::format(
        "{}: {} points to {}, which is missing (an incomplete download or a pruned "
        "cache); fetch it again with `huggingface-cli download {}`",
        id, printable_text(p.string()), printable_text(fs::read_symlink(p, ec).string()), id));
  }
}

}  // namespace

HfEnvironment HfEnvironment::of_process() {
  HfEnvironment env{env_or_empty("HF_HUB_CACHE"), env_or_empty("HUGGINGFACE_HUB_CACHE"),
                    env_or_empty("HF_HOME"),      env_or_empty("XDG_CACHE_HOME"),
                    env_or_empty("HOME"),         env_or_empty("OLLAMA_MODELS")};
  if (env.home.empty()) {  // as os.path.expanduser: the passwd entry when $HOME is unset
    if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) env.home = pw->pw_dir;
  }
  return env;
}

HubCache hub_cache_of(const HfEnvironment& env) {
  const auto at = [&](const std::string& p) { return expand_home(p, env.home); };
  if (!env.hf_hub_cache.empty()) return {at(env.hf_hub_cache), "$HF_HUB_CACHE"};
  if (!env.huggingface_hub_cache.empty())
    return {at(env.huggingface_hub_cache), "$HUGGINGFACE_HUB_CACHE"};
  if (!env.hf_home.empty()) return {at(env.hf_home) / "hub", "$HF_HOME/hub"};
  if (!env.xdg_cache_home.empty()) {
    return {at(env.xdg_cache_home) / "huggingface" / "hub", "$XDG_CACHE_HOME/huggingface/hub"};
  }
  return {fs::path(env.home) / ".cache" / "huggingface" / "hub",
          "the default, ~/.cache/huggingface/hub"};
}

std::string ModelLocation::description() const {
  if (!from_cache()) return path.string();
  if (from_ollama()) {
    return fmt::format("Ollama: {}, blob {} ({})", repo_id.substr(7), commit.substr(0, 14),
                       path.string());
  }
  const bool named = revision != "main" && revision != commit;
  return fmt::format("HF cache: {}{} @ {} ({})", repo_id, named ? " (" + revision + ")" : "",
                     commit.substr(0, 7), path.string());
}

ModelLocation locate_model(const std::string& argument, const HfEnvironment& env) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(argument, ec))) return {argument, {}, {}, {}};
  if (argument.starts_with(k_ollama_prefix)) return locate_ollama_model(argument.substr(7), env);
  const std::string missing =
      fmt::format("{}: no such file or directory", printable_text(argument));
  const std::optional<RepoRef> ref = parse_repo_ref(argument);
  if (!ref) throw Error(missing);
  const HubCache cache = hub_cache_of(env);
  const fs::path repo_dir = cache.dir / repo_folder_name(ref->id);
  if (!fs::is_directory(repo_dir, ec)) {
    throw Error(
        fmt::format("{}, nor a model in the Hugging Face cache: no {} (the cache is {}, from {}). "
                    "attnviz never downloads: fetch it with `huggingface-cli download {}`, or set "
                    "HF_HUB_CACHE or HF_HOME to the cache that holds it",
                    missing, repo_dir.string(), cache.dir.string(), cache.chosen_by, ref->id));
  }
  const std::string commit = choose_commit(*ref, repo_dir);
  const fs::path snapshot = repo_dir / "snapshots" / commit;
  check_blobs(snapshot, ref->id);
  return {snapshot, ref->id, ref->revision, commit};
}

}  // namespace attnviz
