#include "common/pages/factorial.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace mb {

std::string factorial_digits(unsigned n) {
    // Little-endian limbs in base 10^9: each limb prints as exactly nine digits but the top one.
    constexpr std::uint32_t kBase = 1'000'000'000;
    std::vector<std::uint32_t> limbs{1};
    for (unsigned k = 2; k <= n; ++k) {
        std::uint64_t carry = 0;
        for (std::uint32_t& limb : limbs) {
            const std::uint64_t product = std::uint64_t{limb} * k + carry;
            limb = static_cast<std::uint32_t>(product % kBase);
            carry = product / kBase;
        }
        while (carry != 0) {
            limbs.push_back(static_cast<std::uint32_t>(carry % kBase));
            carry /= kBase;
        }
    }
    std::string digits = std::to_string(limbs.back());
    char chunk[16];
    for (auto it = limbs.rbegin() + 1; it != limbs.rend(); ++it) {
        std::snprintf(chunk, sizeof chunk, "%09u", static_cast<unsigned>(*it));
        digits += chunk;
    }
    return digits;
}

std::string render_factorial(unsigned n) {
    return std::to_string(n) + "! = " + factorial_digits(n) + "\n";
}

}  // namespace mb
