// Two hosts: the ranks run in two network namespaces joined by a veth link (each its own network
// stack, addresses and loopback, as two machines on a LAN), and train with DDP over the TCPStore
// and Gloo between them. Needs root and `ip` (iproute2); where the kernel or the user may not
// create namespaces, the test is skipped and says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>

#include "ember/distributed.h"
#include "ember/nn.h"
#include "ember/nn/parallel/distributed_data_parallel.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "support/multi_process.h"
#include "support/test_util.h"

namespace dist = ember::distributed;
using ember::Tensor;
using ember::testing::is_rank_process;
using namespace std::chrono_literals;

namespace {

// Runs a shell command; returns its exit status and output.
std::pair<int, std::string> sh(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::array<char, 512> buf;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Two namespaces "hosts" with one veth link 10.213.N.1 <-> 10.213.N.2; removed at the end.
class TwoHosts {
 public:
  TwoHosts() {
    const int n = static_cast<int>(::getpid() % 250);
    const std::string tag = std::to_string(::getpid());
    ns_ = {"ember_h0_" + tag, "ember_h1_" + tag};
    addr_ = {"10.213." + std::to_string(n) + ".1", "10.213." + std::to_string(n) + ".2"};
    const std::string v0 = "ev0_" + tag, v1 = "ev1_" + tag;
    std::vector<std::string> steps = {
        "ip netns add " + ns_[0],
        "ip netns add " + ns_[1],
        "ip link add " + v0 + " type veth peer name " + v1,
        "ip link set " + v0 + " netns " + ns_[0],
        "ip link set " + v1 + " netns " + ns_[1],
        "ip -n " + ns_[0] + " addr add " + addr_[0] + "/24 dev " + v0,
        "ip -n " + ns_[1] + " addr add " + addr_[1] + "/24 dev " + v1,
        "ip -n " + ns_[0] + " link set " + v0 + " up",
        "ip -n " + ns_[1] + " link set " + v1 + " up",
        "ip -n " + ns_[0] + " link set lo up",
        "ip -n " + ns_[1] + " link set lo up",
    };
    for (const auto& step : steps) {
      auto [rc, out] = sh(step);
      if (rc != 0) {
        unavailable_ = "`" + step + "` failed (" + out + ")";
        return;
      }
    }
  }
  ~TwoHosts() {
    for (const auto& ns : ns_) sh("ip netns del " + ns);  // removes the veth pair too
  }
  const std::string& unavailable() const { return unavailable_; }
  const std::string& ns(int i) const { return ns_[i]; }
  const std::string& addr(int i) const { return addr_[i]; }

 private:
  std::array<std::string, 2> ns_, addr_;
  std::string unavailable_;
};

TEST(TwoHosts, DdpTrainsAcrossNetworkNamespaces) {
  std::unique_ptr<TwoHosts> hosts;
  ember::testing::RankLaunch launch;
  if (!is_rank_process()) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces";
    if (sh("command -v ip").first != 0) GTEST_SKIP() << "needs `ip` (iproute2)";
    hosts = std::make_unique<TwoHosts>();
    if (!hosts->unavailable().empty()) {
      GTEST_SKIP() << "cannot create two hosts here: " << hosts->unavailable();
    }
    launch.world_size = 2;
    launch.timeout = 120s;
    launch.master_addr = hosts->addr(0);
    launch.command_prefix = [&](int rank) {
      return std::vector<std::string>{"ip", "netns", "exec", hosts->ns(rank)};
    };
  }
  ember::testing::run_ranks_and_check(launch, [] {
    dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(30s));
    const int me = dist::get_rank();
    auto [rc, addrs] = sh("ip -4 -o addr show scope global");
    ember::testing::report("rank " + std::to_string(me) + " runs on a host with " + addrs);
    ember::manual_seed(3);
    auto model = ember::nn::Sequential(ember::nn::Linear(8, 16), ember::nn::Tanh(),
                                       ember::nn::Linear(16, 1));
    auto ddp = ember::nn::parallel::DistributedDataParallel(model);
    ember::optim::SGD opt(ddp->parameters(), ember::optim::SGDOptions(0.05));
    ember::manual_seed(10 + static_cast<uint64_t>(me));
    Tensor x = ember::randn({32, 8});
    Tensor y = x.sum(std::vector<int64_t>{1}, true);
    float first = 0, last = 0;
    for (int step = 0; step < 30; ++step) {
      opt.zero_grad();
      Tensor loss = ember::nn::functional::mse_loss(ddp(x), y);
      loss.backward();
      opt.step();
      (step == 0 ? first : last) = loss.item<float>();
    }
    EXPECT_LT(last, first);
    // The replicas stayed identical across the link.
    for (const auto& p : model->parameters()) {
      Tensor flat = p.detach().reshape({-1}).contiguous();
      std::vector<Tensor> both;
      dist::all_gather(both, flat);
      EXPECT_TRUE(both[0].equal(both[1]));
    }
    ember::testing::report("loss " + std::to_string(first) + " -> " + std::to_string(last));
    dist::destroy_process_group();
  });
}

}  // namespace
