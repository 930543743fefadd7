// The mpi path (mpi_rma.hpp): gets, puts and atomics as MPI-3 RMA in one
// passive-target epoch per window.  A get or an atomic costs a round trip to
// the target's MPI (MPI_Win_flush on return); puts are only issued and wait
// for flush(), which flushes both windows once for all of them.
#include "transport/mpi_rma.hpp"

#include <chrono>
#include <cstring>

#include "spin.hpp"
#include "threads.hpp"
#include "transport/common.hpp"

namespace loom {

MpiRmaPath::MpiRmaPath(MPI_Comm comm, uint8_t* self_data, uint64_t data_size, uint64_t meta_size, AppWaiting& waiting,
                       int spin)
    : comm_(comm), waiting_(waiting), spin_(spin) {
  or_buf_.reserve(1024);  // or_range runs in the fault path (ERC joins, n <= LOOM_UNIT_PAGES): no allocation there
  or_old_.reserve(1024);
  MPI_Comm_size(comm, &nranks_);
  if (meta_size) {
    // check_atomics' words past the end of Meta: a window of their own
    // made the releases after it slower on one host (MPICH, LOOM_LOCAL_MAP=0).
    probe_off_ = meta_size;
    const uint64_t bytes = meta_size + (uint64_t)nranks_ * kProbeWords * 8;
    void* base = nullptr;
    check(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, comm, &base, &meta_win_), "MPI_Win_allocate");
    self_meta_ = (uint8_t*)base;
    // MPI does not promise zeroed memory, but where it maps fresh memory
    // the words read as zero without costing resident memory (the kernel's
    // zero page): only the words that are not zero are written, so that
    // Meta's per-page copy-sets and directory cost a rank the pages it
    // touches (16 bytes a page of LOOM_MEM_SIZE at 2 ranks otherwise).
    zero_where_set(self_meta_, meta_size);
    for (int i = 0; i < nranks_ * kProbeWords; i++) ((uint64_t*)(self_meta_ + probe_off_))[i] = kProbeInit;
    check(MPI_Win_lock_all(MPI_MODE_NOCHECK, meta_win_), "MPI_Win_lock_all");
  }
  check(MPI_Win_create(self_data, (MPI_Aint)data_size, 1, MPI_INFO_NULL, comm, &data_win_), "MPI_Win_create");
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, data_win_), "MPI_Win_lock_all");
  for (auto& l : listed_) l.assign(nranks_, 0);
}

bool MpiRmaPath::start_progress(MPI_Comm comm) {
  int level = 0;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE) {
    Status s = fail(LOOM_ERR_MPI,
                    "the MPI library gives thread level %d, not MPI_THREAD_MULTIPLE, so no progress thread runs: "
                    "page fetches from a computing rank wait until it calls MPI (initialize MPI with "
                    "MPI_THREAD_MULTIPLE or let loom_init do it)",
                    level);
    (void)s;
    return false;
  }
  stop_ = false;
  MPI_Comm pc;
  MPI_Comm_dup(comm, &pc);
  idle_yield_.start();
  progress_ = std::thread([this, pc]() mutable {
    thread_mark_internal();
    // Calling into MPI is what makes MPICH and Open MPI serve RMA requests
    // that target this rank's MPI_Win_create window.
    while (!stop_.load(std::memory_order_relaxed)) {
      if (waiting_.recently()) {  // the application thread is in MPI: it progresses
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      // (Words of readers that find this rank computing say nothing of its
      // next wait: taken and dropped.)
      int flag = 0;
      if (word_comm_ != MPI_COMM_NULL) take_words();
      else MPI_Iprobe(MPI_ANY_SOURCE, 0x4c4f, pc, &flag, MPI_STATUS_IGNORE);
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    MPI_Comm_free(&pc);
  });
  return true;
}

MpiRmaPath::~MpiRmaPath() {
  if (progress_.joinable()) {
    stop_ = true;
    progress_.join();
    idle_yield_.stop();
  }
  stop_words();
  MPI_Win_unlock_all(data_win_);
  MPI_Win_free(&data_win_);
  if (meta_win_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(meta_win_);
    MPI_Win_free(&meta_win_);
  }
}

namespace {
constexpr int kTagWord = 1;
constexpr int kTagPoke = 0x4c4f;
const uint8_t kWord = 1;
}  // namespace

void MpiRmaPath::start_words(MPI_Comm comm) {
  check(MPI_Comm_dup(comm, &word_comm_), "MPI_Comm_dup");
  words_sent_.assign(nranks_, 0);
  word_rq_.assign(nranks_, MPI_REQUEST_NULL);
  words_got_.reset(new std::atomic<uint64_t>[nranks_]);
  for (int r = 0; r < nranks_; r++) words_got_[r].store(0, std::memory_order_relaxed);
}

// A synchronous send, not waited for: the next word to r goes only once
// r has taken the last, so at most one waits unmatched at r (some 60 unmatched
// messages at a rank stop the one-sided operations on that connection:
// MPICH over libfabric's tcp provider, docs/ARCHITECTURE.md, "Waiting").
bool MpiRmaPath::tell_reading(int r) {
  if (word_rq_[r] != MPI_REQUEST_NULL) {
    int done = 0;
    check(MPI_Test(&word_rq_[r], &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) return false;
  }
  check(MPI_Issend(&kWord, 1, MPI_BYTE, r, kTagWord, word_comm_, &word_rq_[r]), "MPI_Issend");
  ++words_sent_[r];
  return true;
}

// Matched probes: the application thread and the progress thread may take
// words at once, and neither may receive the one the other probed.
int MpiRmaPath::take_words() {
  for (int n = 0;; ++n) {
    int flag = 0;
    MPI_Message m;
    MPI_Status st;
    check(MPI_Improbe(MPI_ANY_SOURCE, kTagWord, word_comm_, &flag, &m, &st), "MPI_Improbe");
    if (!flag) return n;
    uint8_t w = 0;
    check(MPI_Mrecv(&w, 1, MPI_BYTE, &m, MPI_STATUS_IGNORE), "MPI_Mrecv");
    words_got_[st.MPI_SOURCE].fetch_add(1, std::memory_order_relaxed);
  }
}

// (No rank sends kTagPoke on Loom's communicator.)
void MpiRmaPath::poke() {
  if (!one_host_) return;
  const int64_t t = spin_mono_ns();
  if (t - poked_ns_.load(std::memory_order_relaxed) < kPokeNs) return;
  poked_ns_.store(t, std::memory_order_relaxed);
  int flag = 0;
  check(MPI_Iprobe(MPI_ANY_SOURCE, kTagPoke, comm_, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
}

void MpiRmaPath::heed_reads() {
  if (word_comm_ == MPI_COMM_NULL) return;
  if (take_words() > 0) idle_read_until.store(spin_mono_ns() + kReadWindowNs, std::memory_order_relaxed);
}

// Collective (as the windows' free after it): every rank says how many
// words it sent each, and each takes what is still on its way.
void MpiRmaPath::stop_words() {
  if (word_comm_ == MPI_COMM_NULL) return;
  std::vector<uint64_t> owed(nranks_, 0);
  check(MPI_Alltoall(words_sent_.data(), 1, MPI_UINT64_T, owed.data(), 1, MPI_UINT64_T, word_comm_),
        "MPI_Alltoall");
  for (int r = 0; r < nranks_; r++) {
    for (uint64_t got = words_got_[r].load(std::memory_order_relaxed); got < owed[r]; ++got) {
      uint8_t w = 0;
      MPI_Request rq;
      check(MPI_Irecv(&w, 1, MPI_BYTE, r, kTagWord, word_comm_, &rq), "MPI_Irecv");
      wait_all(1, &rq, spin_);
    }
  }
  wait_all(nranks_, word_rq_.data(), spin_);  // this rank's last words, taken above by their homes
  MPI_Comm_free(&word_comm_);
}

// A request-based get waited for like every Loom wait (poll, then yield):
// MPI_Win_flush polls without giving the core away, and with more busy
// threads than cores (2 emulated hosts x 2 ranks on 2 cores) it kept the
// target's threads, which must serve the get, off the core.
void MpiRmaPath::get(int r, Seg s, uint64_t off, void* dst, size_t len) {
  WaitingIn in(waiting_);
  MPI_Request rq;
  check(MPI_Rget(dst, (int)len, MPI_BYTE, r, (MPI_Aint)off, (int)len, MPI_BYTE, win(s), &rq), "MPI_Rget");
  wait_all(1, &rq, spin_, serve_fn_, serve_ctx_);
}

// Gets issued together, one wait for all: a fetch of several windows from a
// home that computes waits for its serving once, not once a window.  As one
// get of an indexed datatype (the windows at both ends): with one MPI_Rget
// a window, MPICH over TCP held the second MPI_Rget 1-1.4 ms before it sent
// its request (packet captures of LU across 2 emulated hosts), and a
// strided walk took 147-201 us a window against 96-176 indexed.
void MpiRmaPath::get_many(int r, Seg s, size_t n, const uint64_t* off, uint8_t* const* dst, const size_t* len) {
  LOOM_ASSERT(n <= kGetsAtOnce);
  if (n == 1) return get(r, s, off[0], dst[0], len[0]);
  int lens[kGetsAtOnce];
  MPI_Aint here[kGetsAtOnce], there[kGetsAtOnce];
  for (size_t i = 0; i < n; i++) {
    lens[i] = (int)len[i];
    check(MPI_Get_address(dst[i], &here[i]), "MPI_Get_address");
    there[i] = (MPI_Aint)off[i];
  }
  MPI_Datatype at_origin, at_target;
  check(MPI_Type_create_hindexed((int)n, lens, here, MPI_BYTE, &at_origin), "MPI_Type_create_hindexed");
  check(MPI_Type_create_hindexed((int)n, lens, there, MPI_BYTE, &at_target), "MPI_Type_create_hindexed");
  check(MPI_Type_commit(&at_origin), "MPI_Type_commit");
  check(MPI_Type_commit(&at_target), "MPI_Type_commit");
  WaitingIn in(waiting_);
  MPI_Request rq;
  check(MPI_Rget(MPI_BOTTOM, 1, at_origin, r, 0, 1, at_target, win(s), &rq), "MPI_Rget");
  MPI_Type_free(&at_origin);
  MPI_Type_free(&at_target);
  wait_all(1, &rq, spin_, serve_fn_, serve_ctx_);
}

void MpiRmaPath::put(int r, Seg s, uint64_t off, const void* src, size_t len) {
  check(MPI_Put(src, (int)len, MPI_BYTE, r, (MPI_Aint)off, (int)len, MPI_BYTE, win(s)), "MPI_Put");
  note_put(r, s);
}

void MpiRmaPath::note_put(int r, Seg s) {
  dirty_puts_ = true;
  if (!other_host_.empty() && other_host_[r] && !listed_[(int)s][r]) {
    listed_[(int)s][r] = 1;
    put_to_[(int)s].push_back(r);
  }
}

// A page's diff as one put of an indexed datatype (the same layout at the
// origin and the target) instead of one MPI_Put per run of changed bytes:
// over TCP each put is a message, and a page with scattered writes cost
// about 1.4 ms to release (issue #10).
void MpiRmaPath::put_runs(int r, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off, const uint32_t* len,
                          size_t n) {
  if (n == 1) return put(r, s, base + off[0], src + off[0], len[0]);
  run_len_.assign(len, len + n);
  run_off_.assign(off, off + n);
  MPI_Datatype t;
  check(MPI_Type_indexed((int)n, run_len_.data(), run_off_.data(), MPI_BYTE, &t), "MPI_Type_indexed");
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  check(MPI_Put(src, 1, t, r, (MPI_Aint)base, 1, t, win(s)), "MPI_Put");
  check(MPI_Type_free(&t), "MPI_Type_free");  // the put keeps what it needs
  note_put(r, s);
}

// MPI_Win_flush promises that the puts are complete at the target, so that
// a third rank told of them (a lock handed over, a barrier passed) reads
// them there.  Over libfabric's tcp provider MPICH's flush returns once the
// puts have left, before the target has applied them: across emulated hosts
// a rank that took a lock after the holder's release read the home's page
// without the holder's diff (mr_locks lost increments in about half the runs
// at 3 hosts, never on one host).  So after the flush, one small get from
// every rank put to, on each window used, and a second flush: a target
// answers requests on one connection in order, so the answer comes after the
// puts are in its memory.  It costs a round trip per release that put
// anything to another host, not per target (the gets go out together);
// ranks of this host (shared memory: the flush is complete) are not asked,
// which kept a one-host barrier with 1 dirty page at 12.7 us instead of 41.
void MpiRmaPath::flush() {
  if (!dirty_puts_) return;
  WaitingIn in(waiting_);
  YieldWhileBlocked blocked;  // Open MPI's one-sided calls block by polling (idle_yield.hpp)
  check(MPI_Win_flush_all(data_win_), "MPI_Win_flush_all");
  check(MPI_Win_flush_all(meta_win_), "MPI_Win_flush_all");
  dirty_puts_ = false;
  if (put_to_[0].empty() && put_to_[1].empty()) return;
  confirm_.resize(put_to_[0].size() + put_to_[1].size());
  size_t k = 0;
  for (int s = 0; s < 2; s++) {
    if (put_to_[s].empty()) continue;
    MPI_Win w = win((Seg)s);
    for (int r : put_to_[s]) {
      check(MPI_Get(&confirm_[k++], 8, MPI_BYTE, r, 0, 8, MPI_BYTE, w), "MPI_Get");
      listed_[s][r] = 0;
    }
    put_to_[s].clear();
    check(MPI_Win_flush_all(w), "MPI_Win_flush_all");
  }
}

void MpiRmaPath::sync_local() {
  check(MPI_Win_sync(data_win_), "MPI_Win_sync");
  check(MPI_Win_sync(meta_win_), "MPI_Win_sync");
}

// An atomic waits in MPI, under Open MPI by polling without a break
// (YieldWhileBlocked: at 2 hosts x 2 ranks on 2 cores mr_locks ran past
// 60 s when atomics on ranks of this host did not yield), and polls for
// the progress thread meanwhile (WaitingIn).  Where every rank is on this
// host (one_host_) Open MPI completes it in shared memory without polling,
// so it leaves the progress thread serving: a rank that tried a lock
// again and again had kept it napping while no call of its own served a
// peer's get (mr_serve).  (Across hosts, leaving the thread serving beside
// atomics on this rank hung Open MPI's loom_bench lock in 1 run of 3-4.)
uint64_t MpiRmaPath::atomic(int r, Seg s, uint64_t off, const uint64_t* origin, const uint64_t* compare, MPI_Op op) {
  WaitingIn in(waiting_, !one_host_);
  YieldWhileBlocked blocked;
  uint64_t result = 0;
  MPI_Win w = win(s);
  if (compare)
    check(MPI_Compare_and_swap(origin, compare, &result, MPI_UINT64_T, r, (MPI_Aint)off, w), "MPI_Compare_and_swap");
  else
    check(MPI_Fetch_and_op(origin, &result, MPI_UINT64_T, r, (MPI_Aint)off, op, w), "MPI_Fetch_and_op");
  check(MPI_Win_flush(r, w), "MPI_Win_flush");
  return result;
}

uint64_t MpiRmaPath::load(int r, Seg s, uint64_t off) {
  uint64_t zero = 0;
  return atomic(r, s, off, &zero, nullptr, MPI_NO_OP);
}

void MpiRmaPath::store(int r, Seg s, uint64_t off, uint64_t v) { atomic(r, s, off, &v, nullptr, MPI_REPLACE); }

// MPI orders neither a put before an accumulate to the same target nor
// their completions: the puts go first (a group barrier's knowledge ahead
// of its signal, sync.cpp).
void MpiRmaPath::signal(int r, uint64_t off, uint64_t v) {
  flush();
  store(r, Seg::Meta, off, v);
}

uint64_t MpiRmaPath::cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) {
  return atomic(r, s, off, &desired, &expected, MPI_OP_NULL);
}

uint64_t MpiRmaPath::fetch_add(int r, Seg s, uint64_t off, uint64_t v) {
  return atomic(r, s, off, &v, nullptr, MPI_SUM);
}

uint64_t MpiRmaPath::fetch_or(int r, Seg s, uint64_t off, uint64_t v) {
  if (or_by_cas_) return or_by_cas(r, s, off, v);
  return atomic(r, s, off, &v, nullptr, MPI_BOR);
}

// An OR as compare-and-swap, a round trip per attempt: the first guesses
// the word is 0 (a writer set's or a copy-set's first bit), each next one
// takes what the last found.  Bits already set end it at once (the swap
// writes what is there).
uint64_t MpiRmaPath::or_by_cas(int r, Seg s, uint64_t off, uint64_t bits) {
  uint64_t expected = 0;
  for (;;) {
    const uint64_t desired = expected | bits;
    const uint64_t seen = atomic(r, s, off, &desired, &expected, MPI_OP_NULL);
    if (seen == expected) return seen;
    expected = seen;
  }
}

Status MpiRmaPath::check_atomics(MPI_Comm comm, int target) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Win w = meta_win_;
  check(MPI_Win_sync(w), "MPI_Win_sync");   // the words set at construction, public
  check(MPI_Barrier(comm), "MPI_Barrier");  // before any rank's operations
  // Bit 0 is 0 and bit 63 is 0 in kProbeInit: an OR that applies its
  // operand sets both; SUM and compare-and-swap have their own words.
  int bad[3] = {0, 0, 0};  // OR, SUM, compare-and-swap
  if (target >= 0) {
    const MPI_Aint at = (MPI_Aint)(probe_off_ + (uint64_t)me * kProbeWords * 8);  // bytes: Meta's unit is 1
    const uint64_t bits = 1ull | 1ull << 63, one = 1, desired = 42, expected = kProbeInit;
    uint64_t old[3] = {0, 0, 0}, after[3] = {0, 0, 0};
    check(MPI_Fetch_and_op(&bits, &old[0], MPI_UINT64_T, target, at, MPI_BOR, w), "MPI_Fetch_and_op");
    check(MPI_Fetch_and_op(&one, &old[1], MPI_UINT64_T, target, at + 8, MPI_SUM, w), "MPI_Fetch_and_op");
    check(MPI_Compare_and_swap(&desired, &expected, &old[2], MPI_UINT64_T, target, at + 16, w),
          "MPI_Compare_and_swap");
    check(MPI_Win_flush(target, w), "MPI_Win_flush");
    check(MPI_Get(after, 3, MPI_UINT64_T, target, at, 3, MPI_UINT64_T, w), "MPI_Get");
    check(MPI_Win_flush(target, w), "MPI_Win_flush");
    bad[0] = old[0] != kProbeInit || after[0] != (kProbeInit | bits);
    bad[1] = old[1] != kProbeInit || after[1] != kProbeInit + 1;
    bad[2] = old[2] != kProbeInit || after[2] != desired;
  }
  int any[3] = {0, 0, 0};
  check(MPI_Allreduce(bad, any, 3, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (any[1] || any[2])
    return fail(LOOM_ERR_MPI,
                "the MPI library's one-sided %s gave wrong results between ranks that do not map each other "
                "(checked at init), so LOOM_TRANSPORT=rma cannot keep memory coherent with it: use "
                "LOOM_TRANSPORT=async or auto, or another MPI library",
                any[1] && any[2] ? "MPI_SUM and compare-and-swap" : any[1] ? "MPI_SUM" : "compare-and-swap");
  or_by_cas_ = any[0] != 0;
  return Status::ok();
}

uint64_t MpiRmaPath::swap(int r, Seg s, uint64_t off, uint64_t v) {
  return atomic(r, s, off, &v, nullptr, MPI_REPLACE);
}

// Floats travel as their bits (transport.hpp says why): every operation on
// a word uses the one integer datatype of its width, and a float's add is a
// CAS loop, a round trip per attempt.
uint64_t MpiRmaPath::atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) {
  const bool wide = atomic_width(t) == 8;
  if (op == AtomicOp::Add && (t == AtomicType::F32 || t == AtomicType::F64)) {
    uint64_t old = atomic_op(r, s, off, t, AtomicOp::Load, 0, 0);
    for (;;) {
      uint64_t desired;
      if (wide) {
        double f, add;
        std::memcpy(&f, &old, 8);
        std::memcpy(&add, &a, 8);
        f += add;
        std::memcpy(&desired, &f, 8);
      } else {
        float f, add;
        uint32_t o = (uint32_t)old, ab = (uint32_t)a, d;
        std::memcpy(&f, &o, 4);
        std::memcpy(&add, &ab, 4);
        f += add;
        std::memcpy(&d, &f, 4);
        desired = d;
      }
      const uint64_t seen = atomic_op(r, s, off, t, AtomicOp::Cas, old, desired);
      if (seen == old) return old;
      old = seen;
    }
  }
  WaitingIn in(waiting_, !one_host_);  // (as atomic())
  YieldWhileBlocked blocked;
  MPI_Win w = win(s);
  MPI_Datatype dt = wide ? MPI_UINT64_T : MPI_UINT32_T;
  uint64_t origin = a, compare = a, result = 0;  // little-endian: a 32-bit word is the low bytes
  uint32_t o32 = (uint32_t)a, c32 = (uint32_t)a, r32 = 0;
  void* po = wide ? (void*)&origin : (void*)&o32;
  void* pc = wide ? (void*)&compare : (void*)&c32;
  void* pr = wide ? (void*)&result : (void*)&r32;
  if (op == AtomicOp::Cas) {
    if (wide) origin = b;
    else o32 = (uint32_t)b;
    check(MPI_Compare_and_swap(po, pc, pr, dt, r, (MPI_Aint)off, w), "MPI_Compare_and_swap");
  } else {
    MPI_Op mop = op == AtomicOp::Load ? MPI_NO_OP : op == AtomicOp::Add ? MPI_SUM : MPI_REPLACE;
    check(MPI_Fetch_and_op(po, pr, dt, r, (MPI_Aint)off, mop, w), "MPI_Fetch_and_op");
  }
  check(MPI_Win_flush(r, w), "MPI_Win_flush");
  if (op == AtomicOp::Store) return 0;
  return wide ? result : r32;
}

void MpiRmaPath::or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old, uint64_t count_off) {
  if (or_by_cas_) {
    // Word by word, each complete before the next and before the count
    // (the order the accumulates below keep).
    for (size_t i = 0; i < n; i++) {
      const uint64_t o = or_by_cas(r, s, off + i * 8, bits);
      if (old) old[i] = o;
    }
    if (count_off != kNoCount) fetch_add(r, s, count_off, 1);
    return;
  }
  WaitingIn in(waiting_);
  YieldWhileBlocked blocked;  // Open MPI's one-sided calls block by polling (idle_yield.hpp)
  or_buf_.assign(n, bits);
  or_old_.resize(n);
  MPI_Win w = win(s);
  check(MPI_Get_accumulate(or_buf_.data(), (int)n, MPI_UINT64_T, or_old_.data(), (int)n, MPI_UINT64_T, r, (MPI_Aint)off,
                           (int)n, MPI_UINT64_T, MPI_BOR, w),
        "MPI_Get_accumulate");
  // Accumulates from one origin to one target are ordered (MPI's default
  // accumulate_ordering), and one flush completes both.
  static const uint64_t one = 1;
  if (count_off != kNoCount)
    check(MPI_Accumulate(&one, 1, MPI_UINT64_T, r, (MPI_Aint)count_off, 1, MPI_UINT64_T, MPI_SUM, w), "MPI_Accumulate");
  check(MPI_Win_flush(r, w), "MPI_Win_flush");
  if (old) std::memcpy(old, or_old_.data(), n * 8);
}

// One atomic read (or OR) per target rank on another host, of an indexed
// datatype naming its words, instead of one per word: over TCP each is a
// message, and an HLRC acquire reads the writer set of every page it keeps
// cached (256 cached pages made a release of 16 pages across two emulated
// hosts cost 5.4 ms instead of 0.7 ms).  Compare-and-swaps go one a word
// (MPI has no indexed one); every group's operations are issued before one
// flush, so across hosts their round trips overlap.  Where this library's
// one-sided OR fails (or_by_cas_), ORs are compare-and-swap loops a word.
void MpiRmaPath::words(const WordGroup* g, size_t k) {
  WaitingIn in(waiting_);
  YieldWhileBlocked blocked;  // Open MPI's one-sided calls block by polling (idle_yield.hpp)
  if (wg_.size() < k) wg_.resize(k);
  for (size_t j = 0; j < k; j++) {
    const size_t n = g[j].n;
    WordScratch& x = wg_[j];
    if (n == 0) continue;
    if (g[j].op == WordOp::Cas || (g[j].op == WordOp::Or && or_by_cas_)) {
      x.operand.assign(2, 0);
      x.operand[0] = g[j].a;
      x.operand[1] = g[j].b;
      for (size_t i = 0; i < n; i++) {
        int r;
        uint64_t off;
        g[j].at(i, &r, &off);
        if (g[j].op == WordOp::Or) g[j].out[i] = or_by_cas(r, Seg::Meta, off, g[j].a);
        else
          check(MPI_Compare_and_swap(&x.operand[1], &x.operand[0], &g[j].out[i], MPI_UINT64_T, r, (MPI_Aint)off,
                                     meta_win_),
                "MPI_Compare_and_swap");
      }
      continue;
    }
    const MPI_Op op = g[j].op == WordOp::Load ? MPI_NO_OP : MPI_BOR;
    WordsByRank& w = x.w;
    w.group(n, nranks_, g[j].at);
    x.disp.resize(n);
    for (size_t i = 0; i < n; i++) x.disp[i] = (int)(w.off[w.order[i]] / 8);  // Meta words are 8-byte aligned
    x.operand.assign(n, g[j].op == WordOp::Or ? g[j].a : 0);
    x.recv.resize(n);
    for (int r = 0; r < nranks_; r++) {
      const size_t first = w.start[r], c = w.start[r + 1] - first;
      if (c == 0) continue;
      if (c == 1 || other_host_.empty() || !other_host_[r]) {
        // A rank of this host (shared memory): a word costs no message, and
        // building a datatype would cost more than the reads (a one-host
        // barrier's ring heads: 2.7 us per-word, 3.5 us with a datatype).
        for (size_t i = first; i < first + c; i++)
          check(MPI_Get_accumulate(&x.operand[i], 1, MPI_UINT64_T, &x.recv[i], 1, MPI_UINT64_T, r,
                                   (MPI_Aint)x.disp[i] * 8, 1, MPI_UINT64_T, op, meta_win_),
                "MPI_Get_accumulate");
        continue;
      }
      MPI_Datatype t;
      check(MPI_Type_create_indexed_block((int)c, 1, &x.disp[first], MPI_UINT64_T, &t), "MPI_Type_create_indexed_block");
      check(MPI_Type_commit(&t), "MPI_Type_commit");
      check(MPI_Get_accumulate(&x.operand[first], (int)c, MPI_UINT64_T, &x.recv[first], (int)c, MPI_UINT64_T, r, 0, 1,
                               t, op, meta_win_),
            "MPI_Get_accumulate");
      check(MPI_Type_free(&t), "MPI_Type_free");
    }
  }
  check(MPI_Win_flush_all(meta_win_), "MPI_Win_flush_all");
  for (size_t j = 0; j < k; j++) {
    if (g[j].n == 0 || g[j].op == WordOp::Cas || (g[j].op == WordOp::Or && or_by_cas_)) continue;
    const WordScratch& x = wg_[j];
    for (size_t i = 0; i < g[j].n; i++) g[j].out[x.w.order[i]] = x.recv[i];
  }
}

}  // namespace loom
