// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// HCRMap's 3.5D package under the compact thermal model (issue 48, item 5's option): the
/// package as a layered stack built from the substrate's own parameters, each serving window's
/// energy as power on its chiplets, the package's temperature over the windows (exact for power
/// constant over each window), and a thermal form of HCRMap's budget rule: a window that ends
/// with a block over `limit_C` makes the next one run at reduced compute throughput.
///
/// **Geometry** (`chiplet_package_stack`). HCRMap states no package geometry (Table 1 gives the
/// 4 × 4 mesh of compute chiplets, 4 IO/memory chiplets, an 8 GB HBM2 subsystem and a "3.5D,
/// UCIe-class D2D" package, nothing about sizes or cooling), so every size below is an
/// assumption, named with its source:
/// - compute chiplets on the mesh at the D2D link's length as pitch (`substrate_params::d2d`
///   distance, 10 mm, itself the library's assumption), each a die of `chiplet_side_m` = 9 mm (a
///   1 mm gap for the D2D bumps and underfill: assumed);
/// - the HBM2 homes of the substrate (2 stacks by default: 32 pseudo-channels striped 16 to a
///   stack, `substrate.hpp`) as 7.75 mm × 11.87 mm footprints (the HBM2 known-good stack die of
///   JEDEC MO-316 / JESD235), alternately west and east of the mesh, centred along it; the IO
///   chiplets (Table 1: 4) as dies of the compute chiplets' size, alternately south and north;
/// - layers, first farthest from the cold plate (HotSpot's `.lcf` order): a silicon interposer
///   (100 µm, k = 100 W/(m·K), c = 1.75 MJ/(m³·K): HotSpot 6's silicon; the thickness assumed, a
///   CoWoS-class interposer); the die layer (HotSpot 6's t_chip 150 µm; dies of silicon, the
///   gaps between them epoxy mould compound, k = 0.9 W/(m·K), c = 1.6 MJ/(m³·K), assumed
///   values of a filled epoxy); HotSpot 6's interface material (20 µm, k = 4, c = 4 MJ/(m³·K));
///   a cold plate of coefficient h;
/// - h = 1/(r_convec · s_sink²) = 2 778 W/(m²·K): HotSpot 6's lumped convection (0.1 K/W) over
///   its 60 mm sink, spread evenly over the sink's face; the package (about 58 mm × 60 mm) is
///   that sink's size. The ambient is HotSpot 6's 45 °C.
/// - the grid model (`grid` × `grid` cells per layer, 12 by default: 432 nodes in 3 layers,
///   cells of about 5 mm, two to a compute chiplet).
///
/// **Power** (`window_block_power`). A window's energy E(w) (HCRMap Eq. 17–18, `window_result`)
/// over its time T_E2E(w) (Eq. 16; windows back to back): compute, gate, NoC, D2D, SRAM (stacked
/// on the compute chiplets), migration control and the non-routed work (which runs on all compute
/// chiplets as one machine, `package_machine`) spread evenly over the compute chiplets; HBM
/// energy over the HBM stacks; of the DRAM energy (Table 1: 160 pJ/B, the DDR5 devices and their
/// channels) the share `dram_on_package_share` over the IO chiplets, which hold the controllers
/// and PHYs. The DDR5 devices sit off the package ("32 GB shared DDR5 tier"); HCRMap does not say
/// how much of the 160 pJ/B its IO chiplets dissipate, so the default share is 0 (assumed: the
/// IO chiplets then run cool) and a user who knows their PHY can state it (at 1, every joule of
/// DRAM energy heats the IO dies: on the DeepSeek-V2-Lite decode windows, 61 % of the package's
/// power, which makes the IO dies the hottest blocks). Inter-package transfers are not on this
/// package. The window result holds these as
/// package totals, not per chiplet, so the compute chiplets share them evenly: a chiplet that
/// holds hotter experts runs hotter, which this model does not see (stated, not hidden). HCRMap's
/// energy model has no static power; none is added.
///
/// **Time** (`chiplet_thermal_run`). The network C θ' = P − G θ is diagonalised once (S = D^{-1/2}
/// G D^{-1/2} = Q Λ Qᵀ) and each window of length Δ moves every mode exactly,
/// z_k ← e^{−λ_k Δ} z_k + (1 − e^{−λ_k Δ}) b_k/λ_k (the window integrator's equations,
/// `rc_network.hpp`, for a window length that changes from window to window). The run starts at
/// the steady state of the first window's power (`start_steady`, the package has been serving
/// this load), or at the ambient.
///
/// **Budget rule** (HCRMap §4.5: a window over its budget runs the next "with reduced effective
/// compute throughput, capturing the DVFS and clock-throttling response"; here the budget is a
/// temperature): when the hottest block at a window's end is above `limit_C`, the next window's
/// compute throughput is multiplied by `throttle_factor` (on top of the RAPL cap's factor,
/// `next_compute_scale`). `limit_C` = 85 °C: the top of HBM2's normal operating range (JESD235,
/// the same 85 °C as JESD79-5's DRAM refresh rule), the tightest limit on the package;
/// `throttle_factor` = 0.5: Intel's Thermal Monitor 1 duty cycle (SDM Vol. 3B §14.7.2), the
/// serving coupling's value (`serving_thermal.hpp`).
///
/// **Reported**: the peak temperature and the block that holds it, the time of the windows that
/// ended above the limit, the windows run throttled, and the throughput lost: the throttled
/// windows' added time (each also evaluated unthrottled) over the run's time.
///
/// Off (`enabled == false`, the default) the run is `evaluate_windows`, result for result.

#include <algorithm>  // std::max
#include <cmath>      // std::exp, std::expm1, std::sqrt
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/error.hpp"
#include "strata/thermal/model.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

/// The package and the budget rule (file comment for every default's source).
struct chiplet_thermal_params {
  bool enabled = false;                     ///< off: the windows are `evaluate_windows`'s
  double chiplet_side_m = 9e-3;             ///< [assumed: 10 mm pitch − 1 mm gap]
  double hbm_width_m = 7.75e-3;             ///< [JEDEC MO-316 HBM2 KGSD footprint]
  double hbm_height_m = 11.87e-3;           ///< [JEDEC MO-316]
  double gap_m = 1e-3;                      ///< between the mesh and the HBM / IO dies [assumed]
  double interposer_thickness_m = 100e-6;   ///< [assumed, CoWoS-class]
  double die_thickness_m = 150e-6;          ///< [HotSpot 6 t_chip]
  double silicon_conductivity_W_mK = 100.0;   ///< [HotSpot 6]
  double silicon_heat_capacity_J_m3K = 1.75e6;  ///< [HotSpot 6]
  double mould_conductivity_W_mK = 0.9;     ///< [assumed: filled epoxy mould compound]
  double mould_heat_capacity_J_m3K = 1.6e6; ///< [assumed]
  double tim_thickness_m = 20e-6;           ///< [HotSpot 6 t_interface]
  double tim_conductivity_W_mK = 4.0;       ///< [HotSpot 6 k_interface]
  double tim_heat_capacity_J_m3K = 4e6;     ///< [HotSpot 6 p_interface]
  double cold_plate_h_W_m2K = 1.0 / (0.1 * 0.06 * 0.06);  ///< [HotSpot 6 r_convec over s_sink²]
  double ambient_K = 318.15;                ///< [HotSpot 6 ambient]
  /// Share of the DRAM energy dissipated on the IO chiplets. [Assumed 0: the DDR5 devices are
  /// off the package; HCRMap gives no controller/PHY split]
  double dram_on_package_share = 0.0;
  int grid = 12;                            ///< cells per side of the grid model
  double limit_C = 85.0;                    ///< [JESD235 HBM2 normal operating range]
  double throttle_factor = 0.5;             ///< [Intel SDM Vol. 3B §14.7.2, TM1 duty cycle]
  bool start_steady = true;                 ///< start at the first window's steady state
};

namespace detail {
inline constexpr const char* chiplet_thermal_id = "strata.thermal.chiplet";

template <class = void>
void validate_chiplet_thermal(const chiplet_thermal_params& p) {
  using strata::detail::require;
  const auto in = [&](double v, double lo, double hi, const char* field) {
    require(std::isfinite(v) && v >= lo && v <= hi, chiplet_thermal_id, field, v,
            ("in [" + strata::detail::to_text(lo) + ", " + strata::detail::to_text(hi) + "]").c_str());
  };
  in(p.chiplet_side_m, 1e-4, 0.1, "chiplet_side_m");
  in(p.hbm_width_m, 1e-4, 0.1, "hbm_width_m");
  in(p.hbm_height_m, 1e-4, 0.1, "hbm_height_m");
  in(p.gap_m, 0.0, 0.05, "gap_m");
  in(p.interposer_thickness_m, 1e-6, 1e-2, "interposer_thickness_m");
  in(p.die_thickness_m, 1e-6, 1e-2, "die_thickness_m");
  in(p.tim_thickness_m, 1e-7, 1e-2, "tim_thickness_m");
  in(p.silicon_conductivity_W_mK, 1e-2, 1e4, "silicon_conductivity_W_mK");
  in(p.mould_conductivity_W_mK, 1e-2, 1e4, "mould_conductivity_W_mK");
  in(p.tim_conductivity_W_mK, 1e-2, 1e4, "tim_conductivity_W_mK");
  in(p.silicon_heat_capacity_J_m3K, 1e3, 1e8, "silicon_heat_capacity_J_m3K");
  in(p.mould_heat_capacity_J_m3K, 1e3, 1e8, "mould_heat_capacity_J_m3K");
  in(p.tim_heat_capacity_J_m3K, 1e3, 1e8, "tim_heat_capacity_J_m3K");
  in(p.cold_plate_h_W_m2K, 1.0, 1e7, "cold_plate_h_W_m2K");
  in(p.ambient_K, 200.0, 400.0, "ambient_K");
  in(p.limit_C, -50.0, 200.0, "limit_C");
  in(p.dram_on_package_share, 0.0, 1.0, "dram_on_package_share");
  require(p.throttle_factor > 0.0 && p.throttle_factor <= 1.0, chiplet_thermal_id, "throttle_factor",
          p.throttle_factor, "in (0, 1]");
  require(p.grid >= 2 && p.grid <= 18, chiplet_thermal_id, "grid", p.grid,
          "in [2, 18] (3 grid² nodes, diagonalised once: at most 972)");
}
}  // namespace detail

/// The package's blocks on the die layer (names "chiplet_<id>", "hbm_<j>", "io_<k>") and the
/// number of HBM stacks, for substrate `s`.
struct chiplet_package {
  thermal_stack stack;
  int compute = 0;  ///< compute chiplets: die-layer blocks [0, compute)
  int hbm = 0;      ///< HBM stacks: blocks [compute, compute + hbm)
  int io = 0;       ///< IO chiplets: blocks [compute + hbm, compute + hbm + io)
};

/// HCRMap's package as a stack (file comment): interposer, dies, TIM, on a cold plate.
template <class = void>
chiplet_package chiplet_package_stack(const substrate& s, const chiplet_thermal_params& p = {}) {
  detail::validate_chiplet_thermal(p);
  const auto& sp = s.params();
  const double pitch = sp.d2d.distance.si();
  strata::detail::require(pitch >= p.chiplet_side_m, detail::chiplet_thermal_id, "chiplet_side_m", p.chiplet_side_m,
                          "at most the chiplet pitch (the D2D link's distance)");
  chiplet_package out;
  out.compute = s.chiplets();
  out.io = s.io_chiplets();
  for (int h = 0; h < s.nodes(); ++h)
    if (s.home_banks(tier_kind::hbm, h).second > 0) ++out.hbm;
  const double mesh_w = sp.mesh_x * pitch, mesh_h = sp.mesh_y * pitch;
  const double side_w = out.hbm > 0 ? p.hbm_width_m + p.gap_m : 0.0;  // west / east columns
  const double side_h = out.io > 0 ? p.chiplet_side_m + p.gap_m : 0.0; // south / north rows
  const double x0 = side_w, y0 = side_h;                                // the mesh's corner
  const double half_gap = (pitch - p.chiplet_side_m) / 2;
  floorplan dies;
  const auto die = [&](std::string name, double w, double h, double l, double b) {
    flp_block blk;
    blk.name = std::move(name);
    blk.width_m = w;
    blk.height_m = h;
    blk.left_m = l;
    blk.bottom_m = b;
    blk.resistivity_mK_W = 1.0 / p.silicon_conductivity_W_mK;
    blk.heat_capacity_J_m3K = p.silicon_heat_capacity_J_m3K;
    dies.blocks.push_back(std::move(blk));
  };
  for (int c = 0; c < out.compute; ++c)
    die("chiplet_" + std::to_string(c), p.chiplet_side_m, p.chiplet_side_m, x0 + (c % sp.mesh_x) * pitch + half_gap,
        y0 + (c / sp.mesh_x) * pitch + half_gap);
  // Alternately west and east (HBM) or south and north (IO), spread evenly along the mesh's side.
  const auto along = [](int k, int n, double len, double size) {
    const int on_side = (n + 1 - (k % 2)) / 2;  // dies on this die's side
    const int slot = k / 2;
    const double step = len / on_side;
    return step * slot + (step - size) / 2;
  };
  for (int j = 0; j < out.hbm; ++j) {
    const double l = j % 2 == 0 ? 0.0 : x0 + mesh_w + p.gap_m;
    die("hbm_" + std::to_string(j), p.hbm_width_m, p.hbm_height_m, l,
        y0 + std::max(0.0, along(j, out.hbm, mesh_h, p.hbm_height_m)));
  }
  for (int k = 0; k < out.io; ++k) {
    const double b = k % 2 == 0 ? 0.0 : y0 + mesh_h + p.gap_m;
    die("io_" + std::to_string(k), p.chiplet_side_m, p.chiplet_side_m,
        x0 + std::max(0.0, along(k, out.io, mesh_w, p.chiplet_side_m)), b);
  }
  // The interposer and the TIM cover the package's box.
  const flp_box box = bounding_box(dies);
  const auto sheet = [&](const char* name) {
    floorplan f;
    f.blocks.push_back(flp_block{name, box.width_m(), box.height_m(), box.left_m, box.bottom_m, {}, {}});
    return f;
  };
  auto& st = out.stack;
  st.layers.push_back(thermal_layer{sheet("interposer"), p.interposer_thickness_m, p.silicon_conductivity_W_mK,
                                    p.silicon_heat_capacity_J_m3K, false, true});
  st.layers.push_back(
      thermal_layer{dies, p.die_thickness_m, p.mould_conductivity_W_mK, p.mould_heat_capacity_J_m3K, true, true});
  st.layers.push_back(
      thermal_layer{sheet("tim"), p.tim_thickness_m, p.tim_conductivity_W_mK, p.tim_heat_capacity_J_m3K, false, true});
  st.package.cooling = cooling_kind::cold_plate;
  st.package.cold_plate_h_W_m2K = p.cold_plate_h_W_m2K;
  st.package.ambient_K = p.ambient_K;
  return out;
}

/// A window's power on the package's blocks ([layer][block], W; file comment): its energy over
/// its time, compute-side energy even over the compute chiplets, HBM over the stacks, the
/// on-package share of the DRAM energy over the IO chiplets.
template <class = void>
block_power window_block_power(const chiplet_package& pkg, const window_result& w,
                               const chiplet_thermal_params& tp = {}) {
  const double t = w.e2e.si();
  strata::detail::require(std::isfinite(t) && t > 0.0, detail::chiplet_thermal_id, "e2e", t, "> 0 s");
  block_power p(pkg.stack.layers.size());
  for (std::size_t l = 0; l < p.size(); ++l) p[l].assign(pkg.stack.layers[l].plan.blocks.size(), 0.0);
  auto& d = p[1];
  const auto& e = w.energy;
  const double logic = e.compute.si() + e.gate.si() + e.noc.si() + e.d2d.si() + e.sram.si() + e.migration.si() +
                       w.non_routed_energy.si();
  const auto spread = [&](double joules, int first, int n) {
    if (n <= 0) return;
    for (int i = 0; i < n; ++i) d[static_cast<std::size_t>(first + i)] += joules / t / n;
  };
  spread(logic, 0, pkg.compute);
  // No HBM stack or IO chiplet on the package: their energy stays with the compute chiplets.
  spread(e.hbm.si(), pkg.hbm > 0 ? pkg.compute : 0, pkg.hbm > 0 ? pkg.hbm : pkg.compute);
  spread(tp.dram_on_package_share * e.dram.si(), pkg.io > 0 ? pkg.compute + pkg.hbm : 0,
         pkg.io > 0 ? pkg.io : pkg.compute);
  return p;
}

/// The package's temperature over a run, window by window (file comment).
struct chiplet_thermal_report {
  double peak_C = 0.0;                 ///< hottest block over the run (at a window's end)
  std::string hottest_block;           ///< and which
  double time_above_limit_s = 0.0;     ///< Σ T_E2E of the windows that ended above limit_C
  int throttled_windows = 0;           ///< windows run at throttle_factor
  double throughput_lost = 0.0;        ///< (Σ T_E2E − Σ T_E2E unthrottled) / Σ T_E2E
  double run_time_s = 0.0;             ///< Σ T_E2E
  std::vector<double> window_peak_C;   ///< hottest block at each window's end
  std::vector<double> window_power_W;  ///< the package's power in each window
};

/// The windows and the package's temperature.
struct chiplet_thermal_run {
  std::vector<window_result> windows;
  chiplet_thermal_report thermal;  ///< empty (all zero) when off
};

/// The modal integrator of a network for windows of any length (file comment).
template <class = void>
class modal_stepper {
 public:
  explicit modal_stepper(const rc_network& n) : n_(n.size()) {
    detail::validate_network(n);
    strata::detail::require(n_ <= window_integrator_max_nodes, "strata.thermal.network", "nodes", n_,
                            "at most window_integrator_max_nodes (1024)");
    for (double c : n.capacity_J_K)
      strata::detail::require(c > 0.0, "strata.thermal.network", "capacity", c, "> 0 J/K at every node");
    const auto N = static_cast<Eigen::Index>(n_);
    d_half_.resize(N);
    d_inv_half_.resize(N);
    for (Eigen::Index i = 0; i < N; ++i) {
      d_half_(i) = std::sqrt(n.capacity_J_K[static_cast<std::size_t>(i)]);
      d_inv_half_(i) = 1.0 / d_half_(i);
    }
    const Eigen::MatrixXd g = Eigen::MatrixXd(detail::conductance_matrix(n, 0.0));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d_inv_half_.asDiagonal() * g * d_inv_half_.asDiagonal());
    if (es.info() != Eigen::Success) throw solver_error("[strata.thermal] the network's eigendecomposition failed");
    lambda_ = es.eigenvalues();
    q_ = es.eigenvectors();
    for (Eigen::Index k = 0; k < N; ++k)
      if (!(lambda_(k) > 0.0))
        throw config_error("network", "[strata.thermal] the network's conductance matrix is not positive definite "
                                      "to double precision");
    z_ = Eigen::VectorXd::Zero(N);
  }
  /// θ := the steady state under `p` (W per node).
  void settle(const std::vector<double>& p) { z_ = inputs(p).cwiseQuotient(lambda_); }
  /// Advances by `dt_s` under `p` (W per node), exactly.
  void step(const std::vector<double>& p, double dt_s) {
    const Eigen::VectorXd b = inputs(p);
    for (Eigen::Index k = 0; k < z_.size(); ++k) {
      const double x = lambda_(k) * dt_s;
      z_(k) = std::exp(-x) * z_(k) - std::expm1(-x) * b(k) / lambda_(k);
    }
  }
  /// θ (K above ambient) at every node.
  [[nodiscard]] std::vector<double> rise() const {
    const Eigen::VectorXd th = d_inv_half_.cwiseProduct(q_ * z_);
    return {th.data(), th.data() + th.size()};
  }

 private:
  [[nodiscard]] Eigen::VectorXd inputs(const std::vector<double>& p) const {
    strata::detail::require(static_cast<int>(p.size()) == n_, "strata.thermal", "power", p.size(), "one value per node");
    const Eigen::Map<const Eigen::VectorXd> pv(p.data(), n_);
    return q_.transpose() * d_inv_half_.cwiseProduct(pv);
  }
  int n_;
  Eigen::VectorXd d_half_, d_inv_half_, lambda_, z_;
  Eigen::MatrixXd q_;
};

/// `evaluate_windows` with the package's temperature and the thermal budget rule (file comment).
/// Off (`tp.enabled == false`): `evaluate_windows`' windows and an empty report.
template <class = void>
chiplet_thermal_run evaluate_windows_thermal(const substrate& s, const model& m, const residency& res,
                                             const routing_trace& trace, const window_spec& w, int windows,
                                             power<> cap, critical_path_params cp, const token_mapper& mapper,
                                             const chiplet_thermal_params& tp) {
  chiplet_thermal_run out;
  if (!tp.enabled) {
    out.windows = evaluate_windows(s, m, res, trace, w, windows, cap, cp, mapper);
    return out;
  }
  strata::detail::require(windows >= 1, "strata.window", "windows", windows, ">= 1");
  const auto pkg = chiplet_package_stack(s, tp);
  thermal_options o;
  o.model = thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = tp.grid;
  const auto net = build_thermal_network(pkg.stack, o);
  modal_stepper<> stepper(net.net);
  const auto& dies = pkg.stack.layers[1].plan.blocks;
  auto& rep = out.thermal;
  out.windows.reserve(static_cast<std::size_t>(windows));
  const double nominal = cp.compute_scale;
  double rapl = 1.0, thermal_scale = 1.0, unthrottled_time = 0.0;
  for (int i = 0; i < windows; ++i) {
    decode_batch batch;
    const auto groups = strata::detail::window_groups(trace, s, w, i, batch);
    critical_path_params here = cp;
    here.compute_scale = nominal * rapl * thermal_scale;
    out.windows.push_back(evaluate_window(s, m, res, groups, w, here, mapper));
    auto& r = out.windows.back();
    r.note = batch.note;
    double t_ref = r.e2e.si();
    if (thermal_scale < 1.0) {  // the same window unthrottled, for the throughput lost
      critical_path_params ref = cp;
      ref.compute_scale = nominal * rapl;
      t_ref = evaluate_window(s, m, res, groups, w, ref, mapper).e2e.si();
      ++rep.throttled_windows;
    }
    const auto pw = node_power(net, window_block_power(pkg, r, tp));
    double total = 0.0;
    for (double v : pw) total += v;
    if (i == 0 && tp.start_steady)
      stepper.settle(pw);
    else
      stepper.step(pw, r.e2e.si());
    const auto temps = block_temperatures(net, stepper.rise());
    std::size_t hot = 0;
    for (std::size_t b = 1; b < dies.size(); ++b)
      if (temps[1][b] > temps[1][hot]) hot = b;
    const double peak_C = temps[1][hot] - 273.15;
    rep.window_peak_C.push_back(peak_C);
    rep.window_power_W.push_back(total);
    if (i == 0 || peak_C > rep.peak_C) {
      rep.peak_C = peak_C;
      rep.hottest_block = dies[hot].name;
    }
    rep.run_time_s += r.e2e.si();
    unthrottled_time += t_ref;
    if (peak_C > tp.limit_C) rep.time_above_limit_s += r.e2e.si();
    // The next window: RAPL's energy budget and the thermal budget (file comment).
    rapl = next_compute_scale(r.total_energy(), cap, cp.window);
    thermal_scale = peak_C > tp.limit_C ? tp.throttle_factor : 1.0;
  }
  rep.throughput_lost = rep.run_time_s > 0.0 ? (rep.run_time_s - unthrottled_time) / rep.run_time_s : 0.0;
  return out;
}

}  // namespace thermal
}  // namespace v0
}  // namespace strata
