// `attnviz inspect FILE`: tensor names, dtypes, shapes, sizes and metadata of a safetensors file.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "attnviz/cli/commands.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"

namespace attnviz {

namespace {

std::filesystem::path weights_in(const std::filesystem::path& path) {
  if (!std::filesystem::is_directory(path)) return path;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() == ".safetensors") return entry.path();
  }
  throw Error(fmt::format("{}: no .safetensors file in the folder", path.string()));
}

void inspect(const std::filesystem::path& path) {
  const SafetensorsFile file = SafetensorsFile::open(weights_in(path));
  size_t name_width = 6;
  for (const auto& t : file.tensors()) name_width = std::max(name_width, t.name.size());
  std::cout << fmt::format("{}\n{} tensors\n\n", file.path().string(), file.tensors().size());
  std::cout << fmt::format("{:<{}}  {:<5}  {:<20}  {:>12}\n", "tensor", name_width, "dtype", "shape",
                           "bytes");
  uint64_t total = 0;
  for (const auto& t : file.tensors()) {
    std::cout << fmt::format("{:<{}}  {:<5}  {:<20}  {:>12}\n", t.name, name_width, t.dtype,
                             shape_string(t.shape), t.end - t.begin);
    total += t.end - t.begin;
  }
  std::cout << fmt::format("{:<{}}  {:<5}  {:<20}  {:>12}\n", "total", name_width, "", "", total);
  if (!file.metadata().empty()) {
    std::cout << "\nmetadata\n";
    for (const auto& [key, value] : file.metadata()) {
      std::cout << fmt::format("  {} = {}\n", key, value);
    }
  }
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("inspect", "list the tensors and metadata of a weights file");
  cmd->add_option("file", *path, ".safetensors file or model folder")->required();
  cmd->callback([path] { inspect(*path); });
}

}  // namespace attnviz
