"""ember.distributed, DistributedDataParallel and DistributedSampler from Python.

The programs in distributed_programs/ run with 2 processes under the build's ember-run (loopback,
a free port, every rank and the launcher bounded by a timeout). collectives.py,
rooted_and_object_collectives.py and ddp_training.py are PyTorch programs: they also run under
PyTorch 1.13 (started by the same launcher, which only sets the torchrun variables) and, with
torch renamed ember, under Ember, and print the same lines. ember_only.py checks what PyTorch
1.13's Gloo lacks and ember's own guarantees (the GIL released while a collective waits)."""
import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch

import ember
import ember.distributed as dist
from conftest import PACKAGE_PATH
from ember.utils.data.distributed import DistributedSampler

HERE = pathlib.Path(__file__).parent
PROGRAMS = HERE / "distributed_programs"


def ember_run_path():
    exe = os.environ.get("EMBER_RUN") or str(pathlib.Path(PACKAGE_PATH).parent / "tools" /
                                              "ember-run")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"ember-run not built at {exe}")
    return exe


def launch(source_path, nproc=2, timeout=120, python=sys.executable):
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_PATH + os.pathsep + env.get("PYTHONPATH", "")
    env["EMBER_PYTHON"] = python
    # Block-buffered output reaches the shared pipe in one write per rank at exit; unbuffered,
    # print() writes its pieces one by one and the ranks' lines interleave.
    env.pop("PYTHONUNBUFFERED", None)
    proc = subprocess.run([ember_run_path(), "--standalone", "--stop-timeout", "2",
                           "--nproc-per-node", str(nproc), str(source_path)],
                          capture_output=True, text=True, env=env, timeout=timeout)
    assert proc.returncode == 0, f"{source_path}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def renamed(tmp_path, program):
    path = tmp_path / program.name
    path.write_text(re.sub(r"\btorch\b", "ember", program.read_text()))
    return path


@pytest.mark.parametrize("name", ["collectives", "ddp_training", "rooted_and_object_collectives"])
def test_distributed_program_prints_what_pytorch_prints(tmp_path, name):
    program = PROGRAMS / f"{name}.py"
    expected = re.sub(r"\btorch\b", "ember", launch(program))
    actual = launch(renamed(tmp_path, program))
    # Lines of different ranks may interleave: compare them as sorted lists.
    assert sorted(actual.splitlines()) == sorted(expected.splitlines())
    if name == "ddp_training":
        assert "ranks equal True" in actual and "equal to one process True" in actual


def test_ember_only_collectives_gil_sampler_and_ddp_errors():
    out = launch(PROGRAMS / "ember_only.py")
    assert sorted(out.split()) == sorted("rank 0 ok rank 1 ok".split())


def test_sync_batchnorm_under_ddp_equals_one_process_on_the_whole_batch():
    out = launch(PROGRAMS / "sync_batchnorm.py")
    assert sorted(out.split()) == sorted("rank 0 ok rank 1 ok".split())


def test_ember_run_starts_python_scripts_with_ember_python(tmp_path):
    script = tmp_path / "show.py"
    script.write_text("import os, sys\nprint(os.environ['RANK'], os.environ['WORLD_SIZE'], "
                      "os.environ['LOCAL_RANK'], sys.argv[1:], 'ember' in sys.modules or "
                      "__import__('ember') is not None)\n")
    env = dict(os.environ, PYTHONPATH=PACKAGE_PATH, EMBER_PYTHON=sys.executable)
    env.pop("PYTHONUNBUFFERED", None)
    proc = subprocess.run([ember_run_path(), "--standalone", "--nproc-per-node", "2", str(script),
                           "--lr", "0.1"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines()) == [
        "0 2 0 ['--lr', '0.1'] True", "1 2 1 ['--lr', '0.1'] True"]
    env["EMBER_PYTHON"] = str(tmp_path / "no-such-python")
    proc = subprocess.run([ember_run_path(), "--nproc-per-node", "1", str(script)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode != 0 and "no-such-python" in proc.stderr


def test_collective_before_init_process_group():
    assert dist.is_available() and not dist.is_initialized()
    message = "Default process group has not been initialized"
    for call in [lambda: dist.all_reduce(ember.ones(2)), lambda: dist.broadcast(ember.ones(2), 0),
                 lambda: dist.barrier(), lambda: dist.get_rank(), lambda: dist.get_world_size(),
                 lambda: dist.all_gather([ember.ones(1)], ember.ones(1))]:
        with pytest.raises(RuntimeError, match=message):
            call()
    with pytest.raises(RuntimeError, match=message):
        ember.nn.parallel.DistributedDataParallel(ember.nn.Linear(2, 2))


def run_single_rank(body):
    """`body` in a fresh interpreter as the one rank of a Gloo group (tcp:// on a free port)."""
    source = ("import datetime, socket, ember, ember.distributed as dist\n"
              "s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; "
              "s.close()\n"
              "dist.init_process_group('gloo', init_method=f'tcp://127.0.0.1:{port}', rank=0, "
              "world_size=1, timeout=datetime.timedelta(seconds=20))\n" + body)
    env = dict(os.environ, PYTHONPATH=PACKAGE_PATH)
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_world_of_one_and_bad_arguments():
    out = run_single_rank(
        "t = ember.ones(3)\n"
        "w = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True)\n"
        "print(type(w).__name__, w.wait(), t.tolist(), dist.get_rank(), dist.get_world_size())\n"
        "for bad in [lambda: dist.all_reduce(t, op='sum'), lambda: dist.all_gather(t, t),\n"
        "            lambda: dist.init_process_group('gloo'),\n"
        "            lambda: dist.all_reduce(t, group=object())]:\n"
        "    try:\n"
        "        bad()\n"
        "    except (TypeError, RuntimeError, NotImplementedError) as e:\n"
        "        print(type(e).__name__)\n"
        "dist.destroy_process_group()\n"
        "print(dist.is_initialized())\n")
    assert out.split() == ["Work", "True", "[1.0,", "1.0,", "1.0]", "0", "1", "TypeError",
                           "TypeError", "RuntimeError", "NotImplementedError", "False"]


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (11, 2, False),
                                                  (4, 5, False), (4, 5, True), (64, 4, False)])
def test_sampler_order_equals_pytorch_without_shuffle(n, replicas, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    data = list(range(n))
    for rank in range(replicas):
        ours = DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=False,
                                  drop_last=drop_last)
        theirs = TorchSampler(data, num_replicas=replicas, rank=rank, shuffle=False,
                              drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) and ours.total_size == theirs.total_size


def test_sampler_shuffle_is_a_shared_permutation_per_epoch():
    data = list(range(25))
    shards = {}
    for epoch in [0, 1]:
        samplers = [DistributedSampler(data, num_replicas=3, rank=r, seed=7) for r in range(3)]
        for s in samplers:
            s.set_epoch(epoch)
        shards[epoch] = [list(s) for s in samplers]
        flat = sum(shards[epoch], [])
        assert len(flat) == 27 and set(flat) == set(data)
        assert shards[epoch] == [list(s) for s in samplers]  # the same again
    assert shards[0] != shards[1]
    assert shards[0][0] != list(range(0, 25, 3))
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(data, num_replicas=3, rank=3)
    loader = ember.utils.data.DataLoader(ember.utils.data.TensorDataset(ember.arange(10)),
                                         batch_size=2, sampler=DistributedSampler(
                                             list(range(10)), num_replicas=2, rank=1,
                                             shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1, 3], [5, 7], [9]]


def test_reduce_op_names():
    assert [op.name for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.PRODUCT,
                               dist.ReduceOp.MIN, dist.ReduceOp.MAX)] == [
        "SUM", "AVG", "PRODUCT", "MIN", "MAX"]
    assert issubclass(dist.DistBackendError, RuntimeError)
    assert torch.distributed.is_available()
