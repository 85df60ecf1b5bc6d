#include "strata/baseline/validation.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"

#include <algorithm>  // std::sort
#include <cmath>   // std::abs
#include <limits>  // std::numeric_limits
#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/baseline/gpu_measurements_data.hpp"
#include "strata/baseline/validated_gpu.hpp"
#include "strata/core/json.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

measurement row(std::string id, const char* model, const char* gpu, int devices, int batch, int in, int out,
                measured_metric metric, double value, measurement_set set) {
  measurement m;
  m.id = std::move(id);
  m.model = model;
  m.gpu = gpu;
  m.devices = devices;
  m.batch = batch;
  m.input_len = in;
  m.output_len = out;
  m.metric = metric;
  m.value = value;
  m.set = set;
  m.precision = "BF16";
  return m;
}

// The published set's report with the default options, computed once per test program.
const validation_report& published_report() {
  static const validation_report r = validate_gpu_baseline(published_gpu_measurements());
  return r;
}

// Coarse numerics for the tests of properties that hold for any options (determinism, what the
// fit reads): a quarter of the work of the defaults, so the sanitizer build stays quick.
fit_options coarse() {
  fit_options o;
  o.model.decode_samples = 4;
  o.bits = 12;
  o.tolerance = 1e-5;
  return o;
}

// Time of one step straight through the roofline (the evaluator's model overload).
double step_time(const model& mdl, phase ph, int batch, int context, const roofline_machine& mach) {
  return evaluate(mdl, step_shape{.mode = ph, .batch = batch, .context = context}, mach).time.si();
}

}  // namespace

TEST_CASE("with_knobs sets the three knobs and re-derives the energy per FLOP by the TDP rule") {
  const gpu_knobs k{.memory_efficiency = 0.7, .compute_efficiency = 0.5, .op_overhead = units::us(12.0)};
  const gpu_params g = with_knobs(h100_sxm5(), k);
  CHECK(knobs_of(g) == k);
  // (700 − 140) W / (0.5 · 989.4 TFLOP/s) = 1.132 pJ/FLOP.
  CHECK(g.energy_per_flop.in(units::pJ_per_op) == Approx(560.0 / (0.5 * 989.4)));
  CHECK(knobs_of(h100_sxm5()) == gpu_knobs{});
  CHECK(with_knobs(h100_sxm5(), knobs_of(h100_sxm5())) == h100_sxm5());
}

TEST_CASE("a row's modelled latency is its prefill step plus every decode step") {
  // Mixtral-8x7B on 8 H100, batch 2, 100 prompt tokens, 5 output tokens: prefill at S = 100, then
  // decode steps at contexts 101 … 104 (4 steps, fewer than the 16 samples: exact).
  const model mdl = preset("Mixtral-8x7B");
  const roofline_machine mach = make_machine(h100_sxm5(), 8);
  const double expected = step_time(mdl, phase::prefill, 2, 100, mach) + step_time(mdl, phase::decode, 2, 101, mach) +
                          step_time(mdl, phase::decode, 2, 102, mach) + step_time(mdl, phase::decode, 2, 103, mach) +
                          step_time(mdl, phase::decode, 2, 104, mach);
  const double prefill = step_time(mdl, phase::prefill, 2, 100, mach);
  SUBCASE("e2e latency") {
    const auto p = prepare_measurement(row("a", "Mixtral-8x7B", "h100_sxm5", 8, 2, 100, 5, measured_metric::e2e_latency,
                                           1.0, measurement_set::fit));
    const auto r = model_measurement(p, knobs_of(h100_sxm5()));
    CHECK(r.value == Approx(expected).epsilon(1e-12));
    CHECK(r.prefill_time.si() == Approx(prefill).epsilon(1e-12));
    CHECK(r.regime == serving_regime::decode_small_batch);
    CHECK(p.fit.fits);
  }
  SUBCASE("output tokens per second, TPOT and TTFT") {
    auto make = [&](measured_metric m) {
      return model_measurement(prepare_measurement(row("a", "Mixtral-8x7B", "h100_sxm5", 8, 2, 100, 5, m, 1.0,
                                                       measurement_set::fit)),
                               knobs_of(h100_sxm5()));
    };
    CHECK(make(measured_metric::output_tokens_per_s).value == Approx(5.0 / expected).epsilon(1e-12));
    CHECK(make(measured_metric::tpot).value == Approx((expected - prefill) / 4.0).epsilon(1e-12));
    const auto ttft = make(measured_metric::ttft);
    CHECK(ttft.value == Approx(prefill).epsilon(1e-12));
    CHECK(ttft.regime == serving_regime::prefill);
  }
  SUBCASE("a one-token TPOT row has no decode step") {
    const auto m = row("t", "Mixtral-8x7B", "h100_sxm5", 8, 2, 100, 1, measured_metric::tpot, 1.0, measurement_set::fit);
    CHECK(field_of([&] { (void)prepare_measurement(m); }) == "t.output_len");
  }
}

TEST_CASE("the stratified decode sum (8 samples) stays within 0.1 % of the full sum") {
  // DBRX on 4 H100, batch 16, 32 + 128 tokens, and Qwen2.5-32B at 30 k context, 2048 tokens.
  for (const auto& m : {row("d", "DBRX", "h100_sxm5", 4, 16, 32, 128, measured_metric::e2e_latency, 1.0, measurement_set::fit),
                        row("q", "Qwen2.5-32B", "a100_sxm4_80gb", 2, 1, 30720, 2048, measured_metric::e2e_latency, 1.0,
                            measurement_set::fit)}) {
    CAPTURE(m.id);
    const double sampled = model_measurement(prepare_measurement(m), gpu_knobs{}).value;
    const validation_options exact{.decode_samples = 4096, .small_batch = 8};
    const double full = model_measurement(prepare_measurement(m, exact), gpu_knobs{}, exact).value;
    CHECK(std::abs(sampled / full - 1.0) < 1e-3);
    CHECK(sampled != full);  // the sampling is really in use
  }
}

TEST_CASE("the largest row the reader accepts models to a finite value and an infeasible fit") {
  // fuzz/regressions/fuzz_measurements_csv/largest_row.csv: every bound at its maximum.
  auto m = row("huge", "DeepSeek-V3", "rtx_a6000", 64, 4096, 1 << 20, 1 << 16, measured_metric::output_tokens_per_s,
               1.0, measurement_set::fit);
  m.precision = "FP8";
  const auto p = prepare_measurement(m);
  CHECK(p.decode.size() == 8);  // the roofline work is bounded by decode_samples, not by output_len
  const auto r = model_measurement(p, knobs_of(p.gpu));
  CHECK(std::isfinite(r.value));
  CHECK(r.value > 0.0);
  CHECK_FALSE(p.fit.fits);  // 4096 sequences of a million tokens fit no 64 A6000s
}

TEST_CASE("the modelled time falls with either efficiency and grows with the per-operator cost") {
  const auto p = prepare_measurement(
      row("m", "Mixtral-8x7B", "a100_sxm4_80gb", 2, 16, 1000, 50, measured_metric::e2e_latency, 1.0, measurement_set::fit));
  const gpu_knobs k0{.memory_efficiency = 0.6, .compute_efficiency = 0.5, .op_overhead = units::us(5.0)};
  const double t0 = model_measurement(p, k0).value;
  gpu_knobs k = k0;
  k.memory_efficiency = 0.9;
  CHECK(model_measurement(p, k).value < t0);
  k = k0;
  k.compute_efficiency = 0.9;
  CHECK(model_measurement(p, k).value < t0);  // batch 16 × 1000 prompt tokens: prefill is compute-bound
  k = k0;
  k.op_overhead = units::us(20.0);
  CHECK(model_measurement(p, k).value > t0);
}

TEST_CASE("the fit's cached row value is bit-identical to model_measurement as one knob moves at a time") {
  // Every published row (dense and MoE, TP 1 to 8, every metric), knobs moved one at a time as the
  // coordinate descent moves them, so the cached compute and memory terms are reused and renewed.
  const std::vector<gpu_knobs> path = {
      {.memory_efficiency = 0.6, .compute_efficiency = 0.5, .op_overhead = units::us(5.0)},
      {.memory_efficiency = 0.83, .compute_efficiency = 0.5, .op_overhead = units::us(5.0)},
      {.memory_efficiency = 0.83, .compute_efficiency = 0.31, .op_overhead = units::us(5.0)},
      {.memory_efficiency = 0.83, .compute_efficiency = 0.31, .op_overhead = units::us(17.5)},
      {.memory_efficiency = 0.83, .compute_efficiency = 0.31, .op_overhead = units::us(0.0)},
      {.memory_efficiency = 0.21, .compute_efficiency = 0.97, .op_overhead = units::us(3.25)}};
  int rows = 0;
  for (const auto& m : published_gpu_measurements()) {
    // 8 decode samples: the steps summed four side by side; 3: two side by side, then one alone.
    for (const int samples : {8, 3}) {
      const validation_options o{.decode_samples = samples};
      const auto p = prepare_measurement(m, o);
      detail::fit_row cached(p);
      for (const auto& k : path) {
        const double v = cached.value(k, o);
        CHECK(v == model_measurement(p, k, o).value);  // exact: the same arithmetic, no tolerance
        CHECK(v > 0.0);
      }
    }
    ++rows;
  }
  CHECK(rows >= 30);
}

TEST_CASE("the fit recovers known knobs from rows the model itself generated") {
  const gpu_knobs truth{.memory_efficiency = 0.72, .compute_efficiency = 0.55, .op_overhead = units::us(11.0)};
  std::vector<measurement> rows = {
      row("s1", "Mixtral-8x7B", "h100_sxm5", 8, 1, 1000, 50, measured_metric::e2e_latency, 1.0, measurement_set::fit),
      row("s2", "Mixtral-8x7B", "a100_sxm4_80gb", 2, 64, 1000, 50, measured_metric::e2e_latency, 1.0, measurement_set::fit),
      row("s3", "Qwen2.5-32B", "a100_sxm4_80gb", 1, 1, 1, 64, measured_metric::output_tokens_per_s, 1.0, measurement_set::fit),
      row("s4", "DBRX", "h100_sxm5", 8, 4, 32, 16, measured_metric::e2e_latency, 1.0, measurement_set::fit)};
  for (auto& m : rows) m.value = model_measurement(prepare_measurement(m), truth).value;
  const fit_result f = fit_gpu_knobs(rows);
  CHECK(f.converged);
  CHECK(f.fit_rows == 4);
  CHECK(f.knobs.memory_efficiency == Approx(truth.memory_efficiency).epsilon(2e-3));
  CHECK(f.knobs.compute_efficiency == Approx(truth.compute_efficiency).epsilon(2e-3));
  CHECK(f.knobs.op_overhead.in(units::us) == Approx(11.0).epsilon(5e-3));
  CHECK(f.rms_log_error < 1e-3);
  CHECK(f.at_bound.empty());
}

TEST_CASE("the fit is deterministic and blind to the held-back rows") {
  const std::vector<measurement> rows = published_gpu_measurements();
  const fit_result a = fit_gpu_knobs(rows, coarse());
  const fit_result b = fit_gpu_knobs(rows, coarse());
  CHECK(a.knobs == b.knobs);  // bit for bit
  CHECK(a.objective == b.objective);
  CHECK(a.fit_rows == 17);

  std::vector<measurement> changed = rows;
  int edited = 0;
  for (auto& m : changed) {
    if (m.set == measurement_set::check) {
      m.value *= 3.0;  // a held-back figure three times off
      ++edited;
    }
  }
  REQUIRE(edited == 17);
  CHECK(fit_gpu_knobs(changed, coarse()).knobs == a.knobs);

  std::vector<measurement> fit_changed = rows;
  fit_changed[0].value *= 3.0;  // a fit row: the knobs must move
  REQUIRE(fit_changed[0].set == measurement_set::fit);
  CHECK_FALSE(fit_gpu_knobs(fit_changed, coarse()).knobs == a.knobs);
}

TEST_CASE("the report separates fit and held-back rows and summarises the held-back ones by regime") {
  const std::vector<measurement> rows = published_gpu_measurements();
  const validation_report& r = published_report();
  REQUIRE(r.rows.size() == rows.size());
  std::vector<double> abs_check;
  int check_rows = 0;
  for (const auto& v : r.rows) {
    CAPTURE(v.id);
    CHECK(v.modelled > 0.0);
    CHECK(std::isfinite(v.rel_error));
    CHECK(v.rel_error == Approx(v.modelled / v.measured - 1.0));
    CHECK(v.optimistic == (v.metric == measured_metric::output_tokens_per_s ? v.modelled > v.measured
                                                                            : v.modelled < v.measured));
    CHECK(v.fits);  // every measured setup ran, so the memory fit must agree
    if (v.set == measurement_set::check) {
      abs_check.push_back(std::abs(v.rel_error));
      ++check_rows;
    }
  }
  CHECK(r.check.rows == 17);
  CHECK(r.fit_set.rows == 17);
  CHECK(r.check.median_abs_error == Approx(detail::median_of(abs_check)));
  CHECK(r.check.worst_abs_error == Approx(*std::max_element(abs_check.begin(), abs_check.end())));
  int regime_rows = 0;
  for (const auto& g : r.regimes) {
    regime_rows += g.rows;
    if (g.rows > 0) CHECK((g.verdict == "optimistic") == (g.median_speed_error > 0.0));
  }
  CHECK(regime_rows == check_rows);
  CHECK(r.regimes.size() == 3);
  REQUIRE(r.regimes_default.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(r.regimes_default[i].regime == r.regimes[i].regime);
    CHECK(r.regimes_default[i].rows == r.regimes[i].rows);  // same rows, other knobs
  }
  for (const auto& v : r.rows) {
    CHECK(v.speed_error_default == Approx(v.metric == measured_metric::output_tokens_per_s
                                              ? v.modelled_default / v.measured - 1.0
                                              : v.measured / v.modelled_default - 1.0));
  }
  // The knobs stay inside their bounds.
  const knob_bounds b{};
  CHECK(r.fit.knobs.memory_efficiency >= b.memory_efficiency_min);
  CHECK(r.fit.knobs.memory_efficiency <= b.memory_efficiency_max);
  CHECK(r.fit.knobs.compute_efficiency >= b.compute_efficiency_min);
  CHECK(r.fit.knobs.op_overhead <= b.op_overhead_max);
  // The in-sample error of a least-squares fit is no larger than the error of the start point there.
  fit_options o;
  o.max_sweeps = 1;
  const auto one = fit_gpu_knobs(rows, o);
  CHECK(r.fit.objective <= one.objective);
}

TEST_CASE("a measured value outside its metric's range or a non-finite error is refused naming the row") {
  // Rows built in code skip the reader: the library checks the range of each row itself.
  for (const double v : {5e-324, 1e308, 0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::infinity(), 1e-7, 2e5}) {
    CAPTURE(v);
    const std::vector<measurement> rows = {
        row("r", "Mixtral-8x7B", "h100_sxm5", 8, 1, 10, 4, measured_metric::e2e_latency, v, measurement_set::fit)};
    CHECK(field_of([&] { (void)validate_gpu_baseline(rows); }) == "r.value");
  }
  const std::vector<measurement> tput = {
      row("t", "Mixtral-8x7B", "h100_sxm5", 8, 1, 10, 4, measured_metric::output_tokens_per_s, 1e7, measurement_set::fit)};
  CHECK_THROWS_WITH_AS((void)validate_gpu_baseline(tput), doctest::Contains("t.value must be in [0.001, 1e+06] tokens/s"),
                       config_error);
  // The errors of a report row must be finite; the check names the row and the field.
  validation_row v;
  v.id = "x";
  v.unit = "s";
  v.measured = 1.0;
  v.modelled = 2.0;
  v.modelled_default = 2.0;
  CHECK_NOTHROW(detail::require_finite_errors(v));
  v.speed_error = std::numeric_limits<double>::infinity();
  CHECK(field_of([&] { detail::require_finite_errors(v); }) == "x.speed_error");
  v.speed_error = 0.0;
  v.rel_error_default = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(detail::require_finite_errors(v), doctest::Contains("row x: rel_error_default is not finite"),
                       config_error);
}

TEST_CASE("bad fit options and empty fit sets are config errors naming the field") {
  const std::vector<measurement> rows = {
      row("c", "Mixtral-8x7B", "h100_sxm5", 8, 1, 10, 4, measured_metric::e2e_latency, 0.1, measurement_set::check)};
  CHECK(field_of([&] { (void)fit_gpu_knobs(rows); }) == "rows");
  fit_options o;
  o.bounds.memory_efficiency_max = 1.5;
  CHECK(field_of([&] { validate(o); }) == "bounds.memory_efficiency_max");
  o = {};
  o.bits = 2;
  CHECK(field_of([&] { validate(o); }) == "bits");
  o = {};
  o.model.decode_samples = 0;
  CHECK(field_of([&] { validate(o); }) == "decode_samples");
  o = {};
  o.bounds.op_overhead_max = units::us(0.0);
  CHECK(field_of([&] { validate(o); }) == "bounds.op_overhead_max");
}

TEST_CASE("knobs and fit options round-trip through JSON") {
  const gpu_knobs k{.memory_efficiency = 0.8, .compute_efficiency = 0.6, .op_overhead = units::us(7.5)};
  CHECK(from_json_at<gpu_knobs>(json(k)) == k);
  fit_options o;
  o.max_sweeps = 7;
  o.bounds.op_overhead_max = units::us(40.0);
  CHECK(from_json_at<fit_options>(json(o)) == o);
  CHECK(json(k)["memory_efficiency"] == 0.8);
}

TEST_CASE("a report whose measurement id is invalid UTF-8 (bytes FF FE) writes valid UTF-8 JSON") {
  validation_report r = published_report();
  REQUIRE_FALSE(r.rows.empty());
  r.rows.front().id = "r\xFF\xFE";
  CHECK_THROWS_AS((void)json(r).dump(2), json::type_error);  // nlohmann's own dump: type_error.316
  const std::string out = dump_json(json(r), 2);
  CHECK(out.find("\"r\xEF\xBF\xBD") != std::string::npos);  // U+FFFD in place of the bytes
  const json back = json::parse(out);                        // the parser accepts only valid UTF-8
  CHECK(back.at("rows").size() == r.rows.size());
}

TEST_CASE("leave one series out: each fold fits on the other series only and models the held-out one") {
  // Rows the model itself generated with known knobs, in two sources: every fold recovers the
  // knobs from the other source alone, so every held-out row is modelled within the fit's
  // precision, whichever set (fit or check) it carries.
  const gpu_knobs truth{.memory_efficiency = 0.72, .compute_efficiency = 0.55, .op_overhead = units::us(11.0)};
  std::vector<measurement> rows = {
      row("a1", "Mixtral-8x7B", "h100_sxm5", 8, 1, 1000, 50, measured_metric::e2e_latency, 1.0, measurement_set::fit),
      row("a2", "Mixtral-8x7B", "h100_sxm5", 8, 64, 1000, 50, measured_metric::e2e_latency, 1.0, measurement_set::check),
      row("a3", "DBRX", "h100_sxm5", 8, 4, 32, 16, measured_metric::e2e_latency, 1.0, measurement_set::fit),
      row("b1", "Qwen2.5-32B", "a100_sxm4_80gb", 1, 1, 1, 64, measured_metric::output_tokens_per_s, 1.0, measurement_set::fit),
      row("b2", "Mixtral-8x7B", "a100_sxm4_80gb", 2, 64, 1000, 50, measured_metric::e2e_latency, 1.0, measurement_set::check),
      row("b3", "Qwen2.5-32B", "a100_sxm4_80gb", 2, 1, 30720, 64, measured_metric::output_tokens_per_s, 1.0, measurement_set::check)};
  for (auto& m : rows) {
    m.source = m.id[0] == 'a' ? "source A" : "source B";
    m.value = model_measurement(prepare_measurement(m), truth).value;
  }
  std::vector<prepared_measurement> p;
  for (const auto& m : rows) p.push_back(prepare_measurement(m));
  const series_validation by_source = validate_by_series(p, series_key::source);
  REQUIRE(by_source.folds.size() == 2);
  CHECK(by_source.folds[0].series == "source A");
  CHECK(by_source.folds[0].train_rows == 3);
  CHECK(by_source.folds[1].train_rows == 3);
  CHECK(by_source.held_back.rows == 6);
  // Each fold's knobs are the fit of the other source's rows, both sets marked fit; its errors
  // are its own rows modelled with them.
  for (std::size_t f = 0; f < 2; ++f) {
    std::vector<prepared_measurement> train;
    std::vector<double> held;
    for (const auto& m : p) {
      if (m.row.source == by_source.folds[f].series) {
        held.push_back(std::abs(model_measurement(m, by_source.folds[f].knobs).value / m.row.value - 1.0));
        continue;
      }
      train.push_back(m);
      train.back().row.set = measurement_set::fit;
    }
    CHECK(fit_gpu_knobs(train).knobs == by_source.folds[f].knobs);
    std::sort(held.begin(), held.end());
    CHECK(by_source.folds[f].held_back.median_abs_error == held[1]);
    CHECK(by_source.folds[f].held_back.worst_abs_error == held[2]);
  }
  // The same by GPU: the two sources are the two GPUs here.
  const series_validation by_gpu = validate_by_series(p, series_key::gpu);
  CHECK(by_gpu.folds[0].knobs == by_source.folds[0].knobs);
  CHECK(by_gpu.held_back.median_abs_error == by_source.held_back.median_abs_error);

  // A held-out series three times off moves only its own errors, never its own fold's knobs.
  auto off = rows;
  for (auto& m : off) {
    if (m.source == "source B") m.value *= 3.0;
  }
  std::vector<prepared_measurement> q;
  for (const auto& m : off) q.push_back(prepare_measurement(m));
  const series_validation moved = validate_by_series(q, series_key::source);
  CHECK(moved.folds[1].knobs == by_source.folds[1].knobs);  // fitted on source A alone
  CHECK(moved.folds[1].held_back.median_abs_error > 0.5);
  CHECK_FALSE(moved.folds[0].knobs == by_source.folds[0].knobs);

  // One series cannot be held out against nothing.
  std::vector<prepared_measurement> one(p.begin(), p.begin() + 3);
  CHECK(field_of([&] { (void)validate_by_series(one, series_key::source); }) == "rows");
}

TEST_CASE("the published report holds both splits: alternating rows and one series out by source, model and GPU") {
  const auto& r = published_report();
  REQUIRE(r.by_series.size() == 3);
  const std::size_t folds[3] = {5, 4, 2};  // five sources, four models, two GPUs
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(r.by_series[i].folds.size() == folds[i]);
    CHECK(r.by_series[i].held_back.rows == 34);
    int rows = 0;
    for (const auto& f : r.by_series[i].folds) {
      rows += f.held_back.rows;
      CHECK(f.train_rows + f.held_back.rows == 34);
    }
    CHECK(rows == 34);
  }
}

TEST_CASE("validated_gpu: the card's facts with the knobs the published report fits") {
  const gpu_params card = h100_sxm5();
  const gpu_params v = validated_gpu(card);
  const auto& fit = published_report().fit;
  CHECK(knobs_of(v) == fit.knobs);
  CHECK(published_gpu_fit().knobs == fit.knobs);  // the cached fit is the report's fit
  CHECK(v.memory_bandwidth == card.memory_bandwidth);
  CHECK(v.peak_flops == card.peak_flops);
  CHECK(v.static_power == card.static_power);
  CHECK(v.energy_per_flop.si() == Approx(with_knobs(card, fit.knobs).energy_per_flop.si()));
  CHECK(v.energy_per_flop.si() > card.energy_per_flop.si());  // η_c falls from 0.80 to about 0.34
}

TEST_CASE("cards without published rows run with the fitted knobs and say they are not validated on them") {
  CHECK(published_rows_on("h100_sxm5") == 15);
  CHECK(published_rows_on("A100-SXM4-80GB") == 19);
  for (const char* card : {"h200_sxm", "b200", "mi300x", "mi325x"}) {
    CAPTURE(card);
    CHECK(published_rows_on(card) == 0);
    CHECK(knobs_of(validated_gpu(gpu_preset(card))) == published_gpu_fit().knobs);
    CHECK(knobs_note(card) == "serving knobs fitted on H100 SXM5 and A100 SXM4 rows, not validated on " +
                                  std::string(card) + " (no published measurement of it in the set)");
  }
  CHECK(knobs_note("h100_sxm5") == "serving knobs fitted on the published set, 15 rows on this card");
}

// Suite `long` (tests/CMakeLists.txt, STRATA_TEST_EXCLUDE_SUITES): six cross-validations and three
// validations of the whole set, the fit code the cases above run once each.
TEST_CASE("validate_gpu_baseline fits each distinct fold once, and a fit passed in changes no number" *
          doctest::test_suite("long")) {
  const std::vector<measurement> rows = published_gpu_measurements();
  std::vector<prepared_measurement> p;
  for (const auto& m : rows) p.push_back(prepare_measurement(m));
  detail::fold_fits memo;
  std::size_t folds = 0;
  for (const auto key : {series_key::source, series_key::model, series_key::gpu}) {
    CAPTURE(to_string(key));
    const auto with = validate_by_series(p, key, {}, &memo);
    const auto without = validate_by_series(p, key);
    folds += with.folds.size();
    CHECK(dump_json(json(with)) == dump_json(json(without)));  // every digit
  }
  // Leaving out a model measured by one source only leaves out that source's rows: those folds
  // are fitted once.
  CHECK(memo.fits.size() < folds);
  for (std::size_t i = 0; i < memo.fits.size(); ++i) {
    for (std::size_t j = i + 1; j < memo.fits.size(); ++j) CHECK(memo.fits[i].first != memo.fits[j].first);
  }
  const auto fresh = validate_gpu_baseline(rows);
  const auto passed = validate_gpu_baseline(rows, {}, &published_gpu_fit());
  CHECK(dump_json(json(passed)) == dump_json(json(fresh)));
  // The fit passed in is the one reported (a different one would show).
  fit_result other = published_gpu_fit();
  other.knobs.compute_efficiency *= 0.5;
  CHECK(validate_gpu_baseline(rows, {}, &other).fit.knobs == other.knobs);
  CHECK(validate_gpu_baseline(rows, {}, &other).check.median_abs_error != fresh.check.median_abs_error);
}
