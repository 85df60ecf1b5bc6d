// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Physical quantities with their dimension in the type (README, Conventions: units).
///
/// A `quantity<Dim, T>` holds one value of type `T` in SI base units (s, m, kg, A) plus two
/// counted dimensions, data (bytes) and operations (FLOPs). It is made only through a unit
/// (`units::ns(13.75)`, `13.75 * units::ns`) or a literal (`13.75_ns`) and read only through a
/// unit (`t.in(units::ns)`), so every conversion is visible on the line that does it. Products
/// and quotients carry their dimension (`energy / time` is `power`); a quotient of equal
/// dimensions is a plain `T`.
///
/// Decimal and binary data units are distinct (`units::GB` = 10^9 B, `units::GiB` = 2^30 B).
/// DRAM capacities are binary by industry convention (a "32 Gb" die holds 2^35 bits).
///
/// \code
/// using namespace strata::literals;
/// auto bw = 460_GBps;                       // bandwidth<double>
/// auto t  = 64_MiB / bw;                    // duration<double>
/// double us = t.in(strata::units::us);      // 145.9
/// \endcode

#include <array>        // std::array, runtime dimension of a parsed unit
#include <cstddef>      // std::size_t
#include <compare>      // operator<=>
#include <type_traits>  // std::is_constructible_v, std::is_integral_v

namespace strata {
inline namespace v0 {

/// Exponents of length, mass, time, current, data (bytes) and operations.
template <int L, int M, int Ti, int I, int B, int O>
struct dim {
  static constexpr std::array<int, 6> exponents{L, M, Ti, I, B, O};
};

namespace detail {
template <class D1, class D2>
struct dim_mul;
template <int L1, int M1, int T1, int I1, int B1, int O1, int L2, int M2, int T2, int I2, int B2,
          int O2>
struct dim_mul<dim<L1, M1, T1, I1, B1, O1>, dim<L2, M2, T2, I2, B2, O2>> {
  using type = dim<L1 + L2, M1 + M2, T1 + T2, I1 + I2, B1 + B2, O1 + O2>;
};
template <class D>
struct dim_inv;
template <int L, int M, int Ti, int I, int B, int O>
struct dim_inv<dim<L, M, Ti, I, B, O>> {
  using type = dim<-L, -M, -Ti, -I, -B, -O>;
};
}  // namespace detail

template <class D1, class D2>
using dim_product = typename detail::dim_mul<D1, D2>::type;
template <class D1, class D2>
using dim_quotient = dim_product<D1, typename detail::dim_inv<D2>::type>;

namespace dims {
using none = dim<0, 0, 0, 0, 0, 0>;
using length = dim<1, 0, 0, 0, 0, 0>;
using area = dim<2, 0, 0, 0, 0, 0>;
using time = dim<0, 0, 1, 0, 0, 0>;
using frequency = dim<0, 0, -1, 0, 0, 0>;
using data = dim<0, 0, 0, 0, 1, 0>;
using ops = dim<0, 0, 0, 0, 0, 1>;
using bandwidth = dim_quotient<data, time>;
using op_rate = dim_quotient<ops, time>;
using energy = dim<2, 1, -2, 0, 0, 0>;
using power = dim_quotient<energy, time>;
using current = dim<0, 0, 0, 1, 0, 0>;
using voltage = dim_quotient<power, current>;
using resistance = dim_quotient<voltage, current>;
using capacitance = dim_quotient<dim_product<current, time>, voltage>;
using energy_per_data = dim_quotient<energy, data>;
using energy_per_op = dim_quotient<energy, ops>;
using data_per_area = dim_quotient<data, area>;
using resistance_per_length = dim_quotient<resistance, length>;
using capacitance_per_length = dim_quotient<capacitance, length>;
using current_per_area = dim_quotient<current, area>;
using power_per_area = dim_quotient<power, area>;
using velocity = dim_quotient<length, time>;
}  // namespace dims

/// The SI unit of dimension `D` as text, for diagnostics ("B/s", "J", "s"; a dimension without a
/// named symbol in base units, "m^2 kg s^-3"): a compile-time string, so that a dimension error
/// names the units instead of the exponents of `dim<...>`.
namespace detail {
struct unit_text {
  char text[40] = {};
  constexpr unit_text() = default;
  constexpr unit_text(const char* s) {  // NOLINT: implicit from a literal on purpose
    for (std::size_t i = 0; s[i] != '\0' && i + 1 < sizeof text; ++i) text[i] = s[i];
  }
  constexpr void append(const char* s) {
    std::size_t n = 0;
    while (text[n] != '\0') ++n;
    for (std::size_t i = 0; s[i] != '\0' && n + 1 < sizeof text; ++i) text[n++] = s[i];
  }
};

template <class D>
constexpr unit_text dimension_text() {
  constexpr std::array<int, 6> e = D::exponents;
  struct named {
    std::array<int, 6> e;
    const char* symbol;
  };
  constexpr named known[] = {
      {{0, 0, 0, 0, 0, 0}, "1 (dimensionless)"}, {{1, 0, 0, 0, 0, 0}, "m"},       {{2, 0, 0, 0, 0, 0}, "m2"},
      {{0, 0, 1, 0, 0, 0}, "s"},                 {{0, 0, -1, 0, 0, 0}, "Hz"},     {{0, 0, 0, 0, 1, 0}, "B"},
      {{0, 0, 0, 0, 0, 1}, "FLOP"},              {{0, 0, -1, 0, 1, 0}, "B/s"},    {{0, 0, -1, 0, 0, 1}, "FLOP/s"},
      {{2, 1, -2, 0, 0, 0}, "J"},                {{2, 1, -3, 0, 0, 0}, "W"},      {{0, 0, 0, 1, 0, 0}, "A"},
      {{2, 1, -3, -1, 0, 0}, "V"},               {{2, 1, -3, -2, 0, 0}, "ohm"},   {{-2, -1, 4, 2, 0, 0}, "F"},
      {{2, 1, -2, 0, -1, 0}, "J/B"},             {{2, 1, -2, 0, 0, -1}, "J/FLOP"}, {{-2, 0, 0, 0, 1, 0}, "B/m2"},
      {{1, 1, -3, -2, 0, 0}, "ohm/m"},           {{-3, -1, 4, 2, 0, 0}, "F/m"},   {{-2, 0, 0, 1, 0, 0}, "A/m2"},
      {{0, 1, -3, 0, 0, 0}, "W/m2"},             {{1, 0, -1, 0, 0, 0}, "m/s"},    {{2, 1, -1, 0, 0, 0}, "J s"}};
  for (const auto& k : known) {
    if (k.e == e) return unit_text(k.symbol);
  }
  constexpr const char* base[] = {"m", "kg", "s", "A", "B", "FLOP"};
  unit_text t;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e[i] == 0) continue;
    if (t.text[0] != '\0') t.append(" ");
    t.append(base[i]);
    if (e[i] == 1) continue;
    const char p[] = {'^', e[i] < 0 ? '-' : '\0', '\0', '\0'};
    const int m = e[i] < 0 ? -e[i] : e[i];
    char digits[] = {m > 9 ? '?' : static_cast<char>('0' + m), '\0'};
    t.append(p);
    t.append(digits);
  }
  return t;
}

}  // namespace detail

template <class Dim, class T = double>
class quantity;

/// A unit of dimension `Dim`: its size in SI base units and its symbol.
template <class Dim>
struct unit {
  double factor;       ///< SI value of one of this unit
  const char* symbol;  ///< printed symbol, e.g. "ns"

  /// Makes a quantity of `v` of this unit.
  template <class T>
  constexpr auto operator()(const T& v) const {
    if constexpr (std::is_integral_v<T>) {
      return quantity<Dim, double>::from_si(static_cast<double>(v) * factor);
    } else {
      return quantity<Dim, T>::from_si(v * factor);
    }
  }
};

/// A value of dimension `Dim` stored in SI base units as a `T`.
template <class Dim, class T>
class quantity {
 public:
  using dimension = Dim;
  using value_type = T;

  constexpr quantity() = default;
  /// Widening from another scalar type (e.g. a `double` literal into an autodiff quantity).
  template <class U>
    requires(std::is_convertible_v<const U&, T> && !std::is_same_v<T, U>)
  constexpr quantity(const quantity<Dim, U>& o) : v_(T(o.si())) {}  // NOLINT: implicit on purpose

  /// Makes a quantity from its SI value (for the edges: Eigen, hot loops, JSON).
  static constexpr quantity from_si(const T& v) {
    quantity q;
    q.v_ = v;
    return q;
  }
  /// The value in SI base units.
  [[nodiscard]] constexpr const T& si() const { return v_; }
  /// The value expressed in unit `u`.
  [[nodiscard]] constexpr T in(const unit<Dim>& u) const { return v_ / u.factor; }
  /// A unit of another dimension: deleted; the compiler's message names both units (`Mine`, `Given`).
  template <class D2, detail::unit_text Mine = detail::dimension_text<Dim>(),
            detail::unit_text Given = detail::dimension_text<D2>()>
    requires(!std::is_same_v<D2, Dim>)
  T in(const unit<D2>&) const = delete;

  constexpr quantity& operator+=(const quantity& o) {
    v_ += o.v_;
    return *this;
  }
  constexpr quantity& operator-=(const quantity& o) {
    v_ -= o.v_;
    return *this;
  }
  constexpr quantity& operator*=(const T& s) {
    v_ *= s;
    return *this;
  }
  constexpr quantity& operator/=(const T& s) {
    v_ /= s;
    return *this;
  }
  friend constexpr quantity operator+(quantity a, const quantity& b) { return a += b; }
  friend constexpr quantity operator-(quantity a, const quantity& b) { return a -= b; }
  friend constexpr quantity operator-(const quantity& a) { return from_si(-a.v_); }
  friend constexpr quantity operator*(quantity a, const T& s) { return a *= s; }
  friend constexpr quantity operator*(const T& s, quantity a) { return a *= s; }
  friend constexpr quantity operator/(quantity a, const T& s) { return a /= s; }
  friend constexpr bool operator==(const quantity& a, const quantity& b) { return a.v_ == b.v_; }
  friend constexpr bool operator<(const quantity& a, const quantity& b) { return a.v_ < b.v_; }
  friend constexpr bool operator>(const quantity& a, const quantity& b) { return b.v_ < a.v_; }
  friend constexpr bool operator<=(const quantity& a, const quantity& b) { return a.v_ <= b.v_; }
  friend constexpr bool operator>=(const quantity& a, const quantity& b) { return a.v_ >= b.v_; }

 private:
  T v_{};
};

/// Sums, differences and comparisons of quantities of different dimensions: deleted, so that they
/// stay ill-formed (a `requires` test of them is false) while the compiler's message names both
/// units in the template arguments it prints, e.g. `unit_text Left = unit_text{"s"}; unit_text
/// Right = unit_text{"B/s"}` for a duration plus a bandwidth (the tests' `dimension_error_text`).
#define STRATA_DIMENSION_ERROR(op, ...)                                                                    \
  template <class D1, class D2, class T, detail::unit_text Left = detail::dimension_text<D1>(),            \
            detail::unit_text Right = detail::dimension_text<D2>()>                                        \
    requires(!std::is_same_v<D1, D2>)                                                                      \
  __VA_ARGS__ operator op(const quantity<D1, T>&, const quantity<D2, T>&) = delete;
STRATA_DIMENSION_ERROR(+, quantity<D1, T>)
STRATA_DIMENSION_ERROR(-, quantity<D1, T>)
STRATA_DIMENSION_ERROR(==, bool)
STRATA_DIMENSION_ERROR(<, bool)
STRATA_DIMENSION_ERROR(>, bool)
STRATA_DIMENSION_ERROR(<=, bool)
STRATA_DIMENSION_ERROR(>=, bool)
#undef STRATA_DIMENSION_ERROR

/// `q` with scalar type `T` (e.g. a `double` quantity into an autodiff model: zero derivative).
template <class T, class Dim, class U>
constexpr quantity<Dim, T> quantity_cast(const quantity<Dim, U>& q) {
  if constexpr (std::is_same_v<T, U>) {
    return q;
  } else {
    return quantity<Dim, T>::from_si(T(q.si()));
  }
}

/// Product of two quantities; a plain `T` when the dimensions cancel.
template <class D1, class D2, class T>
constexpr auto operator*(const quantity<D1, T>& a, const quantity<D2, T>& b) {
  using D = dim_product<D1, D2>;
  if constexpr (std::is_same_v<D, dims::none>) {
    return T(a.si() * b.si());
  } else {
    return quantity<D, T>::from_si(a.si() * b.si());
  }
}
/// Quotient of two quantities; a plain `T` when the dimensions cancel.
template <class D1, class D2, class T>
constexpr auto operator/(const quantity<D1, T>& a, const quantity<D2, T>& b) {
  using D = dim_quotient<D1, D2>;
  if constexpr (std::is_same_v<D, dims::none>) {
    return T(a.si() / b.si());
  } else {
    return quantity<D, T>::from_si(a.si() / b.si());
  }
}
/// Scalar divided by a quantity.
template <class D, class T>
constexpr auto operator/(const T& s, const quantity<D, T>& q) {
  return quantity<typename detail::dim_inv<D>::type, T>::from_si(s / q.si());
}
/// A number times a unit makes a quantity: `13.75 * units::ns`.
template <class D>
constexpr quantity<D, double> operator*(double v, const unit<D>& u) {
  return u(v);
}

template <class T = double>
using duration = quantity<dims::time, T>;
template <class T = double>
using length = quantity<dims::length, T>;
template <class T = double>
using area = quantity<dims::area, T>;
template <class T = double>
using frequency = quantity<dims::frequency, T>;
template <class T = double>
using data_size = quantity<dims::data, T>;
template <class T = double>
using op_count = quantity<dims::ops, T>;
template <class T = double>
using bandwidth = quantity<dims::bandwidth, T>;
template <class T = double>
using op_rate = quantity<dims::op_rate, T>;
template <class T = double>
using energy = quantity<dims::energy, T>;
template <class T = double>
using power = quantity<dims::power, T>;
template <class T = double>
using current = quantity<dims::current, T>;
template <class T = double>
using voltage = quantity<dims::voltage, T>;
template <class T = double>
using resistance = quantity<dims::resistance, T>;
template <class T = double>
using capacitance = quantity<dims::capacitance, T>;
template <class T = double>
using energy_per_data = quantity<dims::energy_per_data, T>;
template <class T = double>
using energy_per_op = quantity<dims::energy_per_op, T>;
template <class T = double>
using data_per_area = quantity<dims::data_per_area, T>;
template <class T = double>
using resistance_per_length = quantity<dims::resistance_per_length, T>;
template <class T = double>
using capacitance_per_length = quantity<dims::capacitance_per_length, T>;
template <class T = double>
using current_per_area = quantity<dims::current_per_area, T>;
template <class T = double>
using power_per_area = quantity<dims::power_per_area, T>;
template <class T = double>
using velocity = quantity<dims::velocity, T>;

/// The units strata reads and writes. Data: `B` byte, `b` bit (1/8 B); decimal `KB MB GB TB`
/// and `Gb` (10^9 bit); binary `KiB MiB GiB` and `Gib` (2^30 bit).
namespace units {
inline constexpr unit<dims::time> s{1.0, "s"}, ms{1e-3, "ms"}, us{1e-6, "us"}, ns{1e-9, "ns"},
    ps{1e-12, "ps"};
inline constexpr unit<dims::frequency> Hz{1.0, "Hz"}, MHz{1e6, "MHz"}, GHz{1e9, "GHz"};
inline constexpr unit<dims::length> m{1.0, "m"}, mm{1e-3, "mm"}, um{1e-6, "um"}, nm{1e-9, "nm"};
inline constexpr unit<dims::area> m2{1.0, "m2"}, mm2{1e-6, "mm2"}, um2{1e-12, "um2"};
inline constexpr unit<dims::data> B{1.0, "B"}, bit{0.125, "b"}, KB{1e3, "KB"}, MB{1e6, "MB"},
    GB{1e9, "GB"}, TB{1e12, "TB"}, KiB{1024.0, "KiB"}, MiB{1048576.0, "MiB"},
    GiB{1073741824.0, "GiB"}, Gb{1e9 / 8, "Gb"}, Gib{1073741824.0 / 8, "Gib"};
inline constexpr unit<dims::ops> op{1.0, "op"}, flop{1.0, "FLOP"}, Gflop{1e9, "GFLOP"},
    Tflop{1e12, "TFLOP"};
inline constexpr unit<dims::op_rate> flops{1.0, "FLOP/s"}, Gflops{1e9, "GFLOP/s"},
    Tflops{1e12, "TFLOP/s"};
inline constexpr unit<dims::bandwidth> Bps{1.0, "B/s"}, GBps{1e9, "GB/s"}, TBps{1e12, "TB/s"},
    Tbps{1e12 / 8, "Tb/s"};
inline constexpr unit<dims::energy> J{1.0, "J"}, mJ{1e-3, "mJ"}, uJ{1e-6, "uJ"}, nJ{1e-9, "nJ"},
    pJ{1e-12, "pJ"}, fJ{1e-15, "fJ"};
inline constexpr unit<dims::power> W{1.0, "W"}, mW{1e-3, "mW"}, uW{1e-6, "uW"};
inline constexpr unit<dims::current> A{1.0, "A"}, mA{1e-3, "mA"};
inline constexpr unit<dims::voltage> V{1.0, "V"}, mV{1e-3, "mV"};
inline constexpr unit<dims::resistance> ohm{1.0, "ohm"}, kohm{1e3, "kohm"};
inline constexpr unit<dims::capacitance> F{1.0, "F"}, pF{1e-12, "pF"}, fF{1e-15, "fF"},
    aF{1e-18, "aF"};
inline constexpr unit<dims::energy_per_data> J_per_B{1.0, "J/B"}, pJ_per_B{1e-12, "pJ/B"},
    pJ_per_bit{8e-12, "pJ/b"}, fJ_per_bit{8e-15, "fJ/b"};
inline constexpr unit<dims::energy_per_op> pJ_per_op{1e-12, "pJ/op"};
inline constexpr unit<dims::data_per_area> Gib_per_mm2{1073741824.0 / 8 / 1e-6, "Gib/mm2"},
    Gb_per_mm2{1e9 / 8 / 1e-6, "Gb/mm2"};
inline constexpr unit<dims::resistance_per_length> ohm_per_um{1e6, "ohm/um"};
inline constexpr unit<dims::capacitance_per_length> fF_per_um{1e-15 / 1e-6, "fF/um"},
    aF_per_um{1e-18 / 1e-6, "aF/um"};
inline constexpr unit<dims::current_per_area> A_per_um2{1e12, "A/um2"};
inline constexpr unit<dims::power_per_area> W_per_mm2{1e6, "W/mm2"};
inline constexpr unit<dims::velocity> m_per_s{1.0, "m/s"}, mm_per_ns{1e6, "mm/ns"};
}  // namespace units

/// Literals for `double` quantities: `35_nm`, `13.75_ns`, `1.25_pJ`, `460_GBps`, `64_MiB`.
/// An inline namespace, as `std::literals` is: `using namespace strata::literals` brings in the
/// literals alone, and strata's own headers use them for cited defaults.
inline namespace literals {
#define STRATA_LITERAL(suffix, u)                                                      \
  constexpr auto operator""_##suffix(long double v) { return units::u(double(v)); }    \
  constexpr auto operator""_##suffix(unsigned long long v) { return units::u(double(v)); }
STRATA_LITERAL(s, s)
STRATA_LITERAL(ms, ms)
STRATA_LITERAL(us, us)
STRATA_LITERAL(ns, ns)
STRATA_LITERAL(ps, ps)
STRATA_LITERAL(Hz, Hz)
STRATA_LITERAL(MHz, MHz)
STRATA_LITERAL(GHz, GHz)
STRATA_LITERAL(m, m)
STRATA_LITERAL(mm, mm)
STRATA_LITERAL(um, um)
STRATA_LITERAL(nm, nm)
STRATA_LITERAL(mm2, mm2)
STRATA_LITERAL(um2, um2)
STRATA_LITERAL(B, B)
STRATA_LITERAL(bit, bit)
STRATA_LITERAL(KB, KB)
STRATA_LITERAL(MB, MB)
STRATA_LITERAL(GB, GB)
STRATA_LITERAL(TB, TB)
STRATA_LITERAL(KiB, KiB)
STRATA_LITERAL(MiB, MiB)
STRATA_LITERAL(GiB, GiB)
STRATA_LITERAL(Gb, Gb)
STRATA_LITERAL(Gib, Gib)
STRATA_LITERAL(flop, flop)
STRATA_LITERAL(Tflops, Tflops)
STRATA_LITERAL(GBps, GBps)
STRATA_LITERAL(TBps, TBps)
STRATA_LITERAL(J, J)
STRATA_LITERAL(mJ, mJ)
STRATA_LITERAL(nJ, nJ)
STRATA_LITERAL(pJ, pJ)
STRATA_LITERAL(fJ, fJ)
STRATA_LITERAL(W, W)
STRATA_LITERAL(mW, mW)
STRATA_LITERAL(A, A)
STRATA_LITERAL(mA, mA)
STRATA_LITERAL(V, V)
STRATA_LITERAL(ohm, ohm)
STRATA_LITERAL(kohm, kohm)
STRATA_LITERAL(fF, fF)
STRATA_LITERAL(aF, aF)
// Energy per byte, bit and operation: the literal is the unit's name (`_per_`, as `units::pJ_per_bit`,
// `_ohm_per_um`). The short spellings below them are kept for existing code only.
STRATA_LITERAL(pJ_per_B, pJ_per_B)
STRATA_LITERAL(pJ_per_bit, pJ_per_bit)
STRATA_LITERAL(fJ_per_bit, fJ_per_bit)
STRATA_LITERAL(pJ_per_op, pJ_per_op)
STRATA_LITERAL(pJpB, pJ_per_B)
STRATA_LITERAL(pJpb, pJ_per_bit)
STRATA_LITERAL(fJpb, fJ_per_bit)
STRATA_LITERAL(pJpop, pJ_per_op)
STRATA_LITERAL(ohm_per_um, ohm_per_um)
STRATA_LITERAL(fF_per_um, fF_per_um)
STRATA_LITERAL(aF_per_um, aF_per_um)
STRATA_LITERAL(W_per_mm2, W_per_mm2)
#undef STRATA_LITERAL
}  // namespace literals

}  // namespace v0
}  // namespace strata
