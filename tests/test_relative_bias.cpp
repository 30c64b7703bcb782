// T5's relative position bias: the buckets against torch's (make_fixtures.py's t5_bucket, written
// from modeling_t5.py, for every offset in [−300, 300] and three settings), and the kernel adding a
// head's bias by offset, against a hand calculation.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/compute/attention.hpp"
#include "attnviz/event/relative_bias.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;

TEST_CASE("relative bias: T5's buckets equal torch's for every offset in [−300, 300]") {
  std::ifstream in(test::k_torch / "t5_buckets.json");
  const auto j = nlohmann::json::parse(in);
  const int first = j["offsets"][0].get<int>();
  REQUIRE(j["cases"].size() == 6);
  for (const auto& c : j["cases"]) {
    RelativeBias b{Matrix::Zero(c["buckets"].get<int>(), 1), c["max_distance"].get<int>(),
                   c["bidirectional"].get<bool>()};
    CAPTURE(b.n_buckets());
    CAPTURE(b.max_distance);
    CAPTURE(b.bidirectional);
    const auto& expected = c["bucket"];
    REQUIRE(expected.size() == 601);
    for (size_t i = 0; i < expected.size(); ++i) {
      CAPTURE(first + int(i));
      CHECK(b.bucket(first + int(i)) == expected[i].get<int>());
    }
  }
}

TEST_CASE("relative bias: by hand, the buckets of T5's 32 to 128 and what by_offset lays out") {
  RelativeBias enc{Matrix::Zero(32, 2), 128, true};
  // Encoder: 16 buckets a side, offsets below 8 exact; later keys from bucket 16.
  CHECK(enc.bucket(0) == 0);
  CHECK(enc.bucket(-7) == 7);
  CHECK(enc.bucket(7) == 23);
  // 8 + ⌊ln(16/8) / ln(128/8) · 8⌋ = 8 + ⌊0.25 · 8⌋ = 10; 128 and beyond: the last, 15.
  CHECK(enc.bucket(-16) == 10);
  CHECK(enc.bucket(-128) == 15);
  CHECK(enc.bucket(-100000) == 15);
  CHECK(enc.bucket(100000) == 31);
  RelativeBias dec{Matrix::Zero(32, 2), 128, false};
  CHECK(dec.bucket(5) == 0);  // a later key (masked by causality anyway)
  CHECK(dec.bucket(-15) == 15);
  CHECK(dec.bucket(-16) == 16);  // 16 + ⌊ln(16/16) …⌋
  CHECK(dec.bucket(-32) == 21);  // 16 + ⌊ln(32/16) / ln(128/16) · 16⌋ = 16 + ⌊16/3⌋
  Matrix table(4, 2);
  table << 0, 10, 1, 11, 2, 12, 3, 13;
  const RelativeBias small{table, 8,
                           true};           // 2 buckets a side, offset 0 exact, then one log bucket
  const auto v = small.by_offset(1, 2, 3);  // offsets −1, 0, 1, 2
  REQUIRE(v.size() == 4);
  CHECK(v[0] == table(small.bucket(-1), 1));
  CHECK(v[1] == 10.0f);  // offset 0: bucket 0
  CHECK(v[2] == table(small.bucket(1), 1));
  CHECK(v[3] == table(small.bucket(2), 1));
}

TEST_CASE("relative bias: the kernel adds the head's bias of each offset before the softmax") {
  // q = 0: every score is the bias alone, so row i is softmax over j of bias[j − i].
  const Matrix q = Matrix::Zero(3, 2), k = Matrix::Ones(3, 2);
  Matrix v(3, 1);
  v << 1, 2, 3;
  const std::vector<float> bias{0.5f, -1.0f, 0.0f, 1.0f, 2.0f};  // offsets −2 … 2
  Matrix out(3, 1);
  Matrix probs(3, 3), scores(3, 3);
  scaled_dot_product_attention(
      out, q, k, v, Mask{}, 1.0f, 1,
      [&](int r0, int r1, ConstMatrixRef s, ConstMatrixRef p, const float*) {
        scores.middleRows(r0, r1 - r0) = s;
        probs.middleRows(r0, r1 - r0) = p;
      },
      0.0f, std::nullopt, bias.data());
  for (int i = 0; i < 3; ++i) {
    double z = 0;
    for (int j = 0; j < 3; ++j) z += std::exp(double(bias[size_t(j - i + 2)]));
    for (int j = 0; j < 3; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(scores(i, j) == bias[size_t(j - i + 2)]);
      CHECK(probs(i, j) == doctest::Approx(std::exp(double(bias[size_t(j - i + 2)])) / z));
    }
  }
}
