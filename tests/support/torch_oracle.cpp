// The C++ side of the PyTorch oracle: spawns torch_oracle.py once and talks JSON lines to it.
#include "support/torch_oracle.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "support/test_util.h"

extern char** environ;

namespace ember::testing {
namespace {

constexpr const char* kInstallHint =
    "The tests use PyTorch as their oracle: EMBER_TORCH_PYTHON if set, else the first of "
    "/usr/bin/python3 and the python3 programs on PATH that can import torch. On Debian: "
    "sudo apt-get install python3-torch";

bool imports_torch(const std::string& python) {
  if (::access(python.c_str(), X_OK) != 0) return false;
  const std::string cmd = "'" + python + "' -c 'import torch' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// The Python that runs the oracle. Debian's /usr/bin/python3 (python3-torch) comes first; a GPU
// machine's PyTorch is usually another python3 on PATH.
const std::string& oracle_python() {
  static const std::string python = [] {
    if (const char* e = std::getenv("EMBER_TORCH_PYTHON"); e && *e) return std::string(e);
    std::vector<std::string> candidates = {"/usr/bin/python3"};
    if (const char* path = std::getenv("PATH")) {
      std::stringstream dirs(path);
      for (std::string dir; std::getline(dirs, dir, ':');) {
        if (!dir.empty()) candidates.push_back(dir + "/python3");
      }
    }
    for (const std::string& c : candidates) {
      if (imports_torch(c)) return c;
    }
    return std::string("/usr/bin/python3");  // the start-up error then says what is missing
  }();
  return python;
}
// A single request never legitimately takes this long; a hung oracle must not hang the test.
constexpr int kTimeoutMs = 300 * 1000;

const char* dtype_name(ScalarType t) {
  switch (t) {
    case kFloat:
      return "float32";
    case kDouble:
      return "float64";
    case kHalf:
      return "float16";
    case kBFloat16:
      return "bfloat16";
    case kLong:
      return "int64";
    case kInt:
      return "int32";
    case kShort:
      return "int16";
    case kChar:
      return "int8";
    case kByte:
      return "uint8";
    case kBool:
      return "bool";
    default:
      break;
  }
  throw TypeError(detail::str_cat("TorchOracle: dtype ", t, " has no PyTorch counterpart"));
}

ScalarType dtype_from_name(const std::string& s) {
  static const std::map<std::string, ScalarType> names = {
      {"float32", kFloat}, {"float64", kDouble}, {"float16", kHalf}, {"bfloat16", kBFloat16},
      {"int64", kLong},    {"int32", kInt},      {"int16", kShort},  {"int8", kChar},
      {"uint8", kByte},    {"bool", kBool}};
  auto it = names.find(s);
  EMBER_CHECK(it != names.end(), TypeError, "TorchOracle: PyTorch returned unknown dtype '", s,
              "'");
  return it->second;
}

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const char* data, size_t n) {
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    uint32_t v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  if (i < n) {
    uint32_t v = p[i] << 16;
    if (i + 1 < n) v |= p[i + 1] << 8;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < n ? kB64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::vector<char> base64_decode(const std::string& s) {
  static const auto table = [] {
    std::array<int, 256> t;
    t.fill(-1);
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kB64[i])] = i;
    return t;
  }();
  std::vector<char> out;
  out.reserve(s.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v = table[static_cast<unsigned char>(c)];
    if (v < 0) continue;  // '=' padding
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

bool requires_grad_of(const Tensor& t) {
  // Read the autograd metadata directly so the oracle does not depend on the autograd engine.
  const auto* meta = t.impl()->autograd_meta();
  return meta && meta->requires_grad;
}

nlohmann::json encode_tensor(const Tensor& t) {
  std::vector<char> bytes = contiguous_bytes(t);
  return {{"dtype", dtype_name(t.dtype())},
          {"shape", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
          {"requires_grad", requires_grad_of(t)},
          {"data", base64_encode(bytes.data(), bytes.size())}};
}

Tensor decode_tensor(const std::string& name, const nlohmann::json& j) {
  ScalarType dtype = dtype_from_name(j.at("dtype").get<std::string>());
  auto shape = j.at("shape").get<std::vector<int64_t>>();
  std::vector<char> bytes = base64_decode(j.at("data").get<std::string>());
  Tensor t = make_empty(shape, dtype, Device(kCPU));
  EMBER_CHECK(bytes.size() == t.nbytes(), Error, "TorchOracle: output '", name, "' carries ",
              bytes.size(), " bytes, expected ", t.nbytes());
  if (!bytes.empty()) std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return detail::str_cat("exit code ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return detail::str_cat("killed by signal ", WTERMSIG(status));
  return "unknown status";
}

}  // namespace

std::vector<char> contiguous_bytes(const Tensor& t) {
  Tensor src = t;
  if (src.is_cuda()) {
    // Two steps so the cross-device copy always sees a contiguous source.
    if (!src.is_contiguous()) {
      Tensor dense = make_empty(src.sizes(), src.dtype(), src.device());
      cuda_backend().copy(dense, src, false);
      src = dense;
    }
    Tensor host = make_empty(src.sizes(), src.dtype(), Device(kCPU));
    cuda_backend().copy(host, src, false);
    src = host;
  }
  const size_t es = src.element_size();
  std::vector<char> out(src.nbytes());
  if (out.empty()) return out;
  if (src.is_contiguous()) {
    std::memcpy(out.data(), src.data_ptr(), out.size());
    return out;
  }
  // Strided gather on the CPU, odometer over the index.
  const int64_t nd = src.dim();
  std::vector<int64_t> idx(nd, 0);
  const char* base = static_cast<const char*>(src.data_ptr());
  for (int64_t i = 0, n = src.numel(); i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += idx[d] * src.strides()[d];
    std::memcpy(out.data() + i * es, base + off * static_cast<int64_t>(es), es);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < src.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<char> bytes = contiguous_bytes(t);
  const int64_t n = t.numel();
  std::vector<double> out(n);
  auto convert = [&](auto tag) {
    using T = decltype(tag);
    const T* p = reinterpret_cast<const T*>(bytes.data());
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(static_cast<float>(p[i]));
  };
  auto convert_exact = [&](auto tag) {
    using T = decltype(tag);
    const T* p = reinterpret_cast<const T*>(bytes.data());
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(p[i]);
  };
  switch (t.dtype()) {
    case kFloat:
      convert_exact(float{});
      break;
    case kDouble:
      convert_exact(double{});
      break;
    case kHalf:
      convert(Half{});
      break;
    case kBFloat16:
      convert(BFloat16{});
      break;
    case kLong:
      convert_exact(int64_t{});
      break;
    case kInt:
      convert_exact(int32_t{});
      break;
    case kShort:
      convert_exact(int16_t{});
      break;
    case kChar:
      convert_exact(int8_t{});
      break;
    case kByte:
      convert_exact(uint8_t{});
      break;
    case kBool:
      convert_exact(bool{});
      break;
    default:
      throw TypeError(detail::str_cat("to_doubles: unsupported dtype ", t.dtype()));
  }
  return out;
}

TorchOracle& TorchOracle::instance() {
  static TorchOracle oracle;
  return oracle;
}

TorchOracle::~TorchOracle() {
  stop();
}

void TorchOracle::stop() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  to_child_ = from_child_ = -1;
  buffer_.clear();
  if (pid_ > 0) {
    // Closing stdin ends the server loop; kill only if it does not exit promptly.
    int status = 0;
    for (int i = 0; i < 100 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) ::usleep(10000);
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
  }
  pid_ = -1;
}

void TorchOracle::ensure_started() {
  if (pid_ > 0) return;
  // A write to a dead oracle must become an error, not a SIGPIPE that kills the test binary.
  struct sigaction old {};
  if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
    ::signal(SIGPIPE, SIG_IGN);
  }
  const std::string& python = oracle_python();
  EMBER_CHECK(::access(python.c_str(), X_OK) == 0, Error, "TorchOracle: ", python,
              " is not there or not executable. ", kInstallHint);
  int in_pipe[2], out_pipe[2];
  EMBER_CHECK(::pipe2(in_pipe, O_CLOEXEC) == 0, Error, "TorchOracle: pipe: ", std::strerror(errno));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    throw Error(detail::str_cat("TorchOracle: pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  std::string script = support_dir() + "/torch_oracle.py";
  std::vector<char*> argv = {const_cast<char*>(python.c_str()), const_cast<char*>("-u"),
                             script.data(), nullptr};
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  if (rc != 0) {
    stop();
    throw Error(detail::str_cat("TorchOracle: could not start ", python, ": ", std::strerror(rc),
                                ". ", kInstallHint));
  }
  pid_ = pid;
  nlohmann::json hello;
  try {
    hello = nlohmann::json::parse(read_line());
  } catch (const std::exception& e) {
    stop();
    throw Error(
        detail::str_cat("TorchOracle: ", script, " did not start: ", e.what(), ". ", kInstallHint));
  }
  if (!hello.value("ready", false)) {
    std::string why = hello.value("error", std::string("no reason given"));
    stop();
    throw Error(detail::str_cat("TorchOracle: ", python, " cannot import torch (", why, "). ",
                                kInstallHint));
  }
  version_ = hello.value("torch", std::string());
}

void TorchOracle::write_all(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(to_child_, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(
          detail::str_cat("TorchOracle: writing to the oracle failed: ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
}

std::string TorchOracle::read_line() {
  for (;;) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    pollfd pfd{from_child_, POLLIN, 0};
    int pr = ::poll(&pfd, 1, kTimeoutMs);
    if (pr < 0 && errno == EINTR) continue;
    EMBER_CHECK(pr > 0, Error, "TorchOracle: no answer from the oracle within ", kTimeoutMs / 1000,
                " s");
    char chunk[65536];
    ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int status = 0;
      std::string how = "still running";
      if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) {
        how = describe_exit(status);
        pid_ = -1;
      }
      throw Error(detail::str_cat("TorchOracle: the oracle process ended (", how,
                                  "); it is restarted on the next call"));
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::string TorchOracle::torch_version() {
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_started();
  return version_;
}

std::map<std::string, Tensor> TorchOracle::run(const std::string& python_code,
                                               const std::map<std::string, Tensor>& inputs,
                                               const std::vector<std::string>& outputs) {
  nlohmann::json request;
  request["code"] = python_code;
  request["inputs"] = nlohmann::json::object();
  for (const auto& [name, t] : inputs) {
    EMBER_CHECK(t.defined(), ValueError, "TorchOracle: input '", name, "' is an undefined tensor");
    request["inputs"][name] = encode_tensor(t);
  }
  request["outputs"] = outputs;
  std::string line = request.dump() + "\n";

  std::lock_guard<std::mutex> lock(mutex_);
  ensure_started();
  nlohmann::json reply;
  try {
    write_all(line);
    reply = nlohmann::json::parse(read_line());
  } catch (...) {
    stop();  // whatever state the process is in, the next call starts a fresh one
    throw;
  }
  if (!reply.value("ok", false)) {
    throw Error(detail::str_cat("TorchOracle: the Python code raised:\n",
                                reply.value("error", std::string("(no traceback)")),
                                "--- code ---\n", python_code));
  }
  std::map<std::string, Tensor> result;
  for (const auto& [name, spec] : reply.at("outputs").items()) {
    result[name] = decode_tensor(name, spec);
  }
  return result;
}

void expect_close(const Tensor& actual, const Tensor& expected, double rtol, double atol,
                  const std::string& context) {
  const std::string where = context.empty() ? "" : " [" + context + "]";
  if (!actual.defined() || !expected.defined()) {
    ADD_FAILURE() << "expect_close" << where << ": " << (actual.defined() ? "expected" : "actual")
                  << " tensor is undefined";
    return;
  }
  if (actual.dtype() != expected.dtype()) {
    ADD_FAILURE() << "expect_close" << where << ": dtype " << actual.dtype()
                  << " != expected dtype " << expected.dtype();
    return;
  }
  if (actual.sizes() != expected.sizes()) {
    ADD_FAILURE() << "expect_close" << where << ": shape " << actual.sizes()
                  << " != expected shape " << expected.sizes();
    return;
  }
  const bool exact = !is_floating_point(actual.dtype());
  std::vector<char> abytes, ebytes;
  std::vector<double> a, e;
  if (exact) {
    // Integers compare bit for bit (int64 does not survive a trip through double).
    abytes = contiguous_bytes(actual);
    ebytes = contiguous_bytes(expected);
  }
  a = to_doubles(actual);
  e = to_doubles(expected);
  const size_t es = actual.element_size();
  int64_t mismatches = 0, first = -1;
  double max_diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    bool ok;
    double diff = std::fabs(a[i] - e[i]);
    if (exact) {
      ok = std::memcmp(abytes.data() + i * es, ebytes.data() + i * es, es) == 0;
    } else if (std::isnan(a[i]) || std::isnan(e[i])) {
      ok = std::isnan(a[i]) && std::isnan(e[i]);
    } else if (std::isinf(a[i]) || std::isinf(e[i])) {
      ok = a[i] == e[i];
    } else {
      ok = diff <= atol + rtol * std::fabs(e[i]);
      max_diff = std::max(max_diff, diff);
    }
    if (!ok) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++mismatches;
      if (!std::isnan(diff)) max_diff = std::max(max_diff, diff);
    }
  }
  if (mismatches == 0) return;
  // Row-major flat index -> multi-index.
  std::vector<int64_t> index(actual.dim());
  for (int64_t d = actual.dim() - 1, r = first; d >= 0; --d) {
    index[d] = r % actual.sizes()[d];
    r /= actual.sizes()[d];
  }
  std::ostringstream msg;
  msg.precision(17);
  msg << "expect_close" << where << ": " << mismatches << " of " << a.size()
      << " elements differ (dtype " << actual.dtype() << ", shape " << actual.sizes() << ", rtol "
      << rtol << ", atol " << atol << "); max abs diff " << max_diff << "; first mismatch at index "
      << IntArrayRef(index) << ": actual " << a[first] << " vs expected " << e[first];
  ADD_FAILURE() << msg.str();
}

const std::string& torch_python() {
  return oracle_python();
}

}  // namespace ember::testing
