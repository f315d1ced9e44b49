// metrics.csv and metrics.svg writers, tick placement, and the progress lines.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember_train/metrics.h"
#include "ember_train/plot.h"
#include "ember_train/progress.h"
#include "support/temp_dir.h"

namespace et = ember::train;

namespace {

std::vector<et::EpochMetrics> sample_rows() {
  return {
      {1, 0.52, 0.45, 0.8391, 12.5}, {2, 0.37, 0.40, 0.8573, 11.25}, {3, 0.33, 0.37, 0.8688, 11}};
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::vector<std::string> texts_of_class(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  std::regex re("<text class=\"" + cls + "\"[^>]*>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

}  // namespace

TEST(TrainMetrics, CsvHeaderAndRows) {
  EXPECT_EQ(et::metrics_csv({}), "epoch,train_loss,test_loss,test_accuracy,seconds\n");
  EXPECT_EQ(et::metrics_csv(sample_rows()),
            "epoch,train_loss,test_loss,test_accuracy,seconds\n"
            "1,0.520000,0.450000,0.839100,12.500\n"
            "2,0.370000,0.400000,0.857300,11.250\n"
            "3,0.330000,0.370000,0.868800,11.000\n");
}

TEST(TrainMetrics, WriteFileAtomicReplacesAndLeavesNoTemporary) {
  const ember::testing::TempDir dir("ember_train_test_write");
  const std::string path = dir / "metrics.csv";
  et::write_file_atomic(path, "first\n");
  et::write_file_atomic(path, "second\n");
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), "second\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(TrainMetrics, WriteFileAtomicNamesTheBadPath) {
  try {
    et::write_file_atomic("/nonexistent-dir/x/metrics.csv", "x");
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x/metrics.csv"), std::string::npos)
        << e.what();
  }
}

TEST(TrainPlot, NiceTicksCoverTheRangeWithRoundSteps) {
  EXPECT_EQ(et::nice_ticks(0, 1, 6), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
  const auto t = et::nice_ticks(0.8391, 0.8688, 5);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LE(t.front(), 0.8391);
  EXPECT_GE(t.back(), 0.8688);
  const double step = t[1] - t[0];
  EXPECT_NEAR(step, 0.01, 1e-12);
  for (size_t i = 1; i < t.size(); ++i) EXPECT_NEAR(t[i] - t[i - 1], step, 1e-12);
  for (double v : t) EXPECT_NEAR(v / step, std::round(v / step), 1e-9) << v;
  // A single value gets a range around it.
  const auto one = et::nice_ticks(0.5, 0.5);
  EXPECT_LT(one.front(), 0.5);
  EXPECT_GT(one.back(), 0.5);
  const auto zero = et::nice_ticks(0, 0);
  EXPECT_LT(zero.front(), 0);
  EXPECT_GT(zero.back(), 0);
  const auto big = et::nice_ticks(120, 980, 5);
  EXPECT_EQ(big, (std::vector<double>{0, 200, 400, 600, 800, 1000}));
}

TEST(TrainPlot, EpochTicks) {
  EXPECT_EQ(et::epoch_ticks(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(et::epoch_ticks(3), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(et::epoch_ticks(10), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(et::epoch_ticks(20), (std::vector<int64_t>{1, 5, 10, 15, 20}));
  EXPECT_EQ(et::epoch_ticks(100).back(), 100);
  EXPECT_LE(et::epoch_ticks(100).size(), 12u);
}

TEST(TrainPlot, SvgHasAxesTicksSeriesAndLegend) {
  const std::string svg = et::metrics_svg(sample_rows(), "mlp <on> Fashion & MNIST");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(count(svg, "<svg"), 1u);
  // Title escaped.
  EXPECT_NE(svg.find("mlp &lt;on&gt; Fashion &amp; MNIST"), std::string::npos);
  // Two panels, three series (train loss, test loss, accuracy), one legend per panel.
  EXPECT_EQ(count(svg, "<g class=\"panel\">"), 2u);
  EXPECT_EQ(count(svg, "<polyline class=\"series\""), 3u);
  EXPECT_EQ(count(svg, "<g class=\"legend\">"), 2u);
  for (const char* label :
       {">train loss<", ">test loss<", ">test accuracy<", ">epoch<", ">Loss<", ">Test accuracy<"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
  // One marker per point.
  EXPECT_EQ(count(svg, "<circle"), 9u);
  // x ticks 1..3 on both panels, y tick labels are round numbers.
  EXPECT_EQ(texts_of_class(svg, "xtick"), (std::vector<std::string>{"1", "2", "3", "1", "2", "3"}));
  const auto yt = texts_of_class(svg, "ytick");
  ASSERT_GE(yt.size(), 6u);
  for (const auto& y : yt) {
    EXPECT_TRUE(std::regex_match(y, std::regex("-?[0-9]+(\\.[0-9]{1,3})?"))) << y;
  }
  // Accuracy axis spans the values: 0.83 .. 0.87 at a 0.01 step.
  EXPECT_NE(std::find(yt.begin(), yt.end(), "0.83"), yt.end());
  EXPECT_NE(std::find(yt.begin(), yt.end(), "0.87"), yt.end());
  // Balanced tags (a rough well-formedness check: every <g> closes).
  EXPECT_EQ(count(svg, "<g "), count(svg, "</g>"));
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(TrainPlot, SvgPointsStayInsideThePlotArea) {
  const std::string svg = et::metrics_svg(sample_rows(), "t");
  std::regex re("<circle cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
  int n = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it, ++n) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    EXPECT_GE(x, 0);
    EXPECT_LE(x, 960);
    EXPECT_GE(y, 70 - 1e-6);   // plot areas start at y = 70
    EXPECT_LE(y, 370 + 1e-6);  // and end at y = 370
  }
  EXPECT_EQ(n, 9);
}

TEST(TrainPlot, SingleEpochAndEmptyRunsStillRender) {
  const std::string one = et::metrics_svg({{1, 0.6, 0.5, 0.8, 3}}, "one");
  EXPECT_EQ(count(one, "<circle"), 3u);
  EXPECT_EQ(texts_of_class(one, "xtick"), (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(one.find("nan"), std::string::npos);
  const std::string none = et::metrics_svg({}, "none");
  EXPECT_EQ(count(none, "<circle"), 0u);
  EXPECT_EQ(none.find("nan"), std::string::npos);
}

TEST(TrainProgress, FormatDuration) {
  EXPECT_EQ(et::format_duration(0), "0:00");
  EXPECT_EQ(et::format_duration(7.4), "0:07");
  EXPECT_EQ(et::format_duration(754), "12:34");
  EXPECT_EQ(et::format_duration(3723), "1:02:03");
  EXPECT_EQ(et::format_duration(-1), "?");
  EXPECT_EQ(et::format_duration(NAN), "?");
}

TEST(TrainProgress, Lines) {
  et::ProgressState s;
  s.epoch = 2;
  s.epochs = 10;
  s.batch = 469;
  s.batches = 938;
  s.loss = 0.41234;
  s.samples_per_second = 52310;
  s.elapsed_seconds = 4;
  EXPECT_EQ(et::progress_bar_line(s, 8),
            "epoch 2/10 [####....] 469/938  loss 0.4123    52310 samples/s  ETA 0:04");
  EXPECT_EQ(et::progress_plain_line(s),
            "epoch 2/10  469/938 batches  loss 0.4123  52310 samples/s  ETA 0:04");
}

TEST(TrainProgress, PlainOutputPrintsTenLinesPerEpoch) {
  std::ostringstream os;
  et::EpochProgress p(os, /*terminal=*/false, 1, 1, 100);
  for (int64_t b = 1; b <= 100; ++b) {
    if (p.due(b)) p.update(b, b * 64, 0.5);
  }
  p.finish();
  const std::string out = os.str();
  EXPECT_EQ(count(out, "\n"), 10u);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_NE(out.find("100/100 batches"), std::string::npos);
}

TEST(TrainProgress, TerminalOutputRedrawsInPlaceAndClears) {
  std::ostringstream os;
  et::EpochProgress p(os, /*terminal=*/true, 1, 3, 5);
  p.update(1, 64, 2.0);
  p.update(5, 320, 1.0);
  p.finish();
  const std::string out = os.str();
  EXPECT_EQ(out.find('\n'), std::string::npos);
  EXPECT_EQ(count(out, "\r"), 4u);  // two draws, and the clear (\r spaces \r)
  EXPECT_NE(out.find("[########################] 5/5"), std::string::npos);
  EXPECT_EQ(out.back(), '\r');
}
