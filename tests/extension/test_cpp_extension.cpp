// load_inline end to end: a CPU kernel written in the test is compiled with the system compiler
// against Ember's headers, cached, loaded and called; signatures are checked; compile errors show
// the compiler's messages; an autograd::Function built on two extension kernels (forward and
// backward) passes the finite-difference check.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "ember/autograd_function.h"
#include "ember/cpp_extension.h"
#include "ember/cpp_extension_python.h"
#include "ember/ops.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using cpp_extension::load_inline;

// y = x^3 + c (forward) and dy/dx * g = 3 x^2 g (backward), as hand-written loops.
const char* kCube = R"(
#include <ember/ops.h>
namespace cube {
ember::Tensor forward(const ember::Tensor& x, double c) {
  ember::Tensor in = x.contiguous().to(ember::kDouble);
  ember::Tensor y = ember::empty_like(in);
  const double* p = in.data_ptr<double>();
  double* q = y.data_ptr<double>();
  for (int64_t i = 0; i < in.numel(); ++i) q[i] = p[i] * p[i] * p[i] + c;
  return y.to(x.dtype());
}
ember::Tensor backward(const ember::Tensor& x, const ember::Tensor& g) {
  ember::Tensor in = x.contiguous().to(ember::kDouble), gd = g.contiguous().to(ember::kDouble);
  ember::Tensor out = ember::empty_like(in);
  for (int64_t i = 0; i < in.numel(); ++i)
    out.data_ptr<double>()[i] = 3 * in.data_ptr<double>()[i] * in.data_ptr<double>()[i] *
                                gd.data_ptr<double>()[i];
  return out.to(x.dtype());
}
}  // namespace cube
int64_t answer() { return 42; }
)";

class CppExtension : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_.emplace("ember_ext");
    dir_ = tmp_->path();
    setenv("EMBER_EXTENSIONS_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("EMBER_EXTENSIONS_DIR");
    tmp_.reset();
  }
  std::optional<ember::testing::TempDir> tmp_;
  fs::path dir_;
};

using Forward = Tensor(const Tensor&, double);
using Backward = Tensor(const Tensor&, const Tensor&);

struct Cube : autograd::Function<Cube> {
  static Forward* fwd;
  static Backward* bwd;
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double c) {
    ctx->save_for_backward({x});
    return fwd(x, c);
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list g) {
    return {bwd(ctx->get_saved_variables()[0], g[0]), Tensor()};
  }
};
Forward* Cube::fwd = nullptr;
Backward* Cube::bwd = nullptr;

TEST_F(CppExtension, CompilesLoadsCachesAndCalls) {
  auto ext = load_inline("cube_ops", kCube, {"cube::forward", "cube::backward", "answer"});
  EXPECT_EQ(ext.name(), "cube_ops");
  EXPECT_TRUE(fs::exists(ext.library_path()));
  Tensor x = randn({3, 4});
  EXPECT_TRUE(allclose(ext.get<Forward>("cube::forward")(x, 1.5), x * x * x + 1.5, 1e-5, 1e-6));
  EXPECT_EQ(ext.get<int64_t()>("answer")(), 42);
  // The same source again: the cached library, not a new build.
  const auto built = fs::last_write_time(ext.library_path());
  auto again = load_inline("cube_ops", kCube, {"cube::forward", "cube::backward", "answer"});
  EXPECT_EQ(again.library_path(), ext.library_path());
  EXPECT_EQ(fs::last_write_time(again.library_path()), built);
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "temporary file left";
  }
}

TEST_F(CppExtension, SignaturesAndNamesAreChecked) {
  auto ext = load_inline("cube_ops", kCube, {"cube::forward", "cube::backward", "answer"});
  const std::string wrong =
      testing::error_of<TypeError>([&] { ext.get<Tensor(const Tensor&)>("cube::forward"); });
  EXPECT_TRUE(testing::contains(wrong, "function 'cube::forward' has type")) << wrong;
  EXPECT_TRUE(testing::contains(wrong, "the signatures differ")) << wrong;
  const std::string missing =
      testing::error_of<ValueError>([&] { ext.get<int64_t()>("question"); });
  EXPECT_TRUE(testing::contains(missing, "has no function 'question'")) << missing;
  EXPECT_TRUE(testing::contains(missing, "cube::forward, cube::backward, answer")) << missing;
  EXPECT_THROW(load_inline("bad name", kCube, {"answer"}), ValueError);
  EXPECT_THROW(load_inline("ok", kCube, {}), ValueError);
  EXPECT_THROW(load_inline("ok", kCube, {"answer()"}), ValueError);
}

TEST_F(CppExtension, CompileErrorsShowTheCompilersMessages) {
  const std::string m = testing::error_of(
      [&] { load_inline("broken", "int f() { return undeclared_thing; }\n", {"f"}); });
  EXPECT_TRUE(testing::contains(m, "load_inline('broken'): compiling failed")) << m;
  EXPECT_TRUE(testing::contains(m, "undeclared_thing")) << m;
  EXPECT_TRUE(testing::contains(m, "broken.cpp:1")) << m;  // file and line of the error
}

TEST_F(CppExtension, CustomForwardAndBackwardKernelsPassFiniteDifferences) {
  auto ext = load_inline("cube_ops", kCube, {"cube::forward", "cube::backward", "answer"});
  Cube::fwd = ext.get<Forward>("cube::forward");
  Cube::bwd = ext.get<Backward>("cube::backward");
  testing::expect_gradients_match_finite_differences(
      [](const std::vector<Tensor>& in) { return Cube::apply(in[0], 0.25); }, {randn({2, 3})},
      Device(kCPU), "cube via load_inline");
}

// The calling convention of the Python load_inline (ember/cpp_extension_python.h), and the
// build_directory option: entries convert Values to the parameters' types and the result back.
TEST_F(CppExtension, PythonEntriesConvertArgumentsAndResults) {
  namespace py = cpp_extension::python;
  const std::string source = std::string("#include <ember/extension.h>\n") + kCube + R"(
void ember_py_entry_f(const std::vector<ember::cpp_extension::python::Value>& a,
                      ember::cpp_extension::python::Result& r) {
  ember::cpp_extension::python::call(&cube::forward, "forward", a, r);
}
const char* ember_py_signature_f() {
  static const std::string s = ember::cpp_extension::python::signature(&cube::forward, "forward");
  return s.c_str();
}
)";
  cpp_extension::LoadOptions options;
  options.build_directory = (dir_ / "chosen").string();
  auto ext = load_inline("py_ops", source, {"ember_py_entry_f", "ember_py_signature_f"}, options);
  EXPECT_EQ(ext.library_path().rfind((dir_ / "chosen").string(), 0), 0u) << ext.library_path();
  EXPECT_EQ(std::string(ext.get<const char*()>("ember_py_signature_f")()),
            "forward(Tensor, float) -> Tensor");
  auto entry = ext.get<py::Entry>("ember_py_entry_f");
  Tensor x = randn({3});
  py::Result r;
  entry({x, int64_t(2)}, r);  // an int where a float is declared: converted, as Python does
  ASSERT_EQ(r.values.size(), 1u);
  EXPECT_TRUE(allclose(std::get<Tensor>(r.values[0]), x * x * x + 2, 1e-5, 1e-6));
  const std::string arity = testing::error_of<TypeError>([&] { entry({x}, r); });
  EXPECT_TRUE(testing::contains(arity, "takes 2 arguments but 1 was given")) << arity;
  const std::string type = testing::error_of<TypeError>([&] { entry({x, std::string("2")}, r); });
  EXPECT_TRUE(testing::contains(type, "argument 2 must be float, not str")) << type;
}

}  // namespace
}  // namespace ember
