#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ember/error.h"
#include "ember_train/metrics.h"

namespace ember::train {

std::string metrics_csv(const std::vector<EpochMetrics>& rows) {
  std::ostringstream os;
  os << "epoch,train_loss,test_loss,test_accuracy,seconds\n";
  char line[160];
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%lld,%.6f,%.6f,%.6f,%.3f\n", static_cast<long long>(r.epoch),
                  r.train_loss, r.test_loss, r.test_accuracy, r.seconds);
    os << line;
  }
  return os.str();
}

std::string step_metrics_csv(const std::vector<StepMetrics>& rows) {
  std::ostringstream os;
  os << "step,train_loss,val_loss,tokens_per_second,seconds\n";
  char line[160];
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%lld,%.6f,%.6f,%.1f,%.3f\n", static_cast<long long>(r.step),
                  r.train_loss, r.val_loss, r.tokens_per_second, r.seconds);
    os << line;
  }
  return os.str();
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    EMBER_CHECK(f.good(), Error, "cannot write '", tmp, "': ", std::strerror(errno));
    f.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    f.close();
    EMBER_CHECK(!f.fail(), Error, "writing '", tmp, "' failed: ", std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error("cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(err));
  }
}

}  // namespace ember::train
