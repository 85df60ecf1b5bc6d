// The overloads that take the model where their arguments follow from it give what the explicit
// forms give.
#include <doctest/doctest.h>

#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/chiplet/residency.hpp"
#include "strata/stratum/serving/topic_usage.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"

using namespace strata;

TEST_CASE("usage_from_hit_rate(model, h) is the table of the model's MoE layers, experts and top-k") {
  const model m = preset("Mixtral-8x7B");
  const auto a = usage_from_hit_rate(m, 0.5, 3);
  const auto b = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.5, 3);
  REQUIRE(a.size() == b.size());
  CHECK(a.size() == static_cast<std::size_t>(m.moe_layers()));
  for (std::size_t l = 0; l < a.size(); ++l) CHECK(a[l] == b[l]);
  // Below A/E = 2/8 a hot share is not a hit rate: the error names h.
  CHECK(strata_test::field_of([&] { (void)usage_from_hit_rate(m, 0.2); }) == "h");
}

TEST_CASE("single_copy_static(substrate, model) places the model's experts of its bytes in every MoE layer") {
  const substrate pkg;
  const model m = preset("DeepSeek-V2-Lite");
  const auto a = single_copy_static(pkg, m);
  const auto b = single_copy_static(pkg, m.moe_layers(), m.experts, expert_bytes(m));
  CHECK(a.layers() == m.moe_layers());
  CHECK(a.experts() == m.experts);
  CHECK(a.expert_bytes() == expert_bytes(m));
  REQUIRE(a.entries().size() == b.entries().size());
  CHECK(a.entries().size() == static_cast<std::size_t>(m.moe_layers() * m.experts));
  CHECK(a.resident_bytes() == b.resident_bytes());
  for (int bank = 0; bank < static_cast<int>(pkg.banks().size()); ++bank) CHECK(a.used(bank) == b.used(bank));
}

TEST_CASE("topic_usage_from_counts(..., model) takes the model's MoE layers") {
  const auto counts =
      load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  const model m = preset("Mixtral-8x7B");
  const std::vector<std::string> topics{"arxiv", "github"};
  const auto a = topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained", topics, m);
  const auto b = topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained", topics, m.moe_layers());
  CHECK(a.topics == b.topics);
  REQUIRE(a.tables.size() == 2);
  CHECK(a.tables[0].size() == static_cast<std::size_t>(m.moe_layers()));
  for (std::size_t t = 0; t < a.tables.size(); ++t) CHECK(a.tables[t] == b.tables[t]);
}
