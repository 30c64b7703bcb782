// GGUF files made and quantised by llama.cpp's own code (tests/fixtures/gguf_models, models.json):
// attnviz's maps and logits equal a PyTorch reference run on the same dequantised weights, and
// llama.cpp's logits (node-llama-cpp) are reported beside them (within 1e-4 for F32 files without
// GELU).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/compute/logits.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "check_close.hpp"
#include "run_cli.hpp"
#include "saved_maps.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::TempDir;

namespace fs = std::filesystem;

namespace {

const fs::path k_root = ATTNVIZ_SOURCE_DIR;

Matrix matrix_of(const Tensor& t) {
  return Eigen::Map<const Matrix>(t.data.data(), t.shape.at(0), t.shape.at(1));
}

// hidden · W_unembedᵀ, soft-capped as --logits computes it.
Matrix logits_of(const Model& m, const std::vector<int64_t>& ids) {
  const Sequence s = embed_ids(m, ids, std::vector<std::string>(ids.size(), "t"));
  const Matrix hidden = forward(m, ForwardInputs{s, {}, {}, {}}, {}, nullptr).hidden;
  Matrix out = unembedding(m)->times_transposed(hidden);
  const float cap = m.config.final_logit_softcap;
  if (cap > 0) out = ((out.array() / cap).tanh() * cap).matrix();
  return out;
}

}  // namespace

TEST_CASE(
    "gguf llama.cpp files: every architecture and tensor type gives the PyTorch reference's maps "
    "and logits") {
  const fs::path list = k_root / "tests/fixtures/gguf_models/models.json";
  REQUIRE_MESSAGE(fs::exists(list), "missing " << list.string());
  nlohmann::json models;
  std::ifstream(list) >> models;
  REQUIRE(models.size() >= 20);
  for (const auto& entry : models) {
    const std::string file = entry.at("file"), ftype = entry.at("ftype"), arch = entry.at("arch");
    CAPTURE(file);
    const fs::path model = k_root / file, ids_path = k_root / entry.at("ids").get<std::string>();
    TempDir tmp;
    test::check_saved_maps(test::run_and_save(model, ids_path, tmp / "out.safetensors"),
                           SafetensorsFile::open(k_root / entry.at("expected").get<std::string>()));

    const Model m = load_model(model, {});
    const auto ids = parse_ids(test::slurp(ids_path), "ids.txt");
    const Matrix ours = logits_of(m, ids);
    const std::string logits_path = entry.at("logits");
    test::check_close(ours, matrix_of(SafetensorsFile::open(k_root / logits_path).load("logits")),
                      1e-4f, "logits against PyTorch on the dequantised weights");

    // llama.cpp rounds activations inside its products for F16 and quantised weights (and uses an
    // F16 GELU table), so only F32 files without GELU are held to 1e-4; the rest is reported.
    std::string cpp_path = logits_path;
    cpp_path.replace(cpp_path.find(".logits."), 8, ".llama_cpp.");
    const Matrix cpp = matrix_of(SafetensorsFile::open(k_root / cpp_path).load("logits"));
    REQUIRE(cpp.rows() == ours.rows());
    int agree = 0;
    for (Eigen::Index p = 0; p < ours.rows(); ++p) {
      Eigen::Index a = 0, b = 0;
      ours.row(p).maxCoeff(&a);
      cpp.row(p).maxCoeff(&b);
      agree += a == b;
    }
    const float diff = (ours - cpp).cwiseAbs().maxCoeff();
    MESSAGE(file << ": llama.cpp max |logit diff| " << diff << ", argmax agrees " << agree << "/"
                 << ours.rows());
    if (ftype == "F32" && !arch.starts_with("gemma")) {
      CHECK(diff <= 1e-4f);
      CHECK(agree == ours.rows());
    }
  }
}
