// The GPU baseline's engine scheduler (serving/engine.hpp): one-pass mixed steps, chunked
// prefill, preemption by recompute, prefix caching; staged loads and the latency metrics.
#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

std::vector<request> at_times(const std::vector<double>& t, int prompt, int output) {
  std::vector<request> r;
  for (std::size_t i = 0; i < t.size(); ++i) r.push_back({static_cast<std::int64_t>(i), t[i], prompt, output, 0, -1});
  return r;
}

// A lone chunk of c tokens after p computed ones.
mixed_step chunk(int c, int p, bool last) {
  mixed_step s;
  s.tokens = c;
  s.sampled = last ? 1 : 0;
  s.prefill_tokens = c;
  s.prefill_pairs = double(c) * p + double(c) * (c + 1) / 2.0;
  s.prefill_prior = p;
  return s;
}

}  // namespace

TEST_CASE("mixed step: decodes alone are the decode step, a lone chunk the prefill step, exactly") {
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  gpu_step_costs c(g, 2, m);
  const auto machine = make_machine(g, 2);
  const step_shape d{.mode = phase::decode, .batch = 8, .context = 300};
  const auto rd = evaluate(step_operators(m, d), d, m.hidden, machine);
  mixed_step s;
  s.tokens = s.sampled = s.decodes = 8;
  s.decode_context = 8 * 300;
  const auto md = c.mixed(s);
  CHECK(md.time_s == Approx(rd.time.si()).epsilon(1e-9));
  CHECK(md.energy_j == Approx(rd.energy.si()).epsilon(1e-9));
  const step_shape p{.mode = phase::prefill, .batch = 1, .context = 512};
  const auto rp = evaluate(step_operators(m, p), p, m.hidden, machine);
  const auto mp = c.mixed(chunk(512, 0, true));
  CHECK(mp.time_s == Approx(rp.time.si()).epsilon(1e-9));
  CHECK(mp.energy_j == Approx(rp.energy.si()).epsilon(1e-9));
}

TEST_CASE("mixed step: a decode riding on a prefill chunk does not read the weights again") {
  // Qwen2.5-32B (dense) on one H100: a decode step of one sequence is memory-bound and reads every
  // weight, W = 2 B x parameters, at least W / (BW x eta_m); a 512-token chunk is compute-bound.
  // Run apart the two read the weights twice; mixed in one step once, so the mixed step saves at
  // least the decode's weight read.
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Qwen2.5-32B");
  gpu_step_costs c(g, 1, m);
  const double w = 2.0 * static_cast<double>(count_params(m).total);
  const double read = w / (g.memory_bandwidth.si() * g.memory_efficiency);
  CHECK(read > 0.015);  // 65 GB at ~3 TB/s
  mixed_step dec;
  dec.tokens = dec.sampled = dec.decodes = 1;
  dec.decode_context = 1000;
  mixed_step both = chunk(512, 0, true);
  both.tokens += 1;
  both.sampled += 1;
  both.decodes = 1;
  both.decode_context = 1000;
  const double apart = c.mixed(dec).time_s + c.mixed(chunk(512, 0, true)).time_s;
  const double mixed = c.mixed(both).time_s;
  CHECK(apart - mixed >= 0.95 * read);
  CHECK(c.mixed(dec).time_s >= read);
}

TEST_CASE("engine: a long prompt prefills in budget-sized chunks; without chunking it cannot start") {
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  const auto reqs = at_times({0.5}, 5000, 2);
  // The scheduler's fallback budget, stated (vLLM's default on an H100 is 8192, engine_limits_of).
  const engine_params budget{.max_num_batched_tokens = 2048};
  const auto r = simulate_gpu(g, m, scheduler_params{}, reqs, 2, budget);
  REQUIRE(r.feasible);
  CHECK(r.policy == "engine");
  CHECK(r.prefill_steps == 3);  // 2048 + 2048 + 904
  CHECK(r.decode_steps == 1);
  gpu_step_costs c(g, 2, m, {}, budget.sampler);  // the engine's sampler (vLLM's defaults)
  const double ttft = c.mixed(chunk(2048, 0, false)).time_s + c.mixed(chunk(2048, 2048, false)).time_s +
                      c.mixed(chunk(904, 4096, true)).time_s;
  // vLLM's host time by default (engine_host.hpp): the prompt's tokenisation before the engine;
  // the steps' host time hides under their GPU time (async scheduling).
  CHECK(r.ttft.mean_s == Approx(ttft + 5000 * 2.2e-6).epsilon(1e-12));
  // With the host terms off, the GPU's steps alone, bit for bit.
  engine_params gpu_only = budget;
  gpu_only.host = engine_host_params::none();
  const auto r0 = simulate_gpu(g, m, scheduler_params{}, reqs, 2, gpu_only);
  REQUIRE(r0.first_token_s.size() == 1);
  CHECK(r0.first_token_s[0] == ((0.5 + c.mixed(chunk(2048, 0, false)).time_s) + c.mixed(chunk(2048, 2048, false)).time_s) +
                                   c.mixed(chunk(904, 4096, true)).time_s);
  engine_params whole = budget;
  whole.enable_chunked_prefill = false;
  const auto w = simulate_gpu(g, m, scheduler_params{}, reqs, 2, whole);
  CHECK_FALSE(w.feasible);
}

TEST_CASE("engine: preemption by recompute when the KV blocks run out (hand case)") {
  // 4 blocks of 16 tokens; two requests of 16 prompt and 33 output tokens at t = 0, each needing
  // ceil(48 / 16) = 3 blocks at its end. Both prefill in step 1 (1 block each) and decode together
  // (2 blocks each from token 17); at token 33 the first needs a third block, none is free, and
  // the most recently admitted (the second) is preempted: its 2 blocks freed, its 16 + 17 tokens
  // recomputed in one prefill once the first has finished and freed its 3 blocks.
  const auto reqs = at_times({0.0, 0.0}, 16, 33);
  scheduler_params sp;
  sp.kv_tokens = 64;
  const auto r = simulate_gpu(validated_gpu(h100_sxm5()), preset("Mixtral-8x7B"), sp, reqs, 2);
  REQUIRE(r.feasible);
  CHECK(r.kv_tokens == 64);
  CHECK(r.preemptions == 1);
  CHECK(r.prefill_steps == 2);  // both prompts, then the recompute
  CHECK(r.mixed_steps == 0);
  CHECK(r.finish_s[1] > r.finish_s[0]);
  sp.kv_tokens = 96;  // 6 blocks: both fit to the end
  const auto ok = simulate_gpu(validated_gpu(h100_sxm5()), preset("Mixtral-8x7B"), sp, reqs, 2);
  CHECK(ok.preemptions == 0);
  CHECK(ok.prefill_steps == 1);
  CHECK(ok.finish_s[1] == ok.finish_s[0]);
  sp.kv_tokens = 32;  // 2 blocks: a request can never hold its 3
  CHECK_FALSE(simulate_gpu(validated_gpu(h100_sxm5()), preset("Mixtral-8x7B"), sp, reqs, 2).feasible);
}

TEST_CASE("engine: a shared 100-token prefix is prefilled once, later prompts skip it") {
  // Requests 10 s apart (each alone): with blocks of 4 tokens the 100 shared tokens are 25 whole
  // blocks; every request after the first skips them and prefills the rest of its prompt. vLLM's
  // 16-token blocks cache 96 of them (6 whole blocks).
  // Qwen2.5-32B on one H100, 1000-token prompts: the prefill is compute-bound (1000 tokens per
  // weight byte pair, far above the H100's ridge of ~260), so skipping 100 of 1000 tokens cuts
  // its time by about the prefix's share, 10 % (the 900 still attend to the 100 cached ones).
  const auto g = validated_gpu(h100_sxm5());
  const auto reqs = at_times({1.0, 11.0, 21.0, 31.0}, 1000, 2);
  engine_params e;
  e.block_size = 4;
  const model q = preset("Qwen2.5-32B");
  const auto none = simulate_gpu(g, q, scheduler_params{}, reqs, 1, e);
  e.shared_prefix_tokens = 100;
  const auto pre = simulate_gpu(g, q, scheduler_params{}, reqs, 1, e);
  REQUIRE(none.feasible);
  REQUIRE(pre.feasible);
  CHECK(none.prefix_cached_tokens == 0);
  CHECK(pre.prefix_cached_tokens == 3 * 100);
  const auto ttft = [&](const serving_result& r, std::size_t i) { return r.first_token_s[i] - reqs[i].arrival_s; };
  CHECK(ttft(pre, 0) == ttft(none, 0));  // the first computes it
  CHECK(ttft(pre, 3) / ttft(none, 3) == Approx(900.0 / 1000.0).epsilon(0.02));
  e.block_size = 16;
  CHECK(simulate_gpu(g, q, scheduler_params{}, reqs, 1, e).prefix_cached_tokens == 3 * 96);
  e.enable_prefix_caching = false;
  CHECK(simulate_gpu(g, q, scheduler_params{}, reqs, 1, e).prefix_cached_tokens == 0);
  // Mixtral on 2 x H100 with 400-token prompts: a prefill of 300 or 400 tokens is bound by reading
  // the experts' weights (each expert sees only a quarter of the tokens), so the prefix saves
  // FLOPs but little time: the TTFT drops by less than its share.
  engine_params m4;
  m4.block_size = 4;
  const auto mreqs = at_times({1.0, 11.0}, 400, 2);
  const model m = preset("Mixtral-8x7B");
  const auto mn = simulate_gpu(g, m, scheduler_params{}, mreqs, 2, m4);
  m4.shared_prefix_tokens = 100;
  const auto mp = simulate_gpu(g, m, scheduler_params{}, mreqs, 2, m4);
  const double ratio = (mp.first_token_s[1] - 11.0) / (mn.first_token_s[1] - 11.0);
  CHECK(ratio < 1.0);
  CHECK(ratio > 300.0 / 400.0);
}

TEST_CASE("engine against FCFS: at high load mixed steps serve more requests per second") {
  // Mixtral on 2 x H100, 512-token prompts and 128-token outputs, 20 req/s for 60 s: FCFS runs
  // each admitted group's prefill as its own pass over the weights, the engine mixes the prompts'
  // chunks into the decode steps.
  request_gen_params gp;
  gp.arrivals = arrival_process::constant;
  gp.stages = {{.rate = 20.0, .duration_s = 60.0}};
  gp.topics = {"t"};
  gp.output = {.kind = length_kind::fixed, .value = 128, .min = 1, .max = 1024, .values = {}};
  const auto reqs = generate_requests(gp);
  REQUIRE(reqs.size() == 1200);
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  const auto e = simulate_gpu(g, m, scheduler_params{}, reqs, 2);
  const auto f = simulate_gpu(g, m, scheduler_params{}, reqs, 2, {}, gpu_scheduler::fcfs);
  REQUIRE(e.feasible);
  REQUIRE(f.feasible);
  MESSAGE("engine " << e.throughput_rps << " req/s, E2E " << e.e2e.mean_s << " s; fcfs " << f.throughput_rps
                    << " req/s, E2E " << f.e2e.mean_s << " s");
  CHECK(e.mixed_steps > 0);
  CHECK(f.mixed_steps == 0);
  CHECK(e.throughput_rps > f.throughput_rps);
  CHECK(e.e2e.mean_s < f.e2e.mean_s);
}

TEST_CASE("staged constant load and the latency metrics (TTFT, ITL, TPOT, E2E, client overhead)") {
  request_gen_params gp;
  gp.arrivals = arrival_process::constant;
  gp.stages = {{.rate = 2.0, .duration_s = 10.0}, {.rate = 5.0, .duration_s = 4.0}};
  gp.topics = {"t"};
  gp.prompt = {.kind = length_kind::fixed, .value = 256, .min = 1, .max = 1024, .values = {}};
  gp.output = {.kind = length_kind::fixed, .value = 32, .min = 1, .max = 1024, .values = {}};
  const auto reqs = generate_requests(gp);
  REQUIRE(reqs.size() == 40);
  CHECK(reqs[0].arrival_s == 0.0);
  CHECK(reqs[19].arrival_s == Approx(9.5));
  CHECK(reqs[20].arrival_s == Approx(10.0));
  CHECK(reqs[39].arrival_s == Approx(13.8));
  scheduler_params sp;
  const auto g = validated_gpu(h100_sxm5());
  auto r = simulate_gpu(g, preset("Mixtral-8x7B"), sp, reqs, 2);
  REQUIRE(r.feasible);
  add_stage_results(r, reqs, gp.stages);
  REQUIRE(r.stages.size() == 2);
  CHECK(r.stages[0].requests == 20);
  CHECK(r.stages[1].requests == 20);
  CHECK(r.stages[1].end_s == Approx(r.makespan_s));
  CHECK(r.stages[0].completed + r.stages[1].completed == 40);
  // TPOT = (E2E − TTFT)/(output − 1) per request: with equal outputs its mean is the ITL mean.
  CHECK(r.tpot.mean_s == Approx((r.e2e.mean_s - r.ttft.mean_s) / 31.0).epsilon(1e-9));
  CHECK(r.itl.mean_s == Approx(r.tpot.mean_s).epsilon(1e-9));
  CHECK(r.itl.p50_s == r.tbt_p50_s);
  CHECK(r.ttft.p50_s <= r.ttft.p90_s);
  CHECK(r.ttft.p90_s <= r.ttft.p99_s);
  sp.client_overhead = units::ms(50.0);
  const auto o = simulate_gpu(g, preset("Mixtral-8x7B"), sp, reqs, 2);
  CHECK(o.ttft.mean_s == Approx(r.ttft.mean_s + 0.05).epsilon(1e-12));
  CHECK(o.e2e.p99_s == Approx(r.e2e.p99_s + 0.05).epsilon(1e-12));
  CHECK(o.tpot.mean_s == Approx(r.tpot.mean_s).epsilon(1e-12));
  CHECK(o.client_overhead_s == 0.05);
}

TEST_CASE("scenario JSON: gpu.scheduler, gpu.engine and requests.stages; bad fields named") {
  const std::string text = R"({"model": "Mixtral-8x7B",
    "requests": {"arrivals": "constant", "topics": ["arxiv"], "seed": 2,
                 "prompt": {"kind": "fixed", "value": 300}, "output": {"kind": "fixed", "value": 20},
                 "stages": [{"rate": 2, "duration_s": 5}, {"rate": 4, "duration_s": 5}]},
    "usage": {"counts": "olmoe_mixtral_expert_counts_by_domain.csv"},
    "scheduler": {"policy": "fcfs", "client_overhead": "10 ms"},
    "gpu": {"gpus": 2, "scheduler": "engine", "engine": {"max_num_seqs": 64, "shared_prefix_tokens": 64}}})";
  const auto s = read_serving_scenario(text);
  CHECK(s.gpu.engine.max_num_seqs == 64);
  CHECK_FALSE(s.gpu.engine.max_num_batched_tokens.has_value());  // unset: vLLM's default for the card (engine_limits_of)
  const auto r = run_scenario(s, std::string(STRATA_TEST_DATA_DIR) + "/traces");
  REQUIRE(r.gpu.feasible);
  CHECK(r.gpu.policy == "engine");
  CHECK(r.gpu.requests == 30);
  CHECK(r.gpu.stages.size() == 2);
  CHECK(r.stratum.stages.size() == 2);
  CHECK(r.gpu.prefix_cached_tokens == 29 * 64);
  const auto js = serving_json(r);
  CHECK(js.find("\"served_requests_per_s\"") != std::string::npos);
  CHECK(js.find("\"tpot\"") != std::string::npos);
  std::ostringstream os;
  print_summary(os, r);
  CHECK(os.str().find("stage 1") != std::string::npos);
  CHECK(os.str().find("mixed") != std::string::npos);
  const auto err = [&](const std::string& j) { return field_of([&] { (void)read_serving_scenario(j); }); };
  CHECK(err(R"({"gpu": {"engine": {"max_num_seqs": 0}}})") == "gpu.engine.max_num_seqs");
  CHECK(err(R"({"gpu": {"engine": {"gpu_memory_utilization": 1.5}}})") == "gpu.engine.gpu_memory_utilization");
  CHECK(err(R"({"gpu": {"scheduler": "sarathi"}})") == "gpu.scheduler");
  CHECK(err(R"({"requests": {"stages": [{"rate": -1, "duration_s": 5}]}})") == "requests.stages[0].rate");
  CHECK(err(R"({"requests": {"stages": [{"rate": 1, "duration_s": 0}]}})") == "requests.stages[0].duration_s");
  CHECK(err(R"({"scheduler": {"client_overhead": "-1 s"}})") == "scheduler.client_overhead");
}

TEST_CASE("staged Poisson load: each stage holds about rate x duration arrivals inside its window") {
  request_gen_params gp;
  gp.arrivals = arrival_process::poisson;
  gp.stages = {{.rate = 50.0, .duration_s = 100.0}, {.rate = 200.0, .duration_s = 50.0}};
  gp.topics = {"t"};
  const auto reqs = generate_requests(gp);
  std::size_t first = 0;
  for (const auto& r : reqs) first += r.arrival_s < 100.0 ? 1 : 0;
  const std::size_t second = reqs.size() - first;
  CHECK(static_cast<double>(first) == Approx(5000.0).epsilon(0.05));  // sd sqrt(5000) ~ 1.4 %
  CHECK(static_cast<double>(second) == Approx(10000.0).epsilon(0.05));
  CHECK(reqs.back().arrival_s < 150.0);
  CHECK(reqs.front().arrival_s > 0.0);
  gp.stages = {{.rate = 1000.0, .duration_s = 1e4}};  // 10^7 requests expected
  CHECK(field_of([&] { (void)generate_requests(gp); }) == "stages");
}

TEST_CASE("engine defaults as vLLM's engine arguments choose them: by card memory and usage context, a set value wins") {
  const engine_params unset{};
  CHECK(unset.usage == usage_context::openai_api_server);
  // H100 80 GB (>= 70 GiB, not an A100): vLLM serve's larger defaults.
  CHECK(engine_limits_of(unset, h100_sxm5().memory_capacity, h100_sxm5().name) == engine_limits{8192, 1024});
  CHECK(engine_limits_of(unset, h200_sxm().memory_capacity, h200_sxm().name) == engine_limits{8192, 1024});
  // RTX A6000 48 GB and A100 80 GB (excluded by name, vLLM pull request 17885): the small ones.
  CHECK(engine_limits_of(unset, rtx_a6000().memory_capacity, rtx_a6000().name) == engine_limits{2048, 256});
  CHECK(engine_limits_of(unset, a100_sxm4_80gb().memory_capacity, a100_sxm4_80gb().name) == engine_limits{2048, 256});
  // The LLM class and other entry points.
  engine_params offline;
  offline.usage = usage_context::llm_class;
  CHECK(engine_limits_of(offline, h100_sxm5().memory_capacity, h100_sxm5().name) == engine_limits{16384, 1024});
  CHECK(engine_limits_of(offline, rtx_a6000().memory_capacity, rtx_a6000().name) == engine_limits{8192, 256});
  engine_params other;
  other.usage = usage_context::other;
  CHECK(engine_limits_of(other, h100_sxm5().memory_capacity, h100_sxm5().name) == scheduler_fallback_limits);
  // A value the scenario sets wins; an unset cap is at most the budget.
  const engine_params seqs{.max_num_seqs = 64};
  CHECK(engine_limits_of(seqs, h100_sxm5().memory_capacity, h100_sxm5().name) == engine_limits{8192, 64});
  const engine_params tokens{.max_num_batched_tokens = 100};
  CHECK(engine_limits_of(tokens, h100_sxm5().memory_capacity, h100_sxm5().name) == engine_limits{100, 100});
  // The run uses them: on H100 an unset engine admits past 256 sequences, on RTX A6000 never.
  std::vector<request> reqs;
  for (int i = 0; i < 600; ++i) reqs.push_back({.id = static_cast<std::int64_t>(i), .arrival_s = 0.0, .prompt = 64, .output = 64});
  const model m = preset("Mixtral-8x7B");
  const auto h = simulate_gpu(h100_sxm5(), m, scheduler_params{}, reqs, 2, unset);
  REQUIRE(h.feasible);
  CHECK(h.mean_batch > 256.0);
  const auto capped = simulate_gpu(h100_sxm5(), m, scheduler_params{}, reqs, 2, engine_params{.max_num_seqs = 128});
  REQUIRE(capped.feasible);
  CHECK(capped.mean_batch <= 128.0);
  // JSON: the usage context by name, an unset limit as null, bad names and values named.
  const json j = engine_params{.max_num_seqs = 32, .usage = usage_context::llm_class};
  CHECK(j.at("max_num_batched_tokens").is_null());
  CHECK(j.at("usage_context") == "llm_class");
  CHECK(from_json_at<engine_params>(j) == engine_params{.max_num_seqs = 32, .usage = usage_context::llm_class});
  CHECK(field_of([] { (void)from_json_at<engine_params>(json::parse(R"({"usage_context": "vllm"})"), "gpu.engine"); }) ==
        "gpu.engine.usage_context");
  CHECK(field_of([] { validate(engine_params{.max_num_batched_tokens = 0}, "gpu.engine"); }) ==
        "gpu.engine.max_num_batched_tokens");
}
