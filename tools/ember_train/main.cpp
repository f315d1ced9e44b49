// ember-train: trains an MLP or a CNN on Fashion-MNIST, or a character-level GPT on a text
// corpus, on the best device. Exit status: 0 done, 2 bad command line (usage printed), 1 any
// other error (message printed).
#include <unistd.h>

#include <exception>
#include <iostream>

#include "ember/error.h"
#include "ember_train/args.h"
#include "ember_train/trainer.h"

int main(int argc, char** argv) {
  using namespace ember::train;
  TrainArgs args;
  try {
    args = parse_args(argc, argv);
  } catch (const ember::Error& e) {
    std::cerr << "ember-train: error: " << e.what() << "\n\n" << usage();
    return 2;
  }
  if (args.help) {
    std::cout << usage();
    return 0;
  }
  try {
    run_training(args, std::cout, isatty(STDOUT_FILENO) != 0);
  } catch (const std::exception& e) {
    std::cout << std::flush;
    std::cerr << "ember-train: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
