#!/usr/bin/python3
"""Writes the seed inputs of tests/fuzz/corpus/pt: files written by PyTorch's torch.save (every
dtype, views sharing a storage, a nested training checkpoint, Parameters, devices and dtypes,
pickle protocol 4) and hostile files (globals outside the allowlist, bad lengths, deep nesting,
storages missing or too small, compressed and path-escaping entries). Needs PyTorch (Debian's
1.13: /usr/bin/python3). The fuzzer grows the corpus from these; the gtest
test_serialize_pt_fuzz_corpus replays every file through ember::load_pt_object."""
import collections
import io
import os
import pickle
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', 'pt')
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
          torch.int16, torch.int8, torch.uint8, torch.bool]


def saved(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf, **kw)
    return buf.getvalue()


def archive(pkl, records=(), compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compress) as z:
        z.writestr('archive/data.pkl', pkl)
        for name, data in records:
            z.writestr(name, data)
    return buf.getvalue()


class Storage:
    def __init__(self, pid):
        self.pid = pid


class Rebuild:
    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, Storage) else None


def tensor_pickle(pid, offset, size, stride):
    buf = io.BytesIO()
    Pickler(buf, protocol=2).dump({'w': Rebuild(Storage(pid), offset, size, stride, False,
                                                collections.OrderedDict())})
    return buf.getvalue()


class Evil:
    def __reduce__(self):
        return (os.system, ('true',))


def seeds():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    yield 'valid_all_dtypes', saved({str(d): torch.ones(2, 3, dtype=d) for d in DTYPES})
    yield 'valid_views', saved(collections.OrderedDict(
        [('base', base), ('t', base.t()), ('row', base[1]), ('strided', base[:, ::3])]))
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    yield 'valid_checkpoint', saved({'model': model.state_dict(), 'optimizer': opt.state_dict(),
                                     'epoch': 2, 'loss': 0.5, 'tags': ['a', None, True],
                                     'where': torch.device('cuda', 0), 'dtype': torch.half})
    yield 'valid_parameter', saved({'p': torch.nn.Parameter(torch.zeros(3))})
    yield 'valid_protocol4', saved({'x': torch.zeros(2), 'n': 2**40}, pickle_protocol=4)
    yield 'valid_empty_and_scalar', saved({'e': torch.zeros(0, 3), 's': torch.tensor(1.5)})
    four = b'\0' * 16
    pid = ('storage', torch.FloatStorage, '0', 'cpu', 4)
    yield 'reduce_os_system', archive(pickle.dumps({'w': Evil()}, protocol=2))
    yield 'global_eval', archive(b'\x80\x02cbuiltins\neval\nX\x03\x00\x00\x001+1\x85R.')
    yield 'huge_binunicode', archive(b'\x80\x02X\xff\xff\xff\x7fabc.')
    yield 'deep_lists', archive(b'\x80\x02' + b']' * 400 + b'a' * 399 + b'.')
    yield 'self_reference', archive(b'\x80\x02]q\x00h\x00a.')
    yield 'missing_storage', archive(tensor_pickle(pid, 0, (4,), (1,)))
    yield 'tensor_past_storage', archive(tensor_pickle(pid, 2, (3,), (1,)),
                                         [('archive/data/0', four)])
    yield 'dotdot_entry', archive(pickle.dumps({}, protocol=2), [('archive/../evil', b'x')])
    yield 'deflated', archive(pickle.dumps({}, protocol=2), [('archive/data/0', b'\0' * 4096)],
                              zipfile.ZIP_DEFLATED)
    legacy = saved({'w': base, 'v': base.t(), 'b': torch.ones(3, dtype=torch.bool)},
                   _use_new_zipfile_serialization=False)
    yield 'valid_legacy_format', legacy
    yield 'legacy_truncated', legacy[:-5]
    good = saved({'w': torch.ones(2)})
    yield 'truncated', good[:len(good) // 2]


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(OUT, 'seed_' + name), 'wb') as f:
            f.write(data)
