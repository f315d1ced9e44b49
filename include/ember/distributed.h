#pragma once
// torch.distributed and torch.nn.parallel in C++: process groups on Gloo and NCCL, the
// rendezvous stores, collectives, DistributedDataParallel, DataParallel, DistributedSampler.
// See docs/distributed.md.
#include "ember/distributed/collectives.h"
#include "ember/distributed/errors.h"
#include "ember/distributed/init.h"
#include "ember/distributed/prefix_store.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/process_group_gloo.h"
#include "ember/distributed/process_group_nccl.h"
#include "ember/distributed/reduce_op.h"
#include "ember/distributed/store.h"
#include "ember/distributed/tcp_store.h"
#include "ember/distributed/work.h"
