// --layer / --site / --head: one check over the maps a model makes, before anything runs, with one
// message per mistake whichever command (run, stats, check) is given it.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

// An encoder of 2 layers and a decoder of 1 (self + cross), 4 heads.
MapList uneven_stacks() {
  return MapList{{{"encoder", 0, Site::self, 0},
                  {"encoder", 1, Site::self, 0},
                  {"decoder", 0, Site::self, 0},
                  {"decoder", 0, Site::cross, 0}},
                 4,
                 true};
}

std::string refusal(const HeadSelection& selection, const MapList& list) {
  try {
    check_selection(selection, list);
  } catch (const Error& e) {
    CHECK(e.exit_code() == k_exit_usage);
    return e.what();
  }
  return "";
}

// nn.Transformer's fixture without its second decoder layer: encoder layers 0–1, decoder layer 0.
std::filesystem::path write_uneven_model(const TempDir& dir) {
  const std::filesystem::path from = "tests/fixtures/torch/torch_transformer";
  const auto model = dir / "uneven";
  std::filesystem::create_directory(model);
  std::filesystem::copy_file(from / "config.json", model / "config.json");
  const SafetensorsFile file = SafetensorsFile::open(from / "model.safetensors");
  std::vector<Tensor> kept;
  std::vector<std::string> names;
  for (const TensorInfo& info : file.tensors()) {
    if (info.name.rfind("decoder.layers.1.", 0) == 0) continue;
    kept.push_back(file.load(info.name));
    names.push_back(info.name);
  }
  std::vector<TensorView> views;
  for (size_t i = 0; i < kept.size(); ++i)
    views.push_back({names[i], kept[i].shape, kept[i].data.data()});
  write_safetensors(model / "model.safetensors", views, {});
  return model;
}

}  // namespace

TEST_CASE("selection: selected_maps keeps the maps --layer and --site name, whatever --head says") {
  const MapList list = uneven_stacks();
  CHECK(selected_maps({}, list).size() == 4);
  CHECK(selected_maps({1, std::nullopt, std::nullopt}, list).size() == 1);
  CHECK(selected_maps({0, Site::self, 3}, list).size() == 2);  // encoder and decoder layer 0
  const auto cross = selected_maps({std::nullopt, Site::cross, 2}, list);
  REQUIRE(cross.size() == 1);
  CHECK(cross[0].stack == "decoder");
  CHECK(cross[0].head == 2);
  CHECK(selected_maps({1, Site::cross, std::nullopt}, list).empty());
}

TEST_CASE("selection: check_selection names what exists, one message per mistake") {
  const MapList list = uneven_stacks();
  CHECK(refusal({}, list).empty());
  CHECK(refusal({1, Site::self, 3}, list).empty());
  CHECK(refusal({std::nullopt, std::nullopt, 4}, list) ==
        "--head 4: the model has 4 heads (0\u20133)");
  CHECK(refusal({2, std::nullopt, std::nullopt}, list) ==
        "--layer 2: the model has 2 layers (0\u20131)");
  CHECK(refusal({1, Site::cross, std::nullopt}, list) ==
        "--layer and --site together select no attention map of this model");
  const MapList self_only{{{"", 0, Site::self, 0}}, 1, false};
  CHECK(refusal({std::nullopt, Site::cross, std::nullopt}, self_only) ==
        "--site cross: this model has only self attention");
  CHECK(refusal({std::nullopt, std::nullopt, 1}, self_only) ==
        "--head 1: the model has 1 head (0)");
  const MapList cross_only{{{"", 0, Site::cross, 0}}, 4, true};
  CHECK(refusal({std::nullopt, Site::self, std::nullopt}, cross_only) ==
        "--site self: this model on this input has only cross attention");
}

TEST_CASE(
    "selection: run, stats and check refuse the same wrong selection alike, before any output") {
  TempDir dir;
  const std::string uneven = write_uneven_model(dir).string();
  const std::string mha = "-m samples/mha -t samples/english.txt ";
  const std::string cross =
      "-m " + uneven + " -t samples/cross/target.txt --source-tokens samples/cross/source.txt ";
  struct Case {
    std::string inputs, selection, message;
  };
  const Case cases[] = {
      {mha, "--head 9", "--head 9: the model has 4 heads (0\u20133)"},
      {mha, "--layer 3", "--layer 3: the model has 1 layer (0)"},
      {mha, "--site cross", "--site cross: this model has only self attention"},
      {cross, "--layer 1 --site cross",
       "--layer and --site together select no attention map of this model"},
  };
  for (const auto& c : cases) {
    for (const std::string command : {"run", "stats", "check"}) {
      // Every output a command can write, to see that none is.
      const auto png = dir / (command + ".png.d");
      const auto save = dir / (command + ".safetensors");
      std::string outputs;
      if (command == "run") outputs = " --png " + png.string() + " --save " + save.string();
      if (command == "stats") outputs = " --png " + png.string();
      const std::string args = command + " " + c.inputs + c.selection + outputs;
      CAPTURE(args);
      const auto r = run_attnviz(args);
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
      CHECK(r.err == "attnviz: error: " + c.message + "\n");
      CHECK(!std::filesystem::exists(png));
      CHECK(!std::filesystem::exists(save));
    }
  }
  // The selection that fits runs on the same uneven model.
  const auto ok = run_attnviz("check " + cross + "--layer 1 --site self");
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
  CHECK(ok.out == "check: 4 maps, no problems\n");  // encoder layer 1: its 4 heads
}

TEST_CASE("selection: inspect takes the model flags of run, with their validators") {
  auto r = run_attnviz("inspect samples/mha --heads 0");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(contains(r.err, "--heads: '0' is not a positive number"));
  r = run_attnviz("inspect samples/mha --heads 4 --layout qkv-linears");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "one attention module, d_model 128, 4 heads"));
  r = run_attnviz("inspect samples/mha --pe-base 0");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--pe-base: '0' is not a positive number"));
}
