// A Stratum step and a GPU operator list go through the sweep writers as data: vectors flatten
// by index, rows of a CSV keep the first row's columns.
#include <doctest/doctest.h>

#include <algorithm>  // std::count
#include <sstream>  // std::ostringstream
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/core/json.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/operator_table.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

using namespace strata;

namespace {
step_shape step_sweep_decode(int b, int s) { return {.mode = phase::decode, .batch = b, .context = s}; }

struct step_sweep_varying {
  std::vector<double> xs;
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("xs", s.xs);
  }
};
}  // namespace

TEST_CASE("a Stratum step result streams to CSV and JSON Lines, its vectors as indexed columns") {
  const auto m = preset("Mixtral-8x7B");
  const auto p = stratum_system("stratum-l");
  const auto space = cartesian({list_axis("batch", {1, 4})});
  const auto step = [&](const design_point& x) {
    return evaluate_decode(p, m, step_sweep_decode(x.as_int("batch"), 2048), {}, breakdown_detail::layers);
  };
  std::ostringstream csv, jsonl;
  csv_writer cw(csv, space);
  CHECK(stream_sweep(space, step, cw) == 2);
  jsonl_writer jw(jsonl);
  CHECK(stream_sweep(space, step, jw) == 2);
  const std::string text = csv.str();
  const auto header = text.substr(0, text.find('\n'));
  CHECK(header.find("expert_tier_share.0") != std::string::npos);
  CHECK(header.find("ops.3.name") != std::string::npos);
  CHECK(header.find("ops.3.time") != std::string::npos);
  CHECK(header.find("plan.fast_pack.first") != std::string::npos);
  // Every line has the header's columns (no field holds a comma: op names and enums are plain).
  std::size_t lines = 0, commas = std::string::npos;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line); ++lines) {
    const auto c = static_cast<std::size_t>(std::count(line.begin(), line.end(), ','));
    if (commas == std::string::npos) commas = c;
    CHECK(c == commas);
  }
  CHECK(lines == 3);
  // JSON Lines: the same columns as keys, the step's time as the model computes it.
  std::istringstream jl(jsonl.str());
  std::string first;
  std::getline(jl, first);
  const auto j = json::parse(first);
  CHECK(j.at("ops.3.name") == "L0.attention");
  CHECK(j.at("time").get<double>() == evaluate_decode(p, m, step_sweep_decode(1, 2048)).time.si());
}

TEST_CASE("a CSV sweep whose result vector changes length is refused before the row is written") {
  const auto space = cartesian({list_axis("n", {1, 2})});
  std::ostringstream csv;
  csv_writer cw(csv, space);
  const auto fn = [](const design_point& x) { return step_sweep_varying{std::vector<double>(static_cast<std::size_t>(x.as_int("n")), 1.0)}; };
  CHECK(strata_test::field_of([&] { stream_sweep(space, fn, cw); }) == "result");
  CHECK(csv.str() == "index,n,xs.0\n0,1,1\n");
  // JSON Lines takes it: each object its own keys.
  std::ostringstream jl;
  jsonl_writer jw(jl);
  CHECK(stream_sweep(space, fn, jw) == 2);
  CHECK(jl.str() == "{\"index\":0,\"n\":1,\"xs.0\":1}\n{\"index\":1,\"n\":2,\"xs.0\":1,\"xs.1\":1}\n");
}

TEST_CASE("a GPU step's operator list is data: JSON through visit_fields and the CLI's text table") {
  const auto m = preset("Mixtral-8x7B");
  const auto machine = make_machine(h100_sxm5(), 2);
  const auto ops = operator_results(m, step_sweep_decode(8, 2048), machine);
  REQUIRE(!ops.empty());
  const json j = ops;
  REQUIRE(j.size() == ops.size());
  CHECK(j.at(0).at("name") == ops[0].name);
  CHECK(j.at(0).at("kind") == "embedding");
  // Quantities with their units, as every JSON of the library writes them.
  const auto time_text = j.at(1).at("time").get<std::string>();
  CHECK(time_text.back() == 's');
  std::ostringstream table;
  write_operator_table(table, ops);
  const std::string t = table.str();
  CHECK(t.rfind("op                    kind                   GFLOP          MB   time (us)  energy (mJ)  bound\n", 0) == 0);
  CHECK(static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n')) == ops.size() + 1);
  CHECK(t.find("L0.attention") != std::string::npos);
}
