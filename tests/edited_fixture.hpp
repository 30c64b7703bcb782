// A PyTorch fixture's folder (model.safetensors + config.json) copied to a temporary folder, with
// its tensors edited and config keys merged in: a file that one change makes wrong.
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/io/safetensors.hpp"
#include "temp_dir.hpp"
#include "torch_fixtures.hpp"

namespace attnviz::test {

struct EditedFixture {
  TempDir dir;
  EditedFixture(const std::string& fixture,
                const std::function<void(std::map<std::string, Tensor>&)>& edit,
                const nlohmann::json& config = nlohmann::json::object()) {
    const SafetensorsFile file = SafetensorsFile::open(k_torch / fixture / "model.safetensors");
    std::map<std::string, Tensor> tensors;
    for (const auto& info : file.tensors()) tensors.emplace(info.name, file.load(info.name));
    edit(tensors);
    std::vector<TensorView> views;
    for (const auto& [name, t] : tensors) views.push_back({name, t.shape, t.data.data()});
    write_safetensors(dir / "model.safetensors", views, {{"format", "pt"}});
    std::ifstream in(k_torch / fixture / "config.json");
    nlohmann::json c = nlohmann::json::parse(in);
    c.update(config);
    std::ofstream(dir / "config.json") << c.dump(2);
  }
};

}  // namespace attnviz::test
