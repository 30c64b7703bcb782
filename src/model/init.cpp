// `attnviz init`: write a seeded random multi-head attention model in the seed modules' layout.
#include "attnviz/model/init.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/core/random.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/safetensors.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// nn.Linear(in, out): weight [out, in] and bias [out] ~ U(-1/sqrt(in), 1/sqrt(in)).
void add_linear(std::vector<NamedTensor>& out, Random& rng, const std::string& name, int in_f,
                int out_f) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_f));
  NamedTensor w{name + ".weight", {out_f, in_f}, std::vector<float>(size_t(out_f) * in_f)};
  NamedTensor b{name + ".bias", {out_f}, std::vector<float>(size_t(out_f))};
  for (float& x : w.data) x = rng.uniform(-bound, bound);
  for (float& x : b.data) x = rng.uniform(-bound, bound);
  out.push_back(std::move(w));
  out.push_back(std::move(b));
}

void validate(const InitOptions& o, int d_qk, int d_v) {
  if (o.d_model <= 0 || o.n_heads <= 0 || d_qk <= 0 || d_v <= 0) {
    throw usage_error("init: --d-model, --heads, --d-qk and --d-v must be positive");
  }
  if (d_qk % o.n_heads != 0 || d_v % o.n_heads != 0) {
    throw usage_error(fmt::format("init: --heads {} must divide d_qk = {} and d_v = {}", o.n_heads,
                                  d_qk, d_v));
  }
}

}  // namespace

void init_model(const fs::path& dir, const InitOptions& o) {
  const int d_qk = o.d_qk > 0 ? o.d_qk : o.d_model;
  const int d_v = o.d_v > 0 ? o.d_v : o.d_model;
  validate(o, d_qk, d_v);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));

  Random rng(o.seed);
  std::vector<NamedTensor> tensors;
  add_linear(tensors, rng, "q", o.d_model, d_qk);
  add_linear(tensors, rng, "k", o.d_model, d_qk);
  add_linear(tensors, rng, "v", o.d_model, d_v);
  if (o.out_proj) add_linear(tensors, rng, "out", d_v, o.d_model);
  if (!o.vocab.empty()) {  // nn.Embedding(vocab, d_model) ~ N(0, 1)
    const int n = static_cast<int>(o.vocab.size());
    NamedTensor e{"embed.weight", {n, o.d_model}, std::vector<float>(size_t(n) * o.d_model)};
    for (float& x : e.data) x = rng.normal();
    tensors.push_back(std::move(e));
  }

  nlohmann::ordered_json config{{"arch", "mha"},  {"d_model", o.d_model}, {"n_heads", o.n_heads},
                                {"d_qk", d_qk},   {"d_v", d_v},           {"seed", o.seed}};
  if (o.max_positions > 0) config["max_positions"] = o.max_positions;
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : config.items()) {
    metadata[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  std::vector<TensorView> views;
  for (const auto& t : tensors) views.push_back({t.name, t.shape, t.data.data()});
  write_safetensors(dir / "model.safetensors", views, metadata);
  write_file_atomically(dir / "config.json", config.dump(2) + "\n");
  if (!o.vocab.empty()) {
    std::string text;
    for (const auto& token : o.vocab) text += token + "\n";
    write_file_atomically(dir / "vocab.txt", text);
  }
}

}  // namespace attnviz
