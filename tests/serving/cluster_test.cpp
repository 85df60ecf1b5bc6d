// Beyond one engine (serving/engine_core.hpp, serving/cluster.hpp): the steppable engine core,
// replicas behind a router, prefill/decode disaggregation; hand-checked small cases on a step
// cost of a + b x tokens, invariants on the H100 costs, bad input.
#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

// A step of T tokens takes 10 ms + 1 ms x T (a machine supplying costs through the concept alone).
struct cluster_test_costs {
  step_cost mixed(const mixed_step& s) { return {0.010 + 0.001 * s.tokens, 0.0}; }
};
static_assert(step_cost_source<cluster_test_costs>);
static_assert(!ranked_step_cost_source<cluster_test_costs>);
static_assert(ranked_step_cost_source<gpu_step_costs>);

std::vector<request> cluster_test_requests(int count, double gap, int prompt, int output) {
  std::vector<request> r;
  for (int i = 0; i < count; ++i) r.push_back({i, i * gap, prompt, output, 0, -1});
  return r;
}

// The hand-derived cases count GPU steps alone: the engine's host time off (engine_host.hpp).
engine_params cluster_test_engine() {
  engine_params ep;
  ep.host = engine_host_params::none();
  return ep;
}

serving_result cluster_test_run(const std::vector<request>& reqs, const serving_cluster& cl, double kv_per_token = 0.0) {
  cluster_test_costs c;
  const engine_params ep = cluster_test_engine();
  const engine_limits lim{8192, 256};
  return detail::run_engine_cluster(reqs, ep, lim, 100000, c, scheduler_params{}, 1, cl, kv_per_token, 1);
}

std::vector<request> cluster_test_load(double rate, int count) {
  request_gen_params g;
  g.rate = rate;
  g.count = count;
  g.topics = {"t"};
  g.prompt = {.kind = length_kind::uniform, .value = 0, .min = 128, .max = 1024, .values = {}};
  g.output = {.kind = length_kind::uniform, .value = 0, .min = 32, .max = 256, .values = {}};
  return generate_requests(g);
}

}  // namespace

TEST_CASE("engine core: run_engine on its own steps, driven by hand, gives the same times") {
  // One request of prompt 100 and 3 tokens: a 100-token prefill (0.11 s), then two decodes of one
  // token (0.011 s each).
  const auto reqs = cluster_test_requests(1, 0.0, 100, 3);
  cluster_test_costs c;
  engine_request_state st(1);
  engine_core<cluster_test_costs> core(reqs, st, cluster_test_engine(), engine_limits{8192, 256}, 1000, c);
  CHECK(core.unfit(0).empty());
  core.admit(0);
  CHECK(core.outstanding() == 1);
  CHECK(core.waiting() == 1);
  std::vector<std::size_t> done, handed;
  double t = 0.0;
  for (int k = 0; k < 3; ++k) {
    const auto s = core.begin_step();
    REQUIRE(s.status == engine_step_status::ran);
    t += s.cost.time_s;
    core.end_step(t, done, handed);
  }
  CHECK(st.first[0] == Approx(0.110));
  CHECK(st.finish[0] == Approx(0.132));
  CHECK(done == std::vector<std::size_t>{0});
  CHECK(handed.empty());
  CHECK(core.outstanding() == 0);
  CHECK(core.free_blocks() == 1000);
  CHECK(core.begin_step().status == engine_step_status::idle);
  const auto r = detail::run_engine(reqs, cluster_test_engine(), engine_limits{8192, 256}, 1000, c, scheduler_params{});
  CHECK(r.makespan_s == st.finish[0]);
  CHECK(r.ttft.mean_s == st.first[0]);
  CHECK(r.prefill_steps == 1);
  CHECK(r.decode_steps == 2);
}

TEST_CASE("replicas: 2 round-robin replicas serve 4 identical requests as two pairs, by hand") {
  // Four requests at t = 0, prompt 100, 3 tokens. Round robin: 0, 2 on replica 0; 1, 3 on replica 1.
  // Each replica: a 200-token prefill, 0.21 s; two 2-token decodes, 0.012 s each: last at 0.234 s.
  // One replica: a 400-token prefill, 0.41 s, then 0.014 s decodes: last at 0.438 s.
  const auto reqs = cluster_test_requests(4, 0.0, 100, 3);
  serving_cluster two;
  two.replicas.count = 2;
  const auto r = cluster_test_run(reqs, two);
  REQUIRE(r.feasible);
  CHECK(r.engines == 2);
  CHECK(r.router == "round_robin");
  CHECK(r.engine_requests == std::vector<std::int64_t>{2, 2});
  CHECK(r.makespan_s == Approx(0.234));
  CHECK(r.ttft.mean_s == Approx(0.210));
  CHECK(r.ttft.p99_s == Approx(0.210));
  CHECK(r.itl.mean_s == Approx(0.012));
  CHECK(r.prefill_steps == 2);
  CHECK(r.decode_steps == 4);
  CHECK(r.mean_batch == Approx(2.0));
  CHECK(r.output_tokens == 12);
  const auto one = cluster_test_run(reqs, serving_cluster{});
  CHECK(one.makespan_s == Approx(0.438));
  CHECK(one.ttft.mean_s == Approx(0.410));
  CHECK(one.engine_requests == std::vector<std::int64_t>{4});
}

TEST_CASE("replicas: least outstanding counts admitted, unfinished requests at the arrival; ties to the lowest index") {
  // Requests at 0, 0, 0: replica 0, 1, then 0 (1 each: the tie to 0). At 0.5 s every request has
  // finished (the longest replica ends at 0.21 + 2 x 0.012 = 0.234 s): the fourth to replica 0.
  auto reqs = cluster_test_requests(3, 0.0, 100, 3);
  reqs.push_back({3, 0.5, 100, 3, 0, -1});
  serving_cluster lo;
  lo.replicas = {.count = 2, .router = replica_router::least_outstanding};
  const auto r = cluster_test_run(reqs, lo);
  CHECK(r.engine_requests == std::vector<std::int64_t>{3, 1});
  // The same, the fourth at 0.1 s while all three run: replica 1 (1 outstanding) against 0 (2).
  reqs[3].arrival_s = 0.1;
  CHECK(cluster_test_run(reqs, lo).engine_requests == std::vector<std::int64_t>{2, 2});
  // Round robin ignores the load: 0, 1, 0, 1.
  serving_cluster rr;
  rr.replicas.count = 2;
  CHECK(cluster_test_run(reqs, rr).engine_requests == std::vector<std::int64_t>{2, 2});
}

TEST_CASE("replicas: prefix affinity sends a prefix group to one replica, hash mod N; no group by least outstanding") {
  auto reqs = cluster_test_requests(12, 0.01, 64, 2);
  for (std::size_t i = 0; i < 8; ++i) reqs[i].prefix_group = 7;  // the rest: no group
  serving_cluster pa;
  pa.replicas = {.count = 4, .router = replica_router::prefix_affinity};
  const auto r = cluster_test_run(reqs, pa);
  REQUIRE(r.feasible);
  const auto home = static_cast<std::size_t>(detail::splitmix64(7) % 4);
  std::vector<std::int64_t> expect(4, 0);
  expect[home] = 8;
  // Each ungrouped request (0.01 s apart, each done in 0.074 + 0.011 s) goes to the least loaded:
  // the lowest index with 0 outstanding other than `home` while the grouped ones run.
  std::int64_t seen = 0;
  for (std::size_t k = 0; k < 4; ++k) seen += r.engine_requests[k];
  CHECK(seen == 12);
  CHECK(r.engine_requests[home] >= 8);
  for (std::size_t k = 0; k < 4; ++k) {
    if (k != home) CHECK(r.engine_requests[k] <= 4);
  }
  // Every request finished once, after it arrived.
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    CHECK(r.finish_s[i] > reqs[i].arrival_s);
    CHECK(r.first_token_s[i] <= r.finish_s[i]);
  }
}

TEST_CASE("disaggregation: one request's TTFT and E2E by hand from the step costs and the link") {
  // Prompt 100, 3 tokens. Prefill engine: a 100-token step, first token at 0.11 s. KV: 100 tokens x
  // 1000 B = 1e5 B over 1 GB/s after 1 ms: 1.1 ms, at the decode engine at 0.1111 s. There a
  // 1-token decode (0.011 s) gives token 2 at 0.1221 s, token 3 at 0.1331 s.
  const auto reqs = cluster_test_requests(1, 0.0, 100, 3);
  serving_cluster pd;
  pd.disaggregation = {.prefill = 1, .decode = 1,
                       .link = {.kind = kv_link_kind::network, .bandwidth = units::GBps(1.0), .latency = units::ms(1.0)}};
  const auto r = cluster_test_run(reqs, pd, 1000.0);
  REQUIRE(r.feasible);
  CHECK(r.engines == 2);
  CHECK(r.prefill_engines == 1);
  CHECK(r.decode_engines == 1);
  CHECK(r.engine_requests == std::vector<std::int64_t>{1, 1});
  CHECK(r.ttft.mean_s == Approx(0.110));
  CHECK(r.e2e.mean_s == Approx(0.1331));
  CHECK(r.makespan_s == Approx(0.1331));
  CHECK(r.kv_transfers == 1);
  CHECK(r.kv_transfer_bytes == Approx(1e5));
  CHECK(r.kv_transfer_mean_s == Approx(0.0011));
  CHECK(r.itl.p99_s == Approx(0.0121));  // token 2: the transfer and a decode
  CHECK(r.prefill_steps == 1);
  CHECK(r.decode_steps == 2);
  CHECK(r.prefix_cached_tokens == 0);  // the arrived KV is not a prefix-cache hit
}

TEST_CASE("disaggregation: one prefill engine's link carries one transfer at a time") {
  // Two requests at 0 on one prefill engine: one 200-token step, both first tokens at 0.21 s; each
  // KV 1e5 B at 1 GB/s is 0.1 ms on the link (latency 0): arrivals 0.2101 and 0.2102 s.
  const auto reqs = cluster_test_requests(2, 0.0, 100, 2);
  serving_cluster pd;
  pd.disaggregation = {.prefill = 1, .decode = 2,
                       .link = {.kind = kv_link_kind::network, .bandwidth = units::GBps(1.0), .latency = units::s(0.0)}};
  const auto r = cluster_test_run(reqs, pd, 1000.0);
  REQUIRE(r.feasible);
  CHECK(r.kv_transfer_mean_s == Approx((0.0001 + 0.0002) / 2));
  CHECK(r.kv_transfer_max_s == Approx(0.0002));
  CHECK(r.engine_requests == std::vector<std::int64_t>{2, 1, 1});  // round robin over the decode engines
  // Each decode engine a 1-token decode: 0.2101 + 0.011 and 0.2102 + 0.011.
  CHECK(r.finish_s[0] == Approx(0.2211));
  CHECK(r.finish_s[1] == Approx(0.2212));
}

TEST_CASE("disaggregation with an instant link, P = D = 1: a lone request's times are the colocated engine's") {
  // What must hold: the prefill step is the colocated one's first step, the decode engine's steps
  // are the colocated one's decode steps (one request, no one else), and the link adds nothing.
  const auto reqs = cluster_test_requests(1, 0.0, 300, 20);
  serving_cluster pd;
  pd.disaggregation = {.prefill = 1, .decode = 1,
                       .link = {.kind = kv_link_kind::nvlink, .bandwidth = units::TBps(1000.0), .latency = units::s(0.0)}};
  const auto d = cluster_test_run(reqs, pd, 1.0);
  const auto c = cluster_test_run(reqs, serving_cluster{});
  CHECK(d.ttft.mean_s == c.ttft.mean_s);
  CHECK(d.e2e.mean_s == Approx(c.e2e.mean_s).epsilon(1e-9));
  CHECK(d.output_tokens == c.output_tokens);
  // Output 1: the prefill engine finishes it, nothing moves.
  const auto single = cluster_test_run(cluster_test_requests(3, 0.0, 50, 1), pd, 1000.0);
  CHECK(single.kv_transfers == 0);
  CHECK(single.engine_requests == std::vector<std::int64_t>{3, 0});
}

TEST_CASE("replicas on the H100: one replica is simulate_gpu exactly; N replicas at N x the load serve as one") {
  const auto g = h100_sxm5();
  const model m = preset("Mixtral-8x7B");
  const auto reqs = cluster_test_load(4.0, 400);
  const auto base = simulate_gpu(g, m, scheduler_params{}, reqs, 0, {});
  serving_cluster one;
  one.replicas = {.count = 1, .router = replica_router::least_outstanding};
  // A cluster of one engine is the one engine, bit for bit (the event loop's order is run_engine's).
  // With the engine's host time (tokenisation, async scheduling) too; the time-weighted mean in
  // system then sums its area over more breakpoints (the arrivals at the engine) and agrees to
  // rounding.
  gpu_step_costs costs(g, 2, m);
  for (const auto host : {engine_host_params::none(), engine_host_params{}}) {
    engine_params ep;
    ep.host = host;
    const auto r1 = detail::run_engine_cluster(reqs, ep, engine_limits{8192, 1024}, 4000, costs, scheduler_params{}, 1, one, 0.0, 1);
    const auto e1 = detail::run_engine(reqs, ep, engine_limits{8192, 1024}, 4000, costs, scheduler_params{});
    CAPTURE(host.async_scheduling);
    CHECK(r1.makespan_s == e1.makespan_s);
    CHECK(r1.ttft.mean_s == e1.ttft.mean_s);
    CHECK(r1.itl.mean_s == e1.itl.mean_s);
    CHECK(r1.energy_j == e1.energy_j);
    CHECK(r1.mean_in_system == Approx(e1.mean_in_system).epsilon(1e-12));
  }
  // Four replicas at four times the rate: about the one replica's latencies, four times its rate.
  const auto four_load = cluster_test_load(16.0, 1600);
  serving_cluster four;
  four.replicas = {.count = 4, .router = replica_router::least_outstanding};
  const auto r4 = simulate_gpu(g, m, scheduler_params{}, four_load, 0, {}, gpu_scheduler::engine, {}, four);
  REQUIRE(r4.feasible);
  CHECK(r4.engines == 4);
  CHECK(r4.throughput_rps == Approx(4.0 * base.throughput_rps).epsilon(0.05));
  CHECK(r4.ttft.mean_s == Approx(base.ttft.mean_s).epsilon(0.10));
  CHECK(r4.tpot.mean_s == Approx(base.tpot.mean_s).epsilon(0.05));
  CHECK(r4.kv_tokens == 4 * base.kv_tokens);
  MESSAGE("1 engine at 4 req/s: " << base.throughput_rps << " req/s, TTFT " << base.ttft.mean_s << " s, TPOT "
          << base.tpot.mean_s << " s; 4 replicas at 16 req/s: " << r4.throughput_rps << " req/s, TTFT " << r4.ttft.mean_s
          << " s, TPOT " << r4.tpot.mean_s << " s");
  std::int64_t total = 0;
  for (auto k : r4.engine_requests) total += k;
  CHECK(total == 1600);
  for (std::size_t i = 0; i < four_load.size(); ++i) REQUIRE(std::isfinite(r4.finish_s[i]));
}

TEST_CASE("disaggregation on the H100: KV bytes are the model's per token per layer x layers x prompt") {
  const auto g = h100_sxm5();
  const model m = preset("Mixtral-8x7B");
  const auto reqs = cluster_test_load(4.0, 200);
  serving_cluster pd;
  pd.disaggregation = {.prefill = 1, .decode = 1, .link = {}};
  const auto r = simulate_gpu(g, m, scheduler_params{}, reqs, 0, {}, gpu_scheduler::engine, {}, pd);
  REQUIRE(r.feasible);
  double bytes = 0.0;
  std::int64_t moved = 0;
  for (const auto& q : reqs) {
    if (q.output > 1) {
      bytes += kv_bytes_per_token_layer(m).in(units::B) * m.layers * q.prompt;
      ++moved;
    }
  }
  CHECK(r.kv_transfers == moved);
  CHECK(r.kv_transfer_bytes == Approx(bytes));
  // Mixtral's 8 KV heads over 2 GPUs: 2 shards of 50 GB/s each, 10 us latency.
  CHECK(r.kv_transfer_mean_s >= 10e-6 + bytes / moved / 100e9 * 0.999);
  MESSAGE("1P + 1D, 2 x H100 each, network: " << r.kv_transfer_bytes / moved / 1e6 << " MB per request, mean "
          << r.kv_transfer_mean_s * 1e3 << " ms; TTFT " << r.ttft.mean_s << " s, TPOT " << r.tpot.mean_s << " s");
  CHECK(r.engine_requests.size() == 2);
  CHECK(r.engine_requests[0] == 200);
  CHECK(r.engine_requests[1] == moved);
  CHECK(r.system.find("1 prefill + 1 decode") != std::string::npos);
  for (std::size_t i = 0; i < reqs.size(); ++i) REQUIRE(std::isfinite(r.finish_s[i]));
}

TEST_CASE("replicas and disaggregation: bad settings are config_errors naming the field") {
  serving_cluster c;
  c.replicas.count = 0;
  CHECK(field_of([&] { validate(c, "gpu."); }) == "gpu.replicas.count");
  c = {};
  c.disaggregation.prefill = 1;
  CHECK(field_of([&] { validate(c, "gpu."); }) == "gpu.disaggregation.decode");
  c.disaggregation.decode = 1;
  c.replicas.count = 2;
  CHECK(field_of([&] { validate(c, "gpu."); }) == "gpu.replicas.count");
  c.replicas.count = 1;
  c.disaggregation.link.bandwidth = units::GBps(0.0);
  CHECK(field_of([&] { validate(c, "gpu."); }) == "gpu.disaggregation.link.bandwidth");
  c.disaggregation.link.bandwidth = std::nullopt;
  c.disaggregation.link.latency = units::s(-1.0);
  CHECK(field_of([&] { validate(c, "gpu."); }) == "gpu.disaggregation.link.latency");
  const std::string head = R"({"system": "none", "model": "Mixtral-8x7B", "gpu": {)";
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("replicas": {"count": 2, "router": "bogus"}}})"); }) ==
        "gpu.replicas.router");
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("replicas": {"count": 300}}})"); }) == "gpu.replicas.count");
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("disaggregation": {"prefill": 2}}})"); }) ==
        "gpu.disaggregation.decode");
  CHECK(field_of([&] {
          (void)read_serving_scenario(head + R"("scheduler": "fcfs", "replicas": {"count": 2}}})");
        }) == "gpu.scheduler");
  CHECK(field_of([&] {
          (void)read_serving_scenario(head + R"("disaggregation": {"prefill": 1, "decode": 1, "link": {"kind": "pcie"}}}})");
        }) == "gpu.disaggregation.link.kind");
  // A good one reads and runs.
  const auto s = read_serving_scenario(
      R"({"system": "none", "model": "Mixtral-8x7B", "requests": {"count": 50, "topics": ["t"]},
          "gpu": {"replicas": {"count": 2, "router": "least_outstanding"}}})");
  const auto rep = run_scenario(s);
  CHECK(rep.gpu.engines == 2);
  CHECK(rep.gpu.router == "least_outstanding");
}
