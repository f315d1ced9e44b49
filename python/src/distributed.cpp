// ember._C._distributed: the process group of include/ember/distributed (Gloo, NCCL), its
// collectives and Work handles, DDP's gradient synchronizer (GradientSynchronizer: the C++
// Reducer's hooks average the gradients during backward, no Python runs per parameter) and the
// DistributedSampler's shards. python/ember/distributed/ and ember/nn/parallel/ add the Python
// spelling. Every call that communicates or waits releases the GIL.
#include <nanobind/stl/chrono.h>
#include <nanobind/stl/shared_ptr.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "ember/data/distributed_sampler.h"
#include "ember/distributed.h"
#include "ember/nn/parallel/distributed_data_parallel.h"

namespace ember::python {
namespace {

namespace dist = ember::distributed;
using RG = nb::call_guard<nb::gil_scoped_release>;
using WorkPtr = std::shared_ptr<dist::Work>;

std::vector<Tensor> tensor_list(nb::handle list, const char* what) {
  std::vector<Tensor> out;
  for (nb::handle h : list) {
    if (!nb::isinstance<Tensor>(h)) {
      throw TypeError(detail::str_cat(what, ": expected a list of tensors, got an element of type ",
                                      nb::type_name(h.type()).c_str()));
    }
    out.push_back(nb::cast<Tensor>(h));
  }
  return out;
}

// The Python exception types of torch.distributed's errors (RuntimeError subclasses), set by
// ember/distributed/__init__.py through _set_error_types.
PyObject* g_dist_error = nullptr;
PyObject* g_backend_error = nullptr;
PyObject* g_store_error = nullptr;
PyObject* g_network_error = nullptr;

}  // namespace

void init_distributed(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_distributed", "ember.distributed's compiled half");

  m.def("_set_error_types",
        [](nb::handle base, nb::handle backend, nb::handle store, nb::handle network) {
          // Kept for the process's life, as Python's own exception types are.
          g_dist_error = nb::borrow(base).release().ptr();
          g_backend_error = nb::borrow(backend).release().ptr();
          g_store_error = nb::borrow(store).release().ptr();
          g_network_error = nb::borrow(network).release().ptr();
        });
  // Registered after init_errors, so tried before its generic ember::Error -> RuntimeError.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const dist::DistBackendError& e) {
      PyErr_SetString(g_backend_error ? g_backend_error : PyExc_RuntimeError, e.what());
    } catch (const dist::DistStoreError& e) {
      PyErr_SetString(g_store_error ? g_store_error : PyExc_RuntimeError, e.what());
    } catch (const dist::DistNetworkError& e) {
      PyErr_SetString(g_network_error ? g_network_error : PyExc_RuntimeError, e.what());
    } catch (const dist::DistError& e) {
      PyErr_SetString(g_dist_error ? g_dist_error : PyExc_RuntimeError, e.what());
    }
  });

  nb::enum_<dist::ReduceOp>(m, "ReduceOp")
      .value("SUM", dist::ReduceOp::SUM)
      .value("AVG", dist::ReduceOp::AVG)
      .value("PRODUCT", dist::ReduceOp::PRODUCT)
      .value("MIN", dist::ReduceOp::MIN)
      .value("MAX", dist::ReduceOp::MAX);

  nb::class_<dist::Work>(m, "Work")
      .def(
          "wait",
          [](dist::Work& w, double timeout_s) {
            return w.wait(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
          },
          "timeout_s"_a = 0.0, RG())
      .def("is_completed", &dist::Work::is_completed, RG())
      .def("is_success", &dist::Work::is_success, RG())
      .def("result", &dist::Work::result, RG())
      .def("source_rank", &dist::Work::source_rank, RG())
      .def_prop_ro("op_name", &dist::Work::op_name);

  m.def(
      "init_process_group",
      [](const std::string& backend, const std::string& init_method, int world_size, int rank,
         double timeout_s) {
        dist::InitProcessGroupOptions o;
        o.init_method(init_method).world_size(world_size).rank(rank);
        o.timeout(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
        dist::init_process_group(backend, o);
      },
      "backend"_a, "init_method"_a, "world_size"_a, "rank"_a, "timeout_s"_a, RG());
  m.def("is_initialized", &dist::is_initialized);
  m.def("is_available", &dist::is_available);
  m.def("get_rank", [] { return dist::get_rank(); });
  m.def("get_world_size", [] { return dist::get_world_size(); });
  m.def("get_backend", [] { return dist::get_backend(); });
  m.def("destroy_process_group", &dist::destroy_process_group, RG());

  m.def(
      "all_reduce",
      [](Tensor& t, dist::ReduceOp op, bool async_op) { return dist::all_reduce(t, op, async_op); },
      "tensor"_a, "op"_a, "async_op"_a, RG());
  m.def(
      "broadcast",
      [](Tensor& t, int src, bool async_op) { return dist::broadcast(t, src, async_op); },
      "tensor"_a, "src"_a, "async_op"_a, RG());
  m.def(
      "all_gather",
      [](nb::list out, const Tensor& t, bool async_op) {
        std::vector<Tensor> list = tensor_list(out, "all_gather");
        const bool fill = list.empty();
        WorkPtr work;
        {
          nb::gil_scoped_release release;
          work = dist::all_gather(list, t, async_op);
        }
        if (fill) {  // an empty list is filled, as in the C++ API
          for (const Tensor& x : list) out.append(nb::cast(x));
        }
        return work;
      },
      "tensor_list"_a, "tensor"_a, "async_op"_a);
  m.def(
      "all_gather_into_tensor",
      [](Tensor& out, const Tensor& in, bool async_op) {
        return dist::all_gather_into_tensor(out, in, async_op);
      },
      "output"_a, "input"_a, "async_op"_a, RG());
  m.def(
      "reduce_scatter",
      [](Tensor& out, nb::handle inputs, dist::ReduceOp op, bool async_op) {
        std::vector<Tensor> list = tensor_list(inputs, "reduce_scatter");
        nb::gil_scoped_release release;
        return dist::reduce_scatter(out, list, op, async_op);
      },
      "output"_a, "input_list"_a, "op"_a, "async_op"_a);
  m.def(
      "reduce_scatter_tensor",
      [](Tensor& out, const Tensor& in, dist::ReduceOp op, bool async_op) {
        return dist::reduce_scatter_tensor(out, in, op, async_op);
      },
      "output"_a, "input"_a, "op"_a, "async_op"_a, RG());
  m.def(
      "isend", [](const Tensor& t, int dst, int tag) { return dist::isend(t, dst, nullptr, tag); },
      "tensor"_a, "dst"_a, "tag"_a, RG());
  m.def(
      "irecv",
      [](Tensor& t, std::optional<int> src, int tag) { return dist::irecv(t, src, nullptr, tag); },
      "tensor"_a, "src"_a.none(), "tag"_a, RG());
  m.def(
      "recv",
      [](Tensor& t, std::optional<int> src, int tag) { return dist::recv(t, src, nullptr, tag); },
      "tensor"_a, "src"_a.none(), "tag"_a, RG());
  m.def(
      "barrier", [](bool async_op) { return dist::barrier(async_op); }, "async_op"_a, RG());

  using nn::parallel::GradientSynchronizer;
  nb::class_<GradientSynchronizer>(m, "GradientSynchronizer")
      .def(
          "__init__",
          [](GradientSynchronizer* self, std::vector<std::string> names, nb::handle params,
             nb::handle initial_state, double bucket_cap_mb, bool find_unused_parameters,
             bool broadcast_buffers) {
            std::vector<Tensor> ps = tensor_list(params, "DistributedDataParallel");
            std::vector<Tensor> state = tensor_list(initial_state, "DistributedDataParallel");
            nn::parallel::DistributedDataParallelOptions o;
            o.bucket_cap_mb(bucket_cap_mb)
                .find_unused_parameters(find_unused_parameters)
                .broadcast_buffers(broadcast_buffers);
            nb::gil_scoped_release release;
            new (self) GradientSynchronizer(std::move(names), std::move(ps), state, o);
          },
          "names"_a, "params"_a, "initial_state"_a, "bucket_cap_mb"_a, "find_unused_parameters"_a,
          "broadcast_buffers"_a)
      .def(
          "pre_forward",
          [](GradientSynchronizer& s, nb::handle buffers) {
            std::vector<Tensor> bs = tensor_list(buffers, "DistributedDataParallel");
            nb::gil_scoped_release release;
            s.pre_forward(bs);
          },
          "buffers"_a)
      .def(
          "post_forward",
          [](GradientSynchronizer& s, nb::handle outputs) {
            std::vector<Tensor> os = tensor_list(outputs, "DistributedDataParallel");
            nb::gil_scoped_release release;
            s.post_forward(os);
          },
          "outputs"_a)
      .def("bucket_indices", &GradientSynchronizer::bucket_indices)
      .def("last_backward_stats", [](const GradientSynchronizer& s) {
        auto st = s.last_backward_stats();
        nb::dict d;
        d["num_buckets"] = st.num_buckets;
        d["bucket_launch_ms"] = st.bucket_launch_ms;
        d["bucket_done_ms"] = st.bucket_done_ms;
        d["backward_end_ms"] = st.backward_end_ms;
        d["finalize_end_ms"] = st.finalize_end_ms;
        return d;
      });

  // DistributedSampler's shard for one epoch: the C++ sampler's order (PyTorch's arithmetic;
  // its shuffle is the C++ DataLoader's epoch permutation, so C++ and Python programs agree).
  m.def(
      "_sampler_indices",
      [](size_t n, int num_replicas, int rank, bool shuffle, uint64_t seed, uint64_t epoch,
         bool drop_last) {
        data::DistributedSamplerOptions o;
        o.num_replicas(num_replicas).rank(rank).shuffle(shuffle).seed(seed).drop_last(drop_last);
        data::DistributedSampler sampler(n, o);
        sampler.set_epoch(epoch);
        return sampler.indices();
      },
      "n"_a, "num_replicas"_a, "rank"_a, "shuffle"_a, "seed"_a, "epoch"_a, "drop_last"_a, RG());
}

}  // namespace ember::python
