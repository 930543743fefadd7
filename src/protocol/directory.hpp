// Homes and the directory.  The directory entry {home+1, writer set} of
// page p lives in the Meta segment of rank p mod N, at dir_off(p); the
// writer set is rank_planes() words (protocol.hpp), one with <= 64 ranks.  First
// touch claims the home by compare-and-swap on the entry (ARDMAR); cyclic,
// block and explicit homes are written into it by the collective allocation
// (core.cpp, proto_reset_range).  Homes are cached in the page table once
// known.  The writer mask is HLRC's (hlrc.cpp); the home word carries a
// sticky mark once migration moved the page, and another once its home
// wrote it after a rank asked to take it (migrate.cpp).
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace loom {

constexpr uint64_t kMigrated = 1ull << 62;  // sticky mark in the home word: this page moved once
constexpr uint64_t kShared = 1ull << 61;    // sticky mark in the home word: its home writes it too (stays)
constexpr uint64_t kEager = 1ull << 60;     // sticky mark in the home word: the page turned eager (adapt.hpp)
constexpr uint64_t kHomeMarks = kMigrated | kShared | kEager;

uint64_t dir_rank(uint64_t page);  // the rank holding page's entry
uint64_t dir_off(uint64_t page);   // the entry's offset in that rank's Meta (the home word)
uint64_t dir_writers_off(uint64_t page, int plane);  // plane of the entry's writer set
uint64_t dir_entry_bytes();        // one entry: 8 * (1 + rank_planes())
// The home of page as the directory says now; -1 if unclaimed.
int dir_home(uint64_t page);
// The home of page (cached, else from the directory); with claim, an
// unclaimed page becomes this rank's (first touch), and where this rank
// claimed page - 1 and some rank is not mapped, so do the unclaimed pages
// after it in its unit (directory.cpp, claim_unit; with write, this rank
// registers as their writer too).  -1 if unclaimed.
int proto_home(uint64_t page, bool claim, bool write = false);
// Whether a fault of page would claim its unit from the entries this rank's
// last claim loaded (no lookup of its own needed first).
bool proto_claim_ready(uint64_t page);
// A write to page, which a read fault's claim of its unit opened read-only
// here: registers this rank as the writer of page and of the rest of that
// run still read-only and unregistered, in one batch, and returns how many
// pages (0: not such a page, or alone; the caller registers it).  HLRC,
// within the acquire and allocation of the claim; not while tracing.
uint64_t proto_register_run(uint64_t page);
// Claim page, unclaimed as this rank last read its entry, for this rank
// without zeroing its slot (the caller did): false if another rank claimed
// it first (its home is cached then).
bool proto_claim_zeroed(uint64_t page);
// Learns the homes of the allocated pages of [lo, hi) not known here, in
// one batched load of their directory entries (a fault's window), if at
// least at_least of them are unknown (1: any); unclaimed pages stay
// unknown.  Where the load goes to another host, the unknown entries those
// ranks keep for the pages around [lo, hi) come with it (directory.cpp).
// Counted in home_lookups once.
void proto_learn_homes(uint64_t lo, uint64_t hi, uint64_t at_least);
// The same for n ranges [lo[i], hi[i]) at once (one batched load; a
// fault's window and the windows it fetches along a stride).
void proto_learn_homes_of(const uint64_t* lo, const uint64_t* hi, size_t n);

}  // namespace loom
