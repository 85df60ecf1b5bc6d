// strata/report/eval_row.hpp: a step's scalars as a flat row (Python's strata.sweep), equal to the
// SI document of strata-eval eval --json --units si at every cell.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "strata/json.hpp"
#include "strata/report/eval_row.hpp"
#include "strata/report/eval_step.hpp"
#include "strata/workload/presets.hpp"

namespace {

strata::eval_request eval_row_request(strata::phase mode, int batch, int context) {
  strata::eval_request r;
  r.mode = mode;
  r.batch = batch;
  r.context = context;
  return r;
}

// The value at a '.'-joined path of `j`, or nullptr.
const strata::json* eval_row_at(const strata::json& j, const std::string& path) {
  const strata::json* at = &j;
  std::size_t from = 0;
  while (true) {
    const auto dot = path.find('.', from);
    const std::string key = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    if (dot == std::string::npos) return at;
    from = dot + 1;
  }
}

// The scalar leaves of `j` (lists, nulls and the breakdown tree left out), '.'-joined.
void eval_row_leaves(const strata::json& j, const std::string& prefix, std::set<std::string>& out) {
  for (const auto& [k, v] : j.items()) {
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    if (key == "breakdown" || v.is_array() || v.is_null()) continue;
    if (v.is_object()) {
      eval_row_leaves(v, key, out);
    } else {
      out.insert(key);
    }
  }
}

// Every cell is the SI document's value at its key (bit for bit), and every scalar of the document
// but the request's own keys is a cell.
void eval_row_check_equals_document(const strata::model& m, const strata::eval_machine& mach, const strata::eval_request& req) {
  const strata::eval_row row = strata::eval_step_row(m, {}, mach, req);
  strata::json j = strata::eval_step_json(m, {}, mach, req);
  strata::convert_units(j, strata::json_units::si);
  std::set<std::string> cells;
  for (const auto& [k, v] : row.cells) {
    CAPTURE(k);
    cells.insert(k);
    const strata::json* at = eval_row_at(j, k);
    REQUIRE(at != nullptr);
    if (const auto* d = std::get_if<double>(&v)) {
      REQUIRE(at->is_number());
      CHECK(at->get<double>() == *d);
    } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
      REQUIRE(at->is_number_integer());
      CHECK(at->get<std::int64_t>() == *i);
    } else if (const auto* b = std::get_if<bool>(&v)) {
      REQUIRE(at->is_boolean());
      CHECK(at->get<bool>() == *b);
    } else {
      REQUIRE(at->is_string());
      CHECK(at->get<std::string>() == std::get<std::string>(v));
    }
  }
  std::set<std::string> leaves;
  eval_row_leaves(j, "", leaves);
  for (const char* request_key : {"model", "machine", "phase", "batch", "context"}) leaves.erase(request_key);
  for (const auto& k : leaves) {
    CAPTURE(k);
    CHECK(cells.count(k) == 1);
  }
}

}  // namespace

TEST_CASE("eval_row: every cell equals the CLI's SI document, GPU and Stratum, decode and prefill") {
  const strata::model mix = strata::preset("Mixtral-8x7B");
  const auto h100 = strata::load_eval_machine("h100_sxm5");
  const auto stratum = strata::load_eval_machine("stratum-s");
  eval_row_check_equals_document(mix, h100, eval_row_request(strata::phase::decode, 8, 2048));
  eval_row_check_equals_document(mix, h100, eval_row_request(strata::phase::prefill, 2, 512));
  eval_row_check_equals_document(mix, stratum, eval_row_request(strata::phase::decode, 8, 2048));
  eval_row_check_equals_document(mix, stratum, eval_row_request(strata::phase::prefill, 2, 512));
  auto ep = eval_row_request(strata::phase::decode, 16, 1024);
  ep.ep = 8;
  ep.attention = "dp";
  eval_row_check_equals_document(mix, h100, ep);  // the all-to-all and busiest-device cells
  auto hit = eval_row_request(strata::phase::decode, 8, 2048);
  hit.hit_rate = 0.8;
  hit.detail = "experts";
  eval_row_check_equals_document(mix, strata::load_eval_machine("stratum-l"), hit);
  auto trace = eval_row_request(strata::phase::decode, 4, 256);
  trace.trace = STRATA_TEST_DATA_DIR "/traces/dsv2lite_esft_trace_intent.csv";
  trace.trace_position = 3;
  eval_row_check_equals_document(strata::preset("DeepSeek-V2-Lite"), h100, trace);  // the decode_batch cells
}

TEST_CASE("eval_row: hand-checked cells; the step is the evaluator's; more batch, more time") {
  const strata::model mix = strata::preset("Mixtral-8x7B");
  const auto h100 = strata::load_eval_machine("h100_sxm5");
  const auto req = eval_row_request(strata::phase::decode, 8, 2048);
  const strata::eval_row row = strata::eval_step_row(mix, {}, h100, req);
  const auto g = strata::evaluate_gpu_step(mix, {}, h100, req);
  const auto cell = [&](const strata::eval_row& r, const std::string& k) -> const strata::eval_cell* {
    for (const auto& [key, v] : r.cells) {
      if (key == k) return &v;
    }
    return nullptr;
  };
  REQUIRE(cell(row, "time_s") != nullptr);
  CHECK(std::get<double>(*cell(row, "time_s")) == g.r.time.si());
  CHECK(std::get<std::int64_t>(*cell(row, "devices")) == g.machine.devices);
  // tokens per joule: 8 tokens over the step's energy
  CHECK(std::get<double>(*cell(row, "tokens_per_J")) == doctest::Approx(8.0 / g.r.energy.si()).epsilon(1e-15));
  CHECK(cell(row, "ops") == nullptr);  // lists are not cells
  CHECK(cell(row, "alltoall.time_s") == nullptr);  // tensor parallelism: no all-to-all
  double last = 0.0;
  for (const int b : {1, 4, 16, 64}) {
    const auto r = strata::eval_step_row(mix, {}, h100, eval_row_request(strata::phase::decode, b, 2048));
    const double t = std::get<double>(*cell(r, "time_s"));
    CHECK(t > last);
    last = t;
  }
  // Without the operator rows and the tree: the GPU step computes none.
  auto lean = req;
  lean.with_ops = false;
  lean.with_breakdown = false;
  CHECK(strata::evaluate_gpu_step(mix, {}, h100, lean).ops.empty());
}

TEST_CASE("eval_row: refuses what eval_step_json refuses, naming the option") {
  const strata::model mix = strata::preset("Mixtral-8x7B");
  const auto h100 = strata::load_eval_machine("h100_sxm5");
  const auto stratum = strata::load_eval_machine("stratum-s");
  const auto field = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const strata::config_error& e) {
      return e.field();
    }
    return "(no error)";
  };
  auto r = eval_row_request(strata::phase::decode, 8, 2048);
  r.ep = 3;
  CHECK(field([&] { (void)strata::eval_step_row(mix, {}, h100, r); }) == "ep");
  r = eval_row_request(strata::phase::decode, 0, 2048);
  CHECK(field([&] { (void)strata::eval_step_row(mix, {}, h100, r); }) == "batch");
  r = eval_row_request(strata::phase::decode, 8, 2048);
  r.devices = 2;
  CHECK(field([&] { (void)strata::eval_step_row(mix, {}, stratum, r); }) == "devices");
  r = eval_row_request(strata::phase::prefill, 1, 512);
  r.detail = "experts";
  CHECK(field([&] { (void)strata::eval_step_row(mix, {}, stratum, r); }) == "detail");
  r = eval_row_request(strata::phase::decode, 8, 2048);
  r.hit_rate = 0.5;
  CHECK(field([&] { (void)strata::eval_step_row(mix, {}, h100, r); }) == "hit_rate");
}
