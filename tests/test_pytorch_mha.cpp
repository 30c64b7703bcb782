// The sample model against PyTorch (tests/fixtures/make_fixtures.py): probabilities and outputs.
#include <doctest/doctest.h>

#include "attnviz/compute/forward.hpp"
#include "attnviz/io/safetensors.hpp"
#include "check_close.hpp"

using namespace attnviz;
using attnviz::test::check_close;

namespace {

Matrix as_matrix(const Tensor& t, int64_t rows, int64_t cols, int64_t offset = 0) {
  return Eigen::Map<const Matrix>(t.data.data() + offset, rows, cols);
}

// Gathers head h's probabilities.
struct HeadProbs : AttentionSink {
  std::vector<Matrix> heads;
  void begin_map(const MapInfo& info) override { heads.emplace_back(info.n_query, info.n_key); }
  void on_block(const AttentionBlock& b) override {
    heads.back().middleRows(b.row_begin, b.row_end - b.row_begin) = b.probs;
  }
};

void compare(const std::string& name, const Model& model, ForwardInputs inputs,
             const SafetensorsFile& fx) {
  HeadProbs sink;
  const ForwardResult r = forward(model, inputs, ForwardOptions{std::nullopt, 3}, &sink);
  const Tensor probs = fx.load(name + ".probs");
  const int64_t n_q = probs.shape[1], n_k = probs.shape[2];
  REQUIRE(sink.heads.size() == 4);
  for (int h = 0; h < 4; ++h) {
    check_close(sink.heads[h], as_matrix(probs, n_q, n_k, h * n_q * n_k), 1e-5f,
                name + " probs head " + std::to_string(h));
  }
  check_close(r.hidden, as_matrix(fx.load(name + ".out"), n_q, 128), 1e-4f, name + " output");
}

}  // namespace

TEST_CASE(
    "pytorch: samples/mha matches nn.Linear + view(n, heads, d) + softmax + out, self / causal / "
    "cross") {
  const auto fx = SafetensorsFile::open(std::string(ATTNVIZ_SOURCE_DIR) +
                                        "/tests/fixtures/torch/mha.safetensors");
  const Model model = load_model(std::string(ATTNVIZ_SOURCE_DIR) + "/samples/mha", {});
  const Matrix x = as_matrix(fx.load("x"), 7, 128);
  const Matrix src = as_matrix(fx.load("source"), 5, 128);
  const std::vector<std::string> labels{"a", "b", "c", "d", "e", "f", "g"};

  compare("self", model,
          ForwardInputs{Sequence{labels, x, {}, {}, {}}, std::nullopt, Mask{}, Mask{}}, fx);
  Mask causal;
  causal.causal = true;
  compare("causal", model,
          ForwardInputs{Sequence{labels, x, {}, {}, {}}, std::nullopt, causal, Mask{}}, fx);
  compare("cross", model,
          ForwardInputs{Sequence{labels, x, {}, {}, {}},
                        Sequence{{"1", "2", "3", "4", "5"}, src, {}, {}, {}}, Mask{}, Mask{}},
          fx);
}
