// DistributedSampler: PyTorch's shards (same as torch.utils.data.DistributedSampler without
// shuffle), disjoint shuffled shards covering the dataset, epoch-seeded order, padding and
// drop_last, and the DataLoader batching a rank's shard.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ember/data/dataloader.h"
#include "ember/data/distributed_sampler.h"
#include "ember/ops.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using ember::data::DistributedSampler;
using ember::data::DistributedSamplerOptions;
using ember::testing::contains;
using ember::testing::error_of;

namespace {

DistributedSamplerOptions shard(int replicas, int rank) {
  return DistributedSamplerOptions().num_replicas(replicas).rank(rank);
}

std::vector<int64_t> as_int64(const std::vector<size_t>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

TEST(DistributedSampler, UnshuffledShardsEqualPyTorchs) {
  for (int64_t n : {10, 11, 12, 2, 0}) {
    for (int replicas : {1, 2, 3, 4}) {
      for (bool drop_last : {false, true}) {
        for (int rank = 0; rank < replicas; ++rank) {
          DistributedSampler s(static_cast<size_t>(n),
                               shard(replicas, rank).shuffle(false).drop_last(drop_last));
          std::string code =
              "from torch.utils.data.distributed import DistributedSampler\n"
              "s = DistributedSampler(range(" +
              std::to_string(n) + "), " + std::to_string(replicas) + ", " + std::to_string(rank) +
              ", shuffle=False, drop_last=" + (drop_last ? "True" : "False") +
              ")\ny = torch.tensor(list(s) + [-1], dtype=torch.int64)\n"
              "size = len(s)";
          auto r = ember::testing::torch_run(code, {}, {"y", "size"});
          std::vector<int64_t> expected = r.at("y").to_vector<int64_t>();
          expected.pop_back();
          std::string ctx = "n=" + std::to_string(n) + " replicas=" + std::to_string(replicas) +
                            " rank=" + std::to_string(rank) +
                            " drop_last=" + std::to_string(drop_last);
          EXPECT_EQ(as_int64(s.indices()), expected) << ctx;
          EXPECT_EQ(static_cast<int64_t>(s.size()), r.at("size").item<int64_t>()) << ctx;
        }
      }
    }
  }
}

TEST(DistributedSampler, ShuffledShardsAreDisjointAndCoverTheDataset) {
  const size_t n = 103;
  const int replicas = 4;
  std::multiset<size_t> seen;
  for (int rank = 0; rank < replicas; ++rank) {
    DistributedSampler s(n, shard(replicas, rank).seed(7));
    s.set_epoch(3);
    auto idx = s.indices();
    EXPECT_EQ(idx.size(), 26u);
    seen.insert(idx.begin(), idx.end());
  }
  // 104 slots for 103 samples: every sample once, one of them twice (the padding).
  std::set<size_t> distinct(seen.begin(), seen.end());
  EXPECT_EQ(distinct.size(), n);
  EXPECT_EQ(seen.size(), 104u);
}

TEST(DistributedSampler, EpochAndSeedDecideTheOrder) {
  DistributedSampler a(50, shard(2, 0).seed(1)), b(50, shard(2, 0).seed(1)),
      c(50, shard(2, 0).seed(2));
  EXPECT_EQ(a.indices(), b.indices());  // same seed, same epoch
  EXPECT_NE(a.indices(), c.indices());
  auto epoch0 = a.indices();
  a.set_epoch(1);
  EXPECT_NE(a.indices(), epoch0);
  a.set_epoch(0);
  EXPECT_EQ(a.indices(), epoch0);
  EXPECT_EQ(a.epoch(), 0u);
}

TEST(DistributedSampler, DataLoaderBatchesTheShard) {
  auto data = ember::arange(10, ember::kFloat).reshape({10, 1});
  auto targets = ember::arange(10, ember::kLong);
  ember::data::TensorDataset ds(data, targets);
  auto sampler = std::make_shared<DistributedSampler>(ds.size(), shard(3, 1).shuffle(false));
  ember::data::DataLoader loader(ds, sampler, ember::data::DataLoaderOptions().batch_size(2));
  EXPECT_EQ(loader.size(), 2u);  // 4 samples for rank 1 of 3: 1, 4, 7, 0 (wrapped)
  std::vector<int64_t> got;
  for (auto& batch : loader) {
    for (int64_t v : batch.target.to_vector<int64_t>()) got.push_back(v);
  }
  EXPECT_EQ(got, (std::vector<int64_t>{1, 4, 7, 0}));
  EXPECT_TRUE(contains(error_of<ember::ValueError>([&] {
                         ember::data::DataLoader bad(
                             ds, sampler, ember::data::DataLoaderOptions().shuffle(true));
                       }),
                       "mutually exclusive with shuffle"));
}

TEST(DistributedSampler, BadArgumentsAreNamed) {
  EXPECT_TRUE(contains(error_of<ember::ValueError>([] { DistributedSampler(10, shard(2, 2)); }),
                       "invalid rank 2, rank should be in the interval [0, 1]"));
  EXPECT_TRUE(contains(error_of<ember::ValueError>([] { DistributedSampler(10); }),
                       "init_process_group has not been called"));
  EXPECT_TRUE(contains(error_of<ember::ValueError>([] { DistributedSampler(10, shard(0, 0)); }),
                       "num_replicas must be at least 1"));
}

}  // namespace
