// Extreme inputs: every accepted parameter value must give finite results, and every value
// outside the documented physical range must be a config_error naming the field. Each field is
// set, one at a time, to 1e300, the smallest denormal 4.9e-324, zero, a negative value, inf and
// NaN; then all fields are set to their documented bounds at once.
#include <doctest/doctest.h>

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/json.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/device/stratum_chip.hpp"

using namespace strata;
using namespace strata::literals;

namespace {

const std::vector<double> k_extremes = {1e300, 4.9e-324, 0.0, -1.0, -1e300,
                                        std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN()};
const std::vector<int> k_int_extremes = {INT_MAX, INT_MIN, 0, -1, 1 << 30};

// Every number in a result's JSON is finite: plain numbers, and quantities written "<number>
// <unit>" (verdict texts are skipped).
void check_finite(const json& j, const std::string& path = "") {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "reason" || it.key() == "binding") continue;
      check_finite(it.value(), path + "." + it.key());
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) check_finite(j[i], path + "[" + std::to_string(i) + "]");
  } else if (j.is_number_float()) {
    CHECK_MESSAGE(std::isfinite(j.get<double>()), path);
  } else if (j.is_null()) {
    FAIL_CHECK("null (a NaN written by the JSON writer) at " << path);
  } else if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' ||
                       s[0] == 'i' || s[0] == 'n' || s[0] == 'I' || s[0] == 'N')) {
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (end != s.c_str()) CHECK_MESSAGE(std::isfinite(v), path << " = " << s);
    }
  }
}

// Runs `eval`; a config_error must name `field`, anything else must be finite.
template <class F>
void finite_or_named(F&& eval, const std::string& field) {
  try {
    check_finite(eval(), field);
  } catch (const config_error& e) {
    CHECK_MESSAGE(e.field() == field, "value rejected under another name: " << e.what());
  }
}

template <class P>
using setter = std::pair<std::string, std::function<void(P&, double)>>;

template <class Q>
Q si(double v) {
  return Q::from_si(v);
}

std::vector<setter<mono3d_params<>>> mono3d_fields() {
  using P = mono3d_params<>;
  return {
      {"feature_size", [](P& p, double v) { p.feature_size = si<length<>>(v); }},
      {"bl_pitch", [](P& p, double v) { p.bl_pitch = si<length<>>(v); }},
      {"cell_depth", [](P& p, double v) { p.cell_depth = si<length<>>(v); }},
      {"staircase_step", [](P& p, double v) { p.staircase_step = si<length<>>(v); }},
      {"staircase_width", [](P& p, double v) { p.staircase_width = si<length<>>(v); }},
      {"array_efficiency", [](P& p, double v) { p.array_efficiency = v; }},
      {"wl_resistance", [](P& p, double v) { p.wl_resistance = si<resistance_per_length<>>(v); }},
      {"wl_capacitance", [](P& p, double v) { p.wl_capacitance = si<capacitance_per_length<>>(v); }},
      {"cell_load", [](P& p, double v) { p.cell_load = si<capacitance<>>(v); }},
      {"driver_resistance", [](P& p, double v) { p.driver_resistance = si<resistance<>>(v); }},
      {"base.t_rcd", [](P& p, double v) { p.base.t_rcd = si<duration<>>(v); }},
      {"base.t_cl", [](P& p, double v) { p.base.t_cl = si<duration<>>(v); }},
      {"base.t_rp", [](P& p, double v) { p.base.t_rp = si<duration<>>(v); }},
      {"base.t_ras", [](P& p, double v) { p.base.t_ras = si<duration<>>(v); }},
      {"bank_access_bytes", [](P& p, double v) { p.bank_access_bytes = si<data_size<>>(v); }},
      {"energy.activate_precharge",
       [](P& p, double v) { p.energy.activate_precharge = si<energy_per_data<>>(v); }},
      {"energy.wordline_boost", [](P& p, double v) { p.energy.wordline_boost = si<energy_per_data<>>(v); }},
      {"energy.column", [](P& p, double v) { p.energy.column = si<energy_per_data<>>(v); }},
      {"energy.datapath", [](P& p, double v) { p.energy.datapath = si<energy_per_data<>>(v); }},
      {"energy.bond", [](P& p, double v) { p.energy.bond = si<energy_per_data<>>(v); }},
  };
}

json eval_mono3d(const mono3d_params<>& p) {
  json j = evaluate(p);
  j["r2"] = latency_vs_layer_r2(p);
  j["share"] = staircase_quadratic_share(p);
  return j;
}

std::vector<setter<logic_die_params<>>> logic_fields() {
  using P = logic_die_params<>;
  return {
      {"die_area", [](P& p, double v) { p.die_area = si<area<>>(v); }},
      {"a_phy", [](P& p, double v) { p.a_phy = si<area<>>(v); }},
      {"a_peri", [](P& p, double v) { p.a_peri = si<area<>>(v); }},
      {"alpha", [](P& p, double v) { p.alpha = v; }},
      {"p_peak", [](P& p, double v) { p.p_peak = si<power<>>(v); }},
      {"f_logic", [](P& p, double v) { p.f_logic = si<frequency<>>(v); }},
      {"e_mac", [](P& p, double v) { p.e_mac = si<energy<>>(v); }},
      {"e_b", [](P& p, double v) { p.e_b = si<energy_per_data<>>(v); }},
      {"p_misc_per_mm2", [](P& p, double v) { p.p_misc_per_mm2 = si<power_per_area<>>(v); }},
      {"a_mac", [](P& p, double v) { p.a_mac = si<area<>>(v); }},
      {"v_dram_core", [](P& p, double v) { p.v_dram_core = si<voltage<>>(v); }},
      {"v_dram_periph", [](P& p, double v) { p.v_dram_periph = si<voltage<>>(v); }},
      {"v_logic", [](P& p, double v) { p.v_logic = si<voltage<>>(v); }},
      {"e_dram_core", [](P& p, double v) { p.e_dram_core = si<energy_per_data<>>(v); }},
      {"e_dram_periph", [](P& p, double v) { p.e_dram_periph = si<energy_per_data<>>(v); }},
      {"a_tsv", [](P& p, double v) { p.a_tsv = si<area<>>(v); }},
      {"i_tsv", [](P& p, double v) { p.i_tsv = si<current<>>(v); }},
      {"matrix_rf", [](P& p, double v) { p.matrix_rf = si<data_size<>>(v); }},
      {"psum_buffer", [](P& p, double v) { p.psum_buffer = si<data_size<>>(v); }},
      {"row_size", [](P& p, double v) { p.row_size = si<data_size<>>(v); }},
      {"bank_capacity", [](P& p, double v) { p.bank_capacity = si<data_size<>>(v); }},
      {"shared_memory", [](P& p, double v) { p.shared_memory = si<data_size<>>(v); }},
      {"sfe_register_files", [](P& p, double v) { p.sfe_register_files = si<data_size<>>(v); }},
      {"ring_flit", [](P& p, double v) { p.ring_flit = si<data_size<>>(v); }},
      {"instruction_memory", [](P& p, double v) { p.instruction_memory = si<data_size<>>(v); }},
      {"tech.sram_bitcell_area", [](P& p, double v) { p.tech.sram_bitcell_area = si<area<>>(v); }},
      {"tech.sram_array_efficiency", [](P& p, double v) { p.tech.sram_array_efficiency = v; }},
      {"tech.dff_area", [](P& p, double v) { p.tech.dff_area = si<area<>>(v); }},
      {"tech.xnor2_area", [](P& p, double v) { p.tech.xnor2_area = si<area<>>(v); }},
      {"tech.and2_area", [](P& p, double v) { p.tech.and2_area = si<area<>>(v); }},
      {"tech.placement_utilization", [](P& p, double v) { p.tech.placement_utilization = v; }},
      {"tech.fp16_add_area_fraction", [](P& p, double v) { p.tech.fp16_add_area_fraction = v; }},
  };
}

std::vector<std::pair<std::string, std::function<void(logic_die_params<>&, int)>>> logic_counts() {
  using P = logic_die_params<>;
  return {
      {"n_mac", [](P& p, int v) { p.n_mac = v; }},
      {"n_pu", [](P& p, int v) { p.n_pu = v; }},
      {"pes_per_pu", [](P& p, int v) { p.pes_per_pu = v; }},
      {"lmc_queue_entries", [](P& p, int v) { p.lmc_queue_entries = v; }},
      {"lmc_entry_bits", [](P& p, int v) { p.lmc_entry_bits = v; }},
      {"row_swap_rows", [](P& p, int v) { p.row_swap_rows = v; }},
      {"tiers", [](P& p, int v) { p.tiers = v; }},
      {"trcd_code_bits", [](P& p, int v) { p.trcd_code_bits = v; }},
      {"sfe_lanes", [](P& p, int v) { p.sfe_lanes = v; }},
      {"router_ports", [](P& p, int v) { p.router_ports = v; }},
      {"router_buffer_flits", [](P& p, int v) { p.router_buffer_flits = v; }},
      {"reduction_lanes", [](P& p, int v) { p.reduction_lanes = v; }},
  };
}

json eval_logic(const logic_die_params<>& p, bandwidth<> bw = 30_TBps) {
  json j = evaluate(p, bw);
  j["max"] = max_macs_within_budget(p, bw);
  return j;
}

}  // namespace

TEST_CASE("Mono3D: each quantity at an extreme is rejected by name or gives finite results") {
  for (const auto& [field, set] : mono3d_fields()) {
    for (double v : k_extremes) {
      CAPTURE(field);
      CAPTURE(v);
      mono3d_params<> p;
      p.layers = 64;  // keeps the sweep fast; the bound checks do not depend on it
      set(p, v);
      finite_or_named([&] { return eval_mono3d(p); }, field);
    }
  }
  // Out-of-range values are rejected, not merely survived: 1e300 and 4.9e-324 metres of feature
  // size, a NaN resistance, a negative energy.
  const auto rejected = [](auto set, const std::string& field) {
    mono3d_params<> p;
    set(p);
    CHECK_THROWS_AS((void)evaluate(p), config_error);
    try {
      (void)evaluate(p);
    } catch (const config_error& e) {
      CHECK(e.field() == field);
      CHECK(std::string(e.what()).find(field) != std::string::npos);
    }
  };
  rejected([](mono3d_params<>& p) { p.feature_size = si<length<>>(1e300); }, "feature_size");
  rejected([](mono3d_params<>& p) { p.feature_size = si<length<>>(4.9e-324); }, "feature_size");
  rejected([](mono3d_params<>& p) { p.cell_depth = si<length<>>(4.9e-324); }, "cell_depth");
  rejected([](mono3d_params<>& p) { p.base.t_cl = si<duration<>>(1e300); }, "base.t_cl");
  rejected([](mono3d_params<>& p) { p.energy.bond = si<energy_per_data<>>(1e300); }, "energy.bond");
  rejected([](mono3d_params<>& p) { p.staircase_width = p.feature_size * 0.5; }, "staircase_width");
}

TEST_CASE("Mono3D: integer fields at extremes are rejected by name") {
  for (int v : k_int_extremes) {
    CAPTURE(v);
    mono3d_params<> p;
    p.layers = v;
    finite_or_named([&] { return eval_mono3d(p); }, "layers");
    mono3d_params<> q;
    q.bitlines_per_mat = v;
    finite_or_named([&] { return eval_mono3d(q); }, "bitlines_per_mat");
    mono3d_params<> r;
    r.banks = v;
    finite_or_named([&] { return eval_mono3d(r); }, "banks");
    mono3d_params<> s;
    s.mats_per_bank = v;
    finite_or_named([&] { return eval_mono3d(s); }, "mats_per_bank");
  }
}

TEST_CASE("Mono3D: every field at its documented upper or lower bound at once stays finite") {
  mono3d_params<> hi;
  hi.layers = 4096;
  hi.tiers = 4096;
  hi.bitlines_per_mat = 65536;
  hi.mats_per_bank = 1 << 20;
  hi.banks = 1 << 20;
  hi.feature_size = si<length<>>(1e-5);
  hi.bl_pitch = si<length<>>(1e-5);
  hi.cell_depth = si<length<>>(1e-3);
  hi.staircase_step = si<length<>>(1e-3);
  hi.staircase_width = si<length<>>(1e-4);
  hi.wl_resistance = si<resistance_per_length<>>(1e13);
  hi.wl_capacitance = si<capacitance_per_length<>>(1e-7);
  hi.cell_load = si<capacitance<>>(1e-12);
  hi.driver_resistance = si<resistance<>>(1e9);
  hi.base.t_rcd = hi.base.t_cl = hi.base.t_rp = hi.base.t_ras = si<duration<>>(1e-6);
  hi.bank_access_bytes = si<data_size<>>(1073741824.0);
  hi.bandwidth = bandwidth_model::row_cycle;
  check_finite(eval_mono3d(hi));

  mono3d_params<> lo;
  lo.layers = 2;
  lo.tiers = 1;
  lo.bitlines_per_mat = lo.mats_per_bank = lo.banks = 1;
  lo.feature_size = lo.bl_pitch = lo.cell_depth = lo.staircase_width = si<length<>>(1e-9);
  lo.staircase_step = si<length<>>(0.0);
  lo.array_efficiency = 1e-3;
  lo.wl_resistance = si<resistance_per_length<>>(1e3);
  lo.wl_capacitance = si<capacitance_per_length<>>(1e-13);
  lo.cell_load = si<capacitance<>>(0.0);
  lo.driver_resistance = si<resistance<>>(1.0);
  lo.base.t_rcd = lo.base.t_cl = lo.base.t_rp = lo.base.t_ras = si<duration<>>(1e-12);
  lo.bank_access_bytes = si<data_size<>>(1.0);
  lo.energy = {si<energy_per_data<>>(0.0), si<energy_per_data<>>(0.0), si<energy_per_data<>>(0.0),
               si<energy_per_data<>>(0.0), si<energy_per_data<>>(0.0)};
  check_finite(eval_mono3d(lo));
}

TEST_CASE("Logic die: each quantity at an extreme is rejected by name or gives finite results") {
  for (const auto& [field, set] : logic_fields()) {
    for (double v : k_extremes) {
      CAPTURE(field);
      CAPTURE(v);
      logic_die_params<> p;
      set(p, v);
      finite_or_named([&] { return eval_logic(p); }, field);
    }
  }
  for (const auto& [field, set] : logic_counts()) {
    for (int v : k_int_extremes) {
      CAPTURE(field);
      CAPTURE(v);
      logic_die_params<> p;
      set(p, v);
      finite_or_named([&] { return eval_logic(p); }, field);
    }
  }
  // The bandwidth and MAC-count arguments are bounded too.
  for (double v : k_extremes) {
    CAPTURE(v);
    finite_or_named([&] { return eval_logic(logic_die_params<>{}, si<bandwidth<>>(v)); }, "bw_fast");
    finite_or_named([&] { return json(evaluate(logic_die_params<>{}, 30_TBps, v)); }, "n_mac");
  }
}

TEST_CASE("Logic die: accepted extremes stay finite, denormals and 1e300 are rejected") {
  logic_die_params<> p;
  p.die_area = si<area<>>(4.9e-324);
  CHECK_THROWS_AS((void)evaluate(p, 30_TBps), config_error);
  logic_die_params<> q;
  q.tech.sram_array_efficiency = 4.9e-324;
  try {
    (void)evaluate(q, 30_TBps);
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(e.field() == "tech.sram_array_efficiency");
  }
  logic_die_params<> r;
  r.e_mac = si<energy<>>(1e-9);
  r.n_mac = 1000000000;
  r.f_logic = si<frequency<>>(1e12);
  r.a_mac = si<area<>>(1e-6);
  r.matrix_rf = r.psum_buffer = r.shared_memory = si<data_size<>>(1099511627776.0);
  r.n_pu = r.pes_per_pu = 1 << 20;
  check_finite(json(evaluate(r, si<bandwidth<>>(1e18))));
}

TEST_CASE("Stratum chip: extreme memory parameters are rejected by name or stay finite") {
  for (const auto& [field, set] : mono3d_fields()) {
    for (double v : {1e300, 4.9e-324}) {
      CAPTURE(field);
      CAPTURE(v);
      stratum_chip_params<> p;
      p.memory.layers = 64;
      set(p.memory, v);
      finite_or_named([&] { return json(evaluate(p)); }, field);
    }
  }
}
