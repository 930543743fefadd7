// The transport facade (transport.hpp): this rank's segments, the choice of
// a path per peer at init, and their start and stop.  The choice is made
// once so that every later call is one indirect call into the chosen path;
// docs/ARCHITECTURE.md has the measurements behind it.
#include "transport/transport.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "diff.hpp"
#include "transport/async.hpp"
#include "transport/common.hpp"
#include "transport/direct.hpp"
#include "transport/mpi_rma.hpp"

namespace loom {

void Path::put_mask(int r, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words) {
  thread_local DiffRunList runs;
  runs.clear();
  mask_runs(mask, words, DiffRunList::add, &runs);
  if (!runs.off.empty()) put_runs(r, s, base, src, runs.off.data(), runs.len.data(), runs.off.size());
}

Status Transport::init(MPI_Comm comm, const TransportOptions& opt) {
  opt_ = opt;
  if (opt_.spin < 0) opt_.spin = 0;
  if (!waiting_) waiting_ = new AppWaiting;  // kept for the process: helper threads read it until joined
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &nranks_);

  Status local = [&]() -> Status {
    if (opt.kind == LOOM_TRANSPORT_ASYNC) {
      // The protocol thread calls MPI while the application thread does.
      int level = 0;
      MPI_Query_thread(&level);
      if (level < MPI_THREAD_MULTIPLE)
        return fail(LOOM_ERR_MPI,
                    "LOOM_TRANSPORT=async needs MPI_THREAD_MULTIPLE for its protocol thread, but MPI was "
                    "initialized with thread level %d (initialize MPI with MPI_Init_thread(..., "
                    "MPI_THREAD_MULTIPLE, ...), or let loom_init do it, or use LOOM_TRANSPORT=rma)",
                    level);
    }
    LOOM_TRY(make_memfd("loom-data", opt.data_size, &data_fd_));
    self_data_ = (uint8_t*)map_fd(data_fd_, opt.data_size);
    if (!self_data_) return fail_errno(LOOM_ERR_SYSTEM, "mmap of this rank's data segment");
    LOOM_TRY(make_memfd("loom-meta", opt.meta_size, &meta_fd_));
    meta_map_ = (uint8_t*)map_fd(meta_fd_, opt.meta_size);
    if (!meta_map_) return fail_errno(LOOM_ERR_SYSTEM, "mmap of this rank's metadata segment");
    return Status::ok();
  }();
  // Agree before any further collective, so that one rank's failure is every
  // rank's error instead of a hang.
  int ok = local.is_ok() ? 1 : 0, all_ok = 0;
  check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  if (!all_ok) {
    if (meta_map_) munmap(meta_map_, opt.meta_size);
    if (self_data_) munmap(self_data_, opt.data_size);
    if (data_fd_ >= 0) close(data_fd_);
    if (meta_fd_ >= 0) close(meta_fd_);
    meta_map_ = nullptr;
    self_data_ = nullptr;
    data_fd_ = meta_fd_ = -1;
    MPI_Comm_free(&comm_);
    if (ok) return fail(LOOM_ERR_SYSTEM, "another rank could not set up its transport (see that rank's error)");
    return local;
  }
  // Split-phase barriers of every rank have their own communicator: their
  // MPI_Iallgather runs from arrive to wait, across Loom's other collectives.
  check(MPI_Comm_dup(comm_, &group_comm_), "MPI_Comm_dup");
  direct_ = new DirectPath(rank_, nranks_, self_data_, meta_map_, opt.data_size, opt.meta_size);

  // Which peers are mapped, and whether the two-sided path may run: one
  // agreement (any rank's unmapped peer; the lowest thread level).
  const bool local_remote = direct_->map_peers(comm_, data_fd_, meta_fd_, opt.local_map);
  cores_taken_ = direct_->cores() > 0 && direct_->core_sharers() > direct_->cores();  // (unknown cores: not judged)
  int level = 0;
  MPI_Query_thread(&level);
  int mine[2] = {local_remote ? 1 : 0, -level}, all[2] = {0, 0};
  check(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_BOR, comm_), "MPI_Allreduce");
  any_remote_ = all[0] != 0;
  const bool multiple = -all[1] >= MPI_THREAD_MULTIPLE;
  kind_ = opt.kind == LOOM_TRANSPORT_AUTO ? (multiple ? LOOM_TRANSPORT_ASYNC : LOOM_TRANSPORT_RMA) : opt.kind;

  if (!any_remote_) {
    self_meta_ = meta_map_;
  } else if (kind_ == LOOM_TRANSPORT_ASYNC) {
    // Mapped peers stay direct, Meta included: the protocol threads apply
    // requests with CPU atomics on the same memory, so direct and async
    // atomics are atomic with respect to each other.
    self_meta_ = meta_map_;
    std::vector<uint8_t> near(nranks_);
    for (int r = 0; r < nranks_; r++) near[r] = direct_->maps_data(r);
    async_ = new AsyncPath(comm_, opt_.spin, Segments{{self_data_, meta_map_}, {opt.data_size, opt.meta_size}},
                           direct_, near, *waiting_, direct_->cores(), direct_->core_sharers());
    progress_on_ = async_->thread_running();
    // auto: page reads by MPI_Get from a Data window over the memfd (MPICH
    // over TCP: a 4 KiB get 17.7 us, a request and its reply 26.4 us; a
    // fault 38.2 -> 28.2 us), the rest by requests.  The protocol threads'
    // and waiting ranks' MPI calls progress the gets; a get's wait serves
    // the requests sent to this rank meanwhile (a rank that waited for this
    // one's reply, while this one waited for its get, hung both).
    if (opt.kind == LOOM_TRANSPORT_AUTO) {
      fetch_ = new MpiRmaPath(comm_, self_data_, opt.data_size, 0, *waiting_, opt_.spin);
      fetch_->set_serve([](void* a) { static_cast<AsyncPath*>(a)->serve_waiting(); }, async_);
      gather_taken();
    }
  } else {
    // Every atomic must go through MPI now (see the atomicity rule), so the
    // metadata lives in an MPI-allocated window; direct peers keep only Data.
    direct_->drop_meta();
    munmap(meta_map_, opt.meta_size);
    meta_map_ = nullptr;
    close(meta_fd_);
    meta_fd_ = -1;
    rma_ = new MpiRmaPath(comm_, self_data_, opt.data_size, opt.meta_size, *waiting_, opt_.spin);
    self_meta_ = rma_->self_meta();
    std::vector<uint8_t> other(nranks_);
    for (int r = 0; r < nranks_; r++) other[r] = r != rank_ && !direct_->same_host(r);
    rma_->set_other_hosts(other);
    // The library's 64-bit one-sided OR, checked on a peer reached through
    // MPI (another host's, else any unmapped one): Open MPI 5.0.11 over its
    // TCP BTL leaves the word unchanged, which lost writer-set bits and so
    // writes (docs/ARCHITECTURE.md).  LOOM_TEST_RMA_OR=cas takes the
    // compare-and-swap ORs anyway (tests), =mpi keeps MPI_BOR whatever the
    // check says (to see a library's failure).
    int target = -1;
    for (int r = 0; r < nranks_ && target < 0; r++)
      if (other[r]) target = r;
    for (int r = 0; r < nranks_ && target < 0; r++)
      if (r != rank_ && !direct_->maps_data(r)) target = r;
    Status checked = rma_->check_atomics(comm_, target);
    if (!checked.is_ok()) {
      finalize();
      return checked;
    }
    const char* force = std::getenv("LOOM_TEST_RMA_OR");
    if (force && (!std::strcmp(force, "cas") || !std::strcmp(force, "mpi")))
      rma_->set_ors_by_cas(force[0] == 'c');
    // Every Data get from another host is an MPI_Get here: the words go
    // on a communicator of the rma path's own, and the waits take them
    // where they would nap, outside the rank lock (so only with
    // MPI_THREAD_MULTIPLE, which the progress thread needs as well).
    if (multiple && gather_taken()) rma_->start_words(comm_);
  }
  build_routes();
  check(MPI_Barrier(comm_), "MPI_Barrier");
  if (rma_ && (opt.progress == 1 || (opt.progress == -1 && local_remote))) progress_on_ = rma_->start_progress(comm_);
  return Status::ok();
}

// The routes follow from which paths exist:
//   every peer mapped        everything direct (either transport).
//   rma, some peer remote    Data get/put to mapped peers and to self
//                            direct; all else (Meta get/put, every atomic,
//                            load_many) through MPI, to every rank including
//                            self (the atomicity rule).
//   async, some peer remote  mapped peers and this rank direct, every other
//                            rank through the protocol threads; load_many
//                            async (it reads mapped ranks' words directly).
void Transport::build_routes() {
  routes_.assign(nranks_, Route{});
  slow_until_.assign(nranks_, 0);
  read_end_.assign(nranks_, 0);
  // (only jobs of 2 ranks that do not map each other ask: data_written)
  written_.assign(nranks_ == 2 && any_remote_ ? 2 : 0, Written{});
  for (int r = 0; r < nranks_; r++) {
    Route& to = routes_[r];
    if (async_) {
      Path* p = direct_->maps_data(r) ? static_cast<Path*>(direct_) : async_;
      const bool by_get = p == async_ && fetch_;
      to = Route{{p, p}, {by_get ? static_cast<Path*>(fetch_) : p, p}, p, by_get && taken_[r] != 0, by_get};
    } else if (rma_) {
      Path* d = direct_->maps_data(r) ? static_cast<Path*>(direct_) : rma_;
      const bool tell = d == rma_ && !taken_.empty() && taken_[r] != 0;
      to = Route{{d, rma_}, {d, rma_}, rma_, tell, tell};
    } else {
      to = Route{{direct_, direct_}, {direct_, direct_}, direct_};
    }
  }
  if (async_) {
    many_ = far_ = async_;
  } else if (rma_) {
    many_ = far_ = rma_;
  } else {
    many_ = direct_;
    far_ = nullptr;  // direct operations are complete on return
  }
}

void Transport::ibarrier(MPI_Request* rq) { check(MPI_Ibarrier(comm_, rq), "MPI_Ibarrier"); }
void Transport::iallgather_split(const uint64_t* in, uint64_t* out, MPI_Request* rq) {
  check(MPI_Iallgather(in, 1, MPI_UINT64_T, out, 1, MPI_UINT64_T, group_comm_, rq), "MPI_Iallgather");
}

bool Transport::async_serve() { return async_->serve_waiting(); }
void Transport::rma_poke() { rma_->poke(); }

bool Transport::or_by_cas() const { return rma_ && rma_->ors_by_cas(); }

// A page read from r by MPI_Get waits for r's next MPI call, and r's waits
// nap where its cores are taken: tell r, at most every kTellReadsNs, so
// that they poll meanwhile (spin.hpp, idle_read_until).
void Transport::tell_reading(int r, bool slow) {
  const int64_t t = spin_mono_ns();
  if (t - told_[r] < kTellReadsNs) return;
  told_[r] = t;
  if (async_) async_->tell_reading(r, slow);
  else if (!rma_->tell_reading(r)) return;
  if (tells_) ++*tells_;
}

// A slow home is told only while this rank's reads of it come in a stream
// (the last ended less than kReadStreamNs ago): the word arrives with the
// get and cannot speed it, only the reads after it, which a home told
// once then computing a long while without reads would not see.
int64_t Transport::before_read(int r) {
  const int64_t t = spin_mono_ns();
  const bool slow = t < slow_until_[r] && t - read_end_[r] < kReadStreamNs;
  if (routes_[r].tell_reads || slow) tell_reading(r, slow);
  return t;
}

// A home whose reads come slowly computes while its protocol thread naps
// (async.cpp, serve()): each get waits for the thread's next MPI call, up
// to a nap of 500 us.  Told, the thread naps at most 50 us for a while.
void Transport::after_read(int r, int64_t t, size_t bytes) {
  const int64_t now = spin_mono_ns();
  read_end_[r] = now;
  if (now - t > kSlowReadNs + (int64_t)(bytes / 1024) * kSlowReadNsPerKiB) slow_until_[r] = now + kSlowMemoryNs;
}

// Whose waits nap (spin.hpp): every rank's cores_taken, so that a reader
// tells those it reads by MPI_Get.  Whether any rank's are taken (the same
// on every rank).
bool Transport::gather_taken() {
  const uint8_t taken = cores_taken_ ? 1 : 0;
  taken_.assign(nranks_, 0);
  told_.assign(nranks_, 0);
  check(MPI_Allgather(&taken, 1, MPI_BYTE, taken_.data(), 1, MPI_BYTE, comm_), "MPI_Allgather");
  return std::find(taken_.begin(), taken_.end(), 1) != taken_.end();
}

void Transport::heed_reads() {
  if (rma_) rma_->heed_reads();
}

void Transport::far_waits(bool w) {
  if (w) waiting_->enter();
  else waiting_->leave();
}

void Transport::iallreduce_or(const int* in, int* out, MPI_Request* rq) {
  check(MPI_Iallreduce(in, out, 1, MPI_INT, MPI_BOR, comm_, rq), "MPI_Iallreduce");
}

void Transport::iallreduce_sum(const int* in, int* out, int n, MPI_Request* rq) {
  check(MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, comm_, rq), "MPI_Iallreduce");
}

void Transport::isend(int r, int tag, const void* buf, size_t len, MPI_Request* rq) {
  check(MPI_Isend(buf, (int)len, MPI_BYTE, r, tag, comm_, rq), "MPI_Isend");
}

void Transport::irecv(int r, int tag, void* buf, size_t len, MPI_Request* rq) {
  check(MPI_Irecv(buf, (int)len, MPI_BYTE, r, tag, comm_, rq), "MPI_Irecv");
}

void Transport::irecv_words(int tag, uint64_t* buf, size_t words, MPI_Request* rq) {
  check(MPI_Irecv(buf, (int)(words * 8), MPI_BYTE, MPI_ANY_SOURCE, tag, comm_, rq), "MPI_Irecv");
}

bool Transport::test_words(MPI_Request* rq, size_t* words, int* from) {
  int done = 0, bytes = 0;
  MPI_Status st;
  check(MPI_Test(rq, &done, &st), "MPI_Test");
  if (!done) return false;
  check(MPI_Get_count(&st, MPI_BYTE, &bytes), "MPI_Get_count");
  if (bytes < 0 || bytes % 8) fatal("a message of %d bytes from rank %d: not whole words", bytes, st.MPI_SOURCE);
  *words = (size_t)bytes / 8;
  *from = st.MPI_SOURCE;
  return true;
}

void Transport::cancel(MPI_Request* rq) {
  if (*rq == MPI_REQUEST_NULL) return;
  check(MPI_Cancel(rq), "MPI_Cancel");
  check(MPI_Wait(rq, MPI_STATUS_IGNORE), "MPI_Wait");
}

namespace {
// n runs of bytes of a segment of `size` bytes as one datatype (MPI_BYTE
// blocks at their offsets), committed; the caller frees it.
MPI_Datatype runs_type(const uint64_t* off, const uint64_t* len, size_t n, uint64_t size, int peer) {
  static std::vector<int>& lens = *new std::vector<int>();              // never destroyed: see runtime.hpp
  static std::vector<MPI_Aint>& displs = *new std::vector<MPI_Aint>();  // (the same)
  lens.resize(n);
  displs.resize(n);
  for (size_t i = 0; i < n; i++) {
    if (off[i] + len[i] > size || len[i] > (uint64_t)INT32_MAX)
      fatal("a run of %llu bytes at %llu of a data segment of %llu bytes, to or from rank %d",
            (unsigned long long)len[i], (unsigned long long)off[i], (unsigned long long)size, peer);
    lens[i] = (int)len[i];
    displs[i] = (MPI_Aint)off[i];
  }
  MPI_Datatype t;
  check(MPI_Type_create_hindexed((int)n, lens.data(), displs.data(), MPI_BYTE, &t), "MPI_Type_create_hindexed");
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  return t;
}
}  // namespace

void Transport::isend_data_runs(int r, int tag, const uint64_t* off, const uint64_t* len, size_t n,
                                MPI_Request* rq) {
  if (n == 1 && off[0] + len[0] <= opt_.data_size && len[0] <= (uint64_t)INT32_MAX) {  // (one run: plain bytes)
    check(MPI_Isend(self_data_ + off[0], (int)len[0], MPI_BYTE, r, tag, comm_, rq), "MPI_Isend");
    return;
  }
  MPI_Datatype t = runs_type(off, len, n, opt_.data_size, r);
  check(MPI_Isend(self_data_, 1, t, r, tag, comm_, rq), "MPI_Isend");
  check(MPI_Type_free(&t), "MPI_Type_free");  // (the operation keeps what it needs)
}

void Transport::irecv_data_runs(int r, int tag, const uint64_t* off, const uint64_t* len, size_t n,
                                MPI_Request* rq) {
  if (n == 1 && off[0] + len[0] <= opt_.data_size && len[0] <= (uint64_t)INT32_MAX) {
    check(MPI_Irecv(self_data_ + off[0], (int)len[0], MPI_BYTE, r, tag, comm_, rq), "MPI_Irecv");
    return;
  }
  MPI_Datatype t = runs_type(off, len, n, opt_.data_size, r);
  check(MPI_Irecv(self_data_, 1, t, r, tag, comm_, rq), "MPI_Irecv");
  check(MPI_Type_free(&t), "MPI_Type_free");
}

namespace {
// Bytes at `words`, then n runs: at self + off[i], or one after another from
// `into`; absolute addresses, for a message from or to MPI_BOTTOM.
MPI_Datatype words_runs_type(const void* words, size_t bytes, uint8_t* self, uint64_t size, const uint64_t* off,
                             const uint64_t* len, size_t n, uint8_t* into, int peer) {
  std::vector<int> lens(n + 1);
  std::vector<MPI_Aint> displs(n + 1);
  lens[0] = (int)bytes;
  check(MPI_Get_address(words, &displs[0]), "MPI_Get_address");
  uint64_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (off[i] + len[i] > size || len[i] > (uint64_t)INT32_MAX)
      fatal("a run of %llu bytes at %llu of a data segment of %llu bytes, to or from rank %d",
            (unsigned long long)len[i], (unsigned long long)off[i], (unsigned long long)size, peer);
    lens[i + 1] = (int)len[i];
    check(MPI_Get_address(into ? into + at : self + off[i], &displs[i + 1]), "MPI_Get_address");
    at += len[i];
  }
  MPI_Datatype t;
  check(MPI_Type_create_hindexed((int)(n + 1), lens.data(), displs.data(), MPI_BYTE, &t), "MPI_Type_create_hindexed");
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  return t;
}
}  // namespace

void Transport::isend_words_runs(int r, int tag, const void* words, size_t bytes, const uint64_t* off,
                                 const uint64_t* len, size_t n, MPI_Request* rq) {
  MPI_Datatype t = words_runs_type(words, bytes, self_data_, opt_.data_size, off, len, n, nullptr, r);
  // (PMPI: the datatype's extent from MPI_BOTTOM spans the program's Loom
  // memory, which Loom's own MPI_Isend would take for the program's.)
  check(PMPI_Isend(MPI_BOTTOM, 1, t, r, tag, comm_, rq), "MPI_Isend");
  check(MPI_Type_free(&t), "MPI_Type_free");
}

void Transport::irecv_words_runs(int r, int tag, void* words, size_t bytes, const uint64_t* off, const uint64_t* len,
                                 size_t n, uint8_t* into, MPI_Request* rq) {
  MPI_Datatype t = words_runs_type(words, bytes, self_data_, opt_.data_size, off, len, n, into, r);
  check(PMPI_Irecv(MPI_BOTTOM, 1, t, r, tag, comm_, rq), "MPI_Irecv");  // (PMPI: as above)
  check(MPI_Type_free(&t), "MPI_Type_free");
}

void Transport::data_writes_mark(int r) {
  std::lock_guard<std::mutex> g(written_mu_);
  if ((size_t)r >= written_.size()) return;
  written_[(size_t)r].ranges.clear();
  written_[(size_t)r].over = false;
}

bool Transport::data_written(int r, const uint64_t* off, const uint64_t* len, size_t n) {
  std::lock_guard<std::mutex> g(written_mu_);
  if ((size_t)r >= written_.size()) return true;
  const Written& w = written_[(size_t)r];
  if (w.over) return true;
  for (const auto& [lo, hi] : w.ranges) {
    // the first run that ends after lo; written into if it starts before hi
    size_t a = 0, b = n;
    while (a < b) {
      const size_t m = (a + b) / 2;
      if (off[m] + len[m] <= lo) a = m + 1;
      else b = m;
    }
    if (a < n && off[a] < hi) return true;
  }
  return false;
}

bool Transport::test_bytes(MPI_Request* rq, size_t* bytes) {
  int done = 0, count = 0;
  MPI_Status st;
  check(MPI_Test(rq, &done, &st), "MPI_Test");
  if (!done) return false;
  check(MPI_Get_count(&st, MPI_BYTE, &count), "MPI_Get_count");
  *bytes = (size_t)count;
  return true;
}

bool Transport::test_all(MPI_Request* rq, size_t n) {
  int done = 0;
  check(MPI_Testall((int)n, rq, &done, MPI_STATUSES_IGNORE), "MPI_Testall");
  return done != 0;
}

bool Transport::test(MPI_Request* rq) {
  int done = 0;
  check(MPI_Test(rq, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

uint64_t Path::lock_enqueue(int r, uint64_t tail_off, uint64_t link_base, uint64_t me) {
  const uint64_t old = swap(r, Seg::Meta, tail_off, me);
  if (old & kLockQueueMask) store(r, Seg::Meta, link_base + ((old & kLockQueueMask) - 1) * 8, me);
  return old;
}

void Transport::lock_release(int h, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed,
                             uint64_t locked_off, uint64_t handover) {
  Path* at = routes_[h].atomics;
  if (at == async_) {
    async_->lock_release(h, tail_off, link_base, me, freed, locked_off, handover);
    return;
  }
  const uint64_t link = link_base + (me - 1) * 8;
  const uint64_t next = lock_release_here(
      me, freed, opt_.spin, [&](uint64_t e, uint64_t d) { return at->cas(h, Seg::Meta, tail_off, e, d); },
      [&] { return at->load(h, Seg::Meta, link); }, [&](uint64_t v) { at->store(h, Seg::Meta, link, v); });
  if (next) store((int)next - 1, Seg::Meta, locked_off, handover);
}

void Transport::flush_late() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (far_ && far_ == async_) {
    async_->flush_late();
    late_out_ = true;
  } else if (far_) {
    far_->flush();
  }
}

void Transport::settle_late(int r) { async_->settle_late(r); }

uint32_t Transport::late_count(int r) const { return async_ ? async_->batches_sent(r) : 0; }
uint32_t Transport::late_applied(int r) const { return async_ ? async_->batches_applied(r) : 0; }

void Transport::settle_lock_releases() {
  if (async_) async_->settle_releases();
}

bool Transport::lock_home_by_request(int h) const { return async_ && routes_[h].atomics == async_; }

void Transport::lock_kick(int r, uint64_t id) { async_->lock_kick(r, id); }

void Transport::lock_release_served(int h, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed,
                                    uint64_t locked_off, uint64_t handover) {
  async_->lock_release_served(h, tail_off, link_base, me, freed, locked_off, handover);
}

void Transport::set_lock_kick_handler(void (*fn)(uint64_t id)) {
  if (async_) async_->set_kick_handler(fn);
}

bool Transport::is_direct(int r) const { return routes_[r].seg[(int)Seg::Data] == direct_; }

uint8_t* Transport::mapped_data(int r) const {
  if (r == rank_) return self_data_;
  return is_direct(r) && direct_ ? direct_->data_of(r) : nullptr;
}

uint8_t* Transport::mapped_meta(int r) const {
  if (r == rank_) return meta_map_;
  return is_direct(r) && direct_ && meta_map_ ? direct_->meta_of(r) : nullptr;
}

bool Transport::concurrent_get(int r) const {
  return routes_[r].get[(int)Seg::Data] == direct_;
}

bool Transport::idle_yield_armed() const {
  return (async_ && async_->idle_yield_armed()) || (rma_ && rma_->idle_yield_armed());
}

long Transport::protocol_nap_us() const { return async_ && async_->thread_running() ? async_->nap_max_us() : 0; }

int Transport::direct_peers() const {
  int n = 0;
  for (int r = 0; r < nranks_; r++) n += (r != rank_ && is_direct(r)) ? 1 : 0;
  return n;
}

void Transport::finalize() {
  delete fetch_;   // collective: the window gets read through
  fetch_ = nullptr;
  delete async_;   // collective: the last puts, then the protocol thread stops
  delete rma_;     // the progress thread, then the windows
  delete direct_;  // the peers' mappings
  async_ = nullptr;
  rma_ = nullptr;
  direct_ = nullptr;
  progress_on_ = false;
  routes_.clear();
  many_ = far_ = nullptr;
  if (meta_map_) munmap(meta_map_, opt_.meta_size);
  if (self_data_) munmap(self_data_, opt_.data_size);
  meta_map_ = nullptr;
  self_data_ = nullptr;
  self_meta_ = nullptr;
  if (data_fd_ >= 0) close(data_fd_);
  if (meta_fd_ >= 0) close(meta_fd_);
  data_fd_ = meta_fd_ = -1;
  if (group_comm_ != MPI_COMM_NULL) MPI_Comm_free(&group_comm_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  any_remote_ = false;
}

void Transport::zero_self_meta(uint64_t off, uint64_t len) {
  constexpr uint64_t kPageSize = 4096;
  uint8_t* m = self_meta_ + off;
  if (meta_fd_ >= 0 && self_meta_ == meta_map_) {
    const uint64_t lo = (off + kPageSize - 1) / kPageSize * kPageSize, hi = (off + len) / kPageSize * kPageSize;
    if (hi > lo && fallocate(meta_fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)lo, (off_t)(hi - lo)) == 0) {
      std::memset(m, 0, lo - off);
      std::memset(self_meta_ + hi, 0, off + len - hi);
      return;
    }
    std::memset(m, 0, len);
    return;
  }
  zero_where_set(m, len);
}

}  // namespace loom
