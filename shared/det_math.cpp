#include "shared/det_math.h"

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

}  // namespace foothold
