// Home-based lazy release consistency with multiple writers (HLRC), with
// one-sided operations only: no handler runs on the home.
//
//  - A page homed here is read and written in place: the first write
//    registers this rank in the page's writer set; after that the page stays
//    writable: no twin, diff or fault in steady state.
//  - Elsewhere, a write is twinned and its byte-exact diff put into the home
//    at the release (the driver, core.cpp).
//  - Acquire of a lock (LOOM_EXACT=1, the default): drop the copies of the
//    pages written in the intervals it acquires (intervals.hpp), of the
//    copies fetched since their homes track them.
//  - Any other acquire, and other copies: drop every cached copy whose
//    writer set names another rank.
//    Writer sets are sticky classification (ArgoDSM's Pyxis idea reduced to
//    writers): a home writes in place without faults, so there are no exact
//    write notices for home pages; "another rank is a writer" is the
//    may-have-written test.  Pages only this rank writes, and pages nobody
//    else writes (read-only data), stay cached across acquires.  For
//    lock-heavy programs this drops more than the pages earlier holders of
//    the lock wrote (docs/ARCHITECTURE.md says what that costs).
// The writer set is in the page's directory entry (directory.hpp).
#include "protocol/protocol.hpp"

namespace loom {
namespace {

// Where plane w of the writer set of check[i] is (acquire's batched load).
const std::vector<uint32_t>* g_pages;
void writers_at(size_t i, int w, int* r, uint64_t* off) {
  *r = (int)dir_rank((*g_pages)[i]);
  *off = dir_writers_off((*g_pages)[i], w);
}

void register_writer(uint64_t p) {
  if (rt.pages.flags[p] & kIWriter) return;
  // (With more than 64 ranks the other planes are not read here, a round
  // trip each; acquire reads them all.)
  note_writer(p, rt.tp.fetch_or(dir_rank(p), Seg::Meta, dir_writers_off(p, my_plane()), my_bit()));
}

void before_write(uint64_t p, int*) { register_writer(p); }

void before_atomic(uint64_t p, int*) { register_writer(p); }

// A copy that may be stale: dropped, unless a notice installed it (see
// refreshed()), in which case it is refreshed once more.
void stale(uint32_t p, AcquireVerdicts* out) {
  uint8_t& f = rt.pages.flags[p];
  if (rt.pages.state[p] != kRW && (f & kInstalled)) {
    f &= (uint8_t)~kInstalled;
    out->refresh.push_back(p);
  } else {
    out->drop.push_back(p);
  }
}

// At a full barrier's acquire: whether page p's writer set still names no
// other rank without reading it.  It named none when this rank last read
// it (clean_at, counted in full barriers), and no rank has registered a
// writer of any page since: a registration happens before its rank's
// release, so every one before this barrier was told in an agreement up to
// this one (api.cpp, barrier: bit 2), and one read since that barrier saw
// those before it.  Sets only grow, or are cleared (loom_spawn, a
// reallocation), which leaves a set that named no other rank so.  Pages a
// program only reads that live on another host otherwise cost the
// acquire a load from that rank at every barrier, which waits for it when
// it has left the barrier and computes.
//
// At an exact lock acquire, the same where none of the records it acquires
// says its rank registered a writer (intervals.cpp): a registration that
// happened before this acquire and after this rank's last read is in such
// a record, or in one an earlier acquire took, which read the sets again
// (the copies judged here, fetched before this rank's first lock, were
// cached at every acquire since), or was told at a full barrier since.
bool unchanged(uint32_t p) {
  const PageTable& pt = rt.pages;
  if (!pt.writers_known && !ivl_no_registrations()) return false;
  return pt.clean_at[p] != 0 && pt.clean_at[p] - 1 >= pt.writers_grew_at;
}

void acquire(const std::vector<uint32_t>& cached, AcquireVerdicts* out) {
  static std::vector<uint32_t>& check = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  static std::vector<uint64_t>& writers = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  check.clear();
  const bool scoped = ivl_scoped();
  for (uint32_t p : cached) {
    if (scoped && ivl_tracked(p)) {  // a lock's acquire: the pages its records name (intervals.hpp)
      if (ivl_stale(p)) stale(p, out);
      else out->keep.push_back(p);
    } else if (rt.pages.flags[p] & kOtherWritten) {
      stale(p, out);
    } else if (unchanged(p)) {
      out->keep.push_back(p);
    } else {
      check.push_back(p);
    }
  }
  g_pages = &check;
  rt.st.s.writer_loads += check.size();
  load_rank_sets(check.size(), writers_at, &writers);
  for (size_t i = 0; i < check.size(); i++) {
    const uint32_t p = check[i];
    if (names_other(&writers[i * (size_t)rank_planes()], rt.rank)) {
      rt.pages.flags[p] |= kOtherWritten;
      stale(p, out);
    } else {
      rt.pages.clean_at[p] = rt.pages.barriers_seen + 1;
      out->keep.push_back(p);
    }
  }
}

// A notice may have been read at an acquire that raced with the sender's
// release (the sender left the barrier first), so a copy a notice brought up
// to date is refreshed once more by the next acquire instead of dropped.
void refreshed(uint64_t p, bool by_notice) {
  if (by_notice) rt.pages.flags[p] |= kInstalled;
}

void before_fetch(int h, uint64_t first, uint64_t n) { ivl_before_fetch(h, first, n); }
void home_write(uint64_t p) { ivl_home_write(p); }
// The writer sets tell the readers at barriers; the records, at locks.
void release(const std::vector<uint32_t>& written) { ivl_written(written); }
void home_notice(uint64_t, NoticeKind) {}
void after_atomic(uint64_t p) { ivl_atomic(p); }  // and the writer set
void forget_range(uint64_t, uint64_t) {}  // the directory entries are reset by the driver
void check_page(uint64_t) {}


constexpr PageProtocol kOps = {
    .name = "hlrc",
    .needs_notices = false,
    .migrates = true,
    .writer_sets = true,
    .before_fetch = before_fetch,
    .refreshed = refreshed,
    .before_write = before_write,
    .home_write = home_write,
    .release = release,
    .acquire = acquire,
    .home_notice = home_notice,
    .before_atomic = before_atomic,
    .after_atomic = after_atomic,
    .forget_range = forget_range,
    .check_page = check_page,
};
static_assert(protocol_complete(kOps));

}  // namespace

const PageProtocol kHlrc = kOps;

}  // namespace loom
