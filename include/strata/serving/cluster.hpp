// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Beyond one engine (the serving wing): N engine replicas behind a router, and prefill/decode
/// disaggregation (P prefill and D decode engines, the prompt's KV moved between them over a
/// link). The settings here; the run is `run_engine_cluster` (`serving/simulator.hpp`),
/// an event loop over engines (`engine_core.hpp`) in time order, each stepping on its own clock.
///
/// Routers (`replica_router`), applied at each request's arrival to the engines that take
/// arrivals (the replicas, or the prefill engines):
/// - `round_robin`: engine k mod N for the k-th request (vLLM production-stack router
///   `--routing-logic roundrobin`, `RoundRobinRouter`, vllm_router/routers/routing_logic.py; vLLM
///   Router and SGLang's sgl-router `round_robin`);
/// - `least_outstanding`: the fewest requests admitted and not finished (or, on a prefill engine,
///   not handed off) at the arrival time, the lowest index on a tie (the least-request balancing of
///   load balancers, e.g. Envoy's `LEAST_REQUEST` and NGINX `least_conn`, with every engine's count
///   known, where vLLM Router's `power_of_two` compares two engines drawn at random);
/// - `prefix_affinity`: requests of one prefix group (`request::prefix_group` ≥ 0: a shared
///   system prompt, a conversation) to engine splitmix64(group) mod N, so the group's prefix is
///   cached on one engine; a request of no group (−1) by `least_outstanding` (vLLM Router and
///   sgl-router `consistent_hash`: a session key hashed to a worker, github.com/vllm-project/router
///   docs/load_balancing; production-stack `--routing-logic session`. With a fixed N the hash ring
///   of consistent hashing and hash mod N both map a group to one engine; the ring matters only
///   when engines join or leave, which a run here does not model).
///
/// Disaggregation (`disaggregation_params`): a request prefills on a prefill engine (chosen by the
/// router), which produces its first token (TTFT) and hands it off, as vLLM's disaggregated
/// serving runs it (the proxy sends the request to a prefill instance with max_tokens 1, then to
/// a decode instance with the KV transfer's parameters; vLLM examples/online_serving/
/// disaggregated_serving, toy_proxy_server.py, and the KV connectors, vllm/distributed/
/// kv_transfer/kv_connector/v1/nixl_connector.py, v0.10–v0.15). Its prompt's KV, bytes =
/// `kv_bytes_per_token_layer` × layers × prompt tokens (MLA: the latent and rope key), crosses the
/// prefill engine's link: each engine's link carries one transfer at a time in hand-off order
/// (first come first served), at `bandwidth` per GPU over the GPUs that hold distinct KV shards
/// (GQA/MHA under TP: min(GPUs, KV heads); MLA, whose latent every TP GPU holds, and DP attention,
/// a request's KV on one GPU: 1), after `latency`: time = latency + bytes / (bandwidth × shards).
/// The decode engine is chosen by the router at the hand-off (`prefix_affinity` there is
/// `least_outstanding`: the KV arrives with the request) and admits the request when its KV has
/// arrived, its prompt counted as computed (`engine_core.hpp`, role `decode`), its blocks taken
/// from the decode engine's pool on admission. Its inter-token gaps are the decode engine's; the
/// gap to its second token holds the transfer and the decode engine's queue.
///
/// Not modelled: the prefill engine keeping a request's blocks until the decode engine has read
/// them (vLLM's NixlConnector frees them after the read; here at the first token), contention on
/// the decode side of the link or in the network fabric (each prefill engine's link is its own),
/// the proxy's and the connector's CPU time, a decode engine refusing KV it has no room for (the
/// request waits in its queue, with its KV, until blocks are free).

#include <array>     // std::array (enum names)
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int64_t, std::uint64_t
#include <optional>  // std::optional, a link default left to its kind
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/serving/requests.hpp"

namespace strata {
inline namespace v0 {

/// How a request picks its engine (file comment).
enum class replica_router { round_robin, least_outstanding, prefix_affinity };
constexpr auto enum_names(replica_router) {
  return std::array{std::pair{replica_router::round_robin, "round_robin"},
                    std::pair{replica_router::least_outstanding, "least_outstanding"},
                    std::pair{replica_router::prefix_affinity, "prefix_affinity"}};
}

/// N engine replicas behind a router (file comment); each replica has the GPUs, parallelism,
/// limits and KV of the single engine the settings describe.
struct replica_params {
  int count = 1;  ///< [Design choice: 1, one engine]
  replica_router router = replica_router::round_robin;  ///< [Design choice: round robin, the routers' common default]

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("count", s.count);
    v("router", s.router);
  }
  friend bool operator==(const replica_params&, const replica_params&) = default;
};

/// The link a prefill engine sends KV over.
enum class kv_link_kind { nvlink, network };
constexpr auto enum_names(kv_link_kind) {
  return std::array{std::pair{kv_link_kind::nvlink, "nvlink"}, std::pair{kv_link_kind::network, "network"}};
}

/// The KV link (file comment): per GPU, one direction. Unset values are the kind's defaults
/// (`kv_link_bandwidth`, `kv_link_latency`).
struct kv_link_params {
  kv_link_kind kind = kv_link_kind::network;  ///< [Design choice: the network, P and D on different nodes]
  std::optional<::strata::bandwidth<>> bandwidth = std::nullopt;
  std::optional<::strata::duration<>> latency = std::nullopt;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("kind", s.kind);
    v("bandwidth", s.bandwidth);
    v("latency", s.latency);
  }
  friend bool operator==(const kv_link_params&, const kv_link_params&) = default;
};

/// The link's bandwidth per GPU in one direction: the given one, else
/// - nvlink: 450 GB/s (H100 SXM5 NVLink 4: 900 GB/s per GPU counting both directions, 18 links of
///   25 GB/s each way; NVIDIA H100 Tensor Core GPU datasheet);
/// - network: 50 GB/s (400 Gb/s InfiniBand NDR, one ConnectX-7 adapter per GPU as in the DGX H100;
///   NVIDIA ConnectX-7 datasheet, DGX H100 user guide).
template <class = void>
inline double kv_link_bandwidth(const kv_link_params& l) {
  if (l.bandwidth) return l.bandwidth->si();
  return l.kind == kv_link_kind::nvlink ? 450e9 : 50e9;
}

/// The link's latency per transfer: the given one, else [Design choice: 2 µs over NVLink, 10 µs
/// over the network: the order of a GPU-to-GPU copy's launch and of an RDMA write through one
/// switch; the KV connector's handshakes are not modelled].
template <class = void>
inline double kv_link_latency(const kv_link_params& l) {
  if (l.latency) return l.latency->si();
  return l.kind == kv_link_kind::nvlink ? 2e-6 : 10e-6;
}

/// P prefill and D decode engines (file comment); 0 and 0: not disaggregated.
struct disaggregation_params {
  int prefill = 0;
  int decode = 0;
  kv_link_params link{};

  [[nodiscard]] bool enabled() const { return prefill > 0 || decode > 0; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("prefill", s.prefill);
    v("decode", s.decode);
    v("link", s.link);
  }
  friend bool operator==(const disaggregation_params&, const disaggregation_params&) = default;
};

/// The router's name in the scenario JSON.
template <class = void>
inline std::string router_name(replica_router r) {
  for (const auto& [e, name] : enum_names(r)) {
    if (e == r) return name;
  }
  return {};
}

/// Engines of a deployment: replicas, or prefill and decode engines, each an engine of the GPUs
/// the settings give.
struct serving_cluster {
  replica_params replicas{};
  disaggregation_params disaggregation{};

  /// Whether the deployment is more than one engine.
  [[nodiscard]] bool clustered() const { return replicas.count > 1 || disaggregation.enabled(); }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("replicas", s.replicas);
    v("disaggregation", s.disaggregation);
  }
  friend bool operator==(const serving_cluster&, const serving_cluster&) = default;
};

/// Most engines a deployment may have (replicas, or prefill + decode). [Design choice: 256]
inline constexpr int max_cluster_engines = 256;

/// Checks the settings; throws `config_error` naming the field (prefixed by `at`, e.g. "gpu.").
template <class = void>
inline void validate(const serving_cluster& c, const std::string& at = {}) {
  constexpr const char* m = "strata.serving";
  detail::require_count(c.replicas.count, 1, max_cluster_engines, m, at + "replicas.count");
  const auto& d = c.disaggregation;
  detail::require_count(d.prefill, 0, max_cluster_engines, m, at + "disaggregation.prefill");
  detail::require_count(d.decode, 0, max_cluster_engines, m, at + "disaggregation.decode");
  if (d.enabled()) {
    detail::require(d.prefill >= 1, m, at + "disaggregation.prefill", d.prefill, "at least 1 with decode engines");
    detail::require(d.decode >= 1, m, at + "disaggregation.decode", d.decode, "at least 1 with prefill engines");
    detail::require(d.prefill + d.decode <= max_cluster_engines, m, at + "disaggregation.decode", d.decode,
                    "prefill + decode at most 256 engines");
    detail::require(c.replicas.count == 1, m, at + "replicas.count", c.replicas.count,
                    "1 with disaggregation (the router spreads requests over the prefill engines)");
  }
  if (d.link.bandwidth) {
    detail::require_range(d.link.bandwidth->si(), 1e6, 1e15, m, at + "disaggregation.link.bandwidth", "B/s");
  }
  if (d.link.latency) detail::require_range(d.link.latency->si(), 0.0, 10.0, m, at + "disaggregation.link.latency", "s");
}

namespace detail {
/// splitmix64 (Steele, Lea and Flood 2014): a fixed, portable hash of a prefix group.
template <class = void>
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
}  // namespace detail

/// The engine of `outstanding.size()` engines (their outstanding requests at the arrival) the
/// router `r` gives request `q` (file comment); `next` is the round-robin counter (advanced).
template <class = void>
inline std::size_t route_request(replica_router r, const request& q, const std::vector<std::int64_t>& outstanding,
                                 std::size_t& next) {
  const std::size_t n = outstanding.size();
  if (r == replica_router::round_robin) return next++ % n;
  if (r == replica_router::prefix_affinity && q.prefix_group >= 0) {
    return static_cast<std::size_t>(detail::splitmix64(static_cast<std::uint64_t>(q.prefix_group)) % n);
  }
  std::size_t best = 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (outstanding[k] < outstanding[best]) best = k;
  }
  return best;
}

}  // namespace v0
}  // namespace strata
