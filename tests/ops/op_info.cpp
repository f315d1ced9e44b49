// all_ops() and the helpers every sweep shares (inputs, forms, the oracle's code).
#include "ops/op_info.h"

#include <set>

namespace ember::testing {

const std::vector<OpInfo>& all_ops() {
  static const std::vector<OpInfo> rows = [] {
    std::vector<OpInfo> all;
    for (auto family :
         {elementwise_rows, reduction_rows, shape_rows, more_shape_rows, indexing_rows, nn_rows,
          math_rows, linalg_decomposition_rows, linalg_function_rows, linalg_composite_rows}) {
      std::vector<OpInfo> part = family();
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }();
  return rows;
}

std::vector<BoundForm> forms_of(const OpInfo& op) {
  std::vector<BoundForm> out;
  if (op.fn) out.push_back({"free", op.fn, false, false});
  for (const Form& f : op.forms) out.push_back({f.name, f.fn, false, f.inplace});
  const Scalar s = op.scalar;
  for (const ScalarForm& f : op.scalar_forms) {
    out.push_back(
        {f.name, [g = f.fn, s](const Args& x) { return g(x.at(0), s); }, true, f.inplace});
  }
  return out;
}

static std::string seed_key(const OpInfo& op, size_t i) {
  return op.name + "/" + (op.letter_seeds ? std::string(1, char('a' + i)) : std::to_string(i));
}

Args make_inputs(const OpInfo& op) {
  Args xs;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    xs.push_back(make_input(op.inputs[i], seed_for(seed_key(op, i))));
  }
  return xs;
}

Args make_inputs(const OpInfo& op, ScalarType dtype) {
  Args xs;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    InputSpec spec = op.inputs[i];
    spec.dtype = dtype;
    xs.push_back(make_input(spec, seed_for(seed_key(op, i))));
  }
  return xs;
}

Args to_device(const Args& xs, Device device, bool contiguous) {
  Args out;
  for (const Tensor& x : xs) {
    Tensor t = x.to(device);
    out.push_back(contiguous ? t : non_contiguous(t));
  }
  return out;
}

bool form_applies(const BoundForm& f, const Tensor& result, const Tensor& a) {
  return !f.inplace || (result.dtype() == a.dtype() && result.sizes() == a.sizes());
}

std::string torch_code(const std::string& expr) {
  const std::string& code = expr;
  size_t last = code.rfind("; ");
  if (last == std::string::npos) return "out = " + code;
  std::string stmts = code.substr(0, last);
  for (size_t p; (p = stmts.find("; ")) != std::string::npos;) stmts.replace(p, 2, "\n");
  return stmts + "\nout = " + code.substr(last + 2);
}

bool has_float32_input(const OpInfo& op) {
  for (const InputSpec& in : op.inputs) {
    if (in.dtype == kFloat) return true;
  }
  return false;
}

void PrintTo(const OpInfo& op, std::ostream* os) {
  *os << op.name;
}

std::string row_name(const ::testing::TestParamInfo<OpInfo>& info) {
  return info.param.name;
}

Domain domain_of(const OpInfo& op, size_t i) {
  return i < op.inputs.size() ? op.inputs[i].domain : Domain::Normal;
}

}  // namespace ember::testing
