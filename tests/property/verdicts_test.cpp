// Property tests of the coverage verdicts (issue 44, items 4 and 7): for every preset model on
// every tensor-parallel degree 1 … 128 and every EP degree, a mapping the model cannot do is never
// "supported" — refused when a device would hold no head or no expert, approximated when the
// roofline splits heads or KV heads as fractions; KV replicas beyond the KV heads and MLA's whole
// latent cache per rank are modelled (`kv_read_factor`), so they approximate nothing. The next model preset or
// mapping rule is checked by the same loop.
#include "strata/baseline/coverage.hpp"

#include <doctest/doctest.h>

#include <string>

#include "strata/workload/presets.hpp"

using namespace strata;

TEST_CASE("no preset is supported on a tensor-parallel degree wider than its heads, or splitting heads unevenly") {
  int cases = 0;
  for (const std::string& name : preset_names()) {
    const model m = preset(name);
    for (int n = 1; n <= 128; n *= 2) {
      CAPTURE(name);
      CAPTURE(n);
      const coverage_verdict v = model_coverage(m, make_machine(h100_sxm5(), n), preset_ignored_keys(name));
      CHECK(v.devices == n);
      // Refused exactly when some device would hold no attention head.
      CHECK((v.kind == coverage_kind::refused) == (n > m.heads));
      // Approximated when heads or KV heads split as fractions; more devices than KV heads (a
      // replica each) and MLA (the latent cache whole on every rank) are modelled, not approximated.
      const bool uneven = m.heads % n != 0 || (!m.is_mla() && n < m.kv_heads && m.kv_heads % n != 0);
      if (uneven) CHECK(v.kind != coverage_kind::supported);
      const bool modelled_replica = m.is_mla() ? n > 1 : n > m.kv_heads;
      if (modelled_replica && n <= m.heads) {
        CHECK(v.text().find("KV") == std::string::npos);
        CHECK(v.text().find("MLA") == std::string::npos);
      }
      // Every verdict that is not supported says why.
      if (v.kind != coverage_kind::supported) CHECK(!v.reasons.empty());
      ++cases;
    }
  }
  CHECK(cases == 8 * static_cast<int>(preset_names().size()));
}

TEST_CASE("no preset is supported with expert parallelism wider than, or not dividing, its routed experts") {
  for (const std::string& name : preset_names()) {
    const model m = preset(name);
    for (int ep = 2; ep <= 512; ep *= 2) {
      CAPTURE(name);
      CAPTURE(ep);
      const parallelism p{.ep = ep, .attention = attention_parallel::dp};
      const coverage_verdict v = model_coverage(m, make_machine(h100_sxm5(), ep), {}, p);
      const bool impossible = m.experts == 0 || ep > m.experts || m.experts % ep != 0;
      CHECK((v.kind == coverage_kind::refused) == impossible);
      // Attention in data parallelism: the heads never refuse it.
      if (!impossible) CHECK(v.text().find("attention heads") == std::string::npos);
    }
  }
}

TEST_CASE("the GPU preset verdict of every preset on every card follows the same mapping rule") {
  for (const std::string& name : preset_names()) {
    const model m = preset(name);
    for (const auto& g : gpu_preset_names()) {
      CAPTURE(name);
      CAPTURE(g);
      const coverage_verdict v = gpu_coverage(m, g, preset_ignored_keys(name));
      if (v.devices == 0) {
        CHECK(v.kind == coverage_kind::refused);
        continue;
      }
      const mapping_check c = mapping_coverage(m, v.devices);
      CHECK(c.refusals.empty());  // the fit check picks a degree the heads divide
      if (!c.approximations.empty()) CHECK(v.kind == coverage_kind::approximated);
      for (const auto& a : c.approximations) CHECK(v.text().find(a) != std::string::npos);
    }
  }
}
