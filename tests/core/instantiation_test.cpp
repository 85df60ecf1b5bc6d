// Explicit instantiations of the closed-form models for `double` and for Boost.Math's forward
// autodiff type (STYLE rule 26): every template body compiles with both scalars, and the two
// give the same values.
#include "strata/strata.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

using F = boost::math::differentiation::autodiff_fvar<double, 1>;

namespace strata {
inline namespace v0 {
template struct mono3d_params<double>;
template struct mono3d_params<F>;
template mono3d_result<double> evaluate(const mono3d_params<double>&);
template mono3d_result<F> evaluate(const mono3d_params<F>&);
template double latency_vs_layer_r2(const mono3d_params<double>&);
template F latency_vs_layer_r2(const mono3d_params<F>&);
template struct logic_die_params<double>;
template struct logic_die_params<F>;
template logic_die_result<double> evaluate(const logic_die_params<double>&, const bandwidth<double>&);
template logic_die_result<F> evaluate(const logic_die_params<F>&, const bandwidth<F>&);
template struct memory_tier<double>;
template struct memory_tier<F>;
template struct cost<double>;
template struct cost<F>;
template duration<F> transfer_time(const memory_tier<F>&, const data_size<F>&);
template duration<F> roofline_compute_time(const op_count<F>&, const op_rate<F>&, const F&, const F&);
template duration<F> roofline_memory_time(const data_size<F>&, const bandwidth<F>&, const duration<F>&, const F&, const F&);
template duration<F> bank_service_time(const data_size<F>&, const duration<F>&, const bandwidth<F>&);
template duration<F> replica_compute_time(const op_count<F>&, const F&, const op_rate<F>&, const F&);
}  // namespace v0
}  // namespace strata

using namespace strata;

TEST_CASE("double and autodiff evaluations of the device models agree in value") {
  const auto d = evaluate(mono3d_params<double>{});
  const auto f = evaluate(mono3d_params<F>{});
  REQUIRE(d.tiers.size() == f.tiers.size());
  for (std::size_t k = 0; k < d.tiers.size(); ++k) {
    CHECK(f.tiers[k].access_latency.si().derivative(0) == doctest::Approx(d.tiers[k].access_latency.si()).epsilon(1e-14));
    CHECK(f.tiers[k].internal_bandwidth.si().derivative(0) == doctest::Approx(d.tiers[k].internal_bandwidth.si()).epsilon(1e-14));
  }
  CHECK(f.density.si().derivative(0) == doctest::Approx(d.density.si()).epsilon(1e-14));
  const auto bw = d.tiers.front().internal_bandwidth;
  const auto ld = evaluate(logic_die_params<double>{}, bw);
  const auto lf = evaluate(logic_die_params<F>{}, bandwidth<F>(bw));
  CHECK(lf.p_logic.si().derivative(0) == doctest::Approx(ld.p_logic.si()).epsilon(1e-14));
  CHECK(lf.a_active.si().derivative(0) == doctest::Approx(ld.a_active.si()).epsilon(1e-14));
  CHECK(lf.feasible == ld.feasible);
}
