// SiLU and the gated feed-forward network (SwiGLU, Shazeer 2020) by hand.
#include <doctest/doctest.h>

#include "attnviz/compute/feed_forward.hpp"
#include "check_close.hpp"

using namespace attnviz;
using attnviz::test::check_close;

TEST_CASE("gated ffn: SiLU(x) = x·σ(x) at −1, 0, 1 and far out") {
  Matrix x(1, 5);
  x << -1.0f, 0.0f, 1.0f, -100.0f, 30.0f;
  activate(x, Activation::silu);
  CHECK(x(0, 0) == doctest::Approx(-0.2689414213699951).epsilon(1e-6));  // −1 / (1 + e)
  CHECK(x(0, 1) == 0.0f);
  CHECK(x(0, 2) == doctest::Approx(0.7310585786300049).epsilon(1e-6));  // 1 / (1 + e^−1)
  CHECK(x(0, 3) == doctest::Approx(0.0).epsilon(1e-30));  // −100 · σ(−100) ≈ −3.7e−42
  CHECK(x(0, 4) == doctest::Approx(30.0).epsilon(1e-6));
}

TEST_CASE(
    "gated ffn: down(silu(gate(x)) ⊙ up(x)) by hand, and without a gate the plain "
    "down(act(up(x)))") {
  Linear gate{Matrix::Identity(2, 2), {}};
  Matrix up_w(2, 2);
  up_w << 2, 0, 0, 3;
  Matrix down_w(2, 2);
  down_w << 1, 1, 0, 1;
  FeedForwardWeights w{Linear{up_w, {}}, Linear{down_w, {}}, gate};
  Matrix x(1, 2);
  x << 1.0f, -1.0f;
  // gate(x) = [1, −1] → silu = [0.7310586, −0.2689414]; up(x) = [2, −3]; product [1.4621172,
  // 0.8068243]; down: [1.4621172 + 0.8068243, 0.8068243]
  Matrix expected(1, 2);
  expected << 2.2689415f, 0.8068243f;
  check_close(feed_forward(x, w, Activation::silu), expected, 1e-6f, "swiglu");

  w.gate.reset();  // plain: relu(up(x)) = [2, 0] → down: [2, 0]
  Matrix plain(1, 2);
  plain << 2.0f, 0.0f;
  check_close(feed_forward(x, w, Activation::relu), plain, 0.0f, "plain");
}
