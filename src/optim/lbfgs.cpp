// LBFGS: a port of torch/optim/lbfgs.py (1.13), including its strong Wolfe line search. The
// scalars PyTorch keeps as 0-dim tensors of the parameters' dtype (ys, H_diag, ro, al) are
// rounded to that dtype here, so float32 trajectories follow PyTorch's.
#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"

namespace ember::optim {
namespace {

double round_to(double v, ScalarType dtype) {
  return dtype == kFloat ? static_cast<double>(static_cast<float>(v)) : v;
}

// The dot product read on the host (ember::dot keeps it a tensor).
double dot_value(const Tensor& a, const Tensor& b) {
  return (a * b).sum().item<double>();
}

double abs_max(const Tensor& t) {
  return t.abs().max().item<double>();
}

// The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to the bounds.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  auto [lo, hi] = bounds ? *bounds : (x1 <= x2 ? std::make_pair(x1, x2) : std::make_pair(x2, x1));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, lo), hi);
  }
  return (lo + hi) / 2;
}

struct LineSearchResult {
  double loss;
  Tensor flat_grad;
  double t;
  int64_t func_evals;
};

// torch.optim.lbfgs._strong_wolfe: a step t along d satisfying the strong Wolfe conditions.
template <typename Evaluate>
LineSearchResult strong_wolfe(const Evaluate& evaluate, double t, const Tensor& d, double f,
                              const Tensor& g, double gtd, double tolerance_change,
                              double c1 = 1e-4, double c2 = 0.9, int64_t max_ls = 25) {
  const double d_norm = abs_max(d);
  auto [f_new, g_new] = evaluate(t);
  int64_t ls_func_evals = 1;
  double gtd_new = dot_value(g_new, d);
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g.clone();
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    if (f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                          std::make_pair(min_step, max_step));
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone();
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = evaluate(t);
    ls_func_evals += 1;
    gtd_new = dot_value(g_new, d);
    ls_iter += 1;
  }
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // Zoom until the bracket is small or a point satisfies the conditions.
  bool insuf_progress = false;
  size_t low = bracket_f.front() <= bracket_f.back() ? 0 : 1;
  size_t high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1],
                          bracket_gtd[1]);
    const double hi_t = std::max(bracket[0], bracket[1]);
    const double lo_t = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (hi_t - lo_t);
    if (std::min(hi_t - t, t - lo_t) < eps) {
      if (insuf_progress || t >= hi_t || t <= lo_t) {
        t = std::abs(t - hi_t) < std::abs(t - lo_t) ? hi_t - eps : lo_t + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = evaluate(t);
    ls_func_evals += 1;
    gtd_new = dot_value(g_new, d);
    ls_iter += 1;
    if (f_new > f + c1 * t * gtd || f_new >= bracket_f[low]) {
      bracket[high] = t;
      bracket_f[high] = f_new;
      bracket_g[high] = g_new.clone();
      bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        bracket[high] = bracket[low];
        bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low];
        bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t;
      bracket_f[low] = f_new;
      bracket_g[low] = g_new.clone();
      bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], ls_func_evals};
}

}  // namespace

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> LBFGSOptions::clone() const {
  return std::make_unique<LBFGSOptions>(*this);
}

void LBFGSOptions::validate() const {
  EMBER_CHECK(lr() >= 0, ValueError, "Invalid learning rate: ", lr());
  EMBER_CHECK(max_iter() >= 1, ValueError, "LBFGS: max_iter must be at least 1, got ", max_iter());
  EMBER_CHECK(!max_eval() || *max_eval() >= 1, ValueError,
              "LBFGS: max_eval must be at least 1, got ", max_eval().value_or(0));
  EMBER_CHECK(history_size() >= 1, ValueError, "LBFGS: history_size must be at least 1, got ",
              history_size());
  EMBER_CHECK(!line_search_fn() || *line_search_fn() == "strong_wolfe", ValueError,
              "LBFGS: only 'strong_wolfe' is supported as line_search_fn, got '",
              line_search_fn().value_or(""), "'");
}

OptionValues LBFGSOptions::values() const {
  return {{"lr", lr()},
          {"max_iter", static_cast<double>(max_iter())},
          {"max_eval", max_eval() ? static_cast<double>(*max_eval()) : -1.0},
          {"tolerance_grad", tolerance_grad()},
          {"tolerance_change", tolerance_change()},
          {"history_size", static_cast<double>(history_size())},
          {"strong_wolfe", line_search_fn() ? 1.0 : 0.0}};
}

void LBFGSOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  max_iter(static_cast<int64_t>(detail::option_value(v, "max_iter", type_name())));
  const double me = detail::option_value(v, "max_eval", type_name());
  max_eval(me < 0 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(me)));
  tolerance_grad(detail::option_value(v, "tolerance_grad", type_name()));
  tolerance_change(detail::option_value(v, "tolerance_change", type_name()));
  history_size(static_cast<int64_t>(detail::option_value(v, "history_size", type_name())));
  line_search_fn(detail::option_value(v, "strong_wolfe", type_name()) != 0
                     ? std::optional<std::string>("strong_wolfe")
                     : std::nullopt);
}

std::unique_ptr<OptimizerParamState> LBFGSParamState::clone() const {
  auto s = std::make_unique<LBFGSParamState>(*this);
  auto deep = [](const std::deque<Tensor>& v) {
    std::deque<Tensor> out;
    for (const Tensor& t : v) out.push_back(t.clone());
    return out;
  };
  if (d().defined()) s->d(d().clone());
  if (prev_flat_grad().defined()) s->prev_flat_grad(prev_flat_grad().clone());
  s->old_dirs(deep(old_dirs()));
  s->old_stps(deep(old_stps()));
  return s;
}

std::vector<std::pair<std::string, Tensor>> LBFGSParamState::tensors() const {
  std::vector<std::pair<std::string, Tensor>> out{
      {"func_evals", scalar_tensor(func_evals(), kLong)},
      {"n_iter", scalar_tensor(n_iter(), kLong)},
      {"t", scalar_tensor(t(), kDouble)},
      {"prev_loss", scalar_tensor(prev_loss(), kDouble)},
      {"H_diag", scalar_tensor(H_diag(), kDouble)},
  };
  if (d().defined()) out.emplace_back("d", d());
  if (prev_flat_grad().defined()) out.emplace_back("prev_flat_grad", prev_flat_grad());
  if (!old_dirs().empty()) {
    out.emplace_back("old_dirs", stack(std::vector<Tensor>(old_dirs().begin(), old_dirs().end())));
    out.emplace_back("old_stps", stack(std::vector<Tensor>(old_stps().begin(), old_stps().end())));
    out.emplace_back("ro", tensor(std::vector<double>(ro().begin(), ro().end()), kDouble));
  }
  return out;
}

void LBFGSParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                           const std::string& prefix) {
  detail::check_known_state(tensors,
                            {"func_evals", "n_iter", "t", "prev_loss", "H_diag", "d",
                             "prev_flat_grad", "old_dirs", "old_stps", "ro"},
                            prefix);
  func_evals(detail::state_step(tensors, "func_evals", prefix));
  n_iter(detail::state_step(tensors, "n_iter", prefix));
  auto scalar = [&](const char* name) {
    auto it = tensors.find(name);
    EMBER_CHECK(it != tensors.end(), ValueError, "optimizer state dict is missing '", prefix, name,
                "'");
    EMBER_CHECK(it->second.numel() == 1, ValueError, "'", prefix, name,
                "' must hold one value, got shape ", it->second.sizes());
    return it->second.item<double>();
  };
  t(scalar("t"));
  prev_loss(scalar("prev_loss"));
  H_diag(scalar("H_diag"));
  // Flat vectors: one value per element of all parameters; `param` is the first parameter.
  auto vector = [&](const char* name) -> Tensor {
    auto it = tensors.find(name);
    if (it == tensors.end()) return Tensor();
    return it->second.to(param.device(), param.dtype());
  };
  d(vector("d"));
  prev_flat_grad(vector("prev_flat_grad"));
  old_dirs({});
  old_stps({});
  ro({});
  if (Tensor dirs = vector("old_dirs"); dirs.defined()) {
    Tensor stps = vector("old_stps");
    auto r = tensors.find("ro");
    EMBER_CHECK(stps.defined() && r != tensors.end() && stps.sizes() == dirs.sizes() &&
                    dirs.dim() == 2 && r->second.numel() == dirs.size(0),
                ValueError, "'", prefix, "old_dirs', '", prefix, "old_stps' and '", prefix,
                "ro' must hold the same number of history entries, got shapes ", dirs.sizes(), ", ",
                stps.defined() ? stps.sizes() : IntArrayRef{}, " and ",
                r != tensors.end() ? r->second.sizes() : IntArrayRef{});
    std::vector<double> ros = r->second.to(kDouble).to_vector<double>();
    for (int64_t i = 0; i < dirs.size(0); ++i) {
      old_dirs().push_back(dirs.select(0, i).clone());
      old_stps().push_back(stps.select(0, i).clone());
      ro().push_back(ros[static_cast<size_t>(i)]);
    }
  }
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  EMBER_CHECK(param_groups_.size() == 1, ValueError,
              "LBFGS doesn't support per-parameter options (parameter groups), got ",
              param_groups_.size(), " groups");
}

std::unique_ptr<OptimizerParamState> LBFGS::make_param_state() const {
  return std::make_unique<LBFGSParamState>();
}

int64_t LBFGS::numel() const {
  int64_t n = 0;
  for (const Tensor& p : param_groups_[0].params()) n += p.numel();
  return n;
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups_[0].params()) {
    views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : zeros({p.numel()}, p.options()));
  }
  return cat(views, 0);
}

void LBFGS::add_grad(double step, const Tensor& update) {
  int64_t offset = 0;
  for (Tensor& p : param_groups_[0].params()) {
    const int64_t n = p.numel();
    p.add_(update.narrow(0, offset, n).reshape(p.sizes()), step);
    offset += n;
  }
}

std::pair<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure,
                                                      const std::vector<Tensor>& x, double t,
                                                      const Tensor& d) {
  add_grad(t, d);
  double loss;
  {
    EnableGradGuard enable_grad;
    loss = closure().item<double>();
  }
  Tensor flat_grad = gather_flat_grad();
  auto& params = param_groups_[0].params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(x[i]);
  return {loss, flat_grad};
}

Tensor LBFGS::step(LossClosure closure) {
  EMBER_CHECK(closure != nullptr, ValueError,
              "LBFGS::step() requires a closure that re-evaluates the model and returns the "
              "loss");
  NoGradGuard no_grad;
  const auto& o = static_cast<const LBFGSOptions&>(param_groups_[0].options());
  const int64_t max_eval = o.max_eval().value_or(o.max_iter() * 5 / 4);
  const ScalarType dtype = param_groups_[0].params().front().dtype();
  auto& slot = state_[param_groups_[0].params().front().unsafeGetTensorImpl()];
  if (!slot) slot = std::make_unique<LBFGSParamState>();
  auto& st = static_cast<LBFGSParamState&>(*slot);

  Tensor orig_loss;
  {
    EnableGradGuard enable_grad;
    orig_loss = closure();
  }
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  st.func_evals(st.func_evals() + 1);
  Tensor flat_grad = gather_flat_grad();
  if (abs_max(flat_grad) <= o.tolerance_grad()) return orig_loss;

  Tensor d = st.d();
  double t = st.t();
  double H_diag = st.H_diag();
  Tensor prev_flat_grad = st.prev_flat_grad();
  double prev_loss = st.prev_loss();
  std::vector<double> al(static_cast<size_t>(o.history_size()));

  int64_t n_iter = 0;
  while (n_iter < o.max_iter()) {
    ++n_iter;
    st.n_iter(st.n_iter() + 1);
    if (st.n_iter() == 1) {
      d = flat_grad.neg();
      st.old_dirs().clear();
      st.old_stps().clear();
      st.ro().clear();
      H_diag = 1;
    } else {
      // Update the curvature history with this step's (y, s) when it is informative.
      Tensor y = flat_grad - prev_flat_grad;
      Tensor s = d * t;
      const double ys = dot_value(y, s);
      if (ys > 1e-10) {
        if (static_cast<int64_t>(st.old_dirs().size()) == o.history_size()) {
          st.old_dirs().pop_front();
          st.old_stps().pop_front();
          st.ro().pop_front();
        }
        st.old_dirs().push_back(y);
        st.old_stps().push_back(s);
        st.ro().push_back(round_to(1.0 / ys, dtype));
        H_diag = round_to(ys / dot_value(y, y), dtype);
      }
      // Two-loop recursion: d = -H * grad.
      const size_t num_old = st.old_dirs().size();
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = round_to(dot_value(st.old_stps()[k], q) * st.ro()[k], dtype);
        q.add_(st.old_dirs()[k], -al[k]);
      }
      Tensor r = q * H_diag;
      for (size_t k = 0; k < num_old; ++k) {
        const double be = round_to(dot_value(st.old_dirs()[k], r) * st.ro()[k], dtype);
        r.add_(st.old_stps()[k], al[k] - be);
      }
      d = r;
    }
    prev_flat_grad = prev_flat_grad.defined() ? prev_flat_grad.copy_(flat_grad) : flat_grad.clone();
    prev_loss = loss;

    // The step length: scaled down on the very first iteration.
    // (PyTorch's min(1., 1. / sum) is a tensor of the parameters' dtype when below 1.)
    t = o.lr();
    if (st.n_iter() == 1) {
      const double inverse = round_to(1.0 / flat_grad.abs().sum().item<double>(), dtype);
      if (inverse < 1.0) t = round_to(inverse * o.lr(), dtype);
    }
    const double gtd = dot_value(flat_grad, d);
    if (gtd > -o.tolerance_change()) break;

    int64_t ls_func_evals = 0;
    bool opt_cond = false;
    if (o.line_search_fn()) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : param_groups_[0].params()) x_init.push_back(p.clone());
      auto evaluate = [&](double step) { return directional_evaluate(closure, x_init, step, d); };
      LineSearchResult ls =
          strong_wolfe(evaluate, t, d, loss, flat_grad, gtd, o.tolerance_change());
      loss = ls.loss;
      flat_grad = ls.flat_grad;
      t = ls.t;
      ls_func_evals = ls.func_evals;
      add_grad(t, d);
      opt_cond = abs_max(flat_grad) <= o.tolerance_grad();
    } else {
      add_grad(t, d);
      if (n_iter != o.max_iter()) {
        {
          EnableGradGuard enable_grad;
          loss = closure().item<double>();
        }
        flat_grad = gather_flat_grad();
        opt_cond = abs_max(flat_grad) <= o.tolerance_grad();
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    st.func_evals(st.func_evals() + ls_func_evals);

    if (n_iter == o.max_iter()) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    if (abs_max(d * t) <= o.tolerance_change()) break;
    if (std::abs(loss - prev_loss) < o.tolerance_change()) break;
  }

  st.d(d);
  st.t(t);
  st.H_diag(H_diag);
  st.prev_flat_grad(prev_flat_grad);
  st.prev_loss(prev_loss);
  return orig_loss;
}

}  // namespace ember::optim
