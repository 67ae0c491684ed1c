"""gguf_meta.py: write and read metadata-only GGUF files (KV pairs and tensor infos, no tensor data).

Standard library only. A tensor info is (name, ne, type) with ne in ggml order (ne[0] innermost);
offsets are laid out as ggml lays out data (each tensor padded to the 32-byte alignment), so the
file's claimed length is data offset + the end of the last tensor's data (gguf-full-length.py).
"""
import struct

F32, F16 = 0, 1
# value types of GGUF KV pairs
U8, I8, U16, I16, U32, I32, F32V, BOOL, STR, ARR, U64, I64, F64 = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
_FMT = {U8: 'B', I8: 'b', U16: 'H', I16: 'h', U32: 'I', I32: 'i', F32V: 'f', BOOL: '?', U64: 'Q', I64: 'q', F64: 'd'}
_TYPE_SIZE = {F32: 4, F16: 2}
ALIGN = 32


def _str(s):
    b = s.encode('utf-8')
    return struct.pack('<Q', len(b)) + b


def _value(t, v):
    if t == STR:
        return _str(v)
    if t == ARR:
        et, items = v
        return struct.pack('<IQ', et, len(items)) + b''.join(_value(et, x) for x in items)
    return struct.pack('<' + _FMT[t], v)


def write(path, kvs, tensors):
    """kvs: list of (key, type, value) (arrays: (ARR, (elem_type, [values]))); tensors: (name, ne, type)."""
    out = [b'GGUF', struct.pack('<IQQ', 3, len(tensors), len(kvs))]
    for key, t, v in kvs:
        out += [_str(key), struct.pack('<I', t), _value(t, v)]
    offset = 0
    for name, ne, ty in tensors:
        out += [_str(name), struct.pack('<I', len(ne)), b''.join(struct.pack('<Q', n) for n in ne),
                struct.pack('<IQ', ty, offset)]
        size = _TYPE_SIZE[ty]
        for n in ne:
            size *= n
        offset += (size + ALIGN - 1) // ALIGN * ALIGN
    data = b''.join(out)
    data += b'\0' * ((ALIGN - len(data) % ALIGN) % ALIGN)
    with open(path, 'wb') as f:
        f.write(data)


def read(path):
    """(kvs as {key: value}, [(name, ne, type)]) of a GGUF file's header."""
    f = open(path, 'rb')
    rd = lambda fmt: struct.unpack('<' + fmt, f.read(struct.calcsize('<' + fmt)))[0]
    rs = lambda: f.read(rd('Q')).decode('utf-8', 'replace')
    assert f.read(4) == b'GGUF'
    _, n_tensors, n_kv = rd('I'), rd('Q'), rd('Q')

    def value(t):
        if t in _FMT:
            return rd(_FMT[t])
        if t == STR:
            return rs()
        et, n = rd('I'), rd('Q')
        return [value(et) for _ in range(n)]
    kvs = {}
    for _ in range(n_kv):
        k = rs()
        t = rd('I')
        v = value(t)
        kvs[k] = (t, v)
    tensors = []
    for _ in range(n_tensors):
        name = rs()
        nd = rd('I')
        ne = [rd('Q') for _ in range(nd)]
        ty, _off = rd('I'), rd('Q')
        tensors.append((name, ne, ty))
    return kvs, tensors


if __name__ == '__main__':
    import sys
    kvs, tensors = read(sys.argv[1])
    for k, (t, v) in kvs.items():
        if isinstance(v, list) and len(v) > 8:
            v = v[:8] + ['...%d' % len(v)]
        print(f'{k}\t{t}\t{v}')
    for name, ne, ty in tensors:
        if len(sys.argv) > 2 or not name.startswith('blk.') or name.startswith('blk.0.') or name.startswith('blk.1.'):
            print(f'{name}\t{ne}\t{ty}')
