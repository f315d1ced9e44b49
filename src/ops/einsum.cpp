// einsum(equation, tensors), composed from views, sum, index_select and bmm (so it runs on every
// device and autograd differentiates it): the equation is parsed into one label per dim (the
// dims under '...' get labels of their own, aligned from the right across operands), repeated
// labels within an operand become a diagonal, labels nobody else needs are summed early, and the
// operands are contracted left to right, two at a time, as one batched matrix product each.
#include <algorithm>
#include <string>
#include <vector>

#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

namespace {

constexpr int kLetters = 52;  // labels 0..51 are A-Z a-z; 52.. are the dims under '...'

int letter_label(char c) {
  return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26;
}
char label_char(int l) {
  return l < 26 ? static_cast<char>('A' + l) : static_cast<char>('a' + l - 26);
}
bool is_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// One side of the equation as written: letters, and where '...' was (-1 when absent).
struct Term {
  std::vector<int> letters;
  int64_t ellipsis_at = -1;  // index into letters before which '...' stands
};

// Parses the term eq[begin, end) (positions in errors are the equation's).
Term parse_term(const std::string& eq, size_t begin, size_t end) {
  Term t;
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(i + 3 <= end && eq.compare(i, 3, "...") == 0, ValueError,
                  "einsum(): found '.' that is not part of an ellipsis '...' at index ", i,
                  " in the equation \"", eq, "\"");
      EMBER_CHECK(t.ellipsis_at < 0, ValueError,
                  "einsum(): found '...' more than once in a term, at index ", i,
                  " of the equation \"", eq, "\"");
      t.ellipsis_at = static_cast<int64_t>(t.letters.size());
      i += 2;
      continue;
    }
    EMBER_CHECK(is_letter(c), ValueError, "einsum(): invalid subscript given at index ", i,
                " in the equation string \"", eq, "\", subscripts must be in [a-zA-Z]");
    t.letters.push_back(letter_label(c));
  }
  return t;
}

// A tensor with one label per dim.
struct Labeled {
  Tensor t;
  std::vector<int> labels;
};

int64_t position(const std::vector<int>& v, int l) {
  auto it = std::find(v.begin(), v.end(), l);
  return it == v.end() ? -1 : static_cast<int64_t>(it - v.begin());
}

// Sums the dims whose labels satisfy `drop`.
template <typename Pred>
void sum_labels(Labeled& x, Pred drop) {
  std::vector<int64_t> dims;
  std::vector<int> kept;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (drop(x.labels[d])) {
      dims.push_back(static_cast<int64_t>(d));
    } else {
      kept.push_back(x.labels[d]);
    }
  }
  if (dims.empty()) return;
  x.t = x.t.sum(dims);
  x.labels = kept;
}

// Replaces dims p < q (same label, same size n) by their diagonal, kept at p's place.
void take_diagonal(Labeled& x, int64_t p, int64_t q) {
  const int64_t n = x.t.size(p), r = x.t.dim();
  std::vector<int64_t> order;
  for (int64_t d = 0; d < r; ++d) {
    if (d != p && d != q) order.push_back(d);
  }
  order.push_back(p);
  order.push_back(q);
  Tensor moved = x.t.permute(order);
  DimVector flat(moved.sizes());
  flat.resize(flat.size() - 1);
  flat.back() = n * n;
  Tensor diag = moved.reshape(flat).index_select(
      -1, arange(0, std::max<int64_t>(n * n, 1), n + 1,
                 TensorOptions().dtype(kLong).device(x.t.device())));
  // diag's last dim is the label; move it back to p.
  std::vector<int64_t> back;
  std::vector<int> labels;
  const int64_t last = diag.dim() - 1;
  int64_t k = 0;
  for (int64_t d = 0; d < r; ++d) {
    if (d == q) continue;
    back.push_back(d == p ? last : k++);
    labels.push_back(x.labels[d]);
  }
  x.t = diag.permute(back);
  x.labels = labels;
}

// Contracts a and b over the labels in both that are not `kept`; returns [batch, a-only, b-only].
Labeled contract(Labeled a, Labeled b, const std::vector<bool>& kept) {
  std::vector<int> batch, contracted, a_only, b_only;
  for (int l : a.labels) {
    if (position(b.labels, l) >= 0) {
      (kept[l] ? batch : contracted).push_back(l);
    } else {
      a_only.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (position(a.labels, l) < 0) b_only.push_back(l);
  }
  // Shared labels broadcast: expand the size-1 side.
  auto size_of = [](const Labeled& x, int l) { return x.t.size(position(x.labels, l)); };
  auto expanded = [&](Labeled& x, const Labeled& other) {
    DimVector sizes(x.t.sizes());
    for (size_t d = 0; d < x.labels.size(); ++d) {
      const int l = x.labels[d];
      if (position(other.labels, l) >= 0) sizes[d] = std::max(sizes[d], size_of(other, l));
    }
    x.t = x.t.expand(sizes);
  };
  expanded(a, b);
  expanded(b, a);
  auto perm = [](const Labeled& x, std::initializer_list<const std::vector<int>*> groups) {
    std::vector<int64_t> order;
    for (const auto* g : groups) {
      for (int l : *g) order.push_back(position(x.labels, l));
    }
    return x.t.permute(order);
  };
  auto prod = [](const Labeled& x, const std::vector<int>& ls, const auto& size_fn) {
    int64_t p = 1;
    for (int l : ls) p *= size_fn(x, l);
    return p;
  };
  const int64_t B = prod(a, batch, size_of), M = prod(a, a_only, size_of),
                K = prod(a, contracted, size_of), N = prod(b, b_only, size_of);
  Tensor left = perm(a, {&batch, &a_only, &contracted}).reshape({B, M, K});
  Tensor right = perm(b, {&batch, &contracted, &b_only}).reshape({B, K, N});
  DimVector out_sizes;
  Labeled out;
  for (const auto* g : {&batch, &a_only}) {
    for (int l : *g) {
      out_sizes.push_back(size_of(a, l));
      out.labels.push_back(l);
    }
  }
  for (int l : b_only) {
    out_sizes.push_back(size_of(b, l));
    out.labels.push_back(l);
  }
  out.t = left.bmm(right).reshape(out_sizes);
  return out;
}

}  // namespace

Tensor einsum(std::string_view equation_view, TensorList tensors) {
  const std::string eq(equation_view);
  const size_t arrow = eq.find("->");
  const size_t lhs_end = arrow == std::string::npos ? eq.size() : arrow;

  // ---- parse the operands' terms ----
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    size_t comma = eq.find(',', begin);
    if (comma == std::string::npos || comma > lhs_end) comma = lhs_end;
    terms.push_back(parse_term(eq, begin, comma));
    if (comma == lhs_end) break;
    begin = comma + 1;
  }
  EMBER_CHECK(tensors.size() >= terms.size(), ValueError,
              "einsum(): fewer operands were provided than specified in the equation \"", eq,
              "\" (", tensors.size(), " operands for ", terms.size(), " terms)");
  EMBER_CHECK(tensors.size() <= terms.size(), ValueError,
              "einsum(): more operands were provided than specified in the equation \"", eq, "\" (",
              tensors.size(), " operands for ", terms.size(), " terms)");

  // ---- label every dim; check ranks and dtypes ----
  int64_t ellipsis_dims = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const int64_t n = static_cast<int64_t>(terms[k].letters.size());
    const int64_t r = tensors[k].dim();
    if (terms[k].ellipsis_at < 0) {
      EMBER_CHECK(n == r, ValueError, "einsum(): the number of subscripts in the equation (", n,
                  ") does not match the number of dimensions (", r, ") for operand ", k,
                  " and no ellipsis was given (equation \"", eq, "\", operand ", k, " of shape ",
                  tensors[k].sizes(), ")");
    } else {
      EMBER_CHECK(n <= r, ValueError, "einsum(): the number of subscripts in the equation (", n,
                  ") is more than the number of dimensions (", r, ") for operand ", k,
                  " (equation \"", eq, "\", operand ", k, " of shape ", tensors[k].sizes(), ")");
      ellipsis_dims = std::max(ellipsis_dims, r - n);
    }
    EMBER_CHECK(tensors[k].dtype() == tensors[0].dtype(), TypeError,
                "einsum(): expected scalar type ", to_string(tensors[0].dtype()), " but found ",
                to_string(tensors[k].dtype()), " for operand ", k, " (equation \"", eq,
                "\"): every operand must have operand 0's dtype");
    if (k > 0) check_same_device(tensors[0], tensors[k], "einsum");
  }
  const int num_labels = kLetters + static_cast<int>(ellipsis_dims);
  std::vector<Labeled> ops;
  std::vector<int64_t> size_of(num_labels, -1);
  std::vector<int> uses(num_labels, 0);  // in how many operands a label appears
  for (size_t k = 0; k < terms.size(); ++k) {
    const Term& t = terms[k];
    Labeled x{tensors[k], {}};
    const int64_t e = tensors[k].dim() - static_cast<int64_t>(t.letters.size());
    for (int64_t i = 0; i <= static_cast<int64_t>(t.letters.size()); ++i) {
      if (i == t.ellipsis_at) {
        for (int64_t j = 0; j < e; ++j) {
          x.labels.push_back(kLetters + static_cast<int>(ellipsis_dims - e + j));
        }
      }
      if (i < static_cast<int64_t>(t.letters.size())) x.labels.push_back(t.letters[i]);
    }
    // repeated labels: the diagonal
    for (size_t p = 0; p < x.labels.size(); ++p) {
      for (size_t q = p + 1; q < x.labels.size();) {
        if (x.labels[q] != x.labels[p]) {
          ++q;
          continue;
        }
        EMBER_CHECK(x.t.size(p) == x.t.size(q), ValueError, "einsum(): subscript ",
                    label_char(x.labels[p]), " is repeated for operand ", k,
                    " but the sizes don't match, ", x.t.size(q), " != ", x.t.size(p),
                    " (equation \"", eq, "\", operand ", k, " of shape ", tensors[k].sizes(), ")");
        take_diagonal(x, static_cast<int64_t>(p), static_cast<int64_t>(q));
      }
    }
    for (size_t d = 0; d < x.labels.size(); ++d) {
      const int l = x.labels[d];
      const int64_t s = x.t.size(static_cast<int64_t>(d));
      ++uses[l];
      if (size_of[l] == -1 || size_of[l] == 1) {
        size_of[l] = s;
      } else {
        EMBER_CHECK(s == 1 || s == size_of[l], ValueError, "einsum(): ",
                    l < kLetters ? "subscript " + std::string(1, label_char(l))
                                 : std::string("a dim under '...'"),
                    " has size ", s, " for operand ", k,
                    " which does not broadcast with previously seen size ", size_of[l],
                    " (equation \"", eq, "\", operand ", k, " of shape ", tensors[k].sizes(), ")");
      }
    }
    ops.push_back(std::move(x));
  }

  // ---- the output's labels ----
  std::vector<int> output;
  if (arrow == std::string::npos) {  // implicit: '...' then letters used once, alphabetically
    for (int j = 0; j < ellipsis_dims; ++j) output.push_back(kLetters + j);
    for (int l = 0; l < kLetters; ++l) {
      int count = 0;
      for (const Term& t : terms)
        count += static_cast<int>(std::count(t.letters.begin(), t.letters.end(), l));
      if (count == 1) output.push_back(l);
    }
    std::sort(output.begin() + ellipsis_dims, output.end(),
              [](int x, int y) { return label_char(x) < label_char(y); });
  } else {
    Term out_term = parse_term(eq, arrow + 2, eq.size());
    for (int64_t i = 0; i <= static_cast<int64_t>(out_term.letters.size()); ++i) {
      if (i == out_term.ellipsis_at) {
        for (int j = 0; j < ellipsis_dims; ++j) output.push_back(kLetters + j);
      }
      if (i == static_cast<int64_t>(out_term.letters.size())) break;
      const int l = out_term.letters[i];
      EMBER_CHECK(uses[l] > 0, ValueError, "einsum(): output subscript ", label_char(l),
                  " does not appear in the equation for any input operand (equation \"", eq, "\")");
      EMBER_CHECK(position(output, l) < 0, ValueError, "einsum(): output subscript ", label_char(l),
                  " appears more than once in the output (equation \"", eq, "\")");
      output.push_back(l);
    }
  }

  // ---- contract ----
  std::vector<bool> in_output(num_labels, false);
  for (int l : output) in_output[l] = true;
  // A label is still needed while it is in the output or in an operand not yet contracted.
  auto needed_after = [&](size_t k) {
    std::vector<bool> kept = in_output;
    for (size_t j = k + 1; j < ops.size(); ++j) {
      for (int l : ops[j].labels) kept[l] = true;
    }
    return kept;
  };
  for (size_t k = 0; k < ops.size(); ++k) {  // labels only this operand has: summed now
    sum_labels(ops[k], [&](int l) { return !in_output[l] && uses[l] == 1; });
  }
  Labeled result = ops[0];
  for (size_t k = 1; k < ops.size(); ++k) {
    std::vector<bool> kept = needed_after(k);
    // labels of the result that neither ops[k], a later operand nor the output needs
    sum_labels(result, [&](int l) { return !kept[l] && position(ops[k].labels, l) < 0; });
    result = contract(result, ops[k], kept);
  }
  sum_labels(result, [&](int l) { return !in_output[l]; });

  // ---- into the output's order; labels broadcast away (size 1 everywhere) stay size 1 ----
  std::vector<int64_t> order;
  for (int l : output) order.push_back(position(result.labels, l));
  return result.t.permute(order);
}

}  // namespace ember
