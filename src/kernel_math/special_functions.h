#pragma once
// The special functions behind lgamma, digamma, polygamma, i0 (and i1, i0's derivative), in
// double on every backend (EMBER_HD): the float results are the double ones rounded, so they
// agree with PyTorch's float kernels within the tests' tolerance.
#include <math.h>

#include <cmath>
#include <limits>

#include "ember/macros.h"

namespace ember::special {

constexpr double kPi = 3.14159265358979323846;

// psi(x) = d/dx log(gamma(x)). PyTorch's conventions: -inf at +0 and +inf at -0, NaN at the
// negative integers (and -inf); the reflection psi(1 - x) - pi / tan(pi x) below zero, the
// recurrence psi(x) = psi(x + 1) - 1 / x up to 10, then the asymptotic series
// log x - 1 / (2x) - sum B_2k / (2k x^2k).
EMBER_HD_INLINE double digamma(double x) {
  const double inf = std::numeric_limits<double>::infinity();
  if (x == 0) return ::signbit(x) ? inf : -inf;
  if (x != x) return x;
  if (x < 0) {
    if (x == ::trunc(x)) return std::numeric_limits<double>::quiet_NaN();
    // tan(pi x) from x's fractional part: pi x itself loses digits for large |x|.
    const double frac = x - ::trunc(x);
    return digamma(1 - x) - kPi / ::tan(kPi * frac);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == inf) return inf;
  const double y = 1 / (x * x);
  const double series =
      y * (1.0 / 12 -
           y * (1.0 / 120 -
                y * (1.0 / 252 -
                     y * (1.0 / 240 - y * (1.0 / 132 - y * (691.0 / 32760 - y * (1.0 / 12)))))));
  return result + ::log(x) - 0.5 / x - series;
}

// The Hurwitz zeta function sum_k (q + k)^-s for s > 1 by Euler-Maclaurin summation: the terms
// are added until q + k >= 9 (and at least 9 of them), then the integral of the rest and six
// Bernoulli corrections. +inf at q = 0 and the negative integers (a pole of every term); NaN at
// q = +inf, where PyTorch's polygamma gives NaN.
EMBER_HD_INLINE double hurwitz_zeta(double s, double q) {
  const double inf = std::numeric_limits<double>::infinity();
  if (s != s || q != q) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0 && q == ::floor(q)) return inf;
  if (q == inf) return std::numeric_limits<double>::quiet_NaN();  // as PyTorch's polygamma
  double sum = 0, a = q;
  int k = 0;
  while (k < 9 || a < 9) {
    sum += ::pow(a, -s);
    a += 1;
    ++k;
  }
  // Tail: a^(1-s) / (s-1) + a^-s / 2 + sum_j B_2j / (2j)! * s (s+1) ... (s+2j-2) a^(-s-2j+1).
  sum += ::pow(a, 1 - s) / (s - 1) + 0.5 * ::pow(a, -s);
  const double b2j_over_fact[6] = {1.0 / 12,       -1.0 / 720,     1.0 / 30240,
                                   -1.0 / 1209600, 1.0 / 47900160, -691.0 / 1307674368000};
  double rising = s;                // s (s+1) ... (s+2j-2)
  double power = ::pow(a, -s - 1);  // a^(-s-2j+1)
  for (int j = 0; j < 6; ++j) {
    sum += b2j_over_fact[j] * rising * power;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    power /= a * a;
  }
  return sum;
}

// psi'(x), PyTorch's way (so that double-precision results agree to its last digits): the
// reflection -pi^2 / sin^2(pi x) below 1/2, six steps of psi'(x) = psi'(x + 1) + 1 / x^2, then
// the asymptotic series (1 + 1/(2x) + 1/(6x^2) - 1/(30x^4) + 1/(42x^6)) / x.
EMBER_HD_INLINE double trigamma(double x) {
  double sign = 1, result = 0;
  if (x < 0.5) {
    sign = -1;
    const double s = ::sin(kPi * x);
    result -= kPi * kPi / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const double ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x;
  return sign * result;
}

// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2; n = 0 is digamma, n = 1 trigamma.
EMBER_HD_INLINE double polygamma(int n, double x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  double factorial = 1;
  for (int i = 2; i <= n; ++i) factorial *= i;
  const double sign = (n % 2 == 1) ? 1 : -1;
  return sign * factorial * hurwitz_zeta(n + 1.0, x);
}

// The modified Bessel functions of the first kind I0 and I1 of |x| (I1 is odd, its caller
// restores the sign): their power series up to 30, where its terms (all positive) lose nothing,
// beyond it the asymptotic series e^x / sqrt(2 pi x) sum_k c_k / x^k, with c_k from
// c_{k-1} ((2k-1)^2 - mu) / (8k), mu = 4 nu^2.
EMBER_HD_INLINE double bessel_i(int nu, double x) {
  if (x != x) return x;
  // PyTorch's i0 is NaN at +-inf (its Chebyshev form multiplies inf by 0): kept for parity.
  if (x == std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 30) {
    const double quarter_x2 = 0.25 * x * x;
    double term = nu == 0 ? 1 : 0.5 * x;
    double sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= quarter_x2 / (k * double(k + nu));
      sum += term;
      if (term <= sum * 1e-17) break;
    }
    return sum;
  }
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k <= 30; ++k) {
    term *= ((2 * k - 1.0) * (2 * k - 1.0) - mu) / (8.0 * k * x);
    sum += term;
  }
  return ::exp(x - 0.5 * ::log(2 * kPi * x)) * sum;
}

}  // namespace ember::special
