// Workloads as benchmark tools generate them (requests.hpp: normal and lognormal lengths, prefix
// groups and multi-turn conversations; length_csv.hpp: lengths from a CSV) and the engine's host
// time and first-token path (engine_host.hpp, run_engine).
#include "strata/serving/length_csv.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "strata/serving/serving_json.hpp"
#include "strata/workload/presets.hpp"
#include "support/scalars.hpp"

using namespace strata;
using doctest::Approx;

namespace {

// Mean and coefficient of variation of n draws of `law`.
std::pair<double, double> s45b_moments(const length_params& law, int n) {
  request_gen_params g;
  g.count = n;
  g.rate = 1000.0;
  g.prompt = law;
  const auto reqs = generate_requests(g);
  double s = 0.0, s2 = 0.0;
  for (const auto& r : reqs) {
    s += r.prompt;
    s2 += double(r.prompt) * r.prompt;
  }
  const double m = s / n;
  const double var = s2 / n - m * m;
  return {m, std::sqrt(var) / m};
}

std::vector<request> s45b_spaced(const std::vector<request>& rs, double gap) {
  std::vector<request> out = rs;
  for (std::size_t i = 0; i < out.size(); ++i) out[i].arrival_s = gap * double(i + 1);
  return out;
}

}  // namespace

TEST_CASE("normal lengths: rounded to the nearest integer, clamped to [min, max]; mean and sd converge") {
  detail::portable_rng g(7);
  length_params n{.kind = length_kind::normal, .value = 0, .min = 1, .max = 1000, .values = {}, .mean = 100.5, .sd = 0.0, .cv = 0.0};
  CHECK(detail::draw_length(n, g) == 101);  // halves away from zero
  n.mean = 100.4;
  CHECK(detail::draw_length(n, g) == 100);
  n.mean = 1000.0;
  n.max = 900;
  CHECK(detail::draw_length(n, g) == 900);  // clamped to max
  CHECK(detail::round_clamp_length(-5.0, 3, 9) == 3);
  CHECK(detail::round_clamp_length(1e300, 3, 9) == 9);
  const auto [m, cv] = s45b_moments(
      {.kind = length_kind::normal, .value = 0, .min = 1, .max = 10000, .values = {}, .mean = 500.0, .sd = 50.0, .cv = 0.0},
      200000);
  CHECK(m == Approx(500.0).epsilon(1e-3));
  CHECK(cv * m == Approx(50.0).epsilon(1e-2));
}

TEST_CASE("lognormal lengths, given as mean and cv: the sample mean and cv converge to them") {
  const auto [mu, sigma] = detail::lognormal_mu_sigma(300.0, 0.8);
  CHECK(sigma * sigma == Approx(std::log(1.64)).epsilon(1e-12));
  CHECK(std::exp(mu + sigma * sigma / 2) == Approx(300.0).epsilon(1e-12));
  const auto [m, cv] = s45b_moments(
      {.kind = length_kind::lognormal, .value = 0, .min = 1, .max = 20000, .values = {}, .mean = 300.0, .sd = 0.0, .cv = 0.8},
      200000);
  CHECK(m == Approx(300.0).epsilon(1e-2));
  CHECK(cv == Approx(0.8).epsilon(3e-2));
}

TEST_CASE("normal and lognormal laws: bad parameters name their field") {
  request_gen_params g;
  g.prompt = {.kind = length_kind::normal, .value = 0, .min = 1, .max = 100, .values = {}, .mean = 50.0, .sd = -1.0, .cv = 0.0};
  CHECK_THROWS_WITH_AS(validate(g, "requests"), doctest::Contains("requests.prompt.sd"), config_error);
  g.prompt.sd = 1.0;
  g.prompt.mean = 0.0;
  CHECK_THROWS_WITH_AS(validate(g, "requests"), doctest::Contains("requests.prompt.mean"), config_error);
  g.prompt.mean = 50.0;
  g.prompt.min = 0;
  CHECK_THROWS_WITH_AS(validate(g, "requests"), doctest::Contains("requests.prompt.min"), config_error);
  g.prompt.min = 1;
  g.output = {.kind = length_kind::lognormal, .value = 0, .min = 1, .max = 100, .values = {}, .mean = 50.0, .sd = 0.0, .cv = -0.5};
  CHECK_THROWS_WITH_AS(validate(g, "requests"), doctest::Contains("requests.output.cv"), config_error);
  g.output.cv = 0.5;
  CHECK_NOTHROW(validate(g, "requests"));
}

TEST_CASE("length CSV: prompt,output rows drawn together; one column sets one law") {
  const auto t = parse_length_csv("# lengths\nprompt, output\n100,20\r\n\n300 ,40\n");
  CHECK(t.prompt == std::vector<int>{100, 300});
  CHECK(t.output == std::vector<int>{20, 40});
  request_gen_params g;
  g.count = 200;
  apply_length_csv(g, t);
  CHECK(g.paired);
  for (const auto& r : generate_requests(g)) {
    CHECK(((r.prompt == 100 && r.output == 20) || (r.prompt == 300 && r.output == 40)));
  }
  const auto o = parse_length_csv("output\n7\n9");
  CHECK(o.has_output);
  CHECK_FALSE(o.has_prompt);
  request_gen_params h;
  apply_length_csv(h, o);
  CHECK_FALSE(h.paired);
  CHECK(h.output.values == std::vector<int>{7, 9});
  CHECK(h.prompt.kind == length_kind::fixed);
}

TEST_CASE("length CSV: bad input is an error naming the line and the column") {
  CHECK_THROWS_WITH_AS(parse_length_csv("prompt,input\n1,2\n"), doctest::Contains("header column 'input'"), config_error);
  CHECK_THROWS_WITH_AS(parse_length_csv("prompt,prompt\n1,2\n"), doctest::Contains("each at most once"), config_error);
  CHECK_THROWS_WITH_AS(parse_length_csv("prompt\n12\n0\n"), doctest::Contains("line 3: prompt '0'"), config_error);
  CHECK_THROWS_WITH_AS(parse_length_csv("prompt\n12x\n"), doctest::Contains("prompt '12x'"), config_error);
  CHECK_THROWS_WITH_AS(parse_length_csv("prompt,output\n12\n"), doctest::Contains("2 values"), config_error);
  CHECK_THROWS_WITH_AS(parse_length_csv("prompt\n999999999\n"), doctest::Contains("serving_limits().tokens"), config_error);
  CHECK_THROWS_WITH_AS(parse_length_csv("# nothing\n"), doctest::Contains("a header row"), config_error);
  CHECK_THROWS_WITH_AS(parse_length_csv("prompt\n"), doctest::Contains("at least one row"), config_error);
  CHECK_THROWS_AS(read_length_csv(std::filesystem::temp_directory_path().string()), config_error);  // a directory
  request_gen_params g;
  g.paired = true;
  CHECK_THROWS_WITH_AS(validate(g, "requests"), doctest::Contains("requests.paired"), config_error);
}

TEST_CASE("prefix groups: G x U users, each round resending its conversation (inference-perf's rule)") {
  request_gen_params g;
  g.count = 14;
  g.prompt = {.kind = length_kind::fixed, .value = 50, .min = 1, .max = 1024, .values = {}};
  g.output = {.kind = length_kind::fixed, .value = 20, .min = 1, .max = 1024, .values = {}};
  g.prefix_groups = {.groups = 2, .users = 3, .system_prompt = 100, .multi_turn = true};
  const auto r = generate_requests(g);
  REQUIRE(r.size() == 14);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const int u = int(i % 6), round = int(i / 6);
    CHECK(r[i].prefix_group == u / 3);
    CHECK(r[i].prefix_tokens == 100);
    CHECK(r[i].conversation == u);
    CHECK(r[i].history_tokens == round * 70);
    CHECK(r[i].prompt == 100 + round * 70 + 50);
    CHECK(r[i].output == 20);
  }
  g.prefix_groups.multi_turn = false;
  for (const auto& x : generate_requests(g)) {
    CHECK(x.conversation == -1);
    CHECK(x.history_tokens == 0);
    CHECK(x.prompt == 150);
  }
  // A conversation whose resent history outgrows the token limit is refused before anything is drawn.
  g.prefix_groups = {.groups = 1, .users = 1, .system_prompt = 100, .multi_turn = true};
  g.count = 3000;
  CHECK_THROWS_WITH_AS(validate(g, "requests"), doctest::Contains("requests.prefix_groups"), config_error);
  g.prefix_groups.users = 0;
  CHECK_THROWS_WITH_AS(validate(g, "requests"), doctest::Contains("requests.prefix_groups.users"), config_error);
}

TEST_CASE("engine: a request hits its own group's system prompt, a later turn its conversation's blocks") {
  const auto card = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  engine_params ep;
  ep.host = engine_host_params::none();
  request_gen_params g;
  g.prompt = {.kind = length_kind::fixed, .value = 50, .min = 1, .max = 1024, .values = {}};
  g.output = {.kind = length_kind::fixed, .value = 20, .min = 1, .max = 1024, .values = {}};
  SUBCASE("groups: the first of each group computes its 6 full blocks, the others hit them") {
    g.count = 4;
    g.prefix_groups = {.groups = 2, .users = 1, .system_prompt = 100, .multi_turn = false};
    const auto reqs = s45b_spaced(generate_requests(g), 10.0);  // one at a time
    const auto r = simulate_gpu(card, m, scheduler_params{}, reqs, 2, ep);
    REQUIRE(r.feasible);
    CHECK(r.prefix_cached_tokens == 2 * 96);  // requests 2 and 3: 6 blocks of 16 each
  }
  SUBCASE("a conversation: round k hits the full blocks its round k - 1 wrote") {
    g.count = 3;
    g.prefix_groups = {.groups = 1, .users = 1, .system_prompt = 100, .multi_turn = true};
    const auto reqs = s45b_spaced(generate_requests(g), 10.0);
    CHECK(reqs[1].prompt == 220);
    const auto r = simulate_gpu(card, m, scheduler_params{}, reqs, 2, ep);
    REQUIRE(r.feasible);
    // Round 0 wrote 150 + 20 - 1 = 169 tokens: 10 full blocks (160); round 1 wrote 239: 14 (224).
    CHECK(r.prefix_cached_tokens == 160 + 224);
    ep.enable_prefix_caching = false;
    CHECK(simulate_gpu(card, m, scheduler_params{}, reqs, 2, ep).prefix_cached_tokens == 0);
  }
  SUBCASE("eviction: blocks allocated since the turn ended take its last blocks first") {
    g.count = 2;
    g.prefix_groups = {.groups = 1, .users = 1, .system_prompt = 100, .multi_turn = true};
    auto reqs = s45b_spaced(generate_requests(g), 10.0);
    // An unrelated 1900-token prompt between the rounds: 119 blocks from the free queue, which
    // held 117 free blocks ahead of round 0's (128 - 11 held at its finish).
    request big;
    big.arrival_s = 15.0;
    big.prompt = 1900;
    big.output = 2;
    reqs.insert(reqs.begin() + 1, big);
    reqs[2].arrival_s = 20.0;
    for (std::size_t i = 0; i < reqs.size(); ++i) reqs[i].id = std::int64_t(i);
    scheduler_params sp;
    sp.kv_tokens = 128 * 16;
    const auto r = simulate_gpu(card, m, sp, reqs, 2, ep);
    REQUIRE(r.feasible);
    CHECK(r.prefix_cached_tokens == (10 - 2) * 16);  // 2 of its 10 full blocks evicted
  }
}

TEST_CASE("engine host time: async scheduling makes a step max(GPU, host) and a late arrival wait a step") {
  const auto card = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  std::vector<request> reqs(2);
  reqs[0] = {.id = 0, .arrival_s = 0.0, .prompt = 64, .output = 6};
  reqs[1] = {.id = 1, .arrival_s = 0.5, .prompt = 64, .output = 2};
  engine_params ep;
  // A host time of 1 s per step, longer than any of these GPU steps: every step lasts 1 s.
  ep.host = {.async_scheduling = true, .step_s = 1.0, .per_sequence_s = 0.0, .tokenize_s_per_token = 0.0};
  const auto r = simulate_gpu(card, m, scheduler_params{}, reqs, 2, ep);
  REQUIRE(r.feasible);
  CHECK(r.first_token_s[0] == 1.0);
  // Request 1 arrives during step [0, 1); step [1, 2) was scheduled at 0 without it, so it
  // prefills in step [2, 3) (a synchronous engine would take it at 1).
  CHECK(r.first_token_s[1] == 3.0);
  CHECK(r.finish_s[1] == 4.0);
  CHECK(r.finish_s[0] == 6.0);
  // Synchronous: h added to every step's GPU time; one request, one prefill and one decode step.
  ep.host = {.async_scheduling = false, .step_s = 1e-3, .per_sequence_s = 2e-4, .tokenize_s_per_token = 1e-5};
  const std::vector<request> one{reqs[0]};
  const auto s = simulate_gpu(card, m, scheduler_params{}, one, 2, ep);
  engine_params off;
  off.host = engine_host_params::none();
  const auto s0 = simulate_gpu(card, m, scheduler_params{}, std::vector<request>{{.id = 0, .arrival_s = 0.0, .prompt = 64, .output = 6}}, 2, off);
  // Tokenisation: 64 x 10 us before the engine; each of its 6 steps 1.2 ms more.
  CHECK(s.first_token_s[0] == Approx(s0.first_token_s[0] + 64 * 1e-5 + 1.2e-3).epsilon(1e-12));
  CHECK(s.finish_s[0] == Approx(s0.finish_s[0] + 64 * 1e-5 + 6 * 1.2e-3).epsilon(1e-12));
  CHECK(s.ttft.mean_s == Approx(s0.ttft.mean_s + 64 * 1e-5 + 1.2e-3).epsilon(1e-12));
}

TEST_CASE("engine host terms: closed forms and checked parameters") {
  const engine_host_params p{.async_scheduling = false, .step_s = 1e-4, .per_sequence_s = 1e-5, .tokenize_s_per_token = 2e-6};
  CHECK(host_step_time(p, 10.0) == Approx(2e-4).epsilon(1e-12));
  CHECK(engine_step_time(p, 0.01, 2e-4) == Approx(0.0102).epsilon(1e-12));
  engine_host_params a = p;
  a.async_scheduling = true;
  CHECK(engine_step_time(a, 0.01, 2e-4) == 0.01);
  CHECK(engine_step_time(a, 1e-4, 2e-4) == 2e-4);
  CHECK(engine_arrival_delay(p, 1000.0) == Approx(2e-3).epsilon(1e-12));
  CHECK(engine_step_time(engine_host_params::none(), 0.0123, host_step_time(engine_host_params::none(), 77.0)) == 0.0123);
  engine_params ep;
  ep.host.per_sequence_s = -1.0;
  CHECK_THROWS_WITH_AS(validate(ep, "gpu.engine"), doctest::Contains("gpu.engine.host.per_sequence_s"), config_error);
  ep.host.per_sequence_s = 0.0;
  ep.host.tokenize_s_per_token = 1.0;
  CHECK_THROWS_WITH_AS(validate(ep, "gpu.engine"), doctest::Contains("gpu.engine.host.tokenize_s_per_token"), config_error);
}

TEST_CASE("scenario: lengths_csv replaces the length laws; prefix groups and host terms read from JSON") {
  const auto dir = std::filesystem::temp_directory_path() / "strata_s45b_lengths";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "lengths.csv") << "prompt,output\n200,10\n400,20\n";
  }
  const auto s = read_serving_scenario(R"({"system": "none", "model": "Mixtral-8x7B",
      "requests": {"count": 20, "rate": 4, "prefix_groups": {"groups": 2, "users": 2, "system_prompt": 64}},
      "lengths_csv": "lengths.csv",
      "gpu": {"gpus": 2, "engine": {"host": {"async_scheduling": false, "step_s": 0.001}}}})");
  CHECK(s.gpu.engine.host.step_s == 0.001);
  CHECK(s.gpu.engine.host.per_sequence_s == 12.7e-6);
  CHECK(s.requests.prefix_groups.groups == 2);
  const auto r = run_scenario(s, std::string{}, dir.string());
  REQUIRE(r.has_gpu);
  REQUIRE(r.gpu.feasible);
  // Every prompt is a system prompt of 64 and one of the CSV's questions; outputs pair with them.
  CHECK(r.gpu.output_tokens % 10 == 0);
  CHECK(r.gpu.output_tokens >= 200);
  CHECK(r.gpu.output_tokens <= 400);
  CHECK(r.gpu.prefix_cached_tokens > 0);
  auto bad = s;
  bad.lengths_csv = "missing.csv";
  CHECK_THROWS_WITH_AS(run_scenario(bad, std::string{}, dir.string()), doctest::Contains("lengths_csv"), config_error);
  CHECK_THROWS_WITH_AS(read_serving_scenario(R"({"system": "none", "lengths_csv": "x.csv",
      "request_list": [{"arrival_s": 0, "prompt": 5, "output": 5, "topic": "arxiv"}]})"),
                       doctest::Contains("lengths_csv"), config_error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("engine host terms differentiate with autodiff: dh/db, d(step)/d(gpu), d(delay)/d(prompt)") {
  using strata_test::fvar1;
  const engine_host_params p{.async_scheduling = false, .step_s = 1e-4, .per_sequence_s = 1e-5, .tokenize_s_per_token = 2e-6};
  const fvar1 b = strata_test::make_fvar<double, 1>(32.0);
  const fvar1 h = host_step_time(p, b);
  CHECK(h.derivative(0) == Approx(1e-4 + 32 * 1e-5).epsilon(1e-12));
  CHECK(h.derivative(1) == Approx(1e-5).epsilon(1e-12));
  const fvar1 gpu = strata_test::make_fvar<double, 1>(0.02);
  CHECK(engine_step_time(p, gpu, fvar1(1e-3)).derivative(1) == 1.0);
  engine_host_params a = p;
  a.async_scheduling = true;
  CHECK(engine_step_time(a, gpu, fvar1(1e-3)).derivative(1) == 1.0);  // the GPU binds
  CHECK(engine_step_time(a, fvar1(1e-4), h).derivative(1) == Approx(1e-5).epsilon(1e-12));  // the host binds
  const fvar1 prompt = strata_test::make_fvar<double, 1>(512.0);
  CHECK(engine_arrival_delay(p, prompt).derivative(1) == Approx(2e-6).epsilon(1e-12));
}
