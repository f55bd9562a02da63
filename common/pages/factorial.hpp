// Exact n! as decimal digits (E3's handler: a random n in 10..40, or ?n= up to 20,000: E9's heavy
// request).
#pragma once

#include <string>

namespace mb {

// All decimal digits of n!, exact, for any n (cost grows as n^2).
std::string factorial_digits(unsigned n);

// The /factorial body: "n! = <digits>\n".
std::string render_factorial(unsigned n);

}  // namespace mb
