// The transport: the one narrow interface through which the protocol reaches
// other ranks' memory.  Each rank exposes two segments:
//
//   Data  the rank's memfd of global-memory size.  At offset o it holds the
//         home copy of page o/PAGE when this rank is that page's home, and
//         this rank's cached copy otherwise (no one else touches those).
//   Meta  directory entries, lock queues, barrier flags, the heap table.
//
// A Path is one way of reaching ranks' segments; the Transport facade picks
// one per peer and operation at init and forwards every call to it:
//
//   direct   (direct.hpp)   same-host peers' memfds mapped here: memcpy and
//                           CPU atomics.  Nothing waits for the peer.
//   mpi      (mpi_rma.hpp)  MPI-3 passive-target RMA windows.
//   async    (async.hpp)    requests to the target's protocol thread.
//
// A peer on this host whose memfds open through /proc is mapped and reached
// directly (unless LOOM_LOCAL_MAP=0).  How the others are reached is the
// transport, chosen by LOOM_TRANSPORT (TransportOptions::kind):
//
// rma: one-sided MPI.
//   Atomicity rule: MPI atomics are atomic only with respect to other MPI
//   atomics on the same window, so as soon as one peer is remote every
//   atomic of the job (Meta and Data, to every rank including self) and
//   every Meta get/put goes through MPI; Data get/put to mapped peers and to
//   self stays memcpy.
//
// async: two-sided requests served by a protocol thread on every rank that
//   has a peer it does not map; mapped peers (Meta included) stay direct.
//   Atomicity: the protocol thread applies requests with CPU atomics on its
//   rank's memory, the same memory mapped peers reach with CPU atomics, so
//   the two are atomic with respect to each other.  Needs
//   MPI_THREAD_MULTIPLE (init fails with LOOM_ERR_MPI otherwise).
//
// auto (the default): with MPI_THREAD_MULTIPLE, async with one change: page
//   reads (Data gets) go by MPI_Get from a window over the memfd, which is
//   1.5-2x cheaper than a request and its reply over MPICH's TCP; without
//   it, rma.  Across two emulated hosts that beat both plain transports in
//   every figure but the 8-page fetch (docs/BENCHMARKS.md "Across hosts");
//   on one host with every peer mapped all three are the same (all direct).
//   Ordering: a Data put is always flushed (acknowledged: applied) before a
//   get of the same bytes is issued (releases flush; nothing else puts
//   Data), so a get never overtakes a put still in a batch.
//
// Typed atomics (atomic_op): the C API's atomics on 32- and 64-bit
// integers, floats and doubles, one operation on one naturally aligned word
// of Data, at the word's home.  They take the same route as the word
// atomics above (Transport::Route::atomics), so the atomicity rule of each
// transport covers them unchanged: direct and async apply them with CPU
// atomics on the target's memory (a float's add is a CAS loop on its bits);
// mpi with MPI_Fetch_and_op / MPI_Compare_and_swap.  MPI makes concurrent
// accumulates to one location atomic only when they use the same
// predefined datatype, and MPI_Compare_and_swap takes no floating type, so
// the mpi path handles a float or a double as its bits (MPI_UINT32_T,
// MPI_UINT64_T) for every operation, its add a CAS loop over the network.
// Words of different widths or types must not overlap (one 32-bit word and
// its neighbour in one 64-bit word are two locations, atomic separately).
//
// Contract: get and the atomics are complete on return.  put is complete at
// the target after flush().  Errors here are fatal (they happen mid-protocol).
// Thread safety: the main thread only (the rma progress thread only calls
// MPI_Iprobe; the async protocol thread only touches this rank's own
// segments, with CPU atomics for atomic operations), except meta loads,
// which the fault handler also uses.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "status.hpp"

namespace loom {

enum class Seg : int { Data = 0, Meta = 1 };

// A typed atomic (atomic_op): the word's type, and the operation.  Operands
// and results are the word's bits in the low bytes of a uint64_t (zero
// above); cas compares bits (so for floats -0.0 differs from 0.0 and a NaN
// matches itself, as C's atomic_compare_exchange on a float does).
enum class AtomicType : uint8_t { U32 = 0, U64 = 1, F32 = 2, F64 = 3 };
enum class AtomicOp : uint8_t { Load = 0, Store = 1, Cas = 2, Add = 3, Swap = 4 };
inline constexpr size_t atomic_width(AtomicType t) { return t == AtomicType::U32 || t == AtomicType::F32 ? 4 : 8; }
inline constexpr bool atomic_valid(AtomicType t, AtomicOp op) { return (unsigned)t <= 3 && (unsigned)op <= 4; }

struct TransportOptions {
  uint64_t data_size;   // bytes of the Data segment (= global memory size)
  uint64_t meta_size;   // bytes of the Meta segment
  bool local_map;       // map same-host peers directly
  int progress;         // -1 auto, 0 off, 1 on
  int kind;             // LOOM_TRANSPORT_AUTO, _RMA or _ASYNC
  int spin = 50;        // async: polls of a wait before it yields the core (LOOM_SPIN)
};

// One way of reaching ranks' segments.  Each operation has the meaning of
// the Transport method of the same name (the contract above); the facade
// calls a path only for the ranks and segments its routes give it.
constexpr uint64_t kNoCount = ~0ull;  // or_range without a count

// A group of a batch of word operations on Meta words (Transport::words):
// n loads, compare-and-swaps (from a to b) or fetch-ORs (of a); at(i)
// names word i, out[i] receives its old value.
enum class WordOp : uint8_t { Load, Cas, Or };
struct WordGroup {
  WordOp op;
  size_t n;
  void (*at)(size_t i, int* rank, uint64_t* off);
  uint64_t a, b;
  uint64_t* out;
};
constexpr size_t kGetsAtOnce = 32;     // get_many's most

class Path {
 public:
  virtual ~Path() = default;
  virtual const char* name() const = 0;

  virtual void get(int r, Seg s, uint64_t off, void* dst, size_t len) = 0;
  // n gets from r (n <= kGetsAtOnce): get i is len[i] bytes at off[i] into
  // dst[i].  One at a time unless a path can wait for all at once.
  virtual void get_many(int r, Seg s, size_t n, const uint64_t* off, uint8_t* const* dst, const size_t* len) {
    for (size_t i = 0; i < n; i++) get(r, s, off[i], dst[i], len[i]);
  }
  virtual void put(int r, Seg s, uint64_t off, const void* src, size_t len) = 0;
  // n puts of runs {off[i], len[i]} (offsets from `base`, the same at the
  // target and in src): one put per run unless a path does better.
  virtual void put_runs(int r, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off, const uint32_t* len,
                        size_t n) {
    for (size_t i = 0; i < n; i++) put(r, s, base + off[i], src + off[i], len[i]);
  }
  // The bytes the mask of `words` words marks (diff.hpp: bit b, byte
  // base + b), taken from src + b: a page's diff of many runs.  By its
  // runs unless a path does better.
  virtual void put_mask(int r, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words);
  virtual void flush() = 0;       // this path's earlier puts complete at their targets
  virtual void sync_local() = 0;  // this path's writes by others visible to this rank's loads

  virtual uint64_t load(int r, Seg s, uint64_t off) = 0;
  virtual void store(int r, Seg s, uint64_t off, uint64_t v) = 0;
  // A store into r's Meta that this rank does not wait for: it lands at r
  // after every request and put this rank sent r before it (a group
  // barrier's signal, behind the knowledge it hands on).  By default a
  // store, complete on return (a direct put is complete before it).
  virtual void signal(int r, uint64_t off, uint64_t v) { store(r, Seg::Meta, off, v); }
  // n words put into r's Meta at data_off, then the signal: r sees the
  // words once it sees v.  By default a put and a signal; one message on
  // the request path.
  virtual void signal_words(int r, uint64_t off, uint64_t v, uint64_t data_off, const uint64_t* words, size_t n) {
    put(r, Seg::Meta, data_off, words, n * 8);
    signal(r, off, v);
  }
  virtual uint64_t cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) = 0;
  virtual uint64_t fetch_add(int r, Seg s, uint64_t off, uint64_t v) = 0;
  virtual uint64_t fetch_or(int r, Seg s, uint64_t off, uint64_t v) = 0;
  virtual uint64_t swap(int r, Seg s, uint64_t off, uint64_t v) = 0;
  // One typed atomic on the atomic_width(t)-aligned word at off (cas: a
  // expected, b desired; store: a); returns the old bits (store: 0).
  virtual uint64_t atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) = 0;
  // n > 0; count_off: kNoCount, or a word of the same segment that gains 1
  // after the ORs (ordered after them at the target, complete with them).
  virtual void or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old, uint64_t count_off) = 0;
  // The k groups' operations issued together and waited for together
  // (groups of n 0 do nothing); the words of one group and rank are
  // applied in order.
  virtual void words(const WordGroup* g, size_t k) = 0;
  // Queue locks served at their home (Transport::lock_enqueue): swap the
  // tail word at tail_off of r's Meta for `me`, and when the old tail named
  // a rank q (low kLockQueueBits bits q + 1), store `me` into q's link word
  // at link_base + q * 8 of r's Meta.  Two operations here; the async path
  // makes them one request.
  virtual uint64_t lock_enqueue(int r, uint64_t tail_off, uint64_t link_base, uint64_t me);
};

// A queue lock's tail word: its low kLockQueueBits bits are the last queued
// rank + 1 (0: the lock is free), the rest what the last holder left
// (sync.cpp).  Here because the async path serves lock operations.
constexpr int kLockQueueBits = 16;
constexpr uint64_t kLockQueueMask = (1ull << kLockQueueBits) - 1;

struct AppWaiting;
class DirectPath;
class MpiRmaPath;
class AsyncPath;

class Transport {
 public:
  Status init(MPI_Comm comm, const TransportOptions& opt);
  void finalize();

  int rank() const { return rank_; }
  MPI_Comm comm() const { return comm_; }  // Loom's private duplicate
  int nranks() const { return nranks_; }
  // This rank's own Data segment, always read-write (the "home view").
  uint8_t* self_data() const { return self_data_; }
  uint8_t* self_meta() const { return self_meta_; }
  int data_fd() const { return data_fd_; }
  // Zero [off, off + len) of this rank's own Meta without making untouched
  // pages resident: a memfd's whole pages are punched out (a read of a
  // memfd's hole would allocate it), an MPI window's words written only
  // where they are not zero.  The caller knows no rank uses the words.
  void zero_self_meta(uint64_t off, uint64_t len);
  // This rank's Meta is its memfd (one host, or async across hosts), not an
  // MPI window.
  bool meta_is_mapped() const { return meta_fd_ >= 0 && self_meta_ == meta_map_; }
  bool all_direct() const { return !any_remote_; }
  // rma: the MPI library's 64-bit one-sided OR failed init's check, and
  // ORs go by compare-and-swap (MpiRmaPath::check_atomics).
  bool or_by_cas() const;
  // The name of the transport in force for unmapped peers (auto resolved
  // at init: "auto" is async with one-sided page reads).
  const char* kind_name() const { return kind_ == LOOM_TRANSPORT_RMA ? "rma" : fetch_ ? "auto (async, pages by MPI_Get)" : "async"; }
  bool is_direct(int r) const;                      // Data mapped (always self)
  // Rank r's Data segment as this rank maps it (a MAP_SHARED mapping of r's
  // memfd; this rank's own: self_data), or nullptr when r is not mapped.
  uint8_t* mapped_data(int r) const;
  // Rank r's Meta segment as this rank maps it, or nullptr (r not mapped,
  // or Meta is an MPI window: some peer is on another host under rma).
  uint8_t* mapped_meta(int r) const;
  // A Data get from r is worth running while other threads of this rank
  // get too: a memcpy from a mapped peer.  Not the async path's request and
  // reply (one reply tag per peer, matched in order), and not MPI_Get
  // either, which may overlap with MPI_THREAD_MULTIPLE but gained nothing:
  // 8 threads of a rank faulting across 2 emulated hosts on 16 cores ran
  // 4.3-4.5 us a page with gets under the rank lock and 5.1-6.1 without it
  // (MPICH over TCP serves them one at a time; BENCHMARKS.md, "Faults of a
  // rank's threads at once").
  bool concurrent_get(int r) const;
  int direct_peers() const;
  // A thread serves other ranks' requests (rma: the progress thread; async
  // and auto: the protocol thread, on whenever some peer is not mapped).
  bool progress_running() const { return progress_on_; }
  // The async protocol thread's longest nap when idle, in microseconds: 50
  // where this rank has a core to spare for it (while its threads leave
  // one spare), else 500 (transport/cores.hpp); 0 without that thread.
  long protocol_nap_us() const;
  // The protocol thread (async) or the progress thread (rma) armed Open
  // MPI's yield when idle in the program's blocking calls (idle_yield.hpp).
  bool idle_yield_armed() const;

  void get(int r, Seg s, uint64_t off, void* dst, size_t len) {
    if (s != Seg::Data || !routes_[r].watch_reads) return routes_[r].get[(int)s]->get(r, s, off, dst, len);
    if (late_out_) settle_late(r);
    const int64_t t = before_read(r);
    routes_[r].get[(int)s]->get(r, s, off, dst, len);
    after_read(r, t, len);
  }
  // Gets from r issued together, one wait for all (Path::get_many).
  void get_many(int r, Seg s, size_t n, const uint64_t* off, uint8_t* const* dst, const size_t* len) {
    if (s != Seg::Data || !routes_[r].watch_reads) return routes_[r].get[(int)s]->get_many(r, s, n, off, dst, len);
    if (late_out_) settle_late(r);
    const int64_t t = before_read(r);
    routes_[r].get[(int)s]->get_many(r, s, n, off, dst, len);
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) bytes += len[i];
    after_read(r, t, bytes);
  }
  // How often at most a reader tells a home that it reads its pages
  // (tell_reading; spin.hpp, idle_read_until).
  static constexpr int64_t kTellReadsNs = 500000;
  // A read by MPI_Get from r slower than kSlowReadNs plus kSlowReadNsPerKiB
  // a KiB marks r slow for kSlowMemoryNs: its reads meanwhile tell it too
  // (before_read), whatever its cores, where each comes less than
  // kReadStreamNs after the last ended (the window the word opens at the
  // home: async.cpp, kReadNapWindowNs).
  static constexpr int64_t kSlowReadNs = 100000, kSlowReadNsPerKiB = 1000, kSlowMemoryNs = 5000000,
                           kReadStreamNs = 1000000;
  void put(int r, Seg s, uint64_t off, const void* src, size_t len) {
    wrote(r, s, off, off + len);
    routes_[r].seg[(int)s]->put(r, s, off, src, len);
  }
  // Puts of n runs of bytes: run i is len[i] bytes at base + off[i], taken
  // from src + off[i] (a diff of one page).  The MPI path sends them as one
  // put; complete after flush() like put.
  // (Not in data_written's ranges, as put_mask: a diff's bytes are the
  // rank's own copy's, and the protocol keeps which it sent: core.cpp,
  // push_note_diff.)
  void put_runs(int r, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off, const uint32_t* len, size_t n) {
    routes_[r].seg[(int)s]->put_runs(r, s, base, src, off, len, n);
  }
  // Whether a diff of `runs` runs goes better by its mask (of `words`
  // words) than by put_runs: where its mask record is the smaller (4 bytes
  // a run against 8 a mask word, common.hpp).
  static constexpr bool mask_pays(size_t runs, size_t words) { return 4 * runs > 8 * words; }
  // A page's diff by its mask (Path::put_mask); complete after flush().
  void put_mask(int r, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words) {
    routes_[r].seg[(int)s]->put_mask(r, s, base, src, mask, words);
  }
  // All earlier puts are complete at their targets: a fence, then the flush
  // of the path that can leave puts incomplete (mpi: flush_all of both
  // windows if puts were issued; async: one acknowledgement round).
  void flush() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (far_) far_->flush();
    late_out_ = false;
  }
  // A barrier's release in a job of 2 ranks that agrees by rows
  // (sync.cpp): flush() where the path is async, its acknowledgements
  // waited for later (AsyncPath::flush_late), else flush().  The row
  // carries late_count(), and the other rank waits in the agreement until
  // it has applied that many batches from this one (late_applied).
  void flush_late();
  // Put batches sent to r so far (async; 0 elsewhere), and applied here
  // from r; both wrap.
  uint32_t late_count(int r) const;
  uint32_t late_applied(int r) const;
  // Make RMA writes by others to this rank's Data visible to its loads
  // (MPI_Win_sync under the unified model); a no-op when all peers are direct.
  void sync_local() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (far_) far_->sync_local();
  }

  uint64_t load(int r, Seg s, uint64_t off) { return routes_[r].atomics->load(r, s, off); }
  void store(int r, Seg s, uint64_t off, uint64_t v) {  // complete on return
    wrote(r, s, off, off + 8);
    routes_[r].atomics->store(r, s, off, v);
  }
  // A Meta store r sees after this rank's earlier requests and puts to r;
  // not waited for on the request path (Path::signal).
  void signal(int r, uint64_t off, uint64_t v) { routes_[r].atomics->signal(r, off, v); }
  // The signal behind n words put at data_off of r's Meta (Path::signal_words).
  void signal_words(int r, uint64_t off, uint64_t v, uint64_t data_off, const uint64_t* words, size_t n) {
    routes_[r].atomics->signal_words(r, off, v, data_off, words, n);
  }
  uint64_t cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) {
    wrote(r, s, off, off + 8);
    return routes_[r].atomics->cas(r, s, off, expected, desired);
  }
  uint64_t fetch_add(int r, Seg s, uint64_t off, uint64_t v) {
    wrote(r, s, off, off + 8);
    return routes_[r].atomics->fetch_add(r, s, off, v);
  }
  uint64_t fetch_or(int r, Seg s, uint64_t off, uint64_t v) {
    wrote(r, s, off, off + 8);
    return routes_[r].atomics->fetch_or(r, s, off, v);
  }
  uint64_t swap(int r, Seg s, uint64_t off, uint64_t v) {
    wrote(r, s, off, off + 8);
    return routes_[r].atomics->swap(r, s, off, v);
  }
  // A typed atomic (see AtomicType): complete on return, the old bits.
  uint64_t atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) {
    wrote(r, s, off, off + 8);
    return routes_[r].atomics->atomic_op(r, s, off, t, op, a, b);
  }
  // Atomic OR of `bits` into the n consecutive words at off on rank r;
  // complete on return; the words' old values into old[] (may be null).
  // With count_off, then 1 added to the word there, in the same request.
  // One request on MPI, one per 8192 words on async.
  void or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old = nullptr,
                uint64_t count_off = kNoCount) {
    if (n == 0) return;
    wrote(r, s, off, off + 8 * n);
    if (count_off != kNoCount) wrote(r, s, count_off, count_off + 8);
    routes_[r].atomics->or_range(r, s, off, n, bits, old, count_off);
  }
  // Queue locks whose links live at the lock's home (sync.cpp): used when
  // some peer is reached by requests (async, auto), where a lock's home
  // then does its queue's work for the ranks it does not map, and an unlock
  // costs the unlocker no round trip.
  bool locks_at_home() const { return async_ != nullptr; }
  // Queue this rank (me = rank + 1) in the lock whose tail is at tail_off on
  // h: the tail becomes me, and the previous last rank's link word (at
  // link_base + 8 q on h) names me.  One request when h is reached by
  // requests.  Returns the old tail word.
  uint64_t lock_enqueue(int h, uint64_t tail_off, uint64_t link_base, uint64_t me) {
    return routes_[h].atomics->lock_enqueue(h, tail_off, link_base, me);
  }
  // Leave the lock: if the tail is still me, it becomes `freed`; otherwise
  // wait at h for the successor's link, clear it, and store `handover` into
  // the successor's word at locked_off.  When h is reached by requests this
  // is a message to h that nobody answers (h's protocol thread does the
  // rest; the unlocker goes on at once), else done here before returning.
  void lock_release(int h, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed, uint64_t locked_off,
                    uint64_t handover);
  // Every lock_release (and lock_kick) this rank sent has been served.  A
  // barrier calls it first: a lock unlocked before a barrier is free at its
  // home after it (loom_trylock succeeds).
  void settle_lock_releases();
  // Kept locks (sync.cpp): a rank may keep a lock whose home is reached by
  // requests after its unlock, and take it again with no message, until a
  // rank that queues behind it kicks it (lock_kick, a message to its
  // serving thread, which runs the handler); the serving thread then gives
  // it up (lock_release_served).
  bool lock_home_by_request(int h) const;
  void lock_kick(int r, uint64_t id);
  void lock_release_served(int h, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed,
                           uint64_t locked_off, uint64_t handover);
  void set_lock_kick_handler(void (*fn)(uint64_t id));
  // Where tell_reading counts its messages (the statistics' reads_told;
  // bumped inside get, by the thread that holds the rank lock).
  void set_tell_counter(uint64_t* c) { tells_ = c; }
  // The MPI library's non-blocking barrier over every rank, and a test of a
  // request (true when complete).  Errors are fatal.
  void ibarrier(MPI_Request* rq);
  // A split-phase barrier of every rank (its arrive starts it, its wait
  // completes it): the MPI library's non-blocking allgather of one word a
  // rank, on a communicator of its own.
  void iallgather_split(const uint64_t* in, uint64_t* out, MPI_Request* rq);
  bool test(MPI_Request* rq);
  // Called from Loom's wait loops on the application thread: on the async
  // path it serves a request other ranks sent this one, so that a rank that
  // waits answers at once instead of through its protocol thread (which
  // must be scheduled first, and naps while nothing comes).
  // Under rma it polls the MPI library (MpiRmaPath::poke): the loop's own
  // one-sided reads of this host's memory may not.
  // Whether it served a request.
  bool serve_while_waiting() {
    if (async_) return async_serve();
    if (rma_) rma_poke();
    return false;
  }
  // Called from a wait loop that would nap (spin.hpp, IdlePace): under rma
  // it takes the words of readers come since (tell_reading), and if any
  // came, keeps the wait polling for a while (idle_read_until).  Under
  // auto the protocol thread takes them as they come.
  void heed_reads();
  // The application thread enters or leaves one of Loom's wait loops (see
  // AppWaiting in common.hpp); nothing to tell when every peer is direct.
  void app_waits(bool w) {
    if (far_) far_waits(w);
  }
  // Whether other ranks send this one requests that serve_while_waiting
  // answers (the async path: auto or async with a peer not mapped).
  bool serves_requests() const { return async_ != nullptr && any_remote_; }
  // Whether more ranks share this rank's cores than there are cores
  // (cores.hpp, judged at init): Loom's wait loops nap there once they
  // have yielded a while (spin.hpp, IdlePace).
  bool cores_taken() const { return cores_taken_; }
  // The MPI library's non-blocking allreduce (MPI_BOR) of one int over every
  // rank; *out is valid once test() says the request is complete.
  void iallreduce_or(const int* in, int* out, MPI_Request* rq);
  // The same with MPI_SUM over n ints (a barrier that also counts the
  // messages each rank is sent: sync_barrier_or_asks).
  void iallreduce_sum(const int* in, int* out, int n, MPI_Request* rq);

  // Messages on Loom's communicator, for the barrier's page push
  // (protocol/core.cpp): each tag is used by one exchange only, and every
  // message sent is received by the same barrier.  Errors are fatal.
  void isend(int r, int tag, const void* buf, size_t len, MPI_Request* rq);
  void irecv(int r, int tag, void* buf, size_t len, MPI_Request* rq);  // len bytes from r
  // The receive of a message with `tag` from any rank, of at most `words`
  // 8-byte words, into buf; test_words says whether it came, how many words
  // and from whom.  cancel: a receive posted that nothing will match.
  void irecv_words(int tag, uint64_t* buf, size_t words, MPI_Request* rq);
  bool test_words(MPI_Request* rq, size_t* words, int* from);
  void cancel(MPI_Request* rq);
  // n runs of this rank's Data segment, run i len[i] bytes at off[i], as one
  // message to r (an indexed datatype: MPI reads them in place).
  void isend_data_runs(int r, int tag, const uint64_t* off, const uint64_t* len, size_t n, MPI_Request* rq);
  // The receive of such a message from r into the same runs of this rank's
  // Data segment.
  void irecv_data_runs(int r, int tag, const uint64_t* off, const uint64_t* len, size_t n, MPI_Request* rq);
  bool test_all(MPI_Request* rq, size_t n);  // true when all n are complete
  // A message to r of `bytes` bytes at `words`, then n runs of this rank's
  // Data segment (as isend_data_runs); its receive from r: the bytes into
  // `words`, then the runs into the same runs of this rank's Data, or (with
  // `into`) one after another from `into`.  A shorter message (the bytes
  // alone) is received too: test_bytes says how many bytes came.
  void isend_words_runs(int r, int tag, const void* words, size_t bytes, const uint64_t* off, const uint64_t* len,
                        size_t n, MPI_Request* rq);
  void irecv_words_runs(int r, int tag, void* words, size_t bytes, const uint64_t* off, const uint64_t* len, size_t n,
                        uint8_t* into, MPI_Request* rq);
  bool test_bytes(MPI_Request* rq, size_t* bytes);
  // The bytes of r's Data segment this rank has written since
  // data_writes_mark(r) (puts, stores and atomics, noted as they are
  // issued; not diffs, which the protocol keeps itself: core.cpp,
  // push_note_diff): whether any of them lies in the n runs (off[i], len[i]
  // bytes; sorted, apart), or more were written than are kept track of.  A
  // home's pages sent ahead of the barrier's agreement are stale where this
  // rank wrote them since (protocol/core.cpp, pushes ahead).  Kept in jobs of
  // 2 ranks that do not map each other only (elsewhere data_written says
  // true).
  void data_writes_mark(int r);
  bool data_written(int r, const uint64_t* off, const uint64_t* len, size_t n);

  // Atomic loads of n Meta words; at(i) names word i.  Issued together and
  // completed by one flush on MPI.
  void load_many(size_t n, void (*at)(size_t i, int* rank, uint64_t* off), uint64_t* out) {
    const WordGroup g{WordOp::Load, n, at, 0, 0, out};
    if (n) many_->words(&g, 1);
  }
  // Batches of word operations (WordGroup): every group's loads,
  // compare-and-swaps and ORs issued before any is waited for, as
  // load_many's loads are (one flush on MPI; on requests, one message a
  // rank for all the groups, all sent before the first reply is awaited).
  void words(const WordGroup* g, size_t k) { many_->words(g, k); }

 private:
  // How one peer is reached: put and get per segment, and its atomics.
  struct Route {
    Path* seg[2];   // put, put_runs; indexed by Seg
    Path* get[2];   // get (async: Data by MPI_Get, see init)
    Path* atomics;  // load, store, cas, fetch_add, fetch_or, swap, atomic_op, or_range
    // Data gets by MPI_Get from a rank whose cores are taken: tell it
    // (tell_reading) that this rank reads it, or its naps hold each get.
    bool tell_reads = false;
    // Data gets by MPI_Get at all (async): timed, and r told while its
    // reads come slowly (a computing home: its protocol thread's naps).
    bool watch_reads = false;
  };
  bool late_out_ = false;      // flush_late left acknowledgements to wait for
  void settle_late(int r);     // r's, before a read its requests do not order
  int64_t before_read(int r);  // tells r where due; returns the time
  void after_read(int r, int64_t t, size_t bytes);
  void build_routes();  // from the paths init created
  bool async_serve();
  void rma_poke();
  void tell_reading(int r, bool slow);  // at most every kTellReadsNs to r
  bool gather_taken();
  void far_waits(bool w);

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm group_comm_ = MPI_COMM_NULL;  // iallgather_split's
  int rank_ = 0, nranks_ = 1;
  TransportOptions opt_{};
  int data_fd_ = -1, meta_fd_ = -1;
  uint8_t* self_data_ = nullptr;
  uint8_t* self_meta_ = nullptr;
  uint8_t* meta_map_ = nullptr;  // the Meta memfd's mapping while Meta is not an MPI window
  bool any_remote_ = false;
  int kind_ = 0;
  bool progress_on_ = false;

  AppWaiting* waiting_ = nullptr;  // shared with the paths' helper threads
  std::vector<Route> routes_;  // per rank
  // data_written's: per rank, the byte ranges written since the mark (at
  // most kWritesKept; past that, `over`).  Several threads of a rank issue
  // writes: a mutex.
  struct Written {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    bool over = false;
  };
  static constexpr size_t kWritesKept = 4096;
  std::vector<Written> written_;
  std::mutex written_mu_;
  void wrote(int r, Seg s, uint64_t lo, uint64_t hi) {
    if (s != Seg::Data || (size_t)r >= written_.size()) return;
    std::lock_guard<std::mutex> g(written_mu_);
    Written& w = written_[(size_t)r];
    if (w.ranges.size() < kWritesKept) w.ranges.emplace_back(lo, hi);
    else w.over = true;
  }
  Path* many_ = nullptr;       // load_many, words
  Path* far_ = nullptr;        // flush and sync_local: the path besides direct, if any
  // The paths, created by init and deleted by finalize only: a job that
  // ends without loom_finalize must not run MPI or join threads from a
  // static destructor (hence no unique_ptr).
  DirectPath* direct_ = nullptr;
  bool cores_taken_ = false;
  MpiRmaPath* rma_ = nullptr;
  MpiRmaPath* fetch_ = nullptr;  // async: the Data window that gets read through
  std::vector<uint8_t> taken_;   // with fetch_ or rma_: each rank's cores_taken
  std::vector<int64_t> told_;    // when tell_reading last told each rank
  std::vector<int64_t> slow_until_;  // until when each rank's reads count as slow (after_read)
  std::vector<int64_t> read_end_;    // when the last read of each rank ended (after_read)
  uint64_t* tells_ = nullptr;    // set_tell_counter
  AsyncPath* async_ = nullptr;
};

}  // namespace loom
