#pragma once
// The tools' --help layout on top of CLI11's: the usage line first, then the description, the
// options with "-h, --help", and only an option's first long name, so that other spellings
// (ember-run's --nproc_per_node for --nproc-per-node) are accepted without crowding the listing.
#include <CLI/CLI.hpp>
#include <string>
#include <utility>

namespace ember::cli {

class HelpFormatter : public CLI::Formatter {
 public:
  // `usage`: what follows the program's name on the usage line; empty for CLI11's own.
  explicit HelpFormatter(std::string usage = "") : usage_(std::move(usage)) { column_width(25); }

  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return make_usage(app, name) + make_description(app) + make_positionals(app) +
           make_groups(app, mode) + make_footer(app);
  }

  std::string make_usage(const CLI::App* app, std::string name) const override {
    if (usage_.empty()) return Formatter::make_usage(app, name);
    return get_label("Usage") + ": " + name + " " + usage_ + "\n";
  }

  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    if (positional || opt->get_lnames().empty())
      return Formatter::make_option_name(opt, positional);
    std::string name;
    for (const std::string& s : opt->get_snames()) name += "-" + s + ", ";
    return name + "--" + opt->get_lnames().front();
  }

 private:
  std::string usage_;
};

}  // namespace ember::cli
