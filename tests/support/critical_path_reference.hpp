// SPDX-License-Identifier: MIT
#pragma once
// The critical path of one MoE layer as `evaluate_layer` computed it before its workspace
// (commit 5d430bb): a frozen copy, kept only so that tests can check the faster evaluation
// against it bit for bit, and benchmarks can time both in the same run.

#include <algorithm>  // std::sort, std::max, std::push_heap, std::pop_heap
#include <array>      // std::array
#include <cmath>      // std::floor
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"

namespace strata::reference {
using namespace strata;


/// Evaluates one MoE layer: `groups` of this layer, `assignment[g]` = index into `replicas` (must
/// be a replica of the group's expert: Eq. 21), `migrations` in flight during the layer.
/// `bank_share`, when not empty, is per bank the share (0, 1] of its bandwidth the layer's weight
/// streams get, the rest serving streams outside this evaluation (PIM units sharing the bank,
/// `hcrmap/pim.hpp`).
inline layer_result evaluate_layer_reference(const substrate& s, const moe_layer_shape& shape,
                                   const std::vector<token_group>& groups,
                                   const std::vector<replica>& replicas,
                                   const std::vector<int>& assignment,
                                   const critical_path_params& cp = {},
                                   const std::vector<migration>& migrations = {},
                                   const std::vector<double>& bank_share = {}) {
  constexpr const char* id = "strata.critical_path";
  detail::require(assignment.size() == groups.size(), id, "assignment", assignment.size(),
                  "one replica per group");
  validate(cp);
  validate(shape);
  const auto& links = s.links();
  const auto& banks = s.banks();
  const std::size_t nl = links.size(), nb = banks.size(), nr = replicas.size(), ng = groups.size();
  if (!bank_share.empty()) {
    detail::require(bank_share.size() == nb, id, "bank_share", bank_share.size(), "one share per bank");
    for (double x : bank_share) detail::require(x > 0.0 && x <= 1.0, id, "bank_share", x, "in (0, 1]");
  }
  const int nc = s.chiplets();
  layer_result out;
  out.link_bytes.assign(nl * 4, 0.0);
  out.bank_bytes.assign(nb * 2, 0.0);
  out.replica_tokens.assign(nr, 0.0);
  out.replica_cores.assign(nr, 0);
  out.completion.assign(ng, duration<>{});
  out.group_stages.assign(ng, stage_times{});
  out.dispatch_wait.assign(ng, duration<>{});
  out.gather_wait.assign(ng, duration<>{});
  out.memory_ready.assign(nr, duration<>{});

  // Routing correctness (Eq. 21) and N_r.
  for (std::size_t g = 0; g < ng; ++g) {
    const auto& grp = groups[g];
    const int r = assignment[g];
    // Messages are built only on failure: this loop runs for every group of every layer.
    if (r < 0 || static_cast<std::size_t>(r) >= nr) {
      detail::require(false, id, "assignment[" + std::to_string(g) + "]", r, "a replica index");
    }
    if (replicas[static_cast<std::size_t>(r)].expert != grp.expert || replicas[static_cast<std::size_t>(r)].layer != grp.layer) {
      detail::require(false, id, "assignment[" + std::to_string(g) + "]", r, "a replica of the group's expert and layer");
    }
    if (grp.tokens < 0) detail::require(false, id, "groups[" + std::to_string(g) + "].tokens", grp.tokens, ">= 0");
    if (grp.source < 0 || grp.source >= nc || grp.aggregate < 0 || grp.aggregate >= nc) {
      detail::require(false, id, "groups[" + std::to_string(g) + "].source", grp.source, "a compute chiplet id");
    }
    out.replica_tokens[static_cast<std::size_t>(r)] += grp.tokens;
  }
  for (std::size_t r = 0; r < nr; ++r) {
    if (out.replica_tokens[r] > 0.0) validate(replicas[r], s, r);
  }

  // Requests of every class (§4.4) with their routes in one buffer; Eq. 5: loads per class.
  const double tok_b = shape.token_bytes.si();
  const double wt = shape.weight_bytes.si();
  std::vector<int> paths;
  {  // exactly the links of the dispatch and gather routes, plus a guess for the rest
    std::size_t n = 0;
    for (std::size_t g = 0; g < ng; ++g) {
      if (groups[g].tokens == 0) continue;
      const int c = replicas[static_cast<std::size_t>(assignment[g])].chiplet;
      n += static_cast<std::size_t>(s.hops(groups[g].source, c) + s.hops(c, groups[g].aggregate));
    }
    paths.reserve(n + (nr + migrations.size()) * 4);
  }
  std::array<std::vector<detail::layer_request>, 4> reqs;
  reqs[0].reserve(ng);
  reqs[1].reserve(ng);
  reqs[2].reserve(nr);
  std::vector<int> req_of_group(ng, -1), req_of_replica(nr, -1);
  double noc_bytes = 0.0;  // bytes × compute chiplets crossed, for the on-chiplet network energy
  // Eq. 8's route term over every request of every class (migrations included), Eq. 12's over
  // the memory class: T^route_h of Eq. 7.
  double max_route = 0.0, max_mem_route = 0.0;
  // Records a request whose links were appended to `paths` from `begin`; its release time is
  // set when known (below). Returns its index within its class.
  auto push = [&](request_class k, double bytes, std::size_t begin) {
    const detail::layer_request r{0.0, bytes, begin, paths.size()};
    int chiplets_crossed = r.path_begin == r.path_end ? 1 : 0;
    duration<> route{};
    for (std::size_t i = r.path_begin; i < r.path_end; ++i) {
      const auto u = static_cast<std::size_t>(paths[i]);
      out.link_bytes[u * 4 + static_cast<std::size_t>(k)] += r.bytes;
      chiplets_crossed += links[u].to < nc ? 1 : 0;
      route += link_time(links[u].lambda, links[u].bandwidth, data_size<>::from_si(r.bytes));
    }
    max_route = std::max(max_route, route.si());
    if (k == request_class::memory) max_mem_route = std::max(max_mem_route, route.si());
    if (r.path_begin != r.path_end && links[static_cast<std::size_t>(paths[r.path_begin])].from < nc) ++chiplets_crossed;
    noc_bytes += r.bytes * chiplets_crossed;
    reqs[static_cast<std::size_t>(k)].push_back(r);
    return static_cast<int>(reqs[static_cast<std::size_t>(k)].size()) - 1;
  };
  for (std::size_t g = 0; g < ng; ++g) {
    const auto& grp = groups[g];
    if (grp.tokens == 0) continue;
    const int c = replicas[static_cast<std::size_t>(assignment[g])].chiplet;
    const double bytes = grp.tokens * tok_b;
    std::size_t begin = paths.size();
    s.append_route(grp.source, c, paths);
    req_of_group[g] = push(request_class::dispatch, bytes, begin);
    begin = paths.size();
    s.append_route(c, grp.aggregate, paths);
    push(request_class::gather, bytes, begin);
  }
  for (std::size_t r = 0; r < nr; ++r) {
    if (out.replica_tokens[r] <= 0.0) continue;
    const auto& rp = replicas[r];
    const std::size_t begin = paths.size();
    s.append_memory_path(rp.bank, rp.chiplet, paths);
    req_of_replica[r] = push(request_class::memory, wt, begin);
    for (int i = 0; i < rp.span; ++i) out.bank_bytes[static_cast<std::size_t>(rp.bank + i) * 2] += wt / rp.span;
  }
  for (std::size_t m = 0; m < migrations.size(); ++m) {
    const auto& mg = migrations[m];
    if (!mg.executed) continue;
    const std::string f = "migrations[" + std::to_string(m) + "]";
    detail::require(mg.source_bank >= 0 && static_cast<std::size_t>(mg.source_bank) < nb, id, f + ".source_bank",
                    mg.source_bank, "a bank id");
    detail::require(mg.destination_bank >= 0 && static_cast<std::size_t>(mg.destination_bank) < nb, id,
                    f + ".destination_bank", mg.destination_bank, "a bank id");
    detail::require_in(mg.bytes.si(), 0.0, 1e15, id, f + ".bytes");
    // Bank to bank: from the node the source bank's data enters the network at to the
    // destination's (an SRAM group enters the mesh at its first chiplet).
    const std::size_t begin = paths.size();
    s.append_route(s.bank_node(mg.source_bank), s.bank_node(mg.destination_bank), paths);
    push(request_class::migration, mg.bytes.si(), begin);
    out.bank_bytes[static_cast<std::size_t>(mg.source_bank) * 2 + 1] += mg.bytes.si();
    out.bank_bytes[static_cast<std::size_t>(mg.destination_bank) * 2 + 1] += mg.bytes.si();
  }

  // Eq. 8: link drain times; with the route term above, T^net. Eq. 12's memory drain.
  double max_drain = 0.0, max_mem_drain = 0.0;
  for (std::size_t u = 0; u < nl; ++u) {
    max_drain = std::max(max_drain, out.link_load(static_cast<int>(u)) / links[u].bandwidth.si());
    max_mem_drain = std::max(max_mem_drain, out.link_bytes[u * 4 + 2] / links[u].bandwidth.si());
  }
  out.t_net = duration<>::from_si(std::max(max_drain, max_route));
  // Eq. 10–11: the layer-level bound T^bank over each bank's whole traffic (a pressure term; a
  // replica waits only for the accesses ahead of it, below).
  double t_bank = 0.0;
  for (std::size_t b = 0; b < nb; ++b) {
    const double q = out.bank_load(static_cast<int>(b));
    t_bank = std::max(t_bank, bank_service_time(data_size<>::from_si(q), banks[b].latency, banks[b].bandwidth).si());
  }
  out.t_bank = duration<>::from_si(t_bank);
  out.t_mem = duration<>::from_si(std::max({t_bank, max_mem_drain, max_mem_route}));

  // Cores per replica (Eq. 4) and list scheduling when a chiplet has more replicas than cores.
  const double pi = s.core_throughput().si() * cp.tile_utilization * cp.compute_scale;
  const double ops_tok = shape.flops_per_token.si();
  const int cores = s.params().cores_per_chiplet;
  std::vector<double> replica_start(nr, 0.0);  // extra delay from core sharing (list scheduling)
  {
    std::vector<std::vector<int>> on(static_cast<std::size_t>(nc));
    for (std::size_t r = 0; r < nr; ++r) {
      if (out.replica_tokens[r] > 0.0) on[static_cast<std::size_t>(replicas[r].chiplet)].push_back(static_cast<int>(r));
    }
    for (auto& list : on) {
      if (list.empty()) continue;
      std::sort(list.begin(), list.end(), [&](int a, int b) {
        return out.replica_tokens[static_cast<std::size_t>(a)] > out.replica_tokens[static_cast<std::size_t>(b)] ||
               (out.replica_tokens[static_cast<std::size_t>(a)] == out.replica_tokens[static_cast<std::size_t>(b)] && a < b);
      });
      const int n = static_cast<int>(list.size());
      if (n >= cores) {
        std::vector<double> core_free(static_cast<std::size_t>(cores), 0.0);
        for (int i = 0; i < n; ++i) {
          const auto r = static_cast<std::size_t>(list[static_cast<std::size_t>(i)]);
          const auto k = static_cast<std::size_t>(std::min_element(core_free.begin(), core_free.end()) - core_free.begin());
          out.replica_cores[r] = 1;
          replica_start[r] = core_free[k];
          core_free[k] += out.replica_tokens[r] * ops_tok / pi;
        }
      } else {
        double total = 0.0;
        for (int r : list) total += out.replica_tokens[static_cast<std::size_t>(r)];
        int left = cores - n;
        std::vector<std::pair<double, int>> rem;
        for (int r : list) {
          const double share = left * out.replica_tokens[static_cast<std::size_t>(r)] / total;
          const int extra = static_cast<int>(share);
          out.replica_cores[static_cast<std::size_t>(r)] = 1 + extra;
          rem.emplace_back(share - extra, r);
        }
        for (int r : list) left -= out.replica_cores[static_cast<std::size_t>(r)] - 1;
        std::sort(rem.begin(), rem.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        for (std::size_t i = 0; i < rem.size() && left > 0; ++i, --left) out.replica_cores[static_cast<std::size_t>(rem[i].second)] += 1;
      }
    }
  }

  // Gate and combine: router and weighted sum on the chiplets that hold the tokens.
  std::vector<double> src_tokens(static_cast<std::size_t>(nc), 0.0), agg_tokens(static_cast<std::size_t>(nc), 0.0);
  for (const auto& g : groups) {
    src_tokens[static_cast<std::size_t>(g.source)] += g.tokens;
    agg_tokens[static_cast<std::size_t>(g.aggregate)] += g.tokens;
  }
  double t_gate = 0.0, t_combine = 0.0, gate_flops = 0.0;
  // A token appears in top_k groups; the router and the weighted sum run once per token.
  const double per_routing = 1.0 / shape.top_k;
  for (int c = 0; c < nc; ++c) {
    const double src = src_tokens[static_cast<std::size_t>(c)] * per_routing;
    const double agg = agg_tokens[static_cast<std::size_t>(c)] * per_routing;
    t_gate = std::max(t_gate, src * shape.gate_flops_per_token.si() / (cores * pi));
    t_combine = std::max(t_combine, agg * shape.combine_flops_per_token.si() / (cores * pi));
    gate_flops += src * shape.gate_flops_per_token.si();
  }

  // Group completion (Eq. 14) as an event loop over the causal link model, in release order:
  // migrations (released at 0, in flight during the layer), dispatches (at T_gate), then weight
  // streams and gathers as their release times become known.
  link_server net(links, cp.arbitration);
  auto serve = [&](request_class k, std::size_t i) {
    auto& r = reqs[static_cast<std::size_t>(k)][i];
    return net.serve(k, r.release, r.bytes, paths.data() + r.path_begin, r.path_end - r.path_begin);
  };
  for (std::size_t i = 0; i < reqs[3].size(); ++i) (void)serve(request_class::migration, i);
  // Banks serve their accesses FCFS too: migrations (in flight from the start of the layer, in
  // index order) occupy their source and destination banks ahead of the weight streams.
  std::vector<double> bank_free(nb, 0.0);
  for (const auto& mg : migrations) {
    if (!mg.executed) continue;
    for (const int b : {mg.source_bank, mg.destination_bank}) {
      const auto i = static_cast<std::size_t>(b);
      bank_free[i] += bank_service_time(mg.bytes, banks[i].latency, banks[i].bandwidth).si();
    }
  }
  std::vector<double> arrive(ng, 0.0), comp(ng, 0.0);
  for (std::size_t g = 0; g < ng; ++g) {
    if (req_of_group[g] < 0) continue;
    const auto i = static_cast<std::size_t>(req_of_group[g]);
    reqs[0][i].release = t_gate;
    const auto tr = serve(request_class::dispatch, i);
    arrive[g] = tr.arrive;
    out.dispatch_wait[g] = duration<>::from_si(tr.wait());
    const int k = out.replica_cores[static_cast<std::size_t>(assignment[g])];
    comp[g] = replica_compute_time(op_count<>::from_si(groups[g].tokens * ops_tok), double(std::max(k, 1)),
                                   op_rate<>::from_si(pi), 1.0)
                  .si();
  }
  // Replica service, FCFS by dispatch arrival. Compute overlaps the weight stream; a group
  // cannot finish before its replica's stream has.
  // Groups bucketed by replica (counting sort), each bucket in arrival order (ties by index):
  // replica r's groups are order[first_of[r], first_of[r + 1]).
  std::vector<std::size_t> first_of(nr + 1, 0), order;
  for (std::size_t g = 0; g < ng; ++g) {
    if (req_of_group[g] >= 0) ++first_of[static_cast<std::size_t>(assignment[g]) + 1];
  }
  for (std::size_t r = 0; r < nr; ++r) first_of[r + 1] += first_of[r];
  order.resize(first_of[nr]);
  {
    std::vector<std::size_t> fill(first_of.begin(), first_of.end() - 1);
    for (std::size_t g = 0; g < ng; ++g) {
      if (req_of_group[g] >= 0) order[fill[static_cast<std::size_t>(assignment[g])]++] = g;
    }
  }
  for (std::size_t r = 0; r < nr; ++r) {
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(first_of[r]), order.begin() + static_cast<std::ptrdiff_t>(first_of[r + 1]),
              [&](std::size_t a, std::size_t b) { return arrive[a] < arrive[b] || (arrive[a] == arrive[b] && a < b); });
  }
  std::vector<double> busy(nr, 0.0), first_start(nr, 0.0), start(ng, 0.0), fin(ng, 0.0), replica_comp(nr, 0.0);
  for (std::size_t r = 0; r < nr; ++r) busy[r] = t_gate + replica_start[r];
  for (const std::size_t g : order) {
    const auto r = static_cast<std::size_t>(assignment[g]);
    start[g] = std::max(arrive[g], busy[r]);
    if (order[first_of[r]] == g) first_start[r] = start[g];
    fin[g] = start[g] + comp[g];
    busy[r] = fin[g];
    replica_comp[r] += comp[g];
  }
  // Weight streams (Eq. 15) and gathers, served in release order (release, class, index).
  // Event: (release, key) with key = replica for a stream, nr + group for a gather, so streams
  // precede gathers at equal release and each class keeps its index order.
  using event = std::pair<double, std::size_t>;
  const auto earlier = [](const event& a, const event& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); };
  const auto later = [&](const event& a, const event& b) { return earlier(b, a); };
  std::vector<event> streams;
  streams.reserve(nr);
  for (std::size_t r = 0; r < nr; ++r) {
    if (req_of_replica[r] < 0) continue;
    const double release = cp.overlap == memory_overlap::compute_only ? first_start[r] : t_gate;
    reqs[2][static_cast<std::size_t>(req_of_replica[r])].release = release;
    streams.emplace_back(release, r);
  }
  std::sort(streams.begin(), streams.end(), earlier);
  std::vector<double> finish(ng, 0.0);
  double t_moe = 0.0, t_comp_max = 0.0;
  std::vector<event> gathers;  // released, not yet served
  gathers.reserve(ng);
  // Replica r's weights: ready after its bank span's service and its route; its groups finish
  // and release their gathers.
  auto serve_stream = [&](double release, std::size_t r) {
    const auto tr = serve(request_class::memory, static_cast<std::size_t>(req_of_replica[r]));
    const auto& rp = replicas[r];
    // Each bank of the span serves its stripe FCFS (Eq. 10 per access: latency + bytes / BW).
    double banks_done = release;
    const auto stripe = data_size<>::from_si(wt / rp.span);
    for (int j = 0; j < rp.span; ++j) {
      const auto b = static_cast<std::size_t>(rp.bank) + static_cast<std::size_t>(j);
      const double begin = std::max(release, bank_free[b]);
      const auto bw = bank_share.empty() ? banks[b].bandwidth : strata::bandwidth<>::from_si(banks[b].bandwidth.si() * bank_share[b]);
      bank_free[b] = begin + bank_service_time(stripe, banks[b].latency, bw).si();
      banks_done = std::max(banks_done, bank_free[b]);
    }
    const double ready = std::max(banks_done, tr.arrive);
    out.memory_ready[r] = duration<>::from_si(ready);
    for (std::size_t i = first_of[r]; i < first_of[r + 1]; ++i) {
      const std::size_t g = order[i];
      finish[g] = std::max(fin[g], ready);
      reqs[1][static_cast<std::size_t>(req_of_group[g])].release = finish[g];
      gathers.emplace_back(finish[g], nr + g);
      if (cp.arbitration == link_arbitration::shared) std::push_heap(gathers.begin(), gathers.end(), later);
    }
  };
  // Gather of group g: C_g = arrival + T_combine.
  auto serve_gather = [&](std::size_t g) {
    const auto tr = serve(request_class::gather, static_cast<std::size_t>(req_of_group[g]));
    out.gather_wait[g] = duration<>::from_si(tr.wait());
    const double c_g = tr.arrive + t_combine;
    out.completion[g] = duration<>::from_si(c_g);
    out.group_stages[g] = stage_times{duration<>::from_si(t_gate), duration<>::from_si(arrive[g] - t_gate),
                                      duration<>::from_si(start[g] - arrive[g]), duration<>::from_si(finish[g] - fin[g]),
                                      duration<>::from_si(comp[g]), duration<>::from_si(tr.arrive - finish[g]),
                                      duration<>::from_si(t_combine)};
    if (out.critical_group < 0 || c_g > t_moe || (c_g == t_moe && static_cast<int>(g) < out.critical_group)) {
      t_moe = c_g;
      out.critical_group = static_cast<int>(g);
      out.critical = out.group_stages[g];
    }
  };
  if (cp.arbitration == link_arbitration::per_class) {
    // Streams and gathers never share a queue: serve each class in its own release order.
    for (const auto& [release, r] : streams) serve_stream(release, r);
    std::sort(gathers.begin(), gathers.end(), earlier);
    for (const auto& e : gathers) serve_gather(e.second - nr);
  } else {
    // One queue per link: interleave, a gather released before the next stream goes first.
    for (const auto& [release, r] : streams) {
      while (!gathers.empty() && earlier(gathers.front(), event{release, r})) {
        std::pop_heap(gathers.begin(), gathers.end(), later);
        const std::size_t g = gathers.back().second - nr;
        gathers.pop_back();
        serve_gather(g);
      }
      serve_stream(release, r);
    }
    while (!gathers.empty()) {
      std::pop_heap(gathers.begin(), gathers.end(), later);
      const std::size_t g = gathers.back().second - nr;
      gathers.pop_back();
      serve_gather(g);
    }
  }
  for (std::size_t r = 0; r < nr; ++r) t_comp_max = std::max(t_comp_max, replica_comp[r]);
  out.t_moe = duration<>::from_si(t_moe);
  out.t_comp = duration<>::from_si(t_comp_max);

  // Energy (Eq. 17–18).
  double total_tokens = 0.0;
  for (std::size_t r = 0; r < nr; ++r) total_tokens += out.replica_tokens[r];
  out.energy.compute = units::J(total_tokens * ops_tok * cp.energy_per_flop.si());
  for (std::size_t u = 0; u < nl; ++u) out.energy.d2d += units::J(out.link_load(static_cast<int>(u)) * links[u].energy.si());
  out.energy.noc = units::J(noc_bytes * cp.noc_energy.si());
  for (std::size_t b = 0; b < nb; ++b) {
    const double e = out.bank_load(static_cast<int>(b)) * banks[b].energy.si();
    auto& slot = banks[b].tier == tier_kind::sram ? out.energy.sram : banks[b].tier == tier_kind::hbm ? out.energy.hbm : out.energy.dram;
    slot += units::J(e);
  }
  for (const auto& m : migrations) {
    if (m.executed) out.energy.migration += cp.migration_control_energy;
  }
  out.energy.gate = units::J(gate_flops * cp.energy_per_flop.si());

  // Pressure counters (Eq. 19).
  const double w = cp.window.si();
  std::vector<double> chiplet_service(static_cast<std::size_t>(nc), 0.0);
  for (std::size_t r = 0; r < nr; ++r) {
    if (out.replica_tokens[r] <= 0.0) continue;
    chiplet_service[static_cast<std::size_t>(replicas[r].chiplet)] += replica_comp[r];
  }
  for (double t : chiplet_service) out.pressure.load = std::max(out.pressure.load, t / w);
  for (std::size_t u = 0; u < nl; ++u) {
    const double weighted = out.link_bytes[u * 4] + out.link_bytes[u * 4 + 1] + out.link_bytes[u * 4 + 2] +
                            cp.alpha_mig * out.link_bytes[u * 4 + 3];
    out.pressure.link = std::max(out.pressure.link, weighted / (links[u].bandwidth.si() * w));
    out.pressure.mig = std::max(out.pressure.mig, out.link_bytes[u * 4 + 3] / (links[u].bandwidth.si() * w));
  }
  for (std::size_t b = 0; b < nb; ++b) {
    const double weighted = out.bank_bytes[b * 2] + cp.alpha_mig * out.bank_bytes[b * 2 + 1];
    out.pressure.bank = std::max(out.pressure.bank, weighted / (banks[b].bandwidth.si() * w));
  }
  return out;
}

}  // namespace strata::reference
