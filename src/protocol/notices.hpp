// Notices: one rank telling another "page p changed" between a release and
// the receiver's next acquire.  The eager protocols send them to the holders
// of a page they wrote (erc.cpp); loom_update sends "install" notices under
// every protocol, which is why the rings are not ERC's alone.
//
// Transport: one ring per (writer, reader) pair, in the reader's Meta
// segment, written only by the writer (single producer, single consumer):
// word 0 head (entries written, low 48 bits; an overflow generation above),
// word 1 tail (entries consumed), then ring_entries(N) entries {forget << 63 |
// (n-1) << 40 | page << 2 | kind}: n pages from `page` (n > 1 for install
// and place notices only, so that loom_update or loom_free of any size is a
// few entries).  With the forget bit set the entry is a *place* notice,
// about where the pages live rather than what they hold, and its kind is a
// PlaceKind: forget (loom_free of a loom_alloc block: the reader forgets all
// it knows of the pages, copy, home and flags, before any content notice of
// the same acquire, so that the block's next life starts clean), watch and
// moved (home migration, migrate.hpp; moves are applied before forgets: a
// page moves inside a barrier, before any later free of it).  A writer queues notices during its release and publishes them at
// its end: entries first, a flush, then the heads, so a reader never sees a
// head above entries that have not landed.  A full ring makes the writer
// bump the overflow generation instead; the reader then treats every copy
// whose protocol relies on notices as stale (PageProtocol::needs_notices).
// Notices are order-free (each acts on the home's current copy), so rings
// from different writers need no common order.
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace loom {

// Entries per ring: 4096 up to 256 ranks, then fewer so that a rank's N
// rings take 8 MiB whatever N is (1024 entries at 1024 ranks), but never
// fewer than 512 (16 MiB at 4096 ranks).  A power of two.
constexpr uint64_t kRingEntriesMax = 4096, kRingEntriesMin = 512, kRingsBytes = 8ull << 20;
inline uint64_t ring_entries(int nranks) {
  uint64_t e = kRingEntriesMax;
  while (e > kRingEntriesMin && (uint64_t)nranks * e * 8 > kRingsBytes) e /= 2;
  return e;
}
inline uint64_t ring_words(int nranks) { return 8 + ring_entries(nranks); }
constexpr uint64_t kRingCountMask = (1ull << 48) - 1;
constexpr uint64_t kNoticePageMask = (1ull << 38) - 1;  // 38 bits of page: 1 PiB of 4-KiB pages
constexpr uint64_t kNoticeMaxRun = 1ull << 23;          // pages one entry can name
constexpr uint64_t kNoticeForget = 1ull << 63;

enum NoticeKind : uint64_t {
  kNoticeInvalidate = 0,  // drop the copy
  kNoticeRefresh = 1,     // bring the copy up to date if held
  kNoticeInstall = 2,     // loom_update: bring it up to date, fetching it if not held
  kNoticeJoined = 3,      // to a home (ERC): a rank fetched a page the home writes untrapped
};

// This rank's side of every ring, and loom_update's pending pages.
struct NoticeRings {
  std::vector<std::vector<uint64_t>> outbox;  // notices for each rank, sent at the end of a release
  std::vector<uint64_t> sent;                 // entries written into each rank's ring from this rank
  std::vector<uint64_t> tail;                 // that ring's tail as last read
  std::vector<uint64_t> ovf;                  // overflow generation this rank gave each ring
  std::vector<uint64_t> seen;                 // per writer: entries of its ring consumed here
  std::vector<uint64_t> ovf_seen;             // per writer: its ring's overflow generation seen
  std::vector<std::pair<uint64_t, uint64_t>> update_runs;  // loom_update: {first page, count} to install everywhere
  uint64_t entries = kRingEntriesMax;         // entries per ring (ring_entries)
  // loom_update's distinct ranges kept per release: more are merged across
  // their smallest gaps (installing a page needlessly is only a fetch).
  size_t max_update_runs() const { return entries / 4; }

  void init(int nranks) {
    entries = ring_entries(nranks);
    outbox.assign(nranks, {});
    for (auto& box : outbox) box.reserve(entries);  // faults queue notices (ERC joins) without allocating
    sent.assign(nranks, 0);
    tail.assign(nranks, 0);
    ovf.assign(nranks, 0);
    seen.assign(nranks, 0);
    ovf_seen.assign(nranks, 0);
    update_runs.clear();
  }
};

enum PlaceKind : uint64_t {
  kPlaceForget = 0,  // loom_free: forget the pages
  kPlaceWatch = 1,   // to a home: a rank wants to take these pages; trap your next write of each
  kPlaceMoved = 2,   // the sender took the home of these pages
  kPlaceEager = 3,   // these lazy pages turn erc-invalidate (adapt.hpp)
};

// Sent by the next notices_publish; n > 1 for kNoticeInstall only.
void notice_queue(int r, uint64_t page, NoticeKind kind, uint64_t n = 1);
void notice_queue_place(int r, uint64_t page, PlaceKind kind, uint64_t n);
// loom_free of a loom_alloc block: every other rank forgets the pages at
// its next acquire (published at once).
void notices_send_forget(uint64_t first, uint64_t n);
void notices_publish();
// loom_update's pages become install notices to every other rank (at a release).
void notices_queue_updates();
// At an acquire: read this rank's rings and act on the notices.
void notices_process();
// A ring has entries (or an overflow) notices_process has not read yet:
// a look at the heads in this rank's own Meta, without the rank lock.
bool notices_pending();

}  // namespace loom
