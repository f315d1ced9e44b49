// ember::save_pt: the object as torch.save writes it (pickle protocol 2 in archive/data.pkl,
// each storage's bytes in archive/data/<key>, archive/byteorder, archive/version), so that
// torch.load reads it, with weights_only=True too: only the globals of its allowlist are used.
#include <map>

#include "core/tensor_factory.h"
#include "ember/serialize_pt.h"
#include "serialize/atomic_file.h"
#include "serialize/pickle_writer.h"
#include "serialize/pt_format.h"
#include "serialize/zip_archive.h"

namespace ember {
namespace {

using Kind = PtValue::Kind;
constexpr int kMaxDepth = 200;   // as the reader's limit, so that whatever is saved loads
constexpr size_t kBatch = 1000;  // items per SETITEMS / APPENDS, as Python's pickle batches

struct Storage {
  std::string key;
  Tensor flat;  // the whole storage as a 1-D tensor of its dtype
};

class CheckpointPickler {
 public:
  std::string run(const PtValue& obj) {
    value(obj, 0);
    return out_.finish();
  }
  const std::vector<Storage>& storages() const { return storages_; }

 private:
  // An object met again (one tensor under two names) is fetched from the pickle's memo, so that
  // it loads as one object, as Python's pickle does.
  void value(const PtValue& v, int depth) {
    EMBER_CHECK(depth < kMaxDepth, ValueError, "ember::save_pt: the object is nested more than ",
                kMaxDepth, " levels deep");
    const bool shareable = v.kind == Kind::Tensor || v.kind == Kind::List ||
                           v.kind == Kind::Tuple || v.kind == Kind::Dict;
    if (shareable) {
      auto it = memo_.find(&v);
      if (it != memo_.end()) {
        out_.memo_get(it->second);
        return;
      }
    }
    write(v, depth);
    if (shareable) {
      const auto index = static_cast<uint32_t>(memo_.size());
      out_.memo_put(index);
      memo_.emplace(&v, index);
    }
  }
  void write(const PtValue& v, int depth) {
    switch (v.kind) {
      case Kind::None:
        out_.none();
        break;
      case Kind::Bool:
        out_.boolean(v.boolean);
        break;
      case Kind::Int:
        out_.integer(v.integer);
        break;
      case Kind::Float:
        out_.floating(v.floating);
        break;
      case Kind::String:
        out_.string(v.string);
        break;
      case Kind::Dtype:
        out_.global("torch", pt_format::dtype_name(v.dtype));
        break;
      case Kind::Device: {
        const Device d(v.string);  // refuses what is not a device
        const std::string spec = d.str();
        out_.global("torch", "device");
        out_.mark();
        out_.string(spec.substr(0, spec.find(':')));
        if (d.has_index()) out_.integer(d.index());
        out_.tuple_from_mark();
        out_.reduce();
        break;
      }
      case Kind::List:
        out_.empty_list();
        for (size_t i = 0; i < v.items.size(); i += kBatch) {
          out_.mark();
          for (size_t j = i; j < std::min(v.items.size(), i + kBatch); ++j) item(v.items[j], depth);
          out_.appends_from_mark();
        }
        break;
      case Kind::Tuple:
        if (v.is_size) {
          out_.global("torch", "Size");
          out_.mark();
        }
        out_.mark();
        for (const PtValuePtr& x : v.items) item(x, depth);
        out_.tuple_from_mark();
        if (v.is_size) {
          out_.tuple_from_mark();
          out_.reduce();
        }
        break;
      case Kind::Dict:
        if (v.ordered) {
          empty_ordered_dict();
        } else {
          out_.empty_dict();
        }
        for (size_t i = 0; i < v.entries.size(); i += kBatch) {
          out_.mark();
          for (size_t j = i; j < std::min(v.entries.size(), i + kBatch); ++j) {
            item(v.entries[j].first, depth);
            item(v.entries[j].second, depth);
          }
          out_.setitems_from_mark();
        }
        break;
      case Kind::Tensor:
        tensor(v);
        break;
    }
  }
  void item(const PtValuePtr& x, int depth) {
    EMBER_CHECK(x != nullptr, ValueError, "ember::save_pt: a container holds a null PtValuePtr");
    value(*x, depth + 1);
  }
  void empty_ordered_dict() {
    out_.global("collections", "OrderedDict");
    out_.empty_tuple();
    out_.reduce();
  }
  void ints(IntArrayRef v) {
    out_.mark();
    for (int64_t x : v) out_.integer(x);
    out_.tuple_from_mark();
  }

  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict()), inside
  // _rebuild_parameter(tensor, requires_grad, OrderedDict()) for a Parameter.
  void tensor(const PtValue& v) {
    const Tensor& t = v.tensor;
    EMBER_CHECK(t.defined(), ValueError, "ember::save_pt: a tensor is undefined");
    EMBER_CHECK(!t.is_meta(), ValueError, "ember::save_pt: a meta tensor has no data to save");
    if (v.is_parameter) {
      out_.global("torch._utils", "_rebuild_parameter");
      out_.mark();
    }
    int64_t offset = 0;
    const Storage& s = storage_of(t, offset);
    out_.global("torch._utils", "_rebuild_tensor_v2");
    out_.mark();
    out_.mark();  // the persistent id
    out_.string("storage");
    out_.global("torch", pt_format::storage_class(t.scalar_type()));
    out_.string(s.key);
    out_.string(t.device().is_cpu() ? "cpu" : t.device().str());
    out_.integer(s.flat.numel());
    out_.tuple_from_mark();
    out_.persistent_id();
    out_.integer(offset);
    ints(t.sizes());
    ints(t.strides());
    out_.boolean(!v.is_parameter && (v.requires_grad || t.requires_grad()));
    empty_ordered_dict();
    out_.tuple_from_mark();
    out_.reduce();
    if (v.is_parameter) {
      out_.boolean(v.requires_grad || t.requires_grad());
      empty_ordered_dict();
      out_.tuple_from_mark();
      out_.reduce();
    }
  }

  // The storage that holds t (written once for all the views of it), and t's offset in it.
  const Storage& storage_of(const Tensor& t, int64_t& offset) {
    const StorageImpl* impl = t.unsafeGetTensorImpl()->storage().get();
    const size_t element = t.element_size();
    const auto id = std::make_pair(impl, t.scalar_type());
    auto it = index_.find(id);
    if (it != index_.end()) {
      offset = t.storage_offset();
      return storages_[it->second];
    }
    Storage s;
    s.key = std::to_string(storages_.size());
    if (impl->nbytes % element == 0) {
      // Every element of the storage, as PyTorch saves a view's whole storage.
      s.flat = make_view(t, {static_cast<int64_t>(impl->nbytes / element)}, {1}, 0);
      offset = t.storage_offset();
      index_.emplace(id, storages_.size());
    } else {
      // A storage that this dtype does not tile (a view of another dtype): the tensor alone.
      s.flat = t.detach().contiguous().reshape({-1});
      offset = 0;
      EMBER_CHECK(t.is_contiguous(), ValueError,
                  "ember::save_pt: a non-contiguous tensor whose "
                  "storage is not a whole number of its elements cannot be saved");
    }
    storages_.push_back(std::move(s));
    return storages_.back();
  }

  pickle::Writer out_;
  std::vector<Storage> storages_;
  std::map<std::pair<const StorageImpl*, ScalarType>, size_t> index_;
  std::map<const PtValue*, uint32_t> memo_;
};

void write_archive(const PtValue& obj, const serialize_detail::WriteBytes& write) {
  CheckpointPickler pickler;
  const std::string pkl = pickler.run(obj);
  zip::Writer zip([&](const void* data, size_t n) { write(data, n); });
  zip.add("archive/data.pkl", pkl.data(), pkl.size());
  zip.add("archive/byteorder", "little", 6);
  for (const Storage& s : pickler.storages()) {
    const Tensor cpu = s.flat.is_cpu() ? s.flat : s.flat.cpu();  // one storage at a time
    zip.add("archive/data/" + s.key, cpu.data_ptr(), cpu.nbytes());
  }
  zip.add("archive/version", "3\n", 2);
  zip.finish();
}

}  // namespace

void save_pt(const PtValue& obj, const std::string& path) {
  serialize_detail::write_file_atomically(
      path, [&](const serialize_detail::WriteBytes& write) { write_archive(obj, write); });
}

std::string save_pt_bytes(const PtValue& obj) {
  std::string out;
  write_archive(obj,
                [&](const void* data, size_t n) { out.append(static_cast<const char*>(data), n); });
  return out;
}

void save_pt(const NamedTensors& state_dict, const std::string& path) {
  save_pt(*pt_state_dict(state_dict), path);
}

}  // namespace ember
