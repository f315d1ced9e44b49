#pragma once
// How the tools use CLI11: an app with the help layout of help_formatter.h, "-h, --help" answered
// as soon as it is read (before any value is checked, ahead of unknown arguments), and the last of
// a repeated option winning; and parse(), which names the first unknown argument.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli/help_formatter.h"

namespace ember::cli {

// `usage`: the usage line after the program's name; empty for CLI11's "[OPTIONS]".
inline std::unique_ptr<CLI::App> new_app(const std::string& name, const std::string& description,
                                         const std::string& usage = "") {
  auto app = std::make_unique<CLI::App>(description, name);
  app->formatter(std::make_shared<HelpFormatter>(usage));
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app->set_help_flag();
  app->add_flag_callback(
         "-h,--help", [] { throw CLI::CallForHelp(); }, "show this message")
      ->trigger_on_parse();
  return app;
}

// Parses argv[1..argc), in order. Throws CLI::CallForHelp for -h/--help, else a CLI::ParseError
// whose what() is the message for the user. Leftover arguments are an ExtrasError naming the
// first ("unknown argument '--epoch'"): CLI11 2.1 would list them all, backwards ("3 --epoch").
// A "--" that ends the options is not one of them (CLI11 keeps it there, uncounted).
inline void parse(CLI::App& app, const std::vector<std::string>& args) {
  app.allow_extras();
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  app.parse(reversed);
  if (app.remaining_size() == 0) return;
  const std::vector<std::string> rest = app.remaining();
  auto first = std::find_if(rest.begin(), rest.end(), [](const auto& s) { return s != "--"; });
  throw CLI::ExtrasError("unknown argument '" + (first == rest.end() ? "--" : *first) + "'",
                         CLI::ExitCodes::ExtrasError);
}

}  // namespace ember::cli
