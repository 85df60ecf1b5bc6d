// The GPU time of vLLM V1's sampler (baseline/gpu_sampler.hpp) and its place in the engine step
// (gpu_step_costs, engine_params::sampler).
#include "strata/baseline/gpu_sampler.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include <string>
#include <vector>

#include "strata/serving/serving_json.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;
using doctest::Approx;

TEST_CASE("sampler: hand-derived time of 24 rows of a 128 256-token vocabulary, plain and top-p") {
  // One H100: 3.35 TB/s at 0.9 = 3.015e12 B/s, 4 us a kernel.
  const double bw = 3.35e12, eta = 0.9, t_op = 4e-6;
  // 24 x 128256 = 3 078 144 logits; plain: x 50 B = 153 907 200 B -> 51.047 us, + 6 kernels 24 us.
  const gpu_sampler_params plain{};
  CHECK(sampler_bytes_per_logit(plain) == 50.0);
  CHECK(sampler_kernels(plain) == 6);
  CHECK(sampler_time(plain, 24.0, 128256.0, bw, eta, t_op) == Approx(153907200.0 / 3.015e12 + 24e-6).epsilon(1e-12));
  CHECK(sampler_time(plain, 24.0, 128256.0, bw, eta, t_op) == Approx(75.0472e-6).epsilon(1e-5));
  // top-p: 50 + 174 = 224 B a logit (689 504 256 B -> 228.69 us) in 6 + 13 = 19 kernels (76 us).
  const gpu_sampler_params topp{.top_p = true};
  CHECK(sampler_bytes_per_logit(topp) == 224.0);
  CHECK(sampler_kernels(topp) == 19);
  CHECK(sampler_time(topp, 24.0, 128256.0, bw, eta, t_op) == Approx(304.691e-6).epsilon(1e-5));
}

TEST_CASE("sampler: zero without rows or terms; grows with rows, vocabulary and the filter") {
  const double bw = 3.35e12, eta = 0.9, t_op = 4e-6;
  CHECK(sampler_time(gpu_sampler_params{}, 0.0, 128256.0, bw, eta, t_op) == 0.0);
  CHECK(sampler_time(gpu_sampler_params::none(), 64.0, 128256.0, bw, eta, t_op) == 0.0);
  gpu_sampler_params none_p = gpu_sampler_params::none();
  none_p.top_p = true;  // a filter with no bytes and no kernels costs nothing either
  CHECK(sampler_time(none_p, 64.0, 128256.0, bw, eta, t_op) == 0.0);
  double last = 0.0;
  for (double rows : {1.0, 2.0, 8.0, 64.0, 512.0}) {
    const double t = sampler_time(gpu_sampler_params{}, rows, 32000.0, bw, eta, t_op);
    CHECK(t > last);
    CHECK(sampler_time(gpu_sampler_params{.top_p = true}, rows, 32000.0, bw, eta, t_op) > t);
    CHECK(sampler_time(gpu_sampler_params{}, rows, 151936.0, bw, eta, t_op) > t);
    last = t;
  }
  // The byte term is linear in rows: doubling the rows doubles it.
  const double k = 6 * t_op;
  CHECK(sampler_time(gpu_sampler_params{}, 64.0, 32000.0, bw, eta, t_op) - k ==
        Approx(2.0 * (sampler_time(gpu_sampler_params{}, 32.0, 32000.0, bw, eta, t_op) - k)).epsilon(1e-12));
}

TEST_CASE("sampler: derivatives by autodiff match the closed form") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  const gpu_sampler_params topp{.top_p = true};
  const double V = 128256.0, bw = 3.35e12, eta = 0.9, t_op = 4e-6;
  // d t / d rows = V beta / (BW eta)
  const F rows = make_fvar<double, 1>(24.0);
  const F t = sampler_time<F>(topp, rows, F(V), F(bw), F(eta), F(t_op));
  CHECK(t.derivative(1) == Approx(V * 224.0 / (bw * eta)).epsilon(1e-12));
  // d t / d BW = -rows V beta / (BW^2 eta)
  const F b = make_fvar<double, 1>(bw);
  const F tb = sampler_time<F>(topp, F(24.0), F(V), b, F(eta), F(t_op));
  CHECK(tb.derivative(1) == Approx(-24.0 * V * 224.0 / (bw * bw * eta)).epsilon(1e-12));
  // d t / d t_op = k = 19
  const F o = make_fvar<double, 1>(t_op);
  CHECK(sampler_time<F>(topp, F(24.0), F(V), F(bw), F(eta), o).derivative(1) == Approx(19.0));
}

TEST_CASE("sampler: bad terms are config errors naming the field") {
  gpu_sampler_params p;
  p.plain_bytes_per_logit = -1.0;
  CHECK_THROWS_WITH_AS(validate(p), doctest::Contains("plain_bytes_per_logit"), config_error);
  p = {};
  p.filter_kernels = -2;
  CHECK_THROWS_WITH_AS(validate(p, "gpu.engine.sampler"), doctest::Contains("gpu.engine.sampler.filter_kernels"),
                       config_error);
  engine_params e;
  e.sampler.filter_bytes_per_logit = 1e9;
  CHECK_THROWS_WITH_AS(validate(e, "gpu.engine"), doctest::Contains("gpu.engine.sampler.filter_bytes_per_logit"),
                       config_error);
  CHECK_NOTHROW(validate(gpu_sampler_params{}));
  CHECK_NOTHROW(validate(gpu_sampler_params::none()));
}

TEST_CASE("sampler in the engine step: one device's time on every TP rank, added to the step") {
  // Llama-3.1-8B on 2 x H100: a step of 16 decodes. The sampler adds t_sample(16, V) on one
  // device (every rank samples the gathered logits), not divided by the TP degree.
  const gpu_params g = h100_sxm5();
  const model m = preset("Llama-3.1-8B");
  gpu_step_costs bare(g, 2, m), topp(g, 2, m, {}, gpu_sampler_params{.top_p = true});
  mixed_step s;
  s.tokens = s.sampled = s.decodes = 16;
  s.decode_context = 16 * 600.0;
  const double want = sampler_time(gpu_sampler_params{.top_p = true}, 16.0, double(m.vocab), g.memory_bandwidth.si(),
                                   g.memory_efficiency, g.op_overhead.si());
  CHECK(want > 100e-6);  // 16 x 128256 x 224 B = 460 MB at 3.0 TB/s, + 19 kernels
  CHECK(topp.mixed(s).time_s - bare.mixed(s).time_s == Approx(want).epsilon(1e-9));
  // A prefill chunk that samples nothing pays no sampler time.
  mixed_step c;
  c.tokens = 512;
  c.prefill_tokens = 512;
  c.prefill_pairs = 512.0 * 513.0 / 2.0;
  CHECK(topp.mixed(c).time_s == bare.mixed(c).time_s);
  // Energy: the HBM bytes of the rows on both devices.
  const double bytes = 16.0 * m.vocab * 224.0 * 2.0;
  CHECK(topp.mixed(s).energy_j - bare.mixed(s).energy_j ==
        Approx(bytes * g.memory_energy.si() + 2.0 * g.static_power.si() * want).epsilon(1e-6));
}

TEST_CASE("sampler: the scenario's gpu.engine.sampler is read and slows the served run") {
  const auto s = read_serving_scenario(R"({"system": "none", "model": "Llama-3.1-8B",
      "requests": {"count": 40, "rate": 8},
      "gpu": {"gpus": 1, "engine": {"sampler": {"top_p": true}}}})");
  CHECK(s.gpu.engine.sampler.top_p);
  CHECK(s.gpu.engine.sampler.filter_bytes_per_logit == 174.0);
  const gpu_params g = h100_sxm5();
  const model m = preset("Llama-3.1-8B");
  request_gen_params rg;
  rg.count = 40;
  rg.rate = 8.0;
  rg.prompt = {.kind = length_kind::fixed, .value = 200, .min = 1, .max = 1024, .values = {}};
  rg.output = {.kind = length_kind::fixed, .value = 50, .min = 1, .max = 1024, .values = {}};
  const auto reqs = generate_requests(rg);
  engine_params plain, topp, off;
  topp.sampler.top_p = true;
  off.sampler = gpu_sampler_params::none();
  const auto r0 = simulate_gpu(g, m, scheduler_params{}, reqs, 1, off);
  const auto r1 = simulate_gpu(g, m, scheduler_params{}, reqs, 1, plain);
  const auto r2 = simulate_gpu(g, m, scheduler_params{}, reqs, 1, topp);
  REQUIRE(r2.feasible);
  CHECK(r0.itl.mean_s < r1.itl.mean_s);
  CHECK(r1.itl.mean_s < r2.itl.mean_s);
  // One sampled row per running request: the top-p run's mean gap grows by about the sampler of
  // the mean batch, well under a millisecond here.
  CHECK(r2.itl.mean_s - r0.itl.mean_s < 1e-3);
}

TEST_CASE("sampler: the terms of one Llama-3.1-8B decode step of the campaign (docs/serving.md) are these") {
  // Run 16's mean batch 25 at a context of 671 tokens on one H100 with its cited knobs: the figures
  // docs/serving.md lists term by term.
  const gpu_params g = h100_sxm5();
  const model m = preset("Llama-3.1-8B");
  const auto machine = make_machine(g, 1);
  const step_shape s{.mode = phase::decode, .batch = 25, .context = 671};
  const auto ops = step_operators(m, s);
  double w = 0.0, kv = 0.0, lm = 0.0;
  for (const auto& o : ops) {
    w += o.weight_bytes.si();
    kv += o.kv_bytes.si();
    if (o.kind == op_kind::lm_head) lm += cost_of(o, machine).memory_time.si();
  }
  const double bw = g.memory_bandwidth.si() * g.memory_efficiency;
  CHECK(w / 1e9 == Approx(15.0).epsilon(0.01));
  CHECK(w / bw * 1e3 == Approx(5.00).epsilon(0.01));
  CHECK(lm * 1e3 == Approx(0.35).epsilon(0.02));
  CHECK(kv / 1e9 == Approx(2.2).epsilon(0.02));
  CHECK(kv / bw * 1e3 == Approx(0.73).epsilon(0.01));
  CHECK(ops.size() == 195);
  const double smp = sampler_time(gpu_sampler_params{.top_p = true}, 25.0, double(m.vocab), g.memory_bandwidth.si(),
                                  g.memory_efficiency, g.op_overhead.si());
  CHECK(smp * 1e3 == Approx(0.32).epsilon(0.02));
  CHECK(host_step_time(engine_host_params{}, 25.0) * 1e3 == Approx(0.43).epsilon(0.01));
  const auto r = evaluate(ops, s, m.hidden, machine);
  CHECK(r.time.si() * 1e3 == Approx(6.5).epsilon(0.01));
  CHECK(host_step_time(engine_host_params{}, 25.0) < r.time.si() / 3.0);  // hidden under async scheduling
}

TEST_CASE("sampler under DP attention: each rank samples its own rows, the busiest bounds the step") {
  // DeepSeek-V2-Lite on EP 8 with DP attention: rank 0 samples 10 rows, the others 2 each. The
  // sampler adds t_sample(10, V) (the busiest rank) to the step's time and the bytes of all 24
  // rows, once each, to its energy.
  const model m = preset("DeepSeek-V2-Lite");
  const parallelism par{.ep = 8, .attention = attention_parallel::dp};
  const gpu_params g = h100_sxm5();
  gpu_step_costs bare(g, 8, m, par), topp(g, 8, m, par, gpu_sampler_params{.top_p = true});
  std::vector<mixed_step> ranks(8);
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const int rows = k == 0 ? 10 : 2;
    ranks[k].tokens = ranks[k].sampled = ranks[k].decodes = rows;
    ranks[k].decode_context = rows * 500.0;
  }
  const double want = sampler_time(gpu_sampler_params{.top_p = true}, 10.0, double(m.vocab), g.memory_bandwidth.si(),
                                   g.memory_efficiency, g.op_overhead.si());
  const auto a = bare.mixed_ranks(ranks), b = topp.mixed_ranks(ranks);
  CHECK(b.time_s - a.time_s == Approx(want).epsilon(1e-9));
  const double bytes = 24.0 * m.vocab * 224.0;
  CHECK(b.energy_j - a.energy_j == Approx(bytes * g.memory_energy.si() + 8.0 * g.static_power.si() * want).epsilon(1e-6));
}
