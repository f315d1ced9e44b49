// Hostile PyTorch files: each must be refused by ember::load_pt_object with a ValueError that
// names the problem, without running anything from the file, crashing, or allocating what the
// file claims. The files are made at test time: pickles by Python's pickle module (torch only to
// name its functions), archives by Python's zipfile, and byte-level damage by hand here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "ember/serialize_pt.h"
#include "serialize/zip_archive.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace {

using ember::testing::TempDir;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Every file: its name, and a piece of the error it must give.
struct Case {
  const char* file;
  const char* error;
};
const Case kCases[] = {
    {"reduce_os_system.pt", "global posix.system"},
    {"global_eval.pt", "global builtins.eval"},
    {"stack_global_getattr.pt", "global builtins.getattr"},
    {"huge_binunicode.pt", "needs 2147483647 bytes but the pickle has"},
    {"deep_lists.pt", "nested more than 200 levels deep"},
    {"deep_tuples.pt", "nested more than 200 levels deep"},
    {"self_reference.pt", "puts a list into itself"},
    {"missing_storage.pt", "has no record archive/data/0"},
    {"storage_size_mismatch.pt", "has a record of"},
    {"tensor_past_storage.pt", "does not fit in its storage of 4 elements"},
    {"negative_stride.pt", "does not fit in its storage"},
    {"dotdot_entry.pt", "contains \"..\""},
    {"deflated_bomb.pt", "is compressed (method 8)"},
    {"newobj.pt", "NEWOBJ"},
    {"bytes_object.pt", "bytes object"},
    {"no_data_pkl.pt", "has no archive/data.pkl"},
    {"legacy_truncated.pt", "runs past the file's end"},
    {"bad_location.pt", "is located on 'nowhere', which is not a device"},
    {"legacy_bad_magic.pt", "magic number"},
    {"unknown_storage_type.pt", "global torch.ComplexFloatStorage"},
    {"huge_long.pt", "does not fit in 64 bits"},
    {"undefined_memo.pt", "memo entry 7 is not defined"},
};

}  // namespace

TEST(PtHostileFiles, EachIsRefusedWithAClearErrorAndRunsNothing) {
  TempDir dir;
  const std::string marker = dir / "PWNED";
  write_file(dir / "make.py", R"PY(
import collections, io, os, pickle, sys, zipfile
import torch
D = os.path.dirname(os.path.abspath(sys.argv[0]))
MARKER = sys.argv[1]

def archive(name, pkl, records=(), compress=zipfile.ZIP_STORED):
    with zipfile.ZipFile(os.path.join(D, name), 'w', compress) as z:
        z.writestr('archive/data.pkl', pkl)
        for rec, data in records:
            z.writestr(rec, data)

class Evil:
    def __reduce__(self):
        return (os.system, ('touch ' + MARKER,))
archive('reduce_os_system.pt', pickle.dumps({'w': Evil()}, protocol=2))
archive('global_eval.pt', b'\x80\x02cbuiltins\neval\nX\x04\x00\x00\x001+1\x85R.')
archive('stack_global_getattr.pt',
        b'\x80\x04\x8c\x08builtins\x8c\x07getattr\x93.')
archive('huge_binunicode.pt', b'\x80\x02X\xff\xff\xff\x7fabc.')
archive('deep_lists.pt', b'\x80\x02' + b']' * 5000 + b'a' * 4999 + b'.')
archive('deep_tuples.pt', b'\x80\x02N' + b'\x85' * 5000 + b'.')
archive('self_reference.pt', b'\x80\x02]q\x00h\x00a.')
archive('huge_long.pt', b'\x80\x02\x8a\x10' + b'\x01' * 16 + b'.')
archive('undefined_memo.pt', b'\x80\x02h\x07.')
archive('newobj.pt', b'\x80\x02ccollections\nOrderedDict\n)\x81.')
archive('bytes_object.pt', b'\x80\x03C\x03abc.')

# Tensors by hand: a pickler whose persistent ids are whatever the case needs.
class Storage:
    def __init__(self, pid): self.pid = pid
class Rebuild:
    def __init__(self, *args): self.args = args
    def __reduce__(self): return (torch._utils._rebuild_tensor_v2, self.args)
class P(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, Storage) else None
def tensor_pickle(storage_pid, offset, size, stride):
    buf = io.BytesIO()
    P(buf, protocol=2).dump({'w': Rebuild(Storage(storage_pid), offset, size, stride, False,
                                          collections.OrderedDict())})
    return buf.getvalue()
four_floats = b'\x00' * 16
pid = ('storage', torch.FloatStorage, '0', 'cpu', 4)
archive('missing_storage.pt', tensor_pickle(pid, 0, (4,), (1,)))
archive('storage_size_mismatch.pt', tensor_pickle(('storage', torch.FloatStorage, '0', 'cpu', 1 << 40), 0, (4,), (1,)),
        [('archive/data/0', four_floats)])
archive('tensor_past_storage.pt', tensor_pickle(pid, 2, (3,), (1,)), [('archive/data/0', four_floats)])
archive('bad_location.pt', tensor_pickle(('storage', torch.FloatStorage, '0', 'nowhere', 4), 0, (4,), (1,)),
        [('archive/data/0', four_floats)])
archive('negative_stride.pt', tensor_pickle(pid, 3, (2,), (-1,)), [('archive/data/0', four_floats)])
archive('unknown_storage_type.pt', tensor_pickle(('storage', torch.ComplexFloatStorage, '0', 'cpu', 2), 0, (2,), (1,)),
        [('archive/data/0', four_floats)])
archive('dotdot_entry.pt', pickle.dumps({}, protocol=2), [('archive/../../evil', b'x')])
archive('deflated_bomb.pt', pickle.dumps({}, protocol=2), [('archive/data/0', b'\0' * (64 << 20))],
        zipfile.ZIP_DEFLATED)
with zipfile.ZipFile(os.path.join(D, 'no_data_pkl.pt'), 'w') as z:
    z.writestr('archive/version', '3\n')
buf = io.BytesIO()
torch.save({'w': torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
open(os.path.join(D, 'legacy_truncated.pt'), 'wb').write(buf.getvalue()[:-4])
open(os.path.join(D, 'legacy_bad_magic.pt'), 'wb').write(b'\x80\x02K\x01.' + buf.getvalue()[15:])
print('made')
)PY");
  const std::string cmd = ember::testing::torch_python() + " '" + (dir / "make.py") + "' '" +
                          marker + "' > '" + (dir / "py.log") + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string log = read_file(dir / "py.log");
  if (rc != 0 && log.find("No module named 'torch'") != std::string::npos) {
    GTEST_SKIP() << "no python3 with torch";
  }
  ASSERT_EQ(rc, 0) << log;
  for (const Case& c : kCases) {
    const std::string path = dir / c.file;
    const std::string err =
        ember::testing::error_of<ember::ValueError>([&] { ember::load_pt_object(path); });
    EXPECT_NE(err.find(c.error), std::string::npos) << c.file << ": " << err;
    EXPECT_NE(err.find(path), std::string::npos) << c.file << ": the error does not name the file";
  }
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "a hostile file ran a command";
}

// Damage to a valid archive at the byte level: every truncation and a sweep of flipped bytes
// either still loads (the byte was padding) or gives an ember::Error; nothing else.
TEST(PtHostileFiles, TruncatedAndFlippedArchivesFailCleanly) {
  auto obj = ember::pt_dict(
      {{"w", ember::pt_tensor(ember::arange(6, ember::kFloat))}, {"n", ember::pt_int(3)}});
  const std::string good = ember::save_pt_bytes(*obj);
  size_t refused = 0, loaded = 0;
  auto attempt = [&](const std::string& bytes) {
    try {
      ember::load_pt_object_bytes(bytes, "damaged");
      ++loaded;
    } catch (const ember::Error& e) {
      EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
      ++refused;
    }
  };
  for (size_t n = 0; n < good.size(); n += 7) attempt(good.substr(0, n));
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    attempt(bad);
  }
  EXPECT_GT(refused, good.size() / 2);
  EXPECT_GT(loaded, 0u);  // the alignment padding and unused header fields
}

// A pickle that shares each tuple twice in the next, 150 levels deep, stands for 2^150 leaves:
// loading keeps the sharing (one node per tuple) and saving writes each tuple once (the memo),
// so both take time linear in the file, not in the tree it describes.
TEST(PtHostileFiles, SharedStructureStaysLinear) {
  std::string pkl = "\x80\x02)";
  for (int i = 0; i < 150; ++i) pkl += "2\x86";  // DUP, TUPLE2
  pkl += ".";
  std::string archive;
  ember::zip::Writer zip(
      [&](const void* d, size_t n) { archive.append(static_cast<const char*>(d), n); });
  zip.add("archive/data.pkl", pkl.data(), pkl.size());
  zip.finish();
  const ember::PtValue obj = ember::load_pt_object_bytes(archive, "dag");
  const ember::PtValue* node = &obj;
  for (int i = 0; i < 150; ++i) {
    ASSERT_EQ(node->items.size(), 2u);
    ASSERT_EQ(node->items[0], node->items[1]);
    node = node->items[0].get();
  }
  const std::string resaved = ember::save_pt_bytes(obj);
  EXPECT_LT(resaved.size(), archive.size() + 4096);
  EXPECT_EQ(ember::load_pt_object_bytes(resaved, "resaved").items.size(), 2u);
}
