#include "ember_train/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ember::train {
namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Shortest decimal text for a tick value at the given step (no "0.30000000000000004").
std::string tick_label(double v, double step) {
  int decimals = 0;
  while (decimals < 6 && std::fabs(step * std::pow(10.0, decimals) -
                                   std::round(step * std::pow(10.0, decimals))) > 1e-6) {
    ++decimals;
  }
  if (std::fabs(v) < step * 1e-9) v = 0;  // no "-0"
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

struct Series {
  std::string name;
  std::string color;
  std::vector<double> values;
  bool dashed = false;
};

struct Panel {
  double x, y, w, h;  // the plot area inside the axes
};

// The x axis: where each series' points sit, the range shown, the ticks and the label.
struct XAxis {
  std::vector<double> xs;
  double x0 = 0, x1 = 1;
  std::vector<int64_t> ticks;
  std::string label;
};

// Epochs 1..epochs at integer positions; one epoch still gets a visible range.
XAxis epoch_axis(int64_t epochs) {
  XAxis a;
  for (int64_t e = 1; e <= epochs; ++e) a.xs.push_back(static_cast<double>(e));
  a.x0 = epochs > 1 ? 1 : 0.5;
  a.x1 = epochs > 1 ? static_cast<double>(epochs) : 1.5;
  a.ticks = epoch_ticks(epochs);
  a.label = "epoch";
  return a;
}

// Training steps from 0 to past the last row's, with integer ticks.
XAxis step_axis(const std::vector<StepMetrics>& rows) {
  XAxis a;
  double last = 1;
  for (const auto& r : rows) {
    a.xs.push_back(static_cast<double>(r.step));
    last = std::max(last, static_cast<double>(r.step));
  }
  for (double t : nice_ticks(0, last, 6)) {
    const int64_t k = std::llround(t);
    if (a.ticks.empty() || k > a.ticks.back()) a.ticks.push_back(k);
  }
  a.x0 = 0;
  a.x1 = std::max(last, static_cast<double>(a.ticks.back()));
  a.label = "step";
  return a;
}

// One panel: frame, grid, ticks and labels on both axes, one polyline with markers per series,
// and a legend in the top-right corner.
void draw_panel(std::ostringstream& os, const Panel& p, const std::string& title,
                const std::string& y_label, const XAxis& xa, const std::vector<Series>& series,
                bool legend_at_bottom) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : series) {
    for (double v : s.values) {
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  const std::vector<double> yt = nice_ticks(lo, hi, 5);
  const double y0 = yt.front(), y1 = yt.back();
  const double ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  const double x0 = xa.x0, x1 = xa.x1;
  auto px = [&](double e) { return p.x + (e - x0) / (x1 - x0) * p.w; };
  auto py = [&](double v) { return p.y + p.h - (v - y0) / (y1 - y0) * p.h; };

  os << "<g class=\"panel\">\n";
  os << "<text x=\"" << num(p.x + p.w / 2) << "\" y=\"" << num(p.y - 14)
     << "\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">" << xml_escape(title)
     << "</text>\n";
  // Grid and y ticks.
  for (double v : yt) {
    const double y = py(v);
    os << "<line x1=\"" << num(p.x) << "\" y1=\"" << num(y) << "\" x2=\"" << num(p.x + p.w)
       << "\" y2=\"" << num(y) << "\" stroke=\"#e0e0e0\"/>\n";
    os << "<line x1=\"" << num(p.x - 5) << "\" y1=\"" << num(y) << "\" x2=\"" << num(p.x)
       << "\" y2=\"" << num(y) << "\" stroke=\"#333\"/>\n";
    os << "<text class=\"ytick\" x=\"" << num(p.x - 8) << "\" y=\"" << num(y + 4)
       << "\" text-anchor=\"end\">" << tick_label(v, ystep) << "</text>\n";
  }
  // x ticks.
  for (int64_t e : xa.ticks) {
    const double x = px(static_cast<double>(e));
    os << "<line x1=\"" << num(x) << "\" y1=\"" << num(p.y + p.h) << "\" x2=\"" << num(x)
       << "\" y2=\"" << num(p.y + p.h + 5) << "\" stroke=\"#333\"/>\n";
    os << "<text class=\"xtick\" x=\"" << num(x) << "\" y=\"" << num(p.y + p.h + 19)
       << "\" text-anchor=\"middle\">" << e << "</text>\n";
  }
  // Axes.
  os << "<line x1=\"" << num(p.x) << "\" y1=\"" << num(p.y) << "\" x2=\"" << num(p.x) << "\" y2=\""
     << num(p.y + p.h) << "\" stroke=\"#333\"/>\n";
  os << "<line x1=\"" << num(p.x) << "\" y1=\"" << num(p.y + p.h) << "\" x2=\"" << num(p.x + p.w)
     << "\" y2=\"" << num(p.y + p.h) << "\" stroke=\"#333\"/>\n";
  os << "<text x=\"" << num(p.x + p.w / 2) << "\" y=\"" << num(p.y + p.h + 40)
     << "\" text-anchor=\"middle\">" << xml_escape(xa.label) << "</text>\n";
  const double ly = p.y + p.h / 2, lx = p.x - 52;
  os << "<text x=\"" << num(lx) << "\" y=\"" << num(ly)
     << "\" text-anchor=\"middle\" transform=\"rotate(-90 " << num(lx) << " " << num(ly) << ")\">"
     << xml_escape(y_label) << "</text>\n";
  // Series.
  for (const auto& s : series) {
    os << "<polyline class=\"series\" fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"2\""
       << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"";
    for (size_t i = 0; i < s.values.size(); ++i) {
      if (!std::isfinite(s.values[i])) continue;
      os << num(px(xa.xs[i])) << "," << num(py(s.values[i])) << " ";
    }
    os << "\"/>\n";
    for (size_t i = 0; i < s.values.size(); ++i) {
      if (!std::isfinite(s.values[i])) continue;
      os << "<circle cx=\"" << num(px(xa.xs[i])) << "\" cy=\"" << num(py(s.values[i]))
         << "\" r=\"3\" fill=\"" << s.color << "\"/>\n";
    }
  }
  // Legend, in the corner the curves leave free (losses fall, accuracy rises).
  size_t longest = 0;
  for (const auto& s : series) longest = std::max(longest, s.name.size());
  const double lw = 48 + 7.0 * static_cast<double>(longest);
  const double lh = 8 + 20.0 * static_cast<double>(series.size());
  const double gx = p.x + p.w - lw - 8, gy = legend_at_bottom ? p.y + p.h - lh - 8 : p.y + 8;
  os << "<g class=\"legend\">\n<rect x=\"" << num(gx) << "\" y=\"" << num(gy) << "\" width=\""
     << num(lw) << "\" height=\"" << num(lh)
     << "\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999\"/>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const double y = gy + 14 + 20.0 * static_cast<double>(i);
    os << "<line x1=\"" << num(gx + 8) << "\" y1=\"" << num(y) << "\" x2=\"" << num(gx + 32)
       << "\" y2=\"" << num(y) << "\" stroke=\"" << series[i].color << "\" stroke-width=\"2\""
       << (series[i].dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    os << "<text x=\"" << num(gx + 38) << "\" y=\"" << num(y + 4) << "\">"
       << xml_escape(series[i].name) << "</text>\n";
  }
  os << "</g>\n</g>\n";
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  target = std::max(target, 2);
  // The step m * 10^e (m in 1, 2, 5) closest to the raw step, on a log scale.
  const double raw = (hi - lo) / (target - 1);
  int e = static_cast<int>(std::floor(std::log10(raw)));
  int64_t m = 1;
  double best = INFINITY;
  for (int64_t cand : {1, 2, 5, 10}) {
    const double d = std::fabs(std::log(static_cast<double>(cand) * std::pow(10.0, e) / raw));
    if (d < best) best = d, m = cand;
  }
  if (m == 10) m = 1, ++e;
  // Ticks are k * m * 10^e with integer k; scaling by an exact power of ten keeps them the
  // doubles nearest to the decimals (0.6, not 0.6000000000000001).
  const double scale = std::pow(10.0, std::abs(e));
  auto value = [&](int64_t k) {
    const auto v = static_cast<double>(k * m);
    return e >= 0 ? v * scale : v / scale;
  };
  const double step = value(1);
  const auto k0 = static_cast<int64_t>(std::floor(lo / step + 1e-9));
  const auto k1 = static_cast<int64_t>(std::ceil(hi / step - 1e-9));
  std::vector<double> ticks;
  for (int64_t k = k0; k <= k1; ++k) ticks.push_back(value(k));
  return ticks;
}

std::vector<int64_t> epoch_ticks(int64_t epochs) {
  epochs = std::max<int64_t>(epochs, 1);
  int64_t step = 1;
  if (epochs > 10) {
    const auto t = nice_ticks(1, static_cast<double>(epochs), 6);
    step = std::max<int64_t>(std::llround(t[1] - t[0]), 1);
  }
  std::vector<int64_t> ticks = {1};
  for (int64_t e = step; e <= epochs; e += step) {
    if (e > 1) ticks.push_back(e);
  }
  return ticks;
}

namespace {
void svg_head(std::ostringstream& os, const std::string& title) {
  const double width = 960, height = 440;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << width / 2
     << "\" y=\"24\" text-anchor=\"middle\" font-size=\"17\" font-weight=\"bold\">"
     << xml_escape(title) << "</text>\n";
}
}  // namespace

std::string metrics_svg(const std::vector<EpochMetrics>& rows, const std::string& title) {
  std::ostringstream os;
  svg_head(os, title);
  Series train{"train loss", "#1f77b4", {}, false}, test{"test loss", "#ff7f0e", {}, true};
  Series acc{"test accuracy", "#2ca02c", {}, false};
  for (const auto& r : rows) {
    train.values.push_back(r.train_loss);
    test.values.push_back(r.test_loss);
    acc.values.push_back(r.test_accuracy);
  }
  const XAxis epochs = epoch_axis(static_cast<int64_t>(rows.size()));
  draw_panel(os, {80, 70, 340, 300}, "Loss", "cross-entropy loss", epochs, {train, test},
             /*legend_at_bottom=*/false);
  draw_panel(os, {580, 70, 340, 300}, "Test accuracy", "accuracy", epochs, {acc},
             /*legend_at_bottom=*/true);
  os << "</svg>\n";
  return os.str();
}

std::string step_metrics_svg(const std::vector<StepMetrics>& rows, const std::string& title) {
  std::ostringstream os;
  svg_head(os, title);
  Series train{"train loss", "#1f77b4", {}, false}, val{"validation loss", "#ff7f0e", {}, true};
  Series speed{"training tokens/s", "#2ca02c", {}, false};
  for (const auto& r : rows) {
    train.values.push_back(r.train_loss);
    val.values.push_back(r.val_loss);
    speed.values.push_back(r.tokens_per_second);
  }
  const XAxis steps = step_axis(rows);
  draw_panel(os, {80, 70, 340, 300}, "Loss", "cross-entropy loss (nats/char)", steps, {train, val},
             /*legend_at_bottom=*/false);
  draw_panel(os, {580, 70, 340, 300}, "Throughput", "tokens/s", steps, {speed},
             /*legend_at_bottom=*/true);
  os << "</svg>\n";
  return os.str();
}

}  // namespace ember::train
