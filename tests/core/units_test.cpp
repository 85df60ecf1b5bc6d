#include "strata/core/units.hpp"

#include <doctest/doctest.h>

#include "support/scalars.hpp"

#include <boost/math/differentiation/autodiff.hpp>  // make_fvar, autodiff_fvar
#include <limits>                                   // std::numeric_limits, NaN
#include <string_view>                                // std::string_view, the units of a dimension
#include <type_traits>                              // std::is_same_v, std::is_convertible_v

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

namespace {

using strata_test::fvar1;
using strata_test::make_fvar;

template <class A, class B>
concept addable = requires(A a, B b) { a + b; };
template <class Q, class U>
concept readable_in = requires(Q q, U u) { q.in(u); };
template <class A, class B>
concept subtractable = requires(A a, B b) { a - b; };
template <class A, class B>
concept orderable = requires(A a, B b) { a < b; };
template <class A, class B>
concept add_assignable = requires(A a, B b) { a += b; };

}  // namespace

TEST_CASE("literals and unit makers store SI values that read back in any unit of the dimension") {
  SUBCASE("time") {
    // 13.75 * 1e-9 / 1e-9 rounds back to 13.75 exactly in IEEE double.
    CHECK((13.75_ns).in(units::ns) == 13.75);
    CHECK((13.75_ns).si() == Approx(13.75e-9).epsilon(1e-15));
    CHECK((1.5_us).in(units::ns) == Approx(1500.0).epsilon(1e-15));
    CHECK(units::ms(2).in(units::us) == Approx(2000.0).epsilon(1e-15));
    CHECK((1_s).in(units::ps) == Approx(1e12).epsilon(1e-15));
    CHECK(2.5 * units::ns == units::ns(2.5));  // the two spellings do the same multiplication
  }
  SUBCASE("decimal and binary bytes differ by 7.37 %") {
    CHECK((1_GB).in(units::B) == 1e9);
    CHECK((1_GiB).in(units::B) == 1073741824.0);  // 2^30
    const double ratio = 1_GiB / 1_GB;
    CHECK(ratio == Approx(1.073741824).epsilon(1e-15));
    CHECK((ratio - 1.0) * 100.0 == Approx(7.3741824).epsilon(1e-9));
    CHECK((1_MiB).in(units::KiB) == 1024.0);
    CHECK((1_KB).in(units::B) == 1000.0);
    CHECK((1_TB).in(units::GB) == Approx(1000.0).epsilon(1e-15));
  }
  SUBCASE("decimal and binary bits are an eighth of their byte units") {
    CHECK((1_Gb).in(units::B) == 1.25e8);          // 10^9 / 8
    CHECK((1_Gib).in(units::B) == 134217728.0);    // 2^30 / 8 = 2^27
    CHECK(1_Gib / 1_Gb == Approx(1.073741824).epsilon(1e-15));
    CHECK((32_Gib).in(units::GiB) == 4.0);         // a "32 Gb" DRAM die holds 4 GiB
    CHECK((8_bit).in(units::B) == 1.0);
    CHECK((1_GB).in(units::Gb) == Approx(8.0).epsilon(1e-15));
  }
  SUBCASE("the other dimensions") {
    CHECK((35_nm).in(units::um) == Approx(0.035).epsilon(1e-15));
    CHECK((2_mm2).in(units::um2) == Approx(2e6).epsilon(1e-15));
    CHECK((1_GHz).in(units::MHz) == Approx(1000.0).epsilon(1e-15));
    CHECK((1.25_pJ).in(units::fJ) == Approx(1250.0).epsilon(1e-15));
    CHECK((1_W).in(units::mW) == Approx(1000.0).epsilon(1e-15));
    CHECK((1_kohm).in(units::ohm) == Approx(1000.0).epsilon(1e-15));
    CHECK((1_fF).in(units::aF) == Approx(1000.0).epsilon(1e-15));
    CHECK((3_mA).in(units::A) == Approx(3e-3).epsilon(1e-15));
    CHECK((1_Tflops).in(units::Gflops) == Approx(1000.0).epsilon(1e-15));
    CHECK((1.25_pJpB).si() == Approx(1.25e-12).epsilon(1e-15));
    CHECK((0.16_pJpb).in(units::pJ_per_B) == Approx(1.28).epsilon(1e-15));  // 0.16 pJ per 1/8 B
    // The literals named as the units (`_per_`) are the short spellings' values.
    CHECK((0.16_pJ_per_bit).si() == (0.16_pJpb).si());
    CHECK((1.25_pJ_per_B).si() == (1.25_pJpB).si());
    CHECK((2.5_fJ_per_bit).si() == Approx(2.5e-15 / 0.125).epsilon(1e-15));
    CHECK((1_pJ_per_op).si() == (1_pJpop).si());
    CHECK((98_ohm_per_um).si() == Approx(9.8e7).epsilon(1e-15));           // ohm per metre
    CHECK((0.2_fF_per_um).si() == Approx(2e-10).epsilon(1e-15));           // farad per metre
  }
  SUBCASE("an integer given to a unit makes a double quantity") {
    static_assert(std::is_same_v<decltype(units::ns(3)), duration<double>>);
    static_assert(std::is_same_v<decltype(3_ns), duration<double>>);
    CHECK(units::ns(3).in(units::ns) == 3.0);
  }
}

TEST_CASE("products and quotients carry their dimension") {
  SUBCASE("bytes over bandwidth is a duration") {
    const auto t = 64_MiB / 460_GBps;
    static_assert(std::is_same_v<decltype(t), const duration<>>);
    // 64 MiB = 67 108 864 B; 67 108 864 / 460e9 s = 145.888 835 µs. Six figures given by hand.
    CHECK(t.in(units::us) == Approx(145.889).epsilon(1e-5));
    CHECK((460_GBps * 1_us).in(units::KB) == Approx(460.0).epsilon(1e-12));
  }
  SUBCASE("energy over time is power and power times time is energy") {
    const auto p = 5_nJ / 2_ns;
    static_assert(std::is_same_v<decltype(p), const power<>>);
    CHECK(p.in(units::W) == Approx(2.5).epsilon(1e-12));
    const auto e = 2_W * 3_ns;
    static_assert(std::is_same_v<decltype(e), const energy<>>);
    CHECK(e.in(units::nJ) == Approx(6.0).epsilon(1e-12));
  }
  SUBCASE("resistance times capacitance is a duration: 1 kohm x 1 pF = 1 ns") {
    const auto rc = 1_kohm * units::pF(1.0);
    static_assert(std::is_same_v<decltype(rc), const duration<>>);
    CHECK(rc.in(units::ns) == Approx(1.0).epsilon(1e-12));
    // A 100 um wire at 98 ohm/um and 0.2 fF/um: 9.8 kohm x 20 fF = 196 ps.
    const auto wire = (98_ohm_per_um * 100_um) * (0.2_fF_per_um * 100_um);
    static_assert(std::is_same_v<decltype(wire), const duration<>>);
    CHECK(wire.in(units::ps) == Approx(196.0).epsilon(1e-12));
  }
  SUBCASE("voltage over current is resistance") {
    const auto r = 1_V / 2_mA;
    static_assert(std::is_same_v<decltype(r), const resistance<>>);
    CHECK(r.in(units::kohm) == Approx(0.5).epsilon(1e-12));
  }
  SUBCASE("a quotient or product whose dimensions cancel is a plain double") {
    static_assert(std::is_same_v<decltype(1_GiB / 1_GB), double>);
    static_assert(std::is_same_v<decltype(2_GHz * 3_ns), double>);
    CHECK(2_us / 500_ns == Approx(4.0).epsilon(1e-12));
    CHECK(2_GHz * 3_ns == Approx(6.0).epsilon(1e-12));  // cycles
  }
  SUBCASE("a number over a quantity inverts the dimension") {
    const auto f = 1.0 / 1_ns;
    static_assert(std::is_same_v<decltype(f), const frequency<>>);
    CHECK(f.in(units::GHz) == Approx(1.0).epsilon(1e-12));
  }
  SUBCASE("density times area is data") {
    const auto bits = units::Gib_per_mm2(2.156) * 10_mm2;
    static_assert(std::is_same_v<decltype(bits), const data_size<>>);
    CHECK(bits.in(units::Gib) == Approx(21.56).epsilon(1e-12));
  }
}

TEST_CASE("quantities of different dimensions cannot be mixed") {
  // The deleted operators of a dimension error name the units in their template arguments (the
  // compiler's message; tests/core/dimension_error.cmake compiles the errors).
  static_assert(std::string_view(detail::dimension_text<dims::bandwidth>().text) == "B/s");
  static_assert(std::string_view(detail::dimension_text<dims::time>().text) == "s");
  static_assert(std::string_view(detail::dimension_text<dims::energy_per_data>().text) == "J/B");
  static_assert(std::string_view(detail::dimension_text<dim<5, 2, -4, 0, 0, 0>>().text) == "m^5 kg^2 s^-4");
  static_assert(std::string_view(detail::dimension_text<dim<0, 0, -1, 0, 0, -2>>().text) == "s^-1 FLOP^-2");
  static_assert(!readable_in<duration<>, unit<dims::energy>>);
  static_assert(readable_in<duration<>, unit<dims::time>>);
  static_assert(addable<duration<>, duration<>>);
  static_assert(!addable<duration<>, length<>>);
  static_assert(!addable<length<>, duration<>>);
  static_assert(!addable<duration<>, double>);
  static_assert(!subtractable<energy<>, power<>>);
  static_assert(!orderable<duration<>, length<>>);
  static_assert(!add_assignable<data_size<>, bandwidth<>>);
  static_assert(!std::is_constructible_v<duration<>, double>);  // a bare number is not a duration
  static_assert(!std::is_convertible_v<length<>, duration<>>);
  static_assert(!std::is_constructible_v<data_size<>, bandwidth<>>);
  // The allowed sum still adds.
  CHECK((1_ns + 2_ns).in(units::ns) == Approx(3.0).epsilon(1e-12));
  CHECK((5_ns - 2_ns).in(units::ns) == Approx(3.0).epsilon(1e-12));
}

TEST_CASE("comparison operators order quantities of one dimension") {
  const auto a = 1_ns;
  const auto b = 2_ns;
  const auto c = units::ns(1.0);
  CHECK(a < b);
  CHECK_FALSE(b < a);
  CHECK(b > a);
  CHECK_FALSE(a > b);
  CHECK(a <= b);
  CHECK(a <= c);
  CHECK_FALSE(b <= a);
  CHECK(b >= a);
  CHECK(a >= c);
  CHECK_FALSE(a >= b);
  CHECK(a == c);
  CHECK_FALSE(a == b);
  CHECK(a != b);
  CHECK_FALSE(a != c);
  CHECK(-a < a);
  CHECK(1000_ps < 1001_ps);
  CHECK(1_GiB > 1_GB);
}

TEST_CASE("comparisons with a NaN quantity are false, as for double") {
  const auto nan = units::s(std::numeric_limits<double>::quiet_NaN());
  CHECK_FALSE(nan < 1_s);
  CHECK_FALSE(nan > 1_s);
  CHECK_FALSE(nan == nan);
  CHECK(nan != nan);
  // BUG (units.hpp): operator<= and operator>= are written as !(b < a) and !(a < b), which are
  // true when either side is NaN, so a NaN time passes `t <= limit` checks.
  CHECK_FALSE(nan <= 1_s);
  CHECK_FALSE(nan >= 1_s);
  CHECK_FALSE(1_s <= nan);
  CHECK_FALSE(1_s >= nan);
}

TEST_CASE("compound assignment updates the stored value") {
  auto t = 10_ns;
  t += 5_ns;
  CHECK(t.in(units::ns) == Approx(15.0).epsilon(1e-12));
  t -= 3_ns;
  CHECK(t.in(units::ns) == Approx(12.0).epsilon(1e-12));
  t *= 2.0;
  CHECK(t.in(units::ns) == Approx(24.0).epsilon(1e-12));
  t /= 4.0;
  CHECK(t.in(units::ns) == Approx(6.0).epsilon(1e-12));
  CHECK((-t).in(units::ns) == Approx(-6.0).epsilon(1e-12));
  CHECK((2.0 * t).in(units::ns) == Approx(12.0).epsilon(1e-12));
  CHECK((t * 3.0).in(units::ns) == Approx(18.0).epsilon(1e-12));
  CHECK((t / 2.0).in(units::ns) == Approx(3.0).epsilon(1e-12));
  CHECK(&(t += 1_ns) == &t);  // returns the object itself, so assignments chain
  CHECK(t.in(units::ns) == Approx(7.0).epsilon(1e-12));
}

TEST_CASE("a double quantity converts implicitly to an autodiff quantity of the same dimension") {
  static_assert(std::is_convertible_v<duration<>, duration<fvar1>>);
  static_assert(!std::is_convertible_v<length<>, duration<fvar1>>);
  const duration<fvar1> d = 3_ns;
  CHECK(d.in(units::ns).derivative(0) == Approx(3.0).epsilon(1e-12));
  CHECK(d.in(units::ns).derivative(1) == 0.0);  // a constant: no derivative part
}

TEST_CASE("an autodiff quantity does not convert implicitly to a double quantity") {
  // BUG (units.hpp): the widening constructor is constrained on std::is_constructible_v, which
  // is true for fvar -> double through fvar's *explicit* conversion operator, so
  // `duration<double> d = t_fvar;` compiles and silently drops the derivatives.
  CHECK_FALSE(std::is_convertible_v<duration<fvar1>, duration<double>>);
  CHECK_FALSE(std::is_convertible_v<energy<fvar1>, energy<double>>);
}

TEST_CASE("derivatives flow through quantity arithmetic") {
  SUBCASE("d/dx of (x ns)^2 / 3 ns is 2x/3 ns") {
    const auto x = make_fvar<double, 1>(1.5);
    const auto t = units::ns(x);
    static_assert(std::is_same_v<decltype(t), const duration<fvar1>>);
    const duration<fvar1> three = 3_ns;
    const auto r = (t * t / three).in(units::ns);
    CHECK(r.derivative(0) == Approx(0.75).epsilon(1e-12));  // 1.5^2 / 3
    CHECK(r.derivative(1) == Approx(1.0).epsilon(1e-12));   // 2 * 1.5 / 3
  }
  SUBCASE("d/dx of x MiB / 460 GB/s is 1 MiB / 460 GB/s") {
    const auto x = make_fvar<double, 1>(64.0);
    const bandwidth<fvar1> bw = 460_GBps;
    const auto t = (units::MiB(x) / bw).in(units::us);
    CHECK(t.derivative(0) == Approx(145.889).epsilon(1e-5));
    CHECK(t.derivative(1) == Approx(1048576.0 / 460e3).epsilon(1e-12));  // 2.279513 us per MiB
  }
  SUBCASE("d/dy of 64 MiB / (y GB/s) is -64 MiB / (y^2 GB/s)") {
    const auto y = make_fvar<double, 1>(460.0);
    const data_size<fvar1> bytes = 64_MiB;
    const auto t = (bytes / units::GBps(y)).in(units::us);
    CHECK(t.derivative(1) == Approx(-67108864.0 / (460.0 * 460.0 * 1e9) * 1e6).epsilon(1e-12));
  }
  SUBCASE("d/dx of x pJ / 2 ns in mW is 0.5") {
    const auto x = make_fvar<double, 1>(4.0);
    const duration<fvar1> two = 2_ns;
    const auto p = units::pJ(x) / two;
    static_assert(std::is_same_v<decltype(p), const power<fvar1>>);
    CHECK(p.in(units::mW).derivative(0) == Approx(2.0).epsilon(1e-12));
    CHECK(p.in(units::mW).derivative(1) == Approx(0.5).epsilon(1e-12));
  }
}
