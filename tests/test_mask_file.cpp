// --mask files as PyTorch users have them (fixtures made by torch:
// tests/fixtures/make_mask_fixtures.py): every convention read to the same causal matrix, ambiguity
// and contradiction refused by name, and a file mask equal to the causal mask giving --causal's
// maps exactly.
#include <doctest/doctest.h>

#include <fstream>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/mask_file.hpp"
#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

const std::string k_dir = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/masks/";

// subsequent_mask(4) by its definition: key j visible to query i iff j <= i.
MaskMatrix causal4() {
  MaskMatrix m(4, 4);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) m(i, j) = j <= i ? 1 : 0;
  }
  return m;
}

MaskMatrix read(const std::string& name, MaskConvention c = MaskConvention::automatic) {
  return read_mask_file(k_dir + name, 4, 4, c);
}

std::string error_of(const std::string& path, MaskConvention c, int n_q = 4, int n_k = 4) {
  try {
    read_mask_file(path, n_q, n_k, c);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("mask file: additive 0/-inf masks are read as PyTorch adds them, not backwards") {
  CHECK(read("additive_inf_f4.npy") == causal4());  // generate_square_subsequent_mask
  CHECK(read("additive_inf.txt") == causal4());     // the same through np.savetxt
  CHECK(read("additive_finfo_min_f4.npy") == causal4());
  CHECK(read("additive_1e9_f8.npy") == causal4());
  CHECK(read("additive_1e4_f4_b1h1.npy") == causal4());  // [1, 1, N, N]
  CHECK(read("additive_inf_f4.npy", MaskConvention::additive) == causal4());
}

TEST_CASE("mask file: 0/1 keep masks in integer, float and text forms") {
  CHECK(read("keep_i8.npy") == causal4());
  CHECK(read("keep_u1_b1.npy") == causal4());
  CHECK(read("keep_float.txt") == causal4());
  CHECK(read("keep_bool.npy", MaskConvention::keep) == causal4());
}

TEST_CASE(
    "mask file: True-means-blocked masks (nn.MultiheadAttention) with --mask-convention block") {
  CHECK(read("block_bool.npy", MaskConvention::block) == causal4());
  // key_padding_mask [1, S]: one row for every query, as PyTorch broadcasts it.
  MaskMatrix expected = MaskMatrix::Ones(4, 4);
  expected.col(3).setZero();
  CHECK(read("key_padding_bool.npy", MaskConvention::block) == expected);
}

TEST_CASE("mask file: where the values do not decide, the convention must be given") {
  const std::string bool_err = error_of(k_dir + "keep_bool.npy", MaskConvention::automatic);
  CHECK(contains(bool_err, "a bool mask means 'True = attend'"));
  CHECK(contains(bool_err, "--mask-convention keep or --mask-convention block"));
  CHECK(contains(
      error_of(k_dir + "zeros_f4.npy", MaskConvention::automatic),
      "every value is 0.0: as a keep mask every key is masked, as an additive mask none is"));
  // The all-zero integer text file is attnviz's own 0/1 format: every key masked (the
  // torch.zeros mask an annotated-transformer demo passes).
  CHECK(read_mask_file(std::string(ATTNVIZ_SOURCE_DIR) + "/samples/mask_all_zeros.txt", 4, 4,
                       MaskConvention::automatic) == MaskMatrix::Zero(4, 4));
  CHECK(read("zeros_f4.npy", MaskConvention::additive) == MaskMatrix::Ones(4, 4));
}

TEST_CASE("mask file: values that contradict the convention are named") {
  CHECK(contains(error_of(k_dir + "additive_inf_f4.npy", MaskConvention::keep),
                 "value -inf at [0, 1] does not fit the keep (1 = attend) convention"));
  CHECK(contains(
      error_of(k_dir + "keep_i8.npy", MaskConvention::additive),
      "value 1 at [0, 0] does not fit the additive (0 = attend, -inf = masked) convention"));
  CHECK(contains(error_of(k_dir + "bias_f4.npy", MaskConvention::automatic),
                 "value 0.5 at [0, 0] is neither a 0/1 mask entry nor an additive mask entry"));
  CHECK(contains(error_of(k_dir + "keep_bool.npy", MaskConvention::additive),
                 "a bool mask cannot be additive"));
}

TEST_CASE("mask file: shapes: batches refused, wrong sizes named before the data is read") {
  CHECK(contains(error_of(k_dir + "batch2_f4.npy", MaskConvention::automatic),
                 "mask shape [2, 4, 4] has leading dimension 0 of size 2"));
  CHECK(contains(error_of(k_dir + "keep_i8.npy", MaskConvention::automatic, 5, 5),
                 "mask is [4, 4], expected [5, 5] (queries × keys), or [1, 5] for every query"));
  TempDir dir;
  std::ofstream(dir / "m.txt") << "1 0\n1 1\n1 1\n";
  CHECK(contains(error_of((dir / "m.txt").string(), MaskConvention::automatic, 2, 2),
                 "line 3 starts row 2; expected 2 rows of 2 (queries × keys)"));
  std::ofstream(dir / "w.txt") << "1 0 0\n";
  CHECK(contains(error_of((dir / "w.txt").string(), MaskConvention::automatic, 2, 2),
                 "line 1 (row 0) has more than 2 entries; expected 2 rows of 2"));
  std::ofstream(dir / "s.txt") << "1 0\n";  // one row of a 2 × 2 mask: truncated, not broadcast
  CHECK(contains(error_of((dir / "s.txt").string(), MaskConvention::automatic, 2, 2),
                 "1 row of 2, expected 2 rows (queries × keys)"));
  std::ofstream(dir / "f.txt") << "1 0\n1\n";
  CHECK(contains(error_of((dir / "f.txt").string(), MaskConvention::automatic, 2, 2),
                 "line 2 (row 1) has 1 entry; expected 2 rows of 2"));
  std::ofstream(dir / "x.txt") << "1 0\n1 yes\n";
  CHECK(contains(error_of((dir / "x.txt").string(), MaskConvention::automatic, 2, 2),
                 "line 2: 'yes' is not a number"));
  std::ofstream(dir / "n.txt") << "1 nan\n1 1\n";
  CHECK(contains(error_of((dir / "n.txt").string(), MaskConvention::automatic, 2, 2),
                 "value nan at [0, 1]: a mask entry must be a number"));
}

TEST_CASE(
    "mask file: a file mask equal to the causal mask gives --causal's maps, masked cells exactly "
    "0") {
  TempDir dir;
  const auto a = run_attnviz("run -m samples/mha -t - --causal --no-heatmap --table none --save " +
                                 (dir / "causal.safetensors").string(),
                             "a b c d");
  const auto b = run_attnviz("run -m samples/mha -t - --mask " + k_dir +
                                 "additive_inf_f4.npy --no-heatmap --table none --save " +
                                 (dir / "file.safetensors").string(),
                             "a b c d");
  REQUIRE_MESSAGE(a.exit_code == 0, a.err);
  REQUIRE_MESSAGE(b.exit_code == 0, b.err);
  const Tensor p = SafetensorsFile::open(dir / "causal.safetensors").load("layer0.self.probs");
  const Tensor q = SafetensorsFile::open(dir / "file.safetensors").load("layer0.self.probs");
  REQUIRE(p.shape == q.shape);
  const int64_t n = p.shape[1];
  for (size_t k = 0; k < p.data.size(); ++k) {
    const int64_t i = (k / n) % n, j = k % n;
    if (j > i) {
      REQUIRE(q.data[k] == 0.0f);  // exactly, not 2.9e-39
    } else {
      REQUIRE(std::abs(p.data[k] - q.data[k]) <= 1e-6f);
    }
  }
}

TEST_CASE("mask file: check passes on a correct lower-triangular mask file, as on --causal") {
  TempDir dir;
  std::ofstream(dir / "lower.txt") << "1 0 0 0\n1 1 0 0\n1 1 1 0\n1 1 1 1\n";
  const auto r =
      run_attnviz("check -m samples/mha -t - --mask " + (dir / "lower.txt").string(), "a b c d");
  CHECK_MESSAGE(r.exit_code == 0, (r.out + r.err));
  CHECK(contains(r.out, "no problems"));
}

TEST_CASE(
    "mask file: a row blocked only by finite additive values is refused, not drawn as masked") {
  TempDir dir;
  // PyTorch adds -1e4 to every score of row 1: its softmax is unchanged, not masked.
  std::ofstream(dir / "m.txt") << "0 -10000\n-10000 -10000\n";
  CHECK(contains(error_of((dir / "m.txt").string(), MaskConvention::automatic, 2, 2),
                 "row 1 blocks every key with finite values (-10000 at [1, 0])"));
  std::ofstream(dir / "i.txt") << "0 -inf\n-inf -inf\n";  // -inf: a truly fully masked row
  const MaskMatrix m = read_mask_file((dir / "i.txt").string(), 2, 2, MaskConvention::automatic);
  CHECK(m(1, 0) == 0);
  CHECK(m(1, 1) == 0);
}

TEST_CASE("mask file: an .npy far larger than any mask of the input is refused before it is read") {
  TempDir dir;
  {
    std::ofstream f(dir / "big.npy", std::ios::binary);
    const std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 1000), }";
    std::string padded = header + std::string(128 - 10 - header.size() - 1, ' ') + "\n";
    f << std::string("\x93NUMPY\x01\x00", 8) << char(padded.size()) << char(0) << padded
      << std::string(8 * 1000 * 1000, '\0');
  }
  const std::string e = error_of((dir / "big.npy").string(), MaskConvention::automatic, 4, 4);
  CHECK_MESSAGE(contains(e, "big.npy"), e);
  CHECK_FALSE(contains(e, "mask shape"));  // the size cap, not the shape check after reading
}

TEST_CASE("mask file: --mask-convention without --mask is a usage error") {
  const auto r = run_attnviz("run -m samples/mha -t - --mask-convention block", "a b");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--mask-convention says what --mask values mean: give --mask"));
}
