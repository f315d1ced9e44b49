#pragma once
// ember::cpp_extension::load_inline: C++ (CPU) kernels written in the program, compiled at run
// time with the system's C++ compiler against Ember's headers, cached, and loaded with dlopen, as
// torch.utils.cpp_extension.load_inline:
//
//   auto ext = ember::cpp_extension::load_inline("my_ops", R"(
//     #include <ember/ember.h>
//     ember::Tensor square_plus(const ember::Tensor& x, double c) { return x * x + c; }
//   )", {"square_plus"});
//   auto f = ext.get<ember::Tensor(const ember::Tensor&, double)>("square_plus");
//   ember::Tensor y = f(x, 1.0);
//
// get<Signature> checks the signature against the compiled function's and names both when they
// differ. A compile error throws ember::Error with the compiler's messages.
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "ember/error.h"
#include "ember/macros.h"

namespace ember::cpp_extension {

struct LoadOptions {
  std::vector<std::string> extra_cflags;   // e.g. "-O3", "-march=native", "-fopenmp"
  std::vector<std::string> extra_ldflags;  // e.g. "-lopenblas"
  bool verbose = false;                    // print the compiler command
  std::string build_directory;             // the cache folder, if not the default (below)
};

class EMBER_API Extension {
 public:
  // A function named in load_inline's list, as a plain function pointer of type Signature*.
  template <typename Signature>
  Signature* get(const std::string& function) const {
    return reinterpret_cast<Signature*>(lookup(function, typeid(Signature*).name()));
  }
  const std::string& name() const;
  const std::string& library_path() const;  // the cached shared object

  struct Impl;
  explicit Extension(std::shared_ptr<Impl> impl);

 private:
  void* lookup(const std::string& function, const char* expected_type) const;
  std::shared_ptr<Impl> impl_;
};

// Compiles (or takes from the cache) `cpp_source` and exports `functions` (C++ functions defined
// in it, free functions at namespace scope). Cache: options.build_directory, else
// EMBER_EXTENSIONS_DIR, else
// $XDG_CACHE_HOME/ember/extensions, else ~/.cache/ember/extensions; compiler: EMBER_CXX, else c++.
EMBER_API Extension load_inline(const std::string& name, const std::string& cpp_source,
                                const std::vector<std::string>& functions,
                                const LoadOptions& options = {});

}  // namespace ember::cpp_extension
