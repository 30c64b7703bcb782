// `attnviz inspect FILE`: tensor names, dtypes, shapes, sizes and metadata of a safetensors file.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/model_flags.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/model/model.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/model/tensor_source.hpp"

namespace attnviz {

namespace {

// The tokenizer in the model's folder, when there is one attnviz reads, or why it cannot.
void print_tokenizer(const std::filesystem::path& dir) {
  try {
    if (const auto tokenizer = find_tokenizer(dir)) std::cout << "tokenizer: " << tokenizer->description() << '\n';
  } catch (const Error& e) {
    std::cout << "tokenizer: unreadable: " << printable_text(e.what()) << '\n';
  }
}

// The layout and config attnviz detects, or why the file is not a model it can run.
void print_model(const std::filesystem::path& path, const ConfigOverrides& overrides) {
  try {
    const Model model = load_model(path, overrides);
    std::cout << "\nmodel: " << describe_config(model.config) << '\n';
    print_tokenizer(model.dir);
  } catch (const Error& e) {
    std::cout << "\nmodel: not runnable as it is: " << printable_text(e.what()) << '\n';
  }
}

void inspect(const std::filesystem::path& path, const ConfigOverrides& overrides) {
  const TensorSource src = TensorSource::open(path);
  const auto names = src.names();
  // Names and metadata are the file's bytes: escaped as token labels are, so ESC / OSC 52 in them
  // cannot drive the terminal; widths are display columns.
  std::vector<std::string> shown;
  for (const auto& n : names) shown.push_back(printable_text(n));
  size_t name_width = 6;
  for (const auto& n : shown) name_width = std::max(name_width, static_cast<size_t>(display_width(n)));
  std::cout << fmt::format("{}\n{}\n\n", src.description(),
                           count_of(static_cast<long long>(names.size()), "tensor"));
  const auto row = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
    std::cout << fmt::format("{}  {:<5}  {:<20}  {:>12}\n", pad_to_width(a, static_cast<int>(name_width)), b,
                             c, d);
  };
  row("tensor", "dtype", "shape", "bytes");
  uint64_t total = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const TensorInfo& t = src.info(names[i]);
    row(shown[i], t.dtype, shape_string(t.shape), std::to_string(t.end - t.begin));
    total += t.end - t.begin;
  }
  row("total", "", "", std::to_string(total));
  if (!src.metadata().empty()) {
    std::cout << "\nmetadata\n";
    for (const auto& [key, value] : src.metadata()) {
      std::cout << fmt::format("  {} = {}\n", printable_text(key), printable_text(value));
    }
  }
  print_model(path, overrides);
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  struct Args {
    std::string path;
    ModelFlags model;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("inspect", "list the tensors, metadata and detected layout of a model");
  cmd->add_option("file", args->path, ".safetensors file or model folder")->required();
  add_model_flags(*cmd, args->model);
  cmd->callback([args] { inspect(args->path, overrides_of(args->model)); });
}

}  // namespace attnviz
