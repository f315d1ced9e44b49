#pragma once
// A fresh, private directory for one test's files, removed with everything in it when the
// TempDir goes out of scope. Made by mkdtemp under $TMPDIR (else /tmp), so tests running at the
// same time (ctest -j, other checkouts on the machine) never share a path.
#include <string>
#include <vector>

namespace ember::testing {

class TempDir {
 public:
  // <temp>/<prefix>_XXXXXX; throws std::runtime_error (with errno's text) when it cannot be made.
  explicit TempDir(const std::string& prefix = "ember_test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  // The names in the directory (not "." and ".."), sorted.
  std::vector<std::string> entries() const;

 private:
  std::string path_;
};

}  // namespace ember::testing
