// The transport: the one narrow interface through which the protocol reaches
// other ranks' memory.  Each rank exposes two segments:
//
//   Data  the rank's memfd of global-memory size.  At offset o it holds the
//         home copy of page o/PAGE when this rank is that page's home, and
//         this rank's cached copy otherwise (no one else touches those).
//   Meta  directory entries, lock queues, barrier flags, the heap table.
//
// Two transports, chosen by LOOM_TRANSPORT (TransportOptions::kind):
//
// rma (default): one-sided.  Two ways to reach a peer, chosen per peer at init:
//   direct  the peer runs on this host: its memfds are mapped here
//           (/proc/<pid>/fd/<n>), and get/put are memcpy, atomics are CPU
//           atomics.  Nothing waits for the peer to run: the physical limit.
//   mpi     the peer is remote (or LOOM_LOCAL_MAP=0): MPI-3 passive-target
//           RMA.  Data is an MPI_Win_create window over the same memfd (so a
//           home reads and writes its pages in place); Meta is an
//           MPI_Win_allocate window (progressed without the target on the
//           MPI libraries measured).  A progress thread serves the Data
//           window where the MPI library needs the target to call MPI.
//   Atomicity rule: MPI atomics are atomic only with respect to other MPI
//   atomics on the same window, so as soon as one peer is remote every
//   atomic of the job (Meta and Data, to every rank including self) goes
//   through MPI.
//
// async: two-sided messages served by a protocol thread on every rank.  It
//   exists for networks where one-sided operations are only emulated in
//   software (RMA then costs a message and a handler anyway, without the
//   batching a handler written for Loom can do), and as the ASYNC baseline
//   of the HLRC/NEWGENDSM comparison: an asynchronous handler on the home
//   serves page requests and applies diffs.  No peer is mapped and no MPI
//   window exists.  An operation on another rank's segment is a request
//   (MPI_Isend on a private communicator) to that rank's protocol thread,
//   which performs it on its own memory and replies; operations on this
//   rank's own segments are done directly in memory.  Atomicity: the
//   protocol thread and the owner's direct path both use CPU atomics on the
//   owner's memory, so they are atomic with respect to each other.  Puts to
//   a rank are batched into one message (each message is applied in order
//   after the earlier ones from this rank); flush() sends the last batch of
//   every rank written since the previous flush with an acknowledgement
//   request and waits for all acknowledgements.  Needs MPI_THREAD_MULTIPLE
//   (init fails with LOOM_ERR_MPI otherwise).  A wait for a reply polls,
//   then yields the core (like every Loom wait); the protocol thread polls,
//   yields for a short while unless yielding has proved slow (a computing
//   thread shares its core), then sleeps in growing naps (transport.cpp,
//   serve(), has the measurements).
//
// Contract: get and the atomics are complete on return.  put is complete at
// the target after flush().  Errors here are fatal (they happen mid-protocol).
// Thread safety: the main thread only (the rma progress thread only calls
// MPI_Iprobe; the async protocol thread only touches this rank's own
// segments, with CPU atomics for atomic operations), except meta loads,
// which the fault handler also uses.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "status.hpp"

namespace loom {

enum class Seg : int { Data = 0, Meta = 1 };

struct TransportOptions {
  uint64_t data_size;   // bytes of the Data segment (= global memory size)
  uint64_t meta_size;   // bytes of the Meta segment
  bool local_map;       // map same-host peers directly
  int progress;         // -1 auto, 0 off, 1 on
  int kind;             // LOOM_TRANSPORT_RMA or LOOM_TRANSPORT_ASYNC
  int spin = 50;        // async: polls of a wait before it yields the core (LOOM_SPIN)
};

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
  bool all_direct() const { return !any_remote_; }  // false in async mode
  bool is_direct(int r) const { return peers_[r].data != nullptr; }  // async: self only
  int direct_peers() const;
  // A thread serves other ranks' requests (rma: the progress thread; async:
  // the protocol thread, always on).
  bool progress_running() const { return progress_on_; }
  bool is_async() const { return async_; }

  void get(int r, Seg s, uint64_t off, void* dst, size_t len);
  void put(int r, Seg s, uint64_t off, const void* src, size_t len);
  void flush();  // all earlier puts are complete at their targets
  // Make RMA writes by others to this rank's Data visible to its loads
  // (MPI_Win_sync under the unified model); a no-op when all peers are direct.
  void sync_local();

  uint64_t load(int r, Seg s, uint64_t off);
  void store(int r, Seg s, uint64_t off, uint64_t v);  // complete on return
  uint64_t cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired);
  uint64_t fetch_add(int r, Seg s, uint64_t off, uint64_t v);
  uint64_t fetch_or(int r, Seg s, uint64_t off, uint64_t v);
  uint64_t swap(int r, Seg s, uint64_t off, uint64_t v);
  // Atomic OR of `bits` into the n consecutive words at off on rank r;
  // complete on return; the words' old values into old[] (may be null).
  // One request on MPI, one per 8192 words on async.
  void or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old = nullptr);
  // Atomic loads of n Meta words; at(i) names word i.  Issued together and
  // completed by one flush on MPI.
  void load_many(size_t n, void (*at)(size_t i, int* rank, uint64_t* off), uint64_t* out);

 private:
  struct Peer {
    uint8_t* data = nullptr;  // mapped Data segment when direct
    uint8_t* meta = nullptr;  // mapped Meta segment when direct
  };
  uint8_t* direct_ptr(int r, Seg s, uint64_t off) const {
    return (s == Seg::Data ? peers_[r].data : peers_[r].meta) + off;
  }
  // CPU atomics on mapped memory: every peer when all are direct (rma), and
  // this rank itself in async mode (the protocol thread uses CPU atomics too).
  bool atomics_direct(int r) const { return (async_ || !any_remote_) && peers_[r].data; }
  uint64_t mpi_atomic(int r, Seg s, uint64_t off, const uint64_t* origin, const uint64_t* compare, MPI_Op op);
  MPI_Win win(Seg s) const { return s == Seg::Data ? data_win_ : meta_win_; }
  void start_progress();

  // async mode (transport.cpp, "async" section)
  struct Batch {            // puts to one rank not yet sent
    std::vector<uint64_t> buf;  // a message: header, then records
    size_t used = 0;            // bytes of records after the header
    bool unacked = false;       // puts sent or pending since the last flush
  };
  Status init_async(uint8_t* meta_map);
  void finalize_async();
  void serve();                           // the protocol thread's loop
  void serve_one(int src, const uint64_t* msg, int bytes, std::vector<uint64_t>& out);
  uint64_t rpc_word(int r, uint32_t op, Seg s, uint64_t off, uint64_t a, uint64_t b);
  void send_batch(int r);                 // pending puts to r, no acknowledgement
  void async_get(int r, Seg s, uint64_t off, void* dst, size_t len);
  void async_put(int r, Seg s, uint64_t off, const void* src, size_t len);
  void async_flush();
  void async_load_many(size_t n, void (*at)(size_t i, int* rank, uint64_t* off), uint64_t* out);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, nranks_ = 1;
  TransportOptions opt_{};
  int data_fd_ = -1, meta_fd_ = -1;
  uint8_t* self_data_ = nullptr;
  uint8_t* self_meta_ = nullptr;
  std::vector<Peer> peers_;
  bool any_remote_ = false;
  MPI_Win data_win_ = MPI_WIN_NULL, meta_win_ = MPI_WIN_NULL;
  bool dirty_puts_ = false;
  bool progress_on_ = false;
  void* progress_ = nullptr;  // std::thread*, kept out of the header
  bool async_ = false;
  MPI_Comm acomm_ = MPI_COMM_NULL;  // async requests and replies (its own duplicate)
  std::vector<Batch> batch_;        // async: per target rank
  std::vector<size_t> lm_start_;    // async load_many scratch: per rank,
  std::vector<int> lm_rank_;        // then per word
  std::vector<uint64_t> lm_off_, lm_send_, lm_recv_, acks_;
  std::vector<size_t> lm_order_;
  std::vector<uint64_t> or_buf_, or_old_;  // or_range: origin and result words on MPI
  std::vector<MPI_Request> reqs_;
};

}  // namespace loom
