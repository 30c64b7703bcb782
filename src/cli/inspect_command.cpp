// `attnviz inspect FILE`: where the model came from, its tensors (names, dtypes, shapes, sizes,
// totals per dtype), metadata, config.json's model type, the layout and config attnviz detects, and
// the tokenizer; all of it printed even for a file attnviz cannot run, which then exits 1 with the
// reason.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/model_flags.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/json.hpp"
#include "attnviz/model/locate/hf_cache.hpp"
#include "attnviz/model/model.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "inspect_gguf.hpp"
#include "size_text.hpp"

namespace attnviz {

namespace {

using detail::describe_totals;

// One line per dtype (mixed checkpoints keep norms in F32), and their sum when there are several.
void print_dtypes(const TensorSource& src) {
  const auto totals = src.dtype_totals();
  std::cout << "\ndtypes\n";
  DtypeTotals all;
  for (const auto& [dtype, t] : totals) {
    std::cout << describe_totals(printable_text(dtype), t);
    all.tensors += t.tensors;
    all.parameters += t.parameters;
    all.bytes += t.bytes;
  }
  if (totals.size() > 1) std::cout << describe_totals("total", all);
}

// config.json's model_type and architectures: what transformers would build from the folder.
void print_config_json(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "config.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    std::cout << "config.json: none\n";
    return;
  }
  try {
    const nlohmann::json j = read_json_file(file);
    const auto text = [&](const char* key) {  // a string, a list of strings, or the JSON as written
      if (!j.is_object() || !j.contains(key)) return std::string("none");
      const nlohmann::json& v = j[key];
      std::vector<std::string> parts;
      for (const auto& item : v.is_array() ? v : nlohmann::json::array({v})) {
        parts.push_back(item.is_string() ? item.get<std::string>() : item.dump());
      }
      return printable_text(fmt::format("{}", fmt::join(parts, ", ")));
    };
    std::cout << fmt::format("config.json: model_type {}, architectures {}\n", text("model_type"),
                             text("architectures"));
  } catch (const Error& e) {
    std::cout << "config.json: unreadable: " << printable_text(e.what()) << '\n';
  }
}

// The tokenizer in the model's folder, when there is one attnviz reads, or why it cannot: then its
// error, which inspect raises once everything is printed (a file attnviz cannot read is exit 1).
std::optional<Error> print_tokenizer(const std::filesystem::path& dir) {
  try {
    const auto tokenizer = find_tokenizer(dir);
    std::cout << "tokenizer: " << (tokenizer ? tokenizer->description() : "none") << '\n';
  } catch (const Error& e) {
    std::cout << "tokenizer: unreadable: " << printable_text(e.what()) << '\n';
    return e;
  }
  return std::nullopt;
}

// The layout and config attnviz detects, or why the file is not a model it can run: then the error,
// raised once everything else is printed, so `inspect` exits as `run` would (1, or 2 for a flag).
std::optional<Error> print_model(const std::filesystem::path& path,
                                 const ConfigOverrides& overrides) {
  try {
    const Model model = load_model(path, overrides);
    std::cout << "\nmodel: " << describe_config(model.config) << '\n';
    return std::nullopt;
  } catch (const Error& e) {
    std::cout << "\nmodel: not runnable as it is: " << printable_text(e.what()) << '\n';
    return e;
  }
}

void inspect(const std::string& argument, const ConfigOverrides& overrides) {
  const ModelLocation where = locate_model(argument, HfEnvironment::of_process());
  const std::filesystem::path& path = where.path;
  if (is_gguf_file(path)) {  // the file itself, whether or not it loads as a model
    detail::print_gguf(where);
    const std::optional<Error> tokenizer_error =
        print_tokenizer(path);  // its tokenizer.ggml.* metadata
    const auto not_runnable = print_model(path, overrides);
    if (not_runnable) throw *not_runnable;
    if (tokenizer_error) throw *tokenizer_error;
    return;
  }
  const TensorSource src = TensorSource::open(path);
  const auto names = src.names();
  // Names and metadata are the file's bytes: escaped as token labels are, so ESC / OSC 52 in them
  // cannot drive the terminal; widths are display columns.
  std::vector<std::string> shown;
  for (const auto& n : names) shown.push_back(printable_text(n));
  size_t name_width = 6;
  for (const auto& n : shown)
    name_width = std::max(name_width, static_cast<size_t>(display_width(n)));
  std::cout << fmt::format("source: {}\n{}\n{}\n\n", printable_text(where.description()),
                           src.description(),
                           count_of(static_cast<long long>(names.size()), "tensor"));
  const auto row = [&](const std::string& a, const std::string& b, const std::string& c,
                       const std::string& d) {
    std::cout << fmt::format("{}  {:<5}  {:<20}  {:>12}\n",
                             pad_to_width(a, static_cast<int>(name_width)), b, c, d);
  };
  row("tensor", "dtype", "shape", "bytes");
  uint64_t total = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const TensorInfo& t = src.info(names[i]);
    row(shown[i], t.dtype, shape_string(t.shape), std::to_string(t.end - t.begin));
    total += t.end - t.begin;
  }
  row("total", "", "", std::to_string(total));
  print_dtypes(src);
  if (!src.metadata().empty()) {
    std::cout << "\nmetadata\n";
    for (const auto& [key, value] : src.metadata()) {
      std::cout << fmt::format("  {} = {}\n", printable_text(key), printable_text(value));
    }
  }
  const auto not_runnable = print_model(path, overrides);
  print_config_json(src.dir());
  const std::optional<Error> tokenizer_error = print_tokenizer(src.dir());
  if (not_runnable) throw *not_runnable;
  if (tokenizer_error) throw *tokenizer_error;
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  struct Args {
    std::string path;
    ModelFlags model;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd =
      app.add_subcommand("inspect", "list the tensors, metadata and detected layout of a model");
  cmd->add_option(
         "file,--model,-m", args->path,
         ".safetensors or .gguf file, model folder, Hugging Face cache id (org/name[@revision]) or "
         "ollama:NAME[:TAG] (never downloaded)")
      ->required();
  add_model_flags(*cmd, args->model);
  cmd->callback([args] { inspect(args->path, overrides_of(args->model)); });
}

}  // namespace attnviz
