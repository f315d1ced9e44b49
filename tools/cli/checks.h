#pragma once
// Checks of option values, as CLI11 validators: each passes a good value (integers rewritten in
// plain decimal, so that CLI11's base-guessing conversion reads "010" as ten) and otherwise says
// what is wrong, naming the value. CLI11 puts the option in front: "--epochs: must be at least 1,
// got 0".
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ember::cli {

// A decimal integer of type T in [lo, hi]: no sign for an unsigned T, no spaces, no other base.
template <typename T>
CLI::Validator integer_in(T lo, T hi = std::numeric_limits<T>::max()) {
  return CLI::Validator(
      [lo, hi](std::string& v) -> std::string {
        T x{};
        const char* end = v.data() + v.size();
        auto [ptr, ec] = std::from_chars(v.data(), end, x);
        if (ec == std::errc::result_out_of_range) return "'" + v + "' is out of range";
        if (ec != std::errc() || ptr != end || v.empty()) {
          return "expected an integer, got '" + v + "'";
        }
        if (x < lo) return "must be at least " + std::to_string(lo) + ", got " + v;
        if (x > hi) return "must be at most " + std::to_string(hi) + ", got " + v;
        v = std::to_string(x);
        return "";
      },
      "");
}

// A finite decimal number above zero (or at least zero with zero_ok).
inline CLI::Validator finite_number(bool zero_ok) {
  return CLI::Validator(
      [zero_ok](std::string& v) -> std::string {
        double x = 0;
        const char* end = v.data() + v.size();
        auto [ptr, ec] = std::from_chars(v.data(), end, x);
        if (ec != std::errc() || ptr != end || v.empty()) {
          return "expected a number, got '" + v + "'";
        }
        if (!std::isfinite(x) || x < 0 || (x == 0 && !zero_ok)) {
          return std::string("must be a ") + (zero_ok ? "non-negative" : "positive") +
                 " finite number, got " + v;
        }
        return "";
      },
      "");
}
inline CLI::Validator positive_number() {
  return finite_number(false);
}
inline CLI::Validator non_negative_number() {
  return finite_number(true);
}

// One of `choices`: "expected mlp or cnn, got 'resnet'".
inline CLI::Validator one_of(std::vector<std::string> choices) {
  return CLI::Validator(
      [choices](std::string& v) -> std::string {
        for (const std::string& c : choices) {
          if (v == c) return "";
        }
        std::string list;
        for (size_t i = 0; i < choices.size(); ++i) {
          list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        }
        return "expected " + list + ", got '" + v + "'";
      },
      "");
}

// Any text but the empty string; `what` names the expected kind: "expected a directory, got an
// empty string".
inline CLI::Validator not_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& v) -> std::string {
        return v.empty() ? "expected " + what + ", got an empty string" : "";
      },
      "");
}

}  // namespace ember::cli
