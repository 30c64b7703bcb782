// The rules of who may include whom, as ARCHITECTURE.md writes them, hold for every source file.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

using Rules =
    std::map<std::string, std::set<std::string>>;  // part → the other parts it may include

// The ```include-rules block of ARCHITECTURE.md: "part: other other …" per line.
Rules parse_rules(const std::string& markdown) {
  const std::string fence = "```include-rules\n";
  const size_t begin = markdown.find(fence);
  REQUIRE_MESSAGE(begin != std::string::npos, "ARCHITECTURE.md has no ```include-rules block");
  const size_t end = markdown.find("```", begin + fence.size());
  REQUIRE(end != std::string::npos);
  std::istringstream in(markdown.substr(begin + fence.size(), end - begin - fence.size()));
  Rules rules;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    REQUIRE_MESSAGE(colon != std::string::npos, "include rule without ':': " << line);
    std::istringstream parts(line.substr(colon + 1));
    auto& allowed = rules[line.substr(0, colon)];
    for (std::string p; parts >> p;) allowed.insert(p);
  }
  return rules;
}

// A cycle among the rules, as "a → b → a", or "" when they form a one-way pipeline.
std::string find_cycle(const Rules& rules) {
  std::map<std::string, int> state;  // 0 new, 1 on the path, 2 done
  std::vector<std::string> path;
  std::string cycle;
  std::function<bool(const std::string&)> visit = [&](const std::string& part) {
    if (state[part] == 2) return false;
    if (state[part] == 1) {
      const auto start = std::find(path.begin(), path.end(), part);
      for (auto it = start; it != path.end(); ++it) cycle += *it + " → ";
      cycle += part;
      return true;
    }
    state[part] = 1;
    path.push_back(part);
    if (const auto it = rules.find(part); it != rules.end()) {
      for (const auto& next : it->second) {
        if (visit(next)) return true;
      }
    }
    path.pop_back();
    state[part] = 2;
    return false;
  };
  for (const auto& [part, allowed] : rules) {
    if (visit(part)) return cycle;
  }
  return "";
}

// The part a folder path ("io/gguf", "model/families") belongs to: its longest leading run of
// folders that has a rule (a sub-part such as "io/gguf" has its own line), else its first folder.
std::string part_of(const fs::path& folders, const Rules& rules) {
  std::string best, prefix;
  for (const auto& folder : folders) {
    prefix += (prefix.empty() ? "" : "/") + folder.string();
    if (rules.count(prefix)) best = prefix;
  }
  return best.empty() ? folders.begin()->string() : best;
}

// Every include of root/src and root/include/attnviz that breaks the rules, one line each. A file's
// part is its folder's (part_of; src/main.cpp is the part "main"); "attnviz/<folders>/…" includes
// name the part of those folders; a quoted include without a folder is a private header beside the
// file; anything else (climbing up, another part's private header) breaks the rules.
std::vector<std::string> violations(const fs::path& root, const Rules& rules) {
  std::vector<std::string> found;
  const std::regex include_line(R"(^\s*#\s*include\s*(["<])([^">]+)[">])");
  const std::regex public_header(R"(^attnviz/([a-z0-9_/]+)/[A-Za-z0-9_]+\.hpp$)");
  for (const fs::path& base : {root / "src", root / "include" / "attnviz"}) {
    for (const auto& entry : fs::recursive_directory_iterator(base)) {
      if (!entry.is_regular_file()) continue;
      const fs::path rel = entry.path().lexically_relative(base);
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp") continue;
      const std::string part =
          rel.has_parent_path() ? part_of(rel.parent_path(), rules) : rel.stem().string();
      const std::string where = entry.path().lexically_relative(root).string();
      if (!rules.count(part)) {
        found.push_back(where + ": the part '" + part + "' has no include rule in ARCHITECTURE.md");
        continue;
      }
      std::ifstream in(entry.path());
      int line_no = 0;
      for (std::string line; std::getline(in, line);) {
        ++line_no;
        std::smatch m;
        if (!std::regex_search(line, m, include_line)) continue;
        const std::string target = m[2];
        // <…> names a system or library header; <attnviz/…> would still be ours.
        if (m[1] == "<" && target.rfind("attnviz/", 0) != 0) continue;
        const std::string at = where + ":" + std::to_string(line_no) + ": ";
        std::smatch h;
        if (std::regex_match(target, h, public_header)) {
          const std::string other = part_of(fs::path(h[1].str()), rules);
          if (other != part && !rules.at(part).count(other)) {
            found.push_back(at + part + " may not include " + other + " (\"" + target + "\")");
          }
        } else if (target.find('/') != std::string::npos ||
                   !fs::exists(entry.path().parent_path() / target)) {
          found.push_back(at + "\"" + target +
                          "\" is neither a public header nor a private one beside the file");
        }
      }
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("include rules: every source file keeps the rules ARCHITECTURE.md writes") {
  const fs::path root = ATTNVIZ_SOURCE_DIR;
  const Rules rules = parse_rules(attnviz::test::slurp(root / "ARCHITECTURE.md"));
  CHECK(rules.size() >= 10);
  CHECK_MESSAGE(find_cycle(rules).empty(), "the rules have a cycle: " << find_cycle(rules));
  for (const auto& [part, allowed] : rules) {
    for (const auto& other : allowed)
      CHECK_MESSAGE(rules.count(other), part << " names an unknown part " << other);
  }
  const auto found = violations(root, rules);
  std::string all;
  for (const auto& v : found) all += v + "\n";
  CHECK_MESSAGE(found.empty(), found.size() << " includes break the rules:\n" << all);
}

TEST_CASE(
    "include rules: the checker finds a wrong-way include, a climb and a part without a rule") {
  attnviz::test::TempDir dir;
  write(dir / "src/core/a.cpp", "#include \"attnviz/core/a.hpp\"\n#include <vector>\n");
  write(dir / "include/attnviz/core/a.hpp", "#pragma once\n");
  write(dir / "src/model/b.cpp", "#include \"attnviz/core/a.hpp\"\n#include \"helper.hpp\"\n");
  write(dir / "src/model/helper.hpp", "#pragma once\n");
  write(dir / "src/main.cpp", "#include \"attnviz/model/b.hpp\"\n");
  const Rules rules =
      parse_rules("text\n```include-rules\n# comment\ncore:\nmodel: core\nmain: model\n```\n");
  CHECK(rules.at("model") == std::set<std::string>{"core"});
  CHECK(violations(dir.path(), rules).empty());

  write(dir / "include/attnviz/core/c.hpp", "#pragma once\n  #  include \"attnviz/model/b.hpp\"\n");
  write(dir / "src/core/d.cpp", "#include \"../model/helper.hpp\"\n");
  write(dir / "src/render/e.cpp", "#include \"attnviz/core/a.hpp\"\n");
  write(dir / "src/core/f.cpp", "#include <vector>\n#include <attnviz/model/b.hpp>\n");
  const auto found = violations(dir.path(), rules);
  REQUIRE(found.size() == 4);
  CHECK(found[0] ==
        "include/attnviz/core/c.hpp:2: core may not include model (\"attnviz/model/b.hpp\")");
  CHECK(found[1].find("src/core/d.cpp:1: \"../model/helper.hpp\" is neither") == 0);
  CHECK(found[2] == "src/core/f.cpp:2: core may not include model (\"attnviz/model/b.hpp\")");
  CHECK(found[3] == "src/render/e.cpp: the part 'render' has no include rule in ARCHITECTURE.md");

  CHECK(find_cycle(rules).empty());
  CHECK(find_cycle(parse_rules("```include-rules\ncore: model\nmodel: core\n```")) ==
        "core → model → core");
}

TEST_CASE(
    "include rules: a sub-part with its own line is a part; a folder without one is its parent's") {
  attnviz::test::TempDir dir;
  const Rules rules =
      parse_rules("```include-rules\ncore:\nio: core\nio/gguf: core io\nmodel: core io/gguf\n```");
  write(dir / "include/attnviz/io/file.hpp", "#pragma once\n");
  write(dir / "include/attnviz/io/gguf/gguf.hpp",
        "#pragma once\n#include \"attnviz/io/file.hpp\"\n");
  write(dir / "src/io/gguf/read.cpp",
        "#include \"attnviz/io/gguf/gguf.hpp\"\n#include \"cursor.hpp\"\n");
  write(dir / "src/io/gguf/cursor.hpp", "#pragma once\n");
  write(dir / "src/model/families/one.cpp", "#include \"attnviz/io/gguf/gguf.hpp\"\n");
  CHECK(violations(dir.path(), rules).empty());

  write(dir / "src/io/file.cpp", "#include \"attnviz/io/gguf/gguf.hpp\"\n");  // the wrong way
  write(dir / "src/model/two.cpp", "#include \"attnviz/io/file.hpp\"\n");     // io is not io/gguf
  const auto found = violations(dir.path(), rules);
  REQUIRE(found.size() == 2);
  CHECK(found[0] == "src/io/file.cpp:1: io may not include io/gguf (\"attnviz/io/gguf/gguf.hpp\")");
  CHECK(found[1] == "src/model/two.cpp:1: model may not include io (\"attnviz/io/file.hpp\")");
  CHECK(part_of("io/gguf", rules) == "io/gguf");
  CHECK(part_of("model/families", rules) == "model");
}

TEST_CASE("architecture: every file ARCHITECTURE.md names exists, and it holds the four recipes") {
  const fs::path root = ATTNVIZ_SOURCE_DIR;
  const std::string text = attnviz::test::slurp(root / "ARCHITECTURE.md");
  for (const char* recipe : {"### Add a model family", "### Add a tokenizer type",
                             "### Add an output", "### Add a command"}) {
    CHECK_MESSAGE(text.find(recipe) != std::string::npos, recipe);
  }
  // `src/model/layouts.cpp`, `tests/tiers.cmake`, … : a path in backquotes under a folder of the
  // checkout, without a placeholder such as <name>.
  const std::regex path_re(
      R"(`((?:src|include|tests|fuzz|scripts|bench|docs|cmake)/[A-Za-z0-9_./-]+)`)");
  int named = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), path_re), end; it != end; ++it) {
    const std::string path = (*it)[1];
    CAPTURE(path);
    CHECK(fs::exists(root / path));
    ++named;
  }
  CHECK(named > 20);
}
