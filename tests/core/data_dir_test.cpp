// strata/core/data_dir.hpp: the one rule for relative input paths (beside what names them, then the
// data directory, then a source-tree name under its installed name there).
#include "strata/core/data_dir.hpp"

#include <doctest/doctest.h>

#include <filesystem>  // std::filesystem::create_directories
#include <string>      // std::string

#include "support/scratch_dir.hpp"

TEST_CASE("installed_data_name: the install rules' names of source-tree paths, nothing else") {
  CHECK(strata::installed_data_name("tests/data/hf/mixtral-8x7b.config.json") == "hf/mixtral-8x7b.config.json");
  CHECK(strata::installed_data_name("./tests/data/thermal/hotspot/ev6.flp") == "thermal/hotspot/ev6.flp");
  CHECK(strata::installed_data_name("examples/scenarios/fig14_layers_tiers.json") == "scenarios/fig14_layers_tiers.json");
  CHECK(strata::installed_data_name("examples/sweeps/mixtral_decode_batch_context.csv") ==
        "sweeps/mixtral_decode_batch_context.csv");
  CHECK(strata::installed_data_name("traces/dsv2lite_esft_trace_intent.csv").empty());
  CHECK(strata::installed_data_name("examples/strata-eval/main.cpp").empty());  // not installed as data
  CHECK(strata::installed_data_name("tests/data/").empty());                    // a directory name alone
  CHECK(strata::installed_data_name("my/tests/data/x.csv").empty());            // only at the start
}

TEST_CASE("resolve_input_path: beside what names it, then the data directory, then the installed name there") {
  const strata_test::scratch_dir tmp("data-dir");
  const std::string data = tmp.file("share strata"), here = tmp.file("work dir");
  std::filesystem::create_directories(data + "/scenarios");
  std::filesystem::create_directories(data + "/traces");
  std::filesystem::create_directories(here + "/traces");
  tmp.write("share strata/scenarios/a.json", "{}");
  tmp.write("share strata/traces/t.csv", "x\n");
  tmp.write("share strata/b.json", "{}");
  // Absolute and empty paths are taken as given.
  CHECK(strata::resolve_input_path("", here, data).empty());
  CHECK(strata::resolve_input_path(data + "/b.json", here, data) == data + "/b.json");
  // Not beside: the data directory's file, under the path as given or under its installed name.
  CHECK(strata::resolve_input_path("b.json", here, data) == data + "/b.json");
  CHECK(strata::resolve_input_path("examples/scenarios/a.json", here, data) == data + "/scenarios/a.json");
  CHECK(strata::resolve_input_path("tests/data/traces/t.csv", here, data) == data + "/traces/t.csv");
  // Beside what names it comes first.
  tmp.write("work dir/traces/t.csv", "y\n");
  CHECK(strata::resolve_input_path("traces/t.csv", here, data) == here + "/traces/t.csv");
  // Nowhere (or no data directory): the first place looked, for the reader's error to name.
  CHECK(strata::resolve_input_path("examples/scenarios/missing.json", here, data) == here + "/examples/scenarios/missing.json");
  CHECK(strata::resolve_input_path("examples/scenarios/a.json", here, "") == here + "/examples/scenarios/a.json");
}
