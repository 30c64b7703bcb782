// Loading a model: find the weights file, gather hyperparameters, bind tensors to roles and check shapes.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

// The weights file of a path: the path itself, or the single *.safetensors inside a folder.
fs::path find_weights_file(const fs::path& path) {
  if (!fs::exists(path)) throw Error(fmt::format("{}: no such file or directory", path.string()));
  if (!fs::is_directory(path)) return path;
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.path().extension() == ".safetensors") found.push_back(entry.path());
  }
  if (found.size() != 1) {
    throw Error(fmt::format("{}: expected one .safetensors file in the folder, found {}",
                            path.string(), found.size()));
  }
  return found.front();
}

// Integer hyperparameters by name, with where each came from (for contradiction messages).
struct Source {
  std::string where;
  std::map<std::string, int> values;
};

Source metadata_source(const SafetensorsFile& file) {
  Source s{file.path().string() + " __metadata__", {}};
  for (const auto& [key, text] : file.metadata()) {
    try {
      size_t used = 0;
      const int v = std::stoi(text, &used);
      if (used == text.size()) s.values[key] = v;
    } catch (const std::exception&) {
      // non-numeric metadata (labels, descriptions) is not a hyperparameter
    }
  }
  return s;
}

Source config_json_source(const fs::path& dir) {
  const fs::path file = dir / "config.json";
  Source s{file.string(), {}};
  if (!fs::exists(file)) return s;
  std::ifstream in(file);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  }
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", file.string()));
  for (const auto& [key, value] : j.items()) {
    if (value.is_number_integer()) s.values[key] = value.get<int>();
  }
  return s;
}

// The value of `key` agreed on by every source that has it; 0 when none has it.
int agreed_value(const std::string& key, const std::vector<Source>& sources) {
  const Source* first = nullptr;
  for (const auto& s : sources) {
    auto it = s.values.find(key);
    if (it == s.values.end()) continue;
    if (first && first->values.at(key) != it->second) {
      throw usage_error(fmt::format("{} = {} in {} contradicts {} = {} in {}", key, it->second,
                                    s.where, key, first->values.at(key), first->where));
    }
    if (!first) first = &s;
  }
  return first ? first->values.at(key) : 0;
}

std::vector<std::string> read_vocab(const fs::path& dir) {
  std::vector<std::string> vocab;
  std::ifstream in(dir / "vocab.txt");
  for (std::string line; std::getline(in, line);) vocab.push_back(line);
  return vocab;
}

Matrix load_matrix(const SafetensorsFile& file, const std::string& name, int64_t rows, int64_t cols) {
  if (!file.find(name)) {
    throw Error(fmt::format("{}: missing tensor '{}' (expected shape [{}, {}])", file.path().string(),
                            name, rows, cols));
  }
  Tensor t = file.load(name);
  const std::vector<int64_t> expected{rows, cols};
  if (t.shape != expected) {
    throw Error(fmt::format("{}: tensor '{}' has shape {}, expected {}", file.path().string(), name,
                            shape_string(t.shape), shape_string(expected)));
  }
  return Eigen::Map<Matrix>(t.data.data(), rows, cols);
}

RowVector load_bias(const SafetensorsFile& file, const std::string& name, int64_t n) {
  if (!file.find(name)) return {};
  Tensor t = file.load(name);
  if (t.shape != std::vector<int64_t>{n}) {
    throw Error(fmt::format("{}: tensor '{}' has shape {}, expected [{}]", file.path().string(),
                            name, shape_string(t.shape), n));
  }
  return Eigen::Map<RowVector>(t.data.data(), n);
}

// The width a tensor's dimension says, or an error naming the tensor when it is missing.
int64_t dim_of(const SafetensorsFile& file, const std::string& name, size_t axis) {
  const TensorInfo* info = file.find(name);
  if (!info) throw Error(fmt::format("{}: missing tensor '{}'", file.path().string(), name));
  if (info->shape.size() != 2) {
    throw Error(fmt::format("{}: tensor '{}' has shape {}, expected a matrix [out, in]",
                            file.path().string(), name, shape_string(info->shape)));
  }
  return info->shape[axis];
}

Linear load_linear(const SafetensorsFile& file, const std::string& prefix, int64_t out, int64_t in) {
  return Linear{load_matrix(file, prefix + ".weight", out, in), load_bias(file, prefix + ".bias", out)};
}

}  // namespace

Model load_model(const fs::path& path, const ConfigOverrides& overrides) {
  const fs::path weights_file = find_weights_file(path);
  const fs::path dir = fs::is_directory(path) ? path : weights_file.parent_path();
  const SafetensorsFile file = SafetensorsFile::open(weights_file);

  Source flags{"the command line", {}};
  if (overrides.n_heads) flags.values["n_heads"] = *overrides.n_heads;
  const std::vector<Source> sources{metadata_source(file), config_json_source(dir), flags};

  Model model;
  model.name = path.filename().empty() ? path.parent_path().filename().string()
                                       : path.filename().string();
  Config& c = model.config;
  c.d_model = static_cast<int>(dim_of(file, "q.weight", 1));
  c.d_qk = static_cast<int>(dim_of(file, "q.weight", 0));
  c.d_v = static_cast<int>(dim_of(file, "v.weight", 0));
  c.n_heads = agreed_value("n_heads", sources);
  c.max_positions = agreed_value("max_positions", sources);
  if (c.n_heads <= 0) {
    throw usage_error(fmt::format("{}: the number of heads is not in the file; give --heads N",
                                  weights_file.string()));
  }
  if (c.d_qk % c.n_heads != 0 || c.d_v % c.n_heads != 0) {
    throw Error(fmt::format("{}: {} heads do not divide d_qk = {} and d_v = {}", weights_file.string(),
                            c.n_heads, c.d_qk, c.d_v));
  }
  // The shapes are the truth; a config that declares other widths is wrong about this file.
  const std::pair<const char*, int> derived[] = {{"d_model", c.d_model}, {"d_qk", c.d_qk}, {"d_v", c.d_v}};
  for (const auto& [key, actual] : derived) {
    const int declared = agreed_value(key, sources);
    if (declared != 0 && declared != actual) {
      throw Error(fmt::format("{}: {} = {} in the config, but the weights say {}",
                              weights_file.string(), key, declared, actual));
    }
  }

  AttentionWeights& a = model.weights.attention;
  a.q = load_linear(file, "q", c.d_qk, c.d_model);
  a.k = load_linear(file, "k", c.d_qk, c.d_model);
  a.v = load_linear(file, "v", c.d_v, c.d_model);
  if (file.find("out.weight")) {
    c.d_out = static_cast<int>(dim_of(file, "out.weight", 0));
    a.out = load_linear(file, "out", c.d_out, c.d_v);
  }
  if (file.find("embed.weight")) {
    c.vocab_size = static_cast<int>(dim_of(file, "embed.weight", 0));
    model.weights.token_embedding = load_matrix(file, "embed.weight", c.vocab_size, c.d_model);
    model.vocab = read_vocab(dir);
  }
  return model;
}

}  // namespace attnviz
