// `attnviz families`: the model families attnviz reads, read from their records (one row per
// title): built-in layouts, stacks, GGUF architectures and `init --arch` names. --markdown prints
// README.md's table.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "attnviz/cli/commands.hpp"
#include "attnviz/model/config.hpp"
#include "attnviz/model/family.hpp"

namespace attnviz {

namespace {

struct Row {
  std::string title;
  std::vector<std::string> layouts{}, stacks{}, gguf{}, init{};
};

void add_once(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end())
    list.push_back(item);
}

// The stack a layout holds: arch_name's, a lone module named as one.
const char* stack_name(Arch arch) {
  return arch == Arch::mha ? "attention module" : arch_name(arch);
}

std::vector<Row> family_rows() {
  std::vector<Row> rows;
  for (const auto& f : families()) {
    auto row =
        std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.title == f.title; });
    if (row == rows.end()) row = rows.insert(rows.end(), Row{.title = f.title});
    add_once(row->layouts, f.layout.name);
    add_once(row->stacks, stack_name(f.layout.arch));
    add_once(row->gguf, f.gguf.arch);
    add_once(row->init, f.init_arch());
  }
  return rows;
}

// "`a`, `b`" (markdown) or "a, b"; "–" for none.
std::string cell(const std::vector<std::string>& items, bool markdown) {
  if (items.empty()) return "–";
  const char* quote = markdown ? "`" : "";
  std::string out;
  for (const auto& item : items)
    out += fmt::format("{}{}{}{}", out.empty() ? "" : ", ", quote, item, quote);
  return out;
}

std::string without_backticks(std::string text) {
  std::erase(text, '`');
  return text;
}

}  // namespace

std::string families_table(bool markdown) {
  std::string out;
  if (markdown) {
    out =
        "| family | built-in layouts | stack | GGUF architecture | `init --arch` |\n"
        "|---|---|---|---|---|\n";
  }
  for (const auto& r : family_rows()) {
    if (markdown) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", r.title, cell(r.layouts, true),
                         cell(r.stacks, false), cell(r.gguf, true), cell(r.init, true));
    } else {
      out += fmt::format(
          "{}\n  layouts: {}\n  stack: {}\n  GGUF architecture: {}\n  init --arch: {}\n",
          without_backticks(r.title), cell(r.layouts, false), cell(r.stacks, false),
          cell(r.gguf, false), cell(r.init, false));
    }
  }
  return out;
}

void add_families_command(CLI::App& app) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "families",
      "list the model families attnviz reads: their layouts, stacks, GGUF architectures and init "
      "names");
  cmd->add_flag("--markdown", *markdown, "one GitHub table (README.md's)");
  cmd->callback([markdown] { std::cout << families_table(*markdown); });
}

}  // namespace attnviz
