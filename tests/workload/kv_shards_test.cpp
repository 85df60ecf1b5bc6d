// KV under tensor parallelism (workload/roofline.hpp `kv_read_factor`, op::kv_shards): a device
// beyond the KV heads holds a replica of a head, and MLA's latent cache is whole on every rank, so
// every TP device reads its whole share; time and energy count those reads.
#include "strata/workload/roofline.hpp"

#include <doctest/doctest.h>

#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;
using doctest::Approx;

namespace {

// The attention operators' summed time of a step (every layer) from the step's tree.
double kv_test_attention_time(const model& m, const step_shape& s, const roofline_machine& machine) {
  double t = 0.0;
  for (const auto& o : step_operators(m, s)) {
    if (o.kind == op_kind::attention) t += cost_of(o, machine).time.si();
  }
  return t;
}

}  // namespace

TEST_CASE("MLA under tensor parallelism: every rank reads the whole latent cache (DeepSeek-V3, 8 x H200)") {
  // DeepSeek-V3 decode, B 256, S 4096: the latent cache is (kv_lora_rank 512 + rope 64) x 2 B per
  // token and layer, 61 layers: 1152 B x 61 x 256 x 4097 (the cached tokens and the new one's
  // entry) = 73.7 GB, which each of the 8 GPUs reads in full at its 4.8 TB/s: at least 15.4 ms.
  const model m = preset("DeepSeek-V3");
  REQUIRE(m.is_mla());
  const step_shape s{.mode = phase::decode, .batch = 256, .context = 4096};
  const auto g = baseline_gpu(h200_sxm());
  const auto tp8 = make_machine(g, 8);
  const double latent = 1152.0 * 61 * 256 * 4097;
  CHECK(latent == Approx(73.7e9).epsilon(0.001));
  for (const auto& o : step_operators(m, s)) {
    if (o.kind == op_kind::attention) CHECK(o.kv_shards == 1);
  }
  const double floor = latent / (g.memory_bandwidth.si() * g.memory_efficiency);
  CHECK(floor > 15e-3);
  const double t8 = kv_test_attention_time(m, s, tp8);
  CHECK(t8 >= floor);
  CHECK(t8 < 1.2 * floor);  // bound by the latent read, not by its FLOPs
  // The step's KV bytes are every rank's reads: 8 x the latent cache.
  const auto r = evaluate(m, s, tp8);
  CHECK(r.kv_bytes.si() == Approx(8.0 * latent).epsilon(1e-9));
  // On one GPU the same read, so TP buys no attention time for MLA.
  CHECK(kv_test_attention_time(m, s, make_machine(g, 1)) == Approx(t8).epsilon(0.05));
}

TEST_CASE("GQA: the KV divides over at most its KV heads; beyond them every device reads a replica") {
  // Qwen2.5-32B, 8 KV heads: TP 8 and TP 16 read the same KV per device.
  const model m = preset("Qwen2.5-32B");
  REQUIRE(m.kv_heads == 8);
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 8192};
  const auto g = baseline_gpu(h100_sxm5());
  roofline_machine m16 = make_machine(g, 16);
  m16.devices_per_node = 0;  // one NVLink domain, to compare the KV reads alone
  const auto m8 = make_machine(g, 8);
  op attn;
  for (const auto& o : step_operators(m, s)) {
    if (o.kind == op_kind::attention) attn = o;
  }
  CHECK(attn.kv_shards == 8);
  CHECK(kv_read_factor(attn, m8) == 1.0);
  CHECK(kv_read_factor(attn, m16) == 2.0);
  CHECK(kv_read_factor(attn, make_machine(g, 4)) == 1.0);
  const auto c8 = cost_of(attn, m8), c16 = cost_of(attn, m16);
  CHECK_FALSE(c8.compute_bound);
  // The memory time per device is the same (each reads an eighth of the KV); only the activations halve.
  CHECK(c16.memory_time.si() == Approx(c8.memory_time.si()).epsilon(0.02));
  // Twice the KV bytes read in all: the energy grows by one KV read at the tier's energy per byte.
  const auto& tier = m8.tiers[static_cast<std::size_t>(tier_of(m8, attn.reads))];
  CHECK((c16.energy - c8.energy).si() == Approx(attn.kv_bytes.si() * tier.energy_per_byte.si()).epsilon(1e-9));
  // An operator without a KV limit divides over every device, as before.
  op plain = attn;
  plain.kv_shards = 0;
  CHECK(kv_read_factor(plain, m16) == 1.0);
}
