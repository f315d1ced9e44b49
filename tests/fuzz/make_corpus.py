#!/usr/bin/env python3
"""Writes the seed inputs of tests/fuzz/corpus/safetensors: valid files of every dtype and one
file per validation rule broken. The fuzzer grows the corpus from these; the gtest
test_serialize_fuzz_corpus replays every file through ember::load."""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', 'safetensors')
SIZES = {'F64': 8, 'F32': 4, 'F16': 2, 'BF16': 2, 'I64': 8, 'I32': 4, 'I16': 2, 'I8': 1,
         'U8': 1, 'BOOL': 1}


def build(header, data=b'', raw_header=None, pad=True):
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    if pad:
        h += b' ' * ((8 - len(h) % 8) % 8)
    return struct.pack('<Q', len(h)) + h + data


def valid(tensors, meta=None):
    header, data = {}, b''
    if meta is not None:
        header['__metadata__'] = meta
    for name, dtype, shape in tensors:
        n = SIZES[dtype]
        for s in shape:
            n *= s
        header[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [len(data), len(data) + n]}
        data += bytes((i * 37 + 11) % 256 for i in range(n))
    return build(header, data)


def entry(dtype, shape, b, e):
    return {'dtype': dtype, 'shape': shape, 'data_offsets': [b, e]}


def seeds():
    yield 'valid_all_dtypes', valid([('t_' + d, d, [2, 3]) for d in SIZES], {'format': 'pt'})
    yield 'valid_scalar_and_empty', valid([('s', 'F32', []), ('e', 'F64', [0, 5]), ('z', 'I8', [0])])
    yield 'valid_empty_header', build({})
    yield 'valid_metadata_only', build({'__metadata__': {'a': 'b', 'c': ''}})
    yield 'valid_unpadded', build({'w': entry('U8', [3], 0, 3)}, b'abc', pad=False)
    yield 'valid_unicode_name', valid([('gewicht.\u00e4\u00f6\u00fc.\u2603', 'F32', [1])])
    yield 'valid_many', valid([('layer%d.weight' % i, 'F32', [i % 4 + 1, 2]) for i in range(20)])
    # Reach the loaders' size arithmetic: byte counts, extents and strides at the limits, and
    # the typed loads (load(Tensor&), load(std::vector<Tensor>&)) through the content tags.
    yield 'valid_empty_huge_dims', build({'w': entry('F64', [0, 2**62, 1], 0, 0),
                                          'v': entry('U8', [2**63 - 1, 0], 0, 0)})
    yield 'valid_rank_8', valid([('w', 'I16', [1, 2, 1, 3, 1, 1, 2, 1])])
    yield 'valid_byte_count_limits', valid([('a', 'F64', [1, 1, 3]), ('b', 'BOOL', [7]),
                                            ('c', 'BF16', [0]), ('d', 'I8', [5, 1])])
    yield 'valid_tensor_tag', valid([('tensor', 'F32', [2, 2])], {'ember.content': 'tensor'})
    yield 'valid_list_tag', valid([(str(i), 'F32', [i + 1]) for i in range(3)],
                                  {'ember.content': 'tensor_list'})
    yield 'valid_list_untagged', valid([('1', 'U8', [2]), ('0', 'I32', [1])])
    yield 'valid_list_bad_names', valid([('0', 'F32', [1]), ('2', 'F32', [1]), ('01', 'F32', [1])],
                                        {'ember.content': 'tensor_list'})
    yield 'valid_optimizer_tag', valid([('state.0.step', 'F32', [])],
                                       {'ember.content': 'optimizer', 'ember.optimizer': 'Adam'})
    yield 'shape_extent_overflow', build({'w': entry('U8', [0, 2**32, 2**31], 0, 0)})
    yield 'offsets_end_past_int64', build({'w': entry('U8', [8], 2**63 - 4, 2**63 + 4)}, b'x' * 8)
    yield 'bytes_just_short', build({'w': entry('F32', [2, 3], 0, 24)}, b'x' * 23)
    yield 'empty_file', b''
    yield 'short_file', b'\x05\x00\x00'
    yield 'length_only', struct.pack('<Q', 0)
    yield 'length_exceeds_file', struct.pack('<Q', 1000) + b'{}'
    yield 'length_huge', b'\xff' * 8 + b'{}'
    yield 'json_invalid', build(None, raw_header=b'{"w": {"dtype": ')
    yield 'json_not_object', build([1, 2, 3])
    yield 'json_bad_utf8', build(None, raw_header=b'{"\xff\xfe": {}}')
    yield 'json_deep', build(None, raw_header=b'[' * 100 + b']' * 100)
    yield 'json_duplicate', build(None, raw_header=b'{"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}, "a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}', data=b'x')
    yield 'entry_not_object', build({'w': [1]})
    yield 'entry_missing_dtype', build({'w': {'shape': [1], 'data_offsets': [0, 1]}}, b'x')
    yield 'entry_missing_shape', build({'w': {'dtype': 'U8', 'data_offsets': [0, 1]}}, b'x')
    yield 'entry_missing_offsets', build({'w': {'dtype': 'U8', 'shape': [1]}}, b'x')
    yield 'dtype_unknown', build({'w': entry('F33', [1], 0, 4)}, b'xxxx')
    yield 'dtype_unsupported', build({'w': entry('U32', [1], 0, 4)}, b'xxxx')
    yield 'dtype_not_string', build({'w': {'dtype': 5, 'shape': [1], 'data_offsets': [0, 1]}}, b'x')
    yield 'shape_negative', build({'w': entry('U8', [-1], 0, 1)}, b'x')
    yield 'shape_float', build({'w': entry('U8', [1.5], 0, 1)}, b'x')
    yield 'shape_not_array', build({'w': {'dtype': 'U8', 'shape': 3, 'data_offsets': [0, 3]}}, b'xxx')
    yield 'shape_overflow', build({'w': entry('F64', [2**32, 2**32], 0, 8)}, b'x' * 8)
    yield 'shape_huge_dim', build({'w': entry('U8', [2**64 - 1], 0, 8)}, b'x' * 8)
    yield 'shape_zero_stride_overflow', build({'w': entry('F32', [0, 2**62, 2**62], 0, 0)})
    yield 'shape_bytes_mismatch', build({'w': entry('F32', [2], 0, 12)}, b'x' * 12)
    yield 'offsets_reversed', build({'w': entry('U8', [0], 4, 0)}, b'x' * 4)
    yield 'offsets_beyond', build({'w': entry('U8', [8], 8, 16)}, b'x' * 8)
    yield 'offsets_arity', build({'w': {'dtype': 'U8', 'shape': [1], 'data_offsets': [0]}}, b'x')
    yield 'offsets_huge', build({'w': entry('U8', [1], 2**64 - 1, 2**64)}, b'x')
    yield 'overlap', build({'a': entry('U8', [4], 0, 4), 'b': entry('U8', [4], 2, 6)}, b'x' * 6)
    yield 'gap', build({'a': entry('U8', [4], 0, 4), 'b': entry('U8', [4], 6, 10)}, b'x' * 10)
    yield 'trailing', build({'a': entry('U8', [4], 0, 4)}, b'x' * 7)
    yield 'uncovered_start', build({'a': entry('U8', [4], 2, 6)}, b'x' * 6)
    yield 'metadata_not_object', build({'__metadata__': [1]})
    yield 'metadata_value_number', build({'__metadata__': {'a': 1}})
    yield 'bool_bytes', build({'m': entry('BOOL', [4], 0, 4)}, b'\x00\x01\x02\xff')


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(OUT, 'seed_' + name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
