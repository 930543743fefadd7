// Standalone tests of the async transport's put records (src/transport/
// common.hpp): a record a run and the runs record of a whole put_runs,
// written into one buffer and applied to a segment, against the bytes a
// byte-by-byte copy gives; truncated and out-of-segment records are
// refused, and bytes outside the runs are never written.
#include "transport/common.hpp"

#include "diff.hpp"
#include "unit_check.hpp"

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

using loom::Seg;

struct Target {
  std::vector<uint8_t> data, meta;
  loom::Segments seg() {
    loom::Segments s;
    s.base[0] = data.data();
    s.base[1] = meta.data();
    s.size[0] = data.size();
    s.size[1] = meta.size();
    return s;
  }
};

// The buffer cut at points inside its record at [start, start + need),
// `steps` of them: refused as truncated every time, nothing read past the cut.
void check_cuts(const std::vector<uint8_t>& buf, size_t start, size_t need, size_t steps, size_t page) {
  for (size_t cut = start + 1; cut < start + need; cut += 1 + need / steps) {
    std::vector<uint8_t> part(buf.begin(), buf.begin() + (ptrdiff_t)cut);
    Target u{std::vector<uint8_t>(3 * page, 0xee), std::vector<uint8_t>(page, 0xee)};
    loom::Segments us = u.seg();
    CHECK(loom::apply_put_records(us, part.data(), part.data() + part.size()).result ==
          loom::PutRecordsApplied::kTruncated);
  }
}

// Mask records: a page's diff by its mask (diff.hpp), between plain
// records, applied exactly; cut anywhere, refused as truncated; placed past
// the segment, refused as outside, nothing written.
void test_mask_records(std::mt19937& rng) {
  const size_t page = 4096, words = page / 64;
  for (int iter = 0; iter < 100; iter++) {
    std::vector<uint8_t> twin(page), cur(page);
    for (auto& c : twin) c = (uint8_t)rng();
    cur = twin;
    const unsigned stride = iter % 4 == 0 ? 4 : 1 + rng() % 12;
    for (size_t i = rng() % stride; i < page; i += stride) cur[i] ^= (uint8_t)(1 + rng() % 255);
    uint64_t mask[64];
    const loom::DiffMask d = loom::diff_mask(twin.data(), cur.data(), page, mask);
    const uint64_t base = page * (1 + iter % 2);
    Target t{std::vector<uint8_t>(3 * page, 0xee), std::vector<uint8_t>(page, 0xee)};
    std::vector<uint8_t> want = t.data;
    for (size_t i = 0; i < page; i++)
      if (twin[i] != cur[i]) want[base + i] = cur[i];
    const size_t need = loom::mask_record_bytes(words, d.bytes);
    std::vector<uint8_t> buf(need + 2 * loom::put_record_bytes(5));
    size_t used = loom::append_put_record(buf.data(), Seg::Meta, 3, "hello", 5);
    const size_t got = loom::append_mask_record(buf.data() + used, Seg::Data, base, cur.data(), mask, words);
    CHECK(got == need);
    used += got;
    used += loom::append_put_record(buf.data() + used, Seg::Meta, 100, "world", 5);
    CHECK(used == buf.size());
    loom::Segments s = t.seg();
    CHECK(loom::apply_put_records(s, buf.data(), buf.data() + used).result == loom::PutRecordsApplied::kOk);
    CHECK(t.data == want);  // the marked bytes, and no other
    CHECK(std::memcmp(t.meta.data() + 100, "world", 5) == 0);
    if (stride == 4) {  // dense runs: the mask record is the smaller, as Transport::mask_pays says
      loom::DiffRunList runs;
      loom::mask_runs(mask, words, loom::DiffRunList::add, &runs);
      CHECK(runs.off.size() == d.runs && d.runs > 128);
      CHECK(need < loom::runs_record_bytes(runs.off.data(), runs.len.data(), runs.off.size()));
    }
    check_cuts(buf, loom::put_record_bytes(5), need, 9, page);
    std::vector<uint8_t> far(need);
    loom::append_mask_record(far.data(), Seg::Data, 3 * page - 64, cur.data(), mask, words);
    Target v{std::vector<uint8_t>(3 * page, 0xee), std::vector<uint8_t>(page, 0xee)};
    loom::Segments vs = v.seg();
    CHECK(loom::apply_put_records(vs, far.data(), far.data() + far.size()).result == loom::PutRecordsApplied::kOutside);
    CHECK(v.data == std::vector<uint8_t>(3 * page, 0xee));
  }
}

}  // namespace

int main() {
  std::mt19937 rng(7);
  const size_t page = 4096;
  for (int iter = 0; iter < 200; iter++) {
    // A source page and runs of it: short and long, with gaps, as diffs make them.
    std::vector<uint8_t> src(page);
    for (auto& c : src) c = (uint8_t)rng();
    std::vector<uint32_t> off, len;
    for (uint32_t at = rng() % 16; at < page;) {
      const uint32_t l = 1 + rng() % (iter % 3 == 0 ? 1 : iter % 3 == 1 ? 8 : 300);
      if (at + l > page) break;
      off.push_back(at);
      len.push_back(l);
      at += l + 1 + rng() % 24;
    }
    const size_t n = off.size();
    Target t{std::vector<uint8_t>(3 * page, 0xee), std::vector<uint8_t>(page, 0xee)};
    std::vector<uint8_t> want = t.data;
    const uint64_t base = page + (iter % 2 ? 0 : 8);  // a page not at the segment's start
    for (size_t i = 0; i < n; i++) std::memcpy(want.data() + base + off[i], src.data() + off[i], len[i]);

    const size_t need = loom::runs_record_bytes(off.data(), len.data(), n);
    size_t one_per_run = 0;
    for (size_t i = 0; i < n; i++) one_per_run += loom::put_record_bytes(len[i]);
    CHECK(need > 0 && need % 8 == 0);
    CHECK(n < 2 || need <= one_per_run);  // never larger than a record a run
    // A buffer with a plain record, the runs record, and another plain one.
    std::vector<uint8_t> buf(need + 2 * loom::put_record_bytes(5));
    size_t used = loom::append_put_record(buf.data(), Seg::Meta, 3, "hello", 5);
    const size_t got = loom::append_runs_record(buf.data() + used, Seg::Data, base, src.data(), off.data(), len.data(), n);
    CHECK(got == need);
    used += got;
    used += loom::append_put_record(buf.data() + used, Seg::Meta, 100, "world", 5);
    CHECK(used == buf.size());
    loom::Segments s = t.seg();
    loom::PutRecordsApplied a = loom::apply_put_records(s, buf.data(), buf.data() + used);
    CHECK(a.result == loom::PutRecordsApplied::kOk);
    CHECK(t.data == want);  // every run's bytes, and nothing between them
    CHECK(std::memcmp(t.meta.data() + 3, "hello", 5) == 0 && std::memcmp(t.meta.data() + 100, "world", 5) == 0);
    CHECK(t.meta[2] == 0xee && t.meta[8] == 0xee && t.meta[105] == 0xee);

    check_cuts(buf, loom::put_record_bytes(5), need, 7, page);
    // Placed so that its runs end past the segment: refused as outside.
    std::vector<uint8_t> far(need);
    loom::append_runs_record(far.data(), Seg::Data, 3 * page - 16, src.data(), off.data(), len.data(), n);
    Target v{std::vector<uint8_t>(3 * page, 0xee), std::vector<uint8_t>(page, 0xee)};
    loom::Segments vs = v.seg();
    if (off.back() + len.back() > 16)
      CHECK(loom::apply_put_records(vs, far.data(), far.data() + far.size()).result == loom::PutRecordsApplied::kOutside);
  }
  // Runs beyond 16 bits of offset: no runs record (a record a run instead).
  const uint32_t off2[2] = {0, 70000}, len2[2] = {4, 4};
  CHECK(loom::runs_record_bytes(off2, len2, 2) == 0);
  // A base at the end of the address space cannot wrap around.
  uint8_t src1[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint32_t off1[2] = {0, 4}, len1[2] = {2, 2};
  std::vector<uint8_t> wrap(loom::runs_record_bytes(off1, len1, 2));
  loom::append_runs_record(wrap.data(), Seg::Data, ~uint64_t(0) - 2, src1, off1, len1, 2);
  Target w{std::vector<uint8_t>(page, 0xee), std::vector<uint8_t>(page, 0xee)};
  loom::Segments ws = w.seg();
  CHECK(loom::apply_put_records(ws, wrap.data(), wrap.data() + wrap.size()).result == loom::PutRecordsApplied::kOutside);
  CHECK(w.data == std::vector<uint8_t>(page, 0xee));
  test_mask_records(rng);
  return unit_result("put_records_test");
}
