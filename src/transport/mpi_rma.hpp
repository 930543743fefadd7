// The mpi path: MPI-3 passive-target RMA, for peers on other hosts (or every
// peer with LOOM_LOCAL_MAP=0, the setting that tests the cross-host path on
// one machine).  Measured here (docs/ARCHITECTURE.md, MPICH 5 and Open MPI
// 5): MPI_Win_allocate memory progresses one-sided operations without the
// target (a 4 KiB get in 0.8 us while the target computes), but MPI chooses
// where it lives, so it cannot be the page a rank sees at Loom's global
// address; MPI_Win_create over Loom's own memfd keeps the address, but on
// shared memory both MPIs progressed a get only when the target called MPI
// (~1 ms per get while the target computed).  So Data is an MPI_Win_create
// window over the rank's memfd (a home reads and writes its pages in place)
// and Meta an MPI_Win_allocate window; both stay in one lock_all epoch, with
// completion by MPI_Win_flush.  A progress thread calls MPI_Iprobe every
// 20 us so that operations aimed at a computing rank's Data window are
// served where the MPI library needs the target to call MPI (over
// InfiniBand/RoCE the NIC serves them anyway); while the application thread
// is in MPI itself (a flush, a wait loop), or was 50 us ago, the progress
// thread naps instead (AppWaiting: across two emulated hosts of one core
// each, a page fetch cost 62 us with the thread polling through it).
#pragma once
#include <mpi.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "idle_yield.hpp"
#include "transport/common.hpp"
#include "transport/transport.hpp"

namespace loom {

class MpiRmaPath final : public Path {
 public:
  // Collective over comm: the Meta window (allocated by MPI, zeroed) and the
  // Data window over self_data, each with its lock_all epoch open.
  // meta_size 0: a Data window only (the auto transport's page reads).
  // spin: polls of a wait before it yields.
  MpiRmaPath(MPI_Comm comm, uint8_t* self_data, uint64_t data_size, uint64_t meta_size, AppWaiting& waiting,
             int spin);
  // Stops the progress thread, closes the epochs and frees the windows.
  ~MpiRmaPath() override;

  uint8_t* self_meta() const { return self_meta_; }  // this rank's Meta window memory
  // Start the progress thread (it calls MPI_Comm_dup on comm).  Returns
  // whether it runs: it needs MPI_THREAD_MULTIPLE (recorded as an error,
  // not fatal, when missing).
  bool start_progress(MPI_Comm comm);
  // The ranks on other hosts (1 each): flush confirms its puts to them.
  void set_other_hosts(const std::vector<uint8_t>& other) {
    other_host_ = other;
    one_host_ = true;
    for (uint8_t o : other) one_host_ = one_host_ && !o;
  }
  // Collective over comm (the Meta window's; not with meta_size 0): every
  // rank that names a target (>= 0, a rank this path reaches through MPI)
  // checks there that the MPI library's 64-bit one-sided OR applies its
  // operand (Open MPI 5.0.11 over its TCP BTL leaves the word as it was,
  // and the 32-bit one and SUM work); where any rank saw it fail, every
  // rank ORs by compare-and-swap from then on.  An MPI whose
  // compare-and-swap or SUM fails the same check is an error that names
  // it.
  Status check_atomics(MPI_Comm comm, int target);
  bool ors_by_cas() const { return or_by_cas_; }
  bool idle_yield_armed() const { return idle_yield_.armed(); }
  void set_ors_by_cas(bool on) { or_by_cas_ = on; }  // LOOM_TEST_RMA_OR

  // Called while a get waits (the auto transport: the async path serves
  // the requests other ranks sent meanwhile).
  void set_serve(void (*fn)(void*), void* ctx) {
    serve_fn_ = fn;
    serve_ctx_ = ctx;
  }

  // The words of readers (Transport::tell_reading; spin.hpp,
  // idle_read_until) on a communicator of their own, under rma where some
  // rank's cores are taken.  start_words is collective.
  void start_words(MPI_Comm comm);
  bool tell_reading(int r);  // whether the word went (not while r has yet to take the last)
  // From a wait that would nap: takes the words come since; if any came,
  // the wait polls for kReadWindowNs (a word is one MPI_Improbe away).
  void heed_reads();
  // One MPI_Iprobe on the path's communicator, at most every kPokeNs,
  // where every rank is on this host: called from every poll of Loom's
  // wait loops (serve_while_waiting), which keep the progress thread
  // napping.  Open MPI 5's one-sided operations on a window in shared
  // memory (Meta, every rank on one host) complete by CPU instructions and
  // its flush then returns without polling, so a rank that waited for a
  // lock or in a barrier by loads of its own Meta never served a get of
  // its Data window: 100 gets of 4 KiB 100 ms each against 3.6 us with one
  // probe a poll (docs/ARCHITECTURE.md, "The transport and why").  Where
  // another host's ranks share the window its flushes poll, and the pokes
  // made Open MPI's lock across 2 hosts slower (a run of loom_bench lock
  // 30-38 s against 16-32, and one hung in four).
  void poke();

  const char* name() const override { return "mpi"; }
  void get(int r, Seg s, uint64_t off, void* dst, size_t len) override;
  void get_many(int r, Seg s, size_t n, const uint64_t* off, uint8_t* const* dst, const size_t* len) override;
  void put(int r, Seg s, uint64_t off, const void* src, size_t len) override;
  void put_runs(int r, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off, const uint32_t* len,
                size_t n) override;
  void flush() override;
  void sync_local() override;
  uint64_t load(int r, Seg s, uint64_t off) override;
  void store(int r, Seg s, uint64_t off, uint64_t v) override;
  void signal(int r, uint64_t off, uint64_t v) override;  // the puts before it flushed, then a store
  uint64_t cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) override;
  uint64_t fetch_add(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t fetch_or(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t swap(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) override;
  void or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old, uint64_t count_off) override;
  void words(const WordGroup* g, size_t k) override;

 private:
  MPI_Win win(Seg s) const { return s == Seg::Data ? data_win_ : meta_win_; }
  uint64_t atomic(int r, Seg s, uint64_t off, const uint64_t* origin, const uint64_t* compare, MPI_Op op);
  uint64_t or_by_cas(int r, Seg s, uint64_t off, uint64_t bits);
  bool or_by_cas_ = false;  // check_atomics: the library's 64-bit MPI_BOR loses its operand
  // check_atomics' words: each origin's own kProbeWords at its target, in
  // the Meta window past Meta itself (at probe_off_), set to kProbeInit.
  static constexpr int kProbeWords = 4;
  static constexpr uint64_t kProbeInit = 0x0f0f0f0f0f0f0f0full;  // bits on both halves of the word
  uint64_t probe_off_ = 0;

  MPI_Win data_win_ = MPI_WIN_NULL, meta_win_ = MPI_WIN_NULL;
  uint8_t* self_meta_ = nullptr;
  bool dirty_puts_ = false;
  int nranks_ = 0;
  // Per window (indexed by Seg): the ranks put to since the last flush, and
  // whether each is listed; the confirming gets land in confirm_.
  std::vector<int> put_to_[2];
  std::vector<uint8_t> listed_[2];
  std::vector<uint64_t> confirm_;
  std::vector<int> run_len_, run_off_;  // put_runs: the datatype's blocks
  // words: per group, the words by rank, their displacements in words,
  // the operands (alive until the flush) and the results in that order.
  struct WordScratch {
    WordsByRank w;
    std::vector<int> disp;
    std::vector<uint64_t> operand, recv;
  };
  std::vector<WordScratch> wg_;
  void note_put(int r, Seg s);
  std::vector<uint8_t> other_host_;  // per rank; empty: none
  static constexpr int64_t kPokeNs = 5000;
  bool one_host_ = false;  // every rank on this host (set_other_hosts): poke, atomics not waits
  MPI_Comm comm_ = MPI_COMM_NULL;  // Loom's (Transport's), for poke's probe
  std::atomic<int64_t> poked_ns_{0};
  std::vector<uint64_t> or_buf_, or_old_;  // or_range: origin and result words
  std::thread progress_;
  IdleYield idle_yield_;  // armed while the progress thread runs (idle_yield.hpp)
  std::atomic<bool> stop_{false};
  AppWaiting& waiting_;  // the application thread is in MPI: the progress thread stays off
  int spin_;
  void (*serve_fn_)(void*) = nullptr;
  void* serve_ctx_ = nullptr;
  // start_words: the words' communicator, how many this rank sent each
  // rank, and how many it took from each (the application thread's waits
  // and the progress thread take them; all are taken before the
  // communicator is freed).
  MPI_Comm word_comm_ = MPI_COMM_NULL;
  std::vector<uint64_t> words_sent_;
  std::vector<MPI_Request> word_rq_;  // per rank: the last word's synchronous send
  std::unique_ptr<std::atomic<uint64_t>[]> words_got_;
  int take_words();
  void stop_words();
};

}  // namespace loom
