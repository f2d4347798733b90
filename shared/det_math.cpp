#include "shared/det_math.h"

#include <cmath>

namespace foothold {

// Taylor series summed from the smallest term up; 14 terms are far past double precision for
// |x| <= pi/2 (the last term is below 1e-30).
double det_sin(double x) {
  const double x2 = x * x;
  double term = x;
  double terms[14];
  for (int k = 0; k < 14; ++k) {
    terms[k] = term;
    term = -term * x2 / double((2 * k + 2) * (2 * k + 3));
  }
  double sum = 0;
  for (int k = 13; k >= 0; --k) sum += terms[k];
  return sum;
}

double det_cos(double x) {
  const double x2 = x * x;
  double term = 1;
  double terms[14];
  for (int k = 0; k < 14; ++k) {
    terms[k] = term;
    term = -term * x2 / double((2 * k + 1) * (2 * k + 2));
  }
  double sum = 0;
  for (int k = 13; k >= 0; --k) sum += terms[k];
  return sum;
}

// Two halvings (atan(x) = 2 atan(x / (1 + sqrt(1 + x^2)))) bring |x| <= 1 below 0.2, where 22 terms
// of the Taylor series are far past double precision (0.2^45 / 45 < 1e-32).
double det_atan(double x) {
  for (int i = 0; i < 2; ++i) x = x / (1 + std::sqrt(1 + x * x));
  const double x2 = x * x;
  double power = x;
  double terms[22];
  for (int k = 0; k < 22; ++k) {
    terms[k] = power / double(2 * k + 1);
    power = -power * x2;
  }
  double sum = 0;
  for (int k = 21; k >= 0; --k) sum += terms[k];
  return 4 * sum;
}

double det_angle(double s, double c) {
  if (!(s > 0)) return 0;
  return s <= c ? det_atan(s / c) : kPi / 2 - det_atan(c / s);
}

}  // namespace foothold
