// The async path (LOOM_TRANSPORT=async, and auto's choice when MPI has
// MPI_THREAD_MULTIPLE): two-sided messages served by a protocol thread on
// every rank, for the peers that are not mapped directly.  It exists for
// networks where one-sided operations are only emulated in software (RMA
// then costs a message and a handler anyway, without the batching a handler
// written for Loom can do; MPICH over TCP is one), and as the ASYNC baseline
// of the HLRC/NEWGENDSM comparison: an asynchronous handler on the home
// serves page requests and applies diffs.
// An operation on another rank's segment is a request (MPI_Isend on a
// private communicator) to that rank's protocol thread, which performs it on
// its own memory and replies.  Puts to a rank are batched into one message
// (each message is applied in order after the earlier ones from this rank);
// flush() sends the last batch of every rank written since the previous
// flush with an acknowledgement request and waits for all acknowledgements.
// A wait for a reply polls, then yields the core (like every Loom wait); the
// protocol thread polls, yields for a short while unless yielding has proved
// slow (a computing thread shares its core), then sleeps in growing naps
// (async.cpp, serve(), has the measurements).  What it costs: every remote
// operation waits for a thread that shares the cores with computing ones
// (docs/BENCHMARKS.md: uncontended lock 2.30 us when it was two request
// round trips, against 0.10 us direct, now one round trip and a message
// nobody answers; page fetch warm 4.81 us/page against 2.07).
#pragma once
#include <mpi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "idle_yield.hpp"
#include "transport/common.hpp"
#include "transport/cores.hpp"
#include "transport/transport.hpp"

namespace loom {

class AsyncPath final : public Path {
 public:
  // Collective over comm (MPI_Comm_dup): the private communicator, and the
  // protocol thread when there are other ranks.  `self` is this rank's own
  // segments, which the thread serves.  `near` reaches the ranks with
  // near_ranks[r] set (this rank and its mapped peers): load_many reads
  // their words through it instead of asking their threads.
  // `cores`, `sharers`: the physical cores under this rank's affinity and
  // the ranks that may run on them (cores.hpp).  Where that leaves a core
  // to spare, and the rank's threads lately left it spare, the idle
  // thread naps at most kNapSpareNs instead of kNapMaxNs (serve()).
  AsyncPath(MPI_Comm comm, int spin, const Segments& self, Path* near, const std::vector<uint8_t>& near_ranks,
            AppWaiting& waiting, int cores, int sharers);
  // Collective: flushes, then stops the protocol thread once no request is
  // in flight.
  ~AsyncPath() override;

  bool thread_running() const { return thread_.joinable(); }
  // Whether the thread armed Open MPI's yield when idle (idle_yield.hpp).
  bool idle_yield_armed() const { return idle_yield_.armed(); }
  // The longest nap where the rank's threads leave a core to spare (else
  // the one it takes while they do not), in microseconds.
  long nap_max_us() const { return (cpu_spare_now(cores_, sharers_, 1.0) ? kNapSpareNs : kNapMaxNs) / 1000; }
  static constexpr long kNapMaxNs = 500000;   // the idle thread's longest nap (also while the application serves)
  static constexpr long kNapSpareNs = 50000;  // or this while the rank leaves a core to spare
  // Serve one request other ranks sent this rank, if one is waiting and the
  // protocol thread is not serving one right now (the application thread,
  // from its wait loops).
  bool serve_waiting();  // whether it served one

  const char* name() const override { return "async"; }
  // load_many reads the near ranks' words through the near path
  void get(int r, Seg s, uint64_t off, void* dst, size_t len) override;
  void put(int r, Seg s, uint64_t off, const void* src, size_t len) override;
  void put_runs(int r, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off, const uint32_t* len,
                size_t n) override;
  void put_mask(int r, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words) override;
  void flush() override;
  void sync_local() override;
  uint64_t load(int r, Seg s, uint64_t off) override;
  void store(int r, Seg s, uint64_t off, uint64_t v) override;
  void signal(int r, uint64_t off, uint64_t v) override;  // one message nobody answers
  void signal_words(int r, uint64_t off, uint64_t v, uint64_t data_off, const uint64_t* words, size_t n) override;
  uint64_t cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) override;
  uint64_t fetch_add(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t fetch_or(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t swap(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) override;
  void or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old, uint64_t count_off) override;
  void words(const WordGroup* g, size_t k) override;
  uint64_t lock_enqueue(int r, uint64_t tail_off, uint64_t link_base, uint64_t me) override;
  // Transport::lock_release for a home reached by requests: one message,
  // served by r, answered by nobody.
  void lock_release(int r, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed, uint64_t locked_off,
                    uint64_t handover);
  // The same release sent by the serving thread (a kept lock given up on a
  // kick: sync.cpp), which waits for nothing but the send.
  void lock_release_served(int r, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed,
                           uint64_t locked_off, uint64_t handover);
  // Tell r that this rank queued behind it in lock `id` (or found it the
  // lock's last holder): one message nobody answers, which r's serving
  // thread hands to the kick handler.
  void lock_kick(int r, uint64_t id);
  // Tell r that this rank reads its pages by MPI_Get (auto's page reads),
  // so that r's waits poll for a while instead of napping (spin.hpp,
  // idle_read_until): one message nobody answers.
  void tell_reading(int r, bool slow);  // slow: its reads came slowly (Transport::after_read)
  void set_kick_handler(void (*fn)(uint64_t id)) { kick_.store(fn, std::memory_order_release); }
  // Every lock_release and lock_kick sent so far has been served (one
  // acknowledgement round to the ranks that got one since the last call;
  // none if none).
  void settle_releases();
  // flush() without its wait: the last batch of every rank written since
  // the previous flush goes asking for an acknowledgement that is waited
  // for later (settle_late), before this rank reuses the batch, flushes,
  // or reads the target's memory by a route its requests do not order
  // (Transport::get by MPI_Get).  For a barrier's release in a job of 2
  // ranks, whose agreement tells the home how many batches to apply
  // before it leaves (batches_sent, batches_applied; sync.cpp).
  void flush_late();
  void settle_late(int r);  // r's late acknowledgement, if one is out (-1: every rank's)
  bool late_pending(int r) const { return late_[r].pending; }
  // Put batches sent to r, and applied here from r (by either serving
  // thread), since the start; both wrap.
  uint32_t batches_sent(int r) const { return batches_sent_[r]; }
  uint32_t batches_applied(int r) const { return applied_[r].load(std::memory_order_acquire); }

 private:
  struct Batch {                // puts to one rank not yet sent
    std::vector<uint64_t> buf;  // a message: header, then put records
    size_t used = 0;            // bytes of records after the header
    bool unacked = false;       // puts sent or pending since the last flush
  };
  void serve();  // the protocol thread's loop
  bool serve_next(std::vector<uint64_t>& out);  // under serve_mu_
  void serve_one(int src, const uint64_t* msg, int bytes, std::vector<uint64_t>& out);
  void wait_mine(int n, MPI_Request* rq);  // the application thread's requests, serving meanwhile
  void send_unanswered(int r, const uint64_t* m, size_t bytes);  // a request nobody answers, sent via wait_mine
  uint64_t rpc_word(int r, uint64_t hdr, uint64_t off, uint64_t a, uint64_t b);  // hdr: word 0 of the request
  Batch& batch_for(int r, size_t need);  // r's batch with room for need bytes
  void send_batch(int r);  // pending puts to r, no acknowledgement
  void send_acked(int r, MPI_Request* rq);  // r's batch asking for an acknowledgement (flush, flush_late)
  void store_for(int r, uint64_t off, uint64_t v);  // a Meta word of r, from the serving thread

  MPI_Comm comm_;                   // the facade's (collectives)
  MPI_Comm acomm_ = MPI_COMM_NULL;  // requests and replies (its own duplicate)
  int rank_ = 0, nranks_ = 1;
  int spin_;
  Segments self_;
  Path* near_;
  std::vector<uint8_t> near_ranks_;
  std::thread thread_;
  IdleYield idle_yield_;
  std::mutex serve_mu_;                    // one request served at a time, by either thread
  std::atomic<bool> stop_{false};          // the stop request was received
  AppWaiting& waiting_;                    // the application thread waits (and serves meanwhile)
  int cores_, sharers_;                    // cores.hpp's figures for this rank
  long nap_cap_ns_ = kNapMaxNs;            // the idle thread's longest nap now (serve(), judge_cores)
  long judged_at_ = 0, judged_proc_ = 0, judged_self_ = 0;  // the last judgement: when, process and thread CPU ns
  long judge_cores(long now);
  MPI_Request req_ = MPI_REQUEST_NULL;     // the posted receive for requests (under serve_mu_)
  bool reads_slow_ = false;               // and it was a reader's word that its reads came slowly (under serve_mu_)
  bool quiet_ = false;                     // the request just served asked nothing of the pace (under serve_mu_)
  std::vector<uint64_t> req_buf_;          // its buffer
  std::vector<uint64_t> app_out_;          // the application thread's serving scratch
  std::vector<Batch> batch_;      // per target rank
  std::vector<WordsByRank> wg_;             // words' scratch: each group's words by rank,
  struct WordPart {                         // and each part sent: its group, its first word
    size_t group, first, n, reply;          // in the group's order, its words, where its replies land
  };
  std::vector<WordPart> wparts_;
  std::vector<uint64_t> lm_send_, lm_recv_;  // the requests and the replies
  std::vector<uint64_t> acks_;
  struct Late {                             // flush_late's acknowledgement from a rank, not yet waited for
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // its receive, then the batch's send
    bool pending = false;
  };
  std::vector<Late> late_;
  std::vector<uint32_t> batches_sent_;                 // per target (the application thread's)
  std::unique_ptr<std::atomic<uint32_t>[]> applied_;  // per sender (either serving thread)
  // A lock_release or lock_kick went to the rank since the last settle
  // (set by either thread: atomics).
  std::vector<uint8_t> released_to_;
  std::atomic<bool> released_any_{false};  // some released_to_ is set
  std::atomic<void (*)(uint64_t)> kick_{nullptr};
  void sent_oneway(int r) {
    __atomic_store_n(&released_to_[r], 1, __ATOMIC_RELAXED);
    released_any_.store(true, std::memory_order_release);
  }
  std::vector<uint64_t> or_old_;  // or_range: the old words of one request
  std::vector<uint64_t> sig_buf_;  // signal_words: the message
  std::vector<MPI_Request> reqs_;
};

}  // namespace loom
