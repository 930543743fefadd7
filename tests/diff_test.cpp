// Standalone tests for loom's page diff (src/diff.hpp): runs, the encoded
// form, and the mask form against byte-at-a-time references.
#include "diff.hpp"

#include "unit_check.hpp"

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;
using Runs = std::vector<loom::DiffRun>;

void collect(uint32_t off, uint32_t len, void* ctx) {
    static_cast<Runs*>(ctx)->push_back({off, len});
}

Runs runs_of(const uint8_t* twin, const uint8_t* cur, size_t len, size_t* total = nullptr) {
    Runs r;
    size_t t = loom::diff_runs(twin, cur, len, collect, &r);
    if (total) *total = t;
    return r;
}

// Obvious byte-at-a-time reference for maximal runs.
Runs reference_runs(const uint8_t* twin, const uint8_t* cur, size_t len) {
    Runs r;
    size_t i = 0;
    while (i < len) {
        if (twin[i] == cur[i]) { ++i; continue; }
        size_t s = i;
        while (i < len && twin[i] != cur[i]) ++i;
        r.push_back({static_cast<uint32_t>(s), static_cast<uint32_t>(i - s)});
    }
    return r;
}

bool same_runs(const Runs& a, const Runs& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].offset != b[i].offset || a[i].len != b[i].len) return false;
    return true;
}

// Encode twin->cur, apply to a copy of twin; true iff the copy becomes cur.
bool round_trip(const uint8_t* twin, const uint8_t* cur, size_t len, size_t* enc_size = nullptr) {
    Bytes enc(loom::diff_max_encoded(len) + 1);
    size_t n = loom::diff_encode(twin, cur, len, enc.data());
    if (enc_size) *enc_size = n;
    if (n > loom::diff_max_encoded(len)) return false;
    Bytes home(twin, twin + len);
    if (!loom::diff_apply(home.data(), len, enc.data(), n)) return false;
    return len == 0 || std::memcmp(home.data(), cur, len) == 0;
}

void test_identical() {
    Bytes a(4096, 0x5a), b = a;
    Bytes enc(loom::diff_max_encoded(4096));
    CHECK(loom::diff_encode(a.data(), b.data(), 4096, enc.data()) == 0);
    CHECK(loom::diff_count(a.data(), b.data(), 4096) == 0);
    size_t total = 99;
    CHECK(runs_of(a.data(), b.data(), 4096, &total).empty());
    CHECK(total == 0);
    Bytes home = a;
    CHECK(loom::diff_apply(home.data(), 4096, enc.data(), 0));
    CHECK(home == a);
}

void test_single_byte(size_t off) {
    Bytes twin(4096, 0), cur = twin;
    cur[off] = 0x7f;
    size_t total = 0;
    Runs r = runs_of(twin.data(), cur.data(), 4096, &total);
    CHECK(r.size() == 1);
    CHECK(!r.empty() && r[0].offset == off && r[0].len == 1);
    CHECK(total == 1);
    CHECK(loom::diff_count(twin.data(), cur.data(), 4096) == 1);
    size_t enc_size = 0;
    CHECK(round_trip(twin.data(), cur.data(), 4096, &enc_size));
    CHECK(enc_size == 16);
}

void test_whole_page() {
    Bytes twin(4096, 0x11), cur(4096, 0xee);
    size_t total = 0;
    Runs r = runs_of(twin.data(), cur.data(), 4096, &total);
    CHECK(r.size() == 1);
    CHECK(!r.empty() && r[0].offset == 0 && r[0].len == 4096);
    CHECK(total == 4096);
    CHECK(loom::diff_count(twin.data(), cur.data(), 4096) == 4096);
    size_t enc_size = 0;
    CHECK(round_trip(twin.data(), cur.data(), 4096, &enc_size));
    CHECK(enc_size == 8 + 4096);
}

// Random twin; each byte changed (to a guaranteed different value) with
// probability `frac`. `shift` misaligns the buffers to exercise unaligned loads.
void make_case(std::mt19937& rng, size_t len, double frac, size_t shift, Bytes& tbuf, Bytes& cbuf) {
    std::uniform_int_distribution<int> byte(0, 255), nz(1, 255);
    std::bernoulli_distribution dirty(frac);
    tbuf.assign(len + shift, 0);
    for (auto& v : tbuf) v = static_cast<uint8_t>(byte(rng));
    cbuf = tbuf;
    for (size_t i = shift; i < len + shift; ++i)
        if (dirty(rng)) cbuf[i] = static_cast<uint8_t>(cbuf[i] ^ nz(rng));
}

void test_random() {
    std::mt19937 rng(12345);
    const double fracs[] = {0.0, 0.01, 0.1, 0.5, 1.0};
    const size_t lens[] = {4096, 4093, 4095, 64, 13, 7, 1, 0};
    int cases = 0;
    for (int rep = 0; rep < 6; ++rep)
        for (double f : fracs)
            for (size_t len : lens) {
                Bytes tb, cb;
                size_t shift = static_cast<size_t>(rep % 3);  // 0,1,2: misaligned too
                make_case(rng, len, f, shift, tb, cb);
                const uint8_t* t = tb.data() + shift;
                const uint8_t* c = cb.data() + shift;
                size_t enc_size = 0;
                CHECK(round_trip(t, c, len, &enc_size));
                CHECK(enc_size <= loom::diff_max_encoded(len));
                Runs ref = reference_runs(t, c, len);
                size_t ref_count = 0;
                for (auto& r : ref) ref_count += r.len;
                size_t total = 0;
                CHECK(same_runs(runs_of(t, c, len, &total), ref));
                CHECK(total == ref_count);
                CHECK(loom::diff_count(t, c, len) == ref_count);
                ++cases;
            }
    CHECK(cases >= 200);
}

void test_false_sharing() {
    const size_t n = 4096;
    Bytes twin(n, 0), a = twin, b = twin;
    a[0] = 0xaa; a[2] = 0xac;                  // writer A: bytes 0 and 2 of word 0
    b[1] = 0xbb; b[100] = 0xb1; b[4095] = 0xb2; // writer B: byte 1 plus other words
    Bytes ea(loom::diff_max_encoded(n)), eb(loom::diff_max_encoded(n));
    size_t na = loom::diff_encode(twin.data(), a.data(), n, ea.data());
    size_t nb = loom::diff_encode(twin.data(), b.data(), n, eb.data());
    Bytes expect = twin;
    expect[0] = 0xaa; expect[1] = 0xbb; expect[2] = 0xac; expect[100] = 0xb1; expect[4095] = 0xb2;
    for (int order = 0; order < 2; ++order) {
        Bytes home = twin;
        if (order == 0) {
            CHECK(loom::diff_apply(home.data(), n, ea.data(), na));
            CHECK(loom::diff_apply(home.data(), n, eb.data(), nb));
        } else {
            CHECK(loom::diff_apply(home.data(), n, eb.data(), nb));
            CHECK(loom::diff_apply(home.data(), n, ea.data(), na));
        }
        CHECK(home == expect);
    }
}

void test_maximal_runs() {
    std::mt19937 rng(777);
    for (int rep = 0; rep < 50; ++rep) {
        size_t len = rep % 2 ? 4096 : 4093;
        Bytes tb, cb;
        make_case(rng, len, rep % 5 == 0 ? 0.9 : 0.3, 0, tb, cb);
        const uint8_t* t = tb.data();
        const uint8_t* c = cb.data();
        Runs r = runs_of(t, c, len);
        bool ok = true;
        size_t covered = 0, prev_end = 0;
        for (size_t k = 0; k < r.size(); ++k) {
            size_t s = r[k].offset, e = s + r[k].len;
            if (r[k].len == 0 || e > len) { ok = false; break; }
            if (k > 0 && s <= prev_end) ok = false;     // increasing, never adjacent
            for (size_t i = s; i < e; ++i) ok = ok && t[i] != c[i];
            if (s > 0) ok = ok && t[s - 1] == c[s - 1];
            if (e < len) ok = ok && t[e] == c[e];
            covered += r[k].len;
            prev_end = e;
        }
        CHECK(ok);
        CHECK(covered == loom::diff_count(t, c, len));  // no changed byte left out
    }
}

void put_record(Bytes& enc, uint32_t off, uint32_t len, uint8_t fill) {
    size_t at = enc.size();
    size_t padded = (static_cast<size_t>(len) + 7) & ~size_t{7};
    enc.resize(at + 8 + padded, 0);
    std::memcpy(enc.data() + at, &off, 4);
    std::memcpy(enc.data() + at + 4, &len, 4);
    std::memset(enc.data() + at + 8, fill, len);
}

void test_apply_rejects() {
    const size_t n = 4096;
    Bytes page(n, 0);
    Bytes enc;
    put_record(enc, 10, 4, 0x33);
    CHECK(loom::diff_apply(page.data(), n, enc.data(), enc.size()));
    CHECK(page[10] == 0x33 && page[13] == 0x33 && page[14] == 0);
    CHECK(!loom::diff_apply(page.data(), n, enc.data(), 4));               // truncated header
    CHECK(!loom::diff_apply(page.data(), n, enc.data(), enc.size() - 1));  // truncated data
    Bytes oob;
    put_record(oob, 4090, 16, 1);                                          // runs past end
    CHECK(!loom::diff_apply(page.data(), n, oob.data(), oob.size()));
    Bytes far;
    put_record(far, 5000, 0, 1);                                           // offset past end
    CHECK(!loom::diff_apply(page.data(), n, far.data(), far.size()));
    Bytes huge;
    put_record(huge, 8, 0, 0);
    uint32_t big = 0xffffffffu;
    std::memcpy(huge.data() + 4, &big, 4);                                 // len overflow
    CHECK(!loom::diff_apply(page.data(), n, huge.data(), huge.size()));
    // Good record then a bad one: the good one applies, nothing beyond it.
    Bytes mixed, fresh(n, 0);
    put_record(mixed, 0, 2, 0x44);
    put_record(mixed, 4095, 2, 0x55);
    put_record(mixed, 100, 1, 0x66);
    CHECK(!loom::diff_apply(fresh.data(), n, mixed.data(), mixed.size()));
    CHECK(fresh[0] == 0x44 && fresh[1] == 0x44);
    CHECK(fresh[4095] == 0 && fresh[100] == 0);
}

void test_max_encoded() {
    for (size_t len : {size_t{4096}, size_t{4093}, size_t{1}, size_t{2}, size_t{9}}) {
        Bytes twin(len, 0), cur(len, 0);
        for (size_t i = 0; i < len; i += 2) cur[i] = 1;  // worst case: alternating
        size_t enc_size = 0;
        CHECK(round_trip(twin.data(), cur.data(), len, &enc_size));
        CHECK(enc_size == loom::diff_max_encoded(len));
    }
}

// The mask form (diff_mask, mask_runs, mask_pack/unpack/store) against the
// byte-at-a-time reference, from empty to every byte, sparse to dense, and
// every 4th byte (IS's pattern, 1,024 runs a page).
void mask_collect(uint32_t off, uint32_t len, void* ctx) { static_cast<Runs*>(ctx)->push_back({off, len}); }

void check_mask_case(const uint8_t* t, const uint8_t* c, size_t len) {
    const size_t words = len / 64;
    std::vector<uint64_t> mask(words + 1, 0x5a5a5a5a5a5a5a5aULL);
    const loom::DiffMask d = loom::diff_mask(t, c, len, mask.data());
    bool bits = true;
    for (size_t i = 0; i < len; ++i) bits = bits && (((mask[i / 64] >> (i % 64)) & 1) != 0) == (t[i] != c[i]);
    CHECK(bits);
    CHECK(mask[words] == 0x5a5a5a5a5a5a5a5aULL);  // nothing past the last word
    const Runs ref = reference_runs(t, c, len);
    CHECK(d.runs == ref.size());
    CHECK(d.bytes == loom::diff_count(t, c, len));
    Runs got;
    loom::mask_runs(mask.data(), words, mask_collect, &got);
    CHECK(same_runs(got, ref));
    // Packed and unpacked onto the twin: the current page, and the packed
    // form is exactly the changed bytes in order.
    Bytes packed(len + 8, 0xcc);
    const size_t n = loom::mask_pack(packed.data(), c, mask.data(), words);
    CHECK(n == d.bytes);
    CHECK(packed[n] == 0xcc);
    bool order = true;
    size_t k = 0;
    for (size_t i = 0; i < len; ++i)
        if (t[i] != c[i]) order = order && packed[k++] == c[i];
    CHECK(order);
    Bytes home(t, t + len);
    CHECK(loom::mask_unpack(home.data(), packed.data(), mask.data(), words) == n);
    CHECK(std::memcmp(home.data(), c, len) == 0);
    // Stored onto a page of other bytes: the changed bytes land, no other
    // byte is written.
    Bytes other(len, 0xee);
    loom::mask_store(other.data(), c, mask.data(), words);
    bool exact = true;
    for (size_t i = 0; i < len; ++i) exact = exact && other[i] == (t[i] != c[i] ? c[i] : 0xee);
    CHECK(exact);
}

void test_mask_random() {
    std::mt19937 rng(4242);
    const double fracs[] = {0.0, 0.002, 0.05, 0.3, 0.7, 0.98, 1.0};
    int cases = 0;
    for (int rep = 0; rep < 8; ++rep)
        for (double f : fracs)
            for (size_t len : {size_t{4096}, size_t{64}, size_t{192}}) {
                Bytes tb, cb;
                const size_t shift = static_cast<size_t>(rep % 3);
                make_case(rng, len, f, shift, tb, cb);
                check_mask_case(tb.data() + shift, cb.data() + shift, len);
                ++cases;
            }
    // Fixed patterns: every 4th byte, every 64th, runs across word and
    // mask-word boundaries, whole 8-byte groups next to single bytes.
    for (size_t stride : {size_t{4}, size_t{64}, size_t{2}, size_t{9}}) {
        Bytes t(4096, 1), c = t;
        for (size_t i = 0; i < 4096; i += stride) c[i] = 2;
        check_mask_case(t.data(), c.data(), 4096);
        ++cases;
    }
    Bytes t(4096, 0), c = t;
    for (size_t i = 60; i < 140; ++i) c[i] = 9;    // across a mask word's end
    for (size_t i = 200; i < 208; ++i) c[i] = 9;   // one whole 8-byte group
    c[209] = 9;
    for (size_t i = 4032; i < 4096; ++i) c[i] = 9; // the last mask word, whole
    check_mask_case(t.data(), c.data(), 4096);
    {
        uint64_t m[64];
        const loom::DiffMask d = loom::diff_mask(t.data(), c.data(), 4096, m);
        CHECK(d.runs == 4 && d.bytes == 80 + 8 + 1 + 64);
    }
    CHECK(cases >= 150);
}

// Two writers' masks stored in either order on the home: both writers'
// bytes, even within one 8-byte word.
void test_mask_false_sharing() {
    Bytes twin(4096, 0), a = twin, b = twin;
    for (size_t i = 0; i < 4096; i += 4) a[i] = 0xaa;      // A: every 4th byte
    for (size_t i = 2; i < 4096; i += 4) b[i] = 0xbb;      // B: the bytes between
    b[4095] = 0xb2;
    uint64_t ma[64], mb[64];
    loom::diff_mask(twin.data(), a.data(), 4096, ma);
    loom::diff_mask(twin.data(), b.data(), 4096, mb);
    Bytes expect = twin;
    for (size_t i = 0; i < 4096; ++i) expect[i] = a[i] ? a[i] : b[i];
    for (int order = 0; order < 2; ++order) {
        Bytes home = twin;
        loom::mask_store(home.data(), order ? b.data() : a.data(), order ? mb : ma, 64);
        loom::mask_store(home.data(), order ? a.data() : b.data(), order ? ma : mb, 64);
        CHECK(home == expect);
    }
}

}  // namespace

int main() {
    test_identical();
    test_single_byte(0);
    test_single_byte(4095);
    test_single_byte(8 * 37 + 3);  // middle of a word
    test_whole_page();
    test_random();
    test_false_sharing();
    test_maximal_runs();
    test_apply_rejects();
    test_max_encoded();
    test_mask_random();
    test_mask_false_sharing();
    return unit_result("diff_test");
}
