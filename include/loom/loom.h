/* Loom: a software distributed shared memory over MPI-3 one-sided
 * communication.  This is the public C API (C11).
 *
 * Conventions
 *  - Every call returns a loom_status_t: LOOM_OK (0) on success, a negative
 *    value naming the cause otherwise.  loom_strerror(s) names a status;
 *    loom_last_error() returns the detailed message (cause, errno text or MPI
 *    error string) of the last failing call on this thread.
 *  - Output parameters are written only on success.
 *  - The library never exits the process on a user error and never prints to
 *    stdout.  An error that leaves the job inconsistent (a failed MPI call in
 *    the middle of a protocol step) aborts the job with a message on stderr.
 *  - Threads: any thread of a rank may touch Loom memory and make calls
 *    (OpenMP or pthreads inside a rank).  The threads share the rank's
 *    copies of pages (a page one fetched is there for all) and take turns
 *    at its protocol state.  A release by one thread (unlock, barrier,
 *    loom_release) publishes every write its rank's threads made before it
 *    (ordered before it by the program's own thread synchronization);
 *    writes made concurrently with it are published by this release or the
 *    rank's next one.  An acquire by one thread makes what it acquires
 *    visible to every thread of the rank that synchronizes with it after.
 *    A Loom lock is held by one thread at a time across all threads of all
 *    ranks; the thread that locked it unlocks it.  loom_barrier and the
 *    collective calls are made by one thread per rank and hold the rank
 *    while they run (other threads' faults wait for them);
 *    loom_thread_barrier is the barrier every thread of every rank enters.
 *    loom_init and loom_finalize are called by one thread.
 *
 * Memory model
 *  Loom memory is one range reserved at the same virtual address on every
 *  rank; a pointer into it is a plain pointer, valid on every rank.  Programs
 *  free of data races (every pair of conflicting accesses, at least one a
 *  write, is ordered by Loom barriers, locks or atomics-with-sync) observe
 *  sequentially consistent memory (home-based lazy release consistency,
 *  multiple writers, byte-exact merging of concurrent writes to one page).
 *
 *  Loom memory is protected page by page.  A system call or an MPI call
 *  handed Loom memory does not take Loom's fault path (read(2) into a
 *  protected page fails with EFAULT, and a fault inside MPI cannot fetch
 *  the page through MPI).  Loom therefore intercepts the MPI calls that take
 *  buffers (point to point, persistent point to point, collectives and
 *  their nonblocking forms, MPI_Put/Get/Accumulate, MPI-IO's reads and
 *  writes) and read, write,
 *  pread, pwrite, readv, writev,
 *  recv, send, recvfrom, sendto, fread and fwrite, and prepares their Loom
 *  buffers itself (link -lloom before -lmpi).  A nonblocking operation on
 *  Loom memory must be complete (MPI_Wait/MPI_Test) before the rank's next
 *  barrier, lock, unlock, allocation, free or atomic: otherwise the job is
 *  aborted with a message naming it; so must a split collective MPI-IO
 *  call (MPI_File_read_all_begin ... _end) and a started persistent
 *  request.  For any other call (persistent collectives, neighbourhood
 *  collectives, recvmsg, ...; the list is
 *  in docs/ARCHITECTURE.md, "Interception") call loom_prepare(ptr, len,
 *  access) first: the range is then valid for that access until the
 *  calling rank's next barrier, lock or unlock.
 */
#ifndef LOOM_LOOM_H
#define LOOM_LOOM_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define LOOM_API
#elif defined(LOOM_BUILDING)
#define LOOM_API __attribute__((visibility("default")))
#else
#define LOOM_API
#endif

/* The version of these headers (CMake's project version is read from here).
 * loom_version() is the version of the library the program runs with. */
#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION "0.1.0"
/* One number that grows with the version: 0.1.0 is 100, 1.2.3 is 10203. */
#define LOOM_VERSION_NUMBER (LOOM_VERSION_MAJOR * 10000 + LOOM_VERSION_MINOR * 100 + LOOM_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH" of the library linked at run time. */
LOOM_API const char *loom_version(void);
/* What built that library, as one JSON object: {"version": ..., "commit":
 * ... (git hash, "+dirty" when the tree had changes, "unknown" outside a
 * git checkout), "commit_date": ..., "compiler": ..., "mpi": ... (the MPI
 * library's version string, once MPI is initialized)}.  Loom and its tools
 * put it in every JSON file they write, under "loom". */
LOOM_API const char *loom_build_info(void);

typedef enum loom_status {
  LOOM_OK = 0,
  LOOM_ERR_INVALID = -1,          /* an argument is out of range or malformed */
  LOOM_ERR_NOT_INITIALIZED = -2,  /* called before loom_init or after loom_finalize */
  LOOM_ERR_ALREADY_INITIALIZED = -3,
  LOOM_ERR_NO_MEMORY = -4,        /* the global memory cannot hold the request */
  LOOM_ERR_BAD_POINTER = -5,      /* not allocated by Loom, or already freed */
  LOOM_ERR_MISMATCH = -6,         /* a collective call got different arguments on different ranks */
  LOOM_ERR_CONFIG = -7,           /* an impossible configuration value */
  LOOM_ERR_ADDRESS = -8,          /* no virtual range free at one address on every rank */
  LOOM_ERR_MPI = -9,              /* the MPI library reported an error */
  LOOM_ERR_SYSTEM = -10,          /* a system call failed */
  LOOM_ERR_BUSY = -11,            /* the resource is held (e.g. unlock of a lock not held) */
  LOOM_ERR_THREAD = -12           /* (no longer returned: every thread may call Loom) */
} loom_status_t;

typedef enum loom_home_policy {
  LOOM_HOME_FIRST_TOUCH = 0, /* first rank to touch a page becomes its home; a rank touching a
                                block's pages in address order takes the rest of a unit of
                                LOOM_UNIT_PAGES at once (at most LOOM_UNIT_PAGES - 1 pages past
                                its last touch, never past the block's end); with every rank on
                                one host sharing pages (LOOM_HOST_SHARE), any first touch takes
                                the unclaimed rest of its unit (there the home only names the
                                file: each page lies physically where it was first written) */
  LOOM_HOME_CYCLIC = 1,      /* page p is homed at rank p mod N */
  LOOM_HOME_BLOCK = 2,       /* each allocation is cut into N contiguous chunks */
  LOOM_HOME_EXPLICIT = 3     /* loom_alloc_collective_at(size, rank): the whole block on one rank */
} loom_home_policy_t;

/* How ranks on other hosts are reached (ranks on one host map each other's
 * memory directly under all three):
 *  RMA: MPI-3 one-sided operations.
 *  ASYNC: two-sided requests served by a protocol thread on the target rank
 *    (needs MPI_THREAD_MULTIPLE).
 *  AUTO (the default): when MPI was initialized with MPI_THREAD_MULTIPLE
 *    (loom_init does that when it initializes MPI), ASYNC except that page
 *    reads go by MPI_Get; RMA otherwise. */
enum { LOOM_TRANSPORT_RMA = 0, LOOM_TRANSPORT_ASYNC = 1, LOOM_TRANSPORT_AUTO = 2 };

/* Coherence protocols, chosen for the whole program (LOOM_PROTOCOL) and per
 * collective allocation (loom_alloc_collective_protocol).
 *  HLRC: home-based lazy release consistency.  A release puts diffs into the
 *    homes; an acquire drops every cached page that another rank writes.
 *  ERC_INVALIDATE: eager release consistency.  Each home keeps the page's
 *    copy-set; a release sends the diffs to the home and tells every other
 *    holder of the page to drop it (applied at the holder's next acquire).
 *  ERC_UPDATE: like ERC_INVALIDATE, but the holders keep a valid read-only
 *    copy: their next acquire brings the page up to date, so a later read
 *    does not fault. */
typedef enum loom_protocol {
  LOOM_PROTOCOL_HLRC = 0,
  LOOM_PROTOCOL_ERC_INVALIDATE = 1,
  LOOM_PROTOCOL_ERC_UPDATE = 2
} loom_protocol_t;

/* Configuration.  loom_config_default() fills every field from the LOOM_*
 * environment variables (or their defaults); change fields, then pass the
 * struct to loom_init. */
typedef struct loom_config {
  uint64_t mem_size;                /* bytes of global memory (LOOM_MEM_SIZE) */
  uint32_t unit_pages;              /* pages fetched per fault (LOOM_UNIT_PAGES) */
  loom_home_policy_t home_policy;   /* LOOM_HOME */
  uint32_t locks;                   /* number of lock ids (LOOM_LOCKS) */
  int local_map;                    /* 1: map same-host peers directly; 0: treat every peer as remote (LOOM_LOCAL_MAP) */
  int progress_thread;              /* -1 auto, 0 off, 1 on (LOOM_PROGRESS) */
  int stats;                        /* print statistics at finalize (LOOM_STATS) */
  char stats_file[256];             /* JSON statistics file (LOOM_STATS_FILE); %r is the rank */
  uint64_t base_address;            /* 0: choose; else the address to reserve (LOOM_BASE) */
  int spin;                         /* polls before a wait loop yields (LOOM_SPIN) */
  int log_errors;                   /* log each error once to stderr where detected (LOOM_LOG_ERRORS) */
  int64_t clock_skew_ns;            /* testing: add rank * skew to this rank's clock (LOOM_CLOCK_SKEW_NS) */
  int print_config;                 /* rank 0 prints the effective configuration at init (LOOM_PRINT_CONFIG) */
  int migrate;                      /* at barriers, move a page's home to the one rank that writes it (once per page): -1 auto (on unless checkpointing), 0, 1 (LOOM_MIGRATE) */
  loom_protocol_t protocol;         /* coherence protocol of blocks allocated without one (LOOM_PROTOCOL) */
  int prefetch;                     /* at barriers, fetch the pages on other hosts this rank keeps reading
                                       (LOOM_PREFETCH: 1; 2: "gets", the earlier design; 0: off) */
  int transport;                    /* LOOM_TRANSPORT_AUTO, _RMA (one-sided) or _ASYNC (a protocol thread serves two-sided requests) (LOOM_TRANSPORT) */
  int hang_timeout;                 /* seconds one wait in Loom may last before every waiting rank reports and the job is aborted; 0 never (LOOM_HANG_TIMEOUT) */
  char restart_dir[256];            /* restore the global memory from the newest checkpoint in this directory at init (LOOM_RESTART) */
  char checkpoint_dir[256];         /* where loom_checkpoint(NULL) and LOOM_CHECKPOINT_EVERY write (LOOM_CHECKPOINT_DIR) */
  int checkpoint_every;             /* checkpoint at every K-th loom_barrier; 0 never (LOOM_CHECKPOINT_EVERY) */
  int adapt;                        /* 1: a lazy page that acquires keep dropping for nothing turns eager (erc-invalidate); 0 (default): every page keeps its block's protocol (LOOM_ADAPT) */
  int exact;                        /* 1 (default): a lock's acquire drops the lazy pages written in the intervals it acquires (vector timestamps); 0: every page another rank writes (LOOM_EXACT) */
  char trace_dir[256];              /* write an event trace per rank into this directory (LOOM_TRACE; docs/TRACE.md) */
  int trace_runs;                   /* with a trace: also the byte runs of every diff a release sends, for `loom trace races` (LOOM_TRACE_RUNS) */
  int trace_homes;                  /* with a trace: each barrier re-protects this rank's home pages, so that its own first access to each in every barrier interval is recorded, for `loom place` (LOOM_TRACE_HOMES) */
  char placement[256];              /* homes for page ranges of the collective allocations, from `loom place` (LOOM_PLACEMENT) */
  int host_share;                   /* 1 (default): with every rank on one host, map each page from its home's memory (no copies, twins or diffs; off when traced); 0: copies and the protocol, as across hosts (LOOM_HOST_SHARE) */
  int wait_note;                    /* seconds one wait in Loom may last before the rank says, once a job, what it waits in (the job goes on waiting); 0 never (LOOM_WAIT_NOTE) */
  int init_timeout;                 /* seconds MPI_Init_thread, when loom_init calls it, may take before Loom ends the rank with a message (a rank that never started, a host that cannot be reached); -1 auto (120, or a quarter second per rank of the launcher's job if more), 0 never (LOOM_INIT_TIMEOUT) */
  int stride;                       /* 1 (default): a fault whose window of another host's pages lies a constant step past the windows of the two faults before it from that home fetches the next windows along the step with its own (2, doubling to 16 while they are read); 0: its window only (LOOM_STRIDE) */
  int mpi_serves;                   /* 1 (default): where other ranks reach this one by requests (another host), the program's blocking point-to-point MPI calls and waits poll and serve those requests meanwhile, as Loom's own waits do; 0: the MPI library's blocking calls, the protocol thread serving (LOOM_MPI_SERVES) */
} loom_config_t;

/* Fill cfg with the defaults and the LOOM_* environment variables (as
 * loom_init(..., NULL) would), for a program that changes a few fields and
 * passes cfg to loom_init.  Fails with the variable's name if one is
 * malformed. */
LOOM_API loom_status_t loom_config_default(loom_config_t *cfg);

/* Start Loom (collective).  Initializes MPI if the program has not.  argc and
 * argv may be NULL.  cfg may be NULL for the environment's configuration. */
LOOM_API loom_status_t loom_init(int *argc, char ***argv, const loom_config_t *cfg);
/* Stop Loom (collective): a final barrier, statistics, then MPI_Finalize if
 * loom_init initialized MPI. */
LOOM_API loom_status_t loom_finalize(void);
LOOM_API int loom_initialized(void);

/* Fork-style start, for programs written for threads (main sets up shared
 * data, then creates workers that share its globals; SPLASH's CREATE).
 * Call loom_start_serial instead of loom_init, first thing in main or from
 * a constructor: every process starts itself once more with address-space
 * randomization off (so the program sits at the same addresses on every
 * rank; checked), Loom starts, and rank 0 returns to run main.  The other
 * ranks do not return: they wait, asleep, for rank 0's loom_spawn.
 * loom_spawn(fn, arg, flags) copies rank 0's private writable data -- the
 * program's global and static variables, not its heap, stack or other
 * threads' data -- to every other rank at the same addresses, and runs
 * fn(arg) there; rank 0 goes on (SPLASH's CREATE calls fn itself next).
 * The spawn is a release on rank 0 and an acquire on the workers.
 * loom_join, on rank 0, waits until every worker's fn has returned (a
 * barrier: their writes to Loom memory are visible after it); the workers
 * then wait for the next spawn.  When rank 0 calls loom_finalize, or exits
 * (exit, return from main), every rank finalizes and the workers exit with
 * status 0.
 * Limits: data main shares with the workers must be in Loom memory
 * (loom_alloc) or in global variables (copied once, at the spawn; a
 * worker's later writes to globals stay on its rank); pointers to main's
 * heap (malloc), stack, open files or MPI objects held in globals are not
 * valid on the other ranks; the executable must be the same on every rank.
 * Before the spawn, collective calls (barriers, collective allocation) on
 * rank 0 fail with LOOM_ERR_INVALID: the other ranks are not listening.
 * flags: LOOM_SPAWN_ROOT_LAST makes each rank's first loom_lock after the
 * spawn be granted in rank order 1, 2, ..., n-1, then 0 (programs that
 * number their workers in the order they first enter a critical section
 * then give rank 0, which runs main, the last number; every rank must take
 * a lock for the others to get theirs). */
enum { LOOM_SPAWN_ROOT_LAST = 1 };
LOOM_API loom_status_t loom_start_serial(int *argc, char ***argv, const loom_config_t *cfg);
LOOM_API loom_status_t loom_spawn(void (*fn)(void *), void *arg, unsigned flags);
LOOM_API loom_status_t loom_join(void);
LOOM_API int loom_serial(void); /* 1 after loom_start_serial, until loom_finalize */

/* How many other ranks this rank maps directly (the ranks on its host, with
 * LOOM_LOCAL_MAP=1); the rest are reached through MPI.  -1 when not
 * initialized. */
LOOM_API int loom_direct_peers(void);

LOOM_API int loom_rank(void);    /* -1 when not initialized */
LOOM_API int loom_nranks(void);  /* 0 when not initialized */
LOOM_API double loom_wtime(void);/* seconds, this rank's monotonic clock */

/* A pseudo-global clock.  loom_clock_sync (collective) estimates every rank's
 * clock offset from rank 0 by `rounds` ping-pongs each, keeping the fastest;
 * loom_global_time() is then loom_wtime() plus that offset: start and end
 * times taken on different ranks become comparable within `bound`.
 * loom_clock_check (collective) measures the offset again without changing
 * it and reports the drift since the sync. */
typedef struct loom_clock {
  double offset;      /* seconds to add to this rank's clock to get rank 0's */
  double bound;       /* error bound of this rank's offset (s) */
  double worst_bound; /* the largest bound over all ranks (s) */
  double drift;       /* change of the offset per second since the sync (check only) */
} loom_clock_t;
LOOM_API loom_status_t loom_clock_sync(int rounds, loom_clock_t *out);
LOOM_API loom_status_t loom_clock_check(int rounds, loom_clock_t *out);
LOOM_API double loom_global_time(void);

/* Collective allocation: every rank calls with the same size; each gets the
 * same address.  Homes follow the configured policy.  The memory reads as
 * zero.  Blocks are whole pages (the unit of coherence); size 0 gives a
 * block of one page of its own, like malloc(0) a unique pointer. */
LOOM_API loom_status_t loom_alloc_collective(size_t size, void **out);
/* Like loom_alloc_collective with an explicit home policy for this block. */
LOOM_API loom_status_t loom_alloc_collective_policy(size_t size, loom_home_policy_t policy, void **out);
/* Like loom_alloc_collective with every page homed at `home_rank`. */
LOOM_API loom_status_t loom_alloc_collective_at(size_t size, int home_rank, void **out);
/* Like loom_alloc_collective with this block under its own coherence
 * protocol (the others follow LOOM_PROTOCOL). */
LOOM_API loom_status_t loom_alloc_collective_protocol(size_t size, loom_protocol_t protocol, void **out);
/* Single-rank allocation: any rank allocates; the pointer is valid on every
 * rank, 16-byte aligned at least, and the memory reads as zero.  Any rank
 * may free it.  Sizes up to 2048 bytes are packed: they come from size
 * classes (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
 * 2048 bytes) carved from 64 KiB chunks the allocating rank takes from the
 * global memory, so blocks of different ranks' programs may share a page
 * (the multiple-writer protocol merges their writes); chunks are not given
 * back to the global memory, a freed small block is reused for its class.
 * Larger sizes are whole pages, homed on first touch.  Size 0 gives a
 * unique 16-byte block (as malloc(0) a unique pointer). */
LOOM_API loom_status_t loom_alloc(size_t size, void **out);
/* Free a block from loom_alloc (any rank) or loom_alloc_collective (all
 * ranks call, collectively).  A pointer that is not the start of a live
 * block (inside one, never handed out, freed already) gives
 * LOOM_ERR_BAD_POINTER and changes nothing. */
LOOM_API loom_status_t loom_free(void *ptr);
LOOM_API loom_status_t loom_free_collective(void *ptr);

/* Synchronization: a barrier is a release then an acquire on every rank. */
LOOM_API loom_status_t loom_barrier(void);
/* Split-phase (fuzzy) barrier, over every rank or a subset.
 * loom_barrier_arrive is the release (this rank's writes so far become
 * visible to the members) and signals the members; loom_barrier_wait waits
 * for every member's arrival and is the acquire.  Between the two the rank
 * may do work that neither reads what other members wrote in this phase nor
 * writes what they read.  ranks/n list the members (the calling rank among
 * them, every member passing the same set); NULL and 0 mean every rank.
 * Members must enter the barriers they share in the same order. */
LOOM_API loom_status_t loom_barrier_arrive(const int *ranks, int n);
LOOM_API loom_status_t loom_barrier_wait(void);
/* A barrier over a subset of ranks: arrive then wait. */
LOOM_API loom_status_t loom_barrier_subset(const int *ranks, int n);
/* The barrier of every thread of every rank: nthreads threads of each rank
 * call it (every thread of a round passing the same count); the last of a
 * rank's threads to arrive runs loom_barrier for the rank while the others
 * sleep, and all return when it ends, with its status.  What any thread of
 * any rank wrote before the barrier is visible to every thread after it
 * (OpenMP's "omp barrier", ArgoDSM's barrier(threadcount)).  nthreads 1 is
 * loom_barrier. */
LOOM_API loom_status_t loom_thread_barrier(int nthreads);

/* Let the runtime serve protocol requests aimed at this rank now (SCASH's
 * polling): with MPI peers and no progress thread, a rank that computes
 * for long without calling Loom or MPI delays others' page fetches and
 * diffs until it calls in; loom_poll is a cheap way to call in.  Direct
 * peers never need it.  The time is accounted as polling. */
LOOM_API loom_status_t loom_poll(void);

/* Checkpoint and restart (collective).  loom_checkpoint is a barrier that
 * also writes the global memory to `dir` (NULL: LOOM_CHECKPOINT_DIR): every
 * rank the home pages it holds and the directory entries it owns, rank 0
 * the heap table; each file written, synced and renamed, then a LATEST file
 * names the complete checkpoint, so a run killed mid-way keeps the previous
 * one.  No lock may be held.  With LOOM_RESTART=dir, loom_init brings the
 * global memory back at the same address (same rank count and
 * LOOM_MEM_SIZE); loom_restarted() then returns 1, and the program's
 * collective allocations, made again in the same order with the same
 * sizes, return the saved blocks with their contents instead of new ones
 * (the program reads its own saved iteration from them).  Blocks from
 * loom_alloc are restored as they were (pointers to them stay valid). */
LOOM_API loom_status_t loom_checkpoint(const char *dir);
LOOM_API int loom_restarted(void);

/* SCASH's update: at this rank's next release (barrier, unlock, split
 * barrier arrive), the pages of [ptr, ptr+len) are brought up to date on
 * every other rank, at that rank's next acquire: it holds a current
 * read-only copy afterwards, and reading the range does not fault, whatever
 * the protocol.  The range must lie in allocated Loom memory. */
LOOM_API loom_status_t loom_update(const void *ptr, size_t len);

/* Locks 0 .. cfg.locks-1: FIFO queue locks.  loom_lock is an acquire,
 * loom_unlock a release. */
LOOM_API loom_status_t loom_lock(uint32_t id);
LOOM_API loom_status_t loom_unlock(uint32_t id);
/* Take n consecutive lock ids from one counter shared by every rank (any
 * rank, any time; ids from 0 up): *first is the first.  A program either
 * names its locks itself or takes them here, not both.  Fails with
 * LOOM_ERR_NO_MEMORY past LOOM_LOCKS ids. */
LOOM_API loom_status_t loom_lock_alloc(uint32_t n, uint32_t *first);
/* Take lock `id` only if no rank holds it or waits for it: *acquired = 1
 * and the call is an acquire, as loom_lock; otherwise *acquired = 0 at
 * once, with no queue entry and no memory action.  A lock
 * this rank holds already is not taken again (*acquired = 0).  Across hosts
 * an unlock is a message to the lock's home that its sender does not wait
 * for: a lock unlocked before a barrier is free after it, but a trylock
 * ordered after another rank's unlock only through other locks or atomics
 * may fail while that message is on its way.  There, too, a rank keeps a
 * lock it unlocked until another rank wants it: a trylock that finds the
 * lock kept by another rank fails, and tells that rank, which gives it up,
 * so that a trylock repeated later succeeds. */
LOOM_API loom_status_t loom_trylock(uint32_t id, int *acquired);

/* Atomics on 8-byte-aligned 64-bit words of Loom memory, performed at the
 * word's home.  The calling rank's own earlier writes to the word's page are
 * made visible first; after the next acquire, ordinary loads on every rank
 * see the word's atomic updates.  `old` may be NULL. */
LOOM_API loom_status_t loom_atomic_fetch_add(uint64_t *addr, uint64_t value, uint64_t *old);
LOOM_API loom_status_t loom_atomic_cas(uint64_t *addr, uint64_t expected, uint64_t desired, uint64_t *old);
LOOM_API loom_status_t loom_atomic_exchange(uint64_t *addr, uint64_t value, uint64_t *old);
LOOM_API loom_status_t loom_atomic_load(uint64_t *addr, uint64_t *value);
LOOM_API loom_status_t loom_atomic_store(uint64_t *addr, uint64_t value);
/* The same operations on 4-byte-aligned 32-bit words (_u32), floats (_f32,
 * 4-byte aligned) and doubles (_f64, 8-byte aligned).  A float's add is
 * the IEEE add, done atomically at the home (a compare-and-swap loop on its
 * bits); a float's cas compares bit patterns (-0.0 differs from 0.0, a NaN
 * matches itself).  32-bit words next to each other are separate words
 * (atomics on both halves of a 64-bit word lose no update); one word must
 * not be reached by atomics of different widths or types.  A misaligned
 * address gives LOOM_ERR_INVALID, one outside allocated Loom memory
 * LOOM_ERR_BAD_POINTER. */
LOOM_API loom_status_t loom_atomic_fetch_add_u32(uint32_t *addr, uint32_t value, uint32_t *old);
LOOM_API loom_status_t loom_atomic_cas_u32(uint32_t *addr, uint32_t expected, uint32_t desired, uint32_t *old);
LOOM_API loom_status_t loom_atomic_exchange_u32(uint32_t *addr, uint32_t value, uint32_t *old);
LOOM_API loom_status_t loom_atomic_load_u32(uint32_t *addr, uint32_t *value);
LOOM_API loom_status_t loom_atomic_store_u32(uint32_t *addr, uint32_t value);
LOOM_API loom_status_t loom_atomic_fetch_add_f32(float *addr, float value, float *old);
LOOM_API loom_status_t loom_atomic_cas_f32(float *addr, float expected, float desired, float *old);
LOOM_API loom_status_t loom_atomic_exchange_f32(float *addr, float value, float *old);
LOOM_API loom_status_t loom_atomic_load_f32(float *addr, float *value);
LOOM_API loom_status_t loom_atomic_store_f32(float *addr, float value);
LOOM_API loom_status_t loom_atomic_fetch_add_f64(double *addr, double value, double *old);
LOOM_API loom_status_t loom_atomic_cas_f64(double *addr, double expected, double desired, double *old);
LOOM_API loom_status_t loom_atomic_exchange_f64(double *addr, double value, double *old);
LOOM_API loom_status_t loom_atomic_load_f64(double *addr, double *value);
LOOM_API loom_status_t loom_atomic_store_f64(double *addr, double value);

/* Fences: the two halves of a synchronization, without a lock or barrier.
 * loom_release() makes this rank's writes so far visible at their homes
 * (as an unlock does); loom_acquire() makes the writes other ranks released
 * before it visible to this rank's later reads (as a lock does).  Message
 * passing through a flag is then correct under every protocol and
 * transport: the writer writes the data, calls loom_release() and stores
 * the flag with a Loom atomic; the reader loads the flag with a Loom atomic
 * until it is set, calls loom_acquire() and reads the data.  The _range
 * forms restrict the work to the pages of [ptr, ptr+len) (ArgoDSM's
 * selective coherence): copies of other pages are kept and other dirty
 * pages stay unreleased (a range release is a full one while an eager
 * protocol's home writes or loom_update runs are pending). */
LOOM_API loom_status_t loom_release(void);
LOOM_API loom_status_t loom_acquire(void);
LOOM_API loom_status_t loom_release_range(const void *ptr, size_t len);
LOOM_API loom_status_t loom_acquire_range(const void *ptr, size_t len);

/* Atomics with a memory order, as C11's _explicit forms: LOOM_RELEASE is a
 * loom_release() before the atomic, LOOM_ACQUIRE a loom_acquire() after
 * it, LOOM_ACQ_REL both.  Loom's atomics are performed one at a time at the
 * words' homes, so they are sequentially consistent among themselves:
 * LOOM_SEQ_CST is LOOM_ACQ_REL.  The plain forms above are LOOM_RELAXED. */
typedef enum {
  LOOM_RELAXED = 0,
  LOOM_ACQUIRE = 1,
  LOOM_RELEASE = 2,
  LOOM_ACQ_REL = 3,
  LOOM_SEQ_CST = 4
} loom_order_t;
LOOM_API loom_status_t loom_atomic_fetch_add_explicit(uint64_t *addr, uint64_t value, uint64_t *old, loom_order_t order);
LOOM_API loom_status_t loom_atomic_cas_explicit(uint64_t *addr, uint64_t expected, uint64_t desired, uint64_t *old,
                                                loom_order_t order);
LOOM_API loom_status_t loom_atomic_exchange_explicit(uint64_t *addr, uint64_t value, uint64_t *old, loom_order_t order);
LOOM_API loom_status_t loom_atomic_load_explicit(uint64_t *addr, uint64_t *value, loom_order_t order);
LOOM_API loom_status_t loom_atomic_store_explicit(uint64_t *addr, uint64_t value, loom_order_t order);

/* Make [ptr, ptr+len) valid for a system call or an MPI call: LOOM_READ if
 * the call reads the memory (write(2), MPI_Send), LOOM_WRITE if it writes it
 * (read(2), MPI_Recv).  Valid until this rank's next synchronization.  The
 * calls Loom intercepts (see the top of this file) do this themselves; it
 * is needed only for the others. */
enum { LOOM_READ = 1, LOOM_WRITE = 2 };
LOOM_API loom_status_t loom_prepare(void *ptr, size_t len, int access);

/* Is ptr inside Loom memory? */
LOOM_API int loom_is_shared(const void *ptr);
/* The home rank of the page holding ptr (-1 if not yet homed).  With first
 * touch, the rank that touched the page first; a rank touching a block's
 * pages in address order claims the rest of its unit (LOOM_UNIT_PAGES) at
 * once, and with every rank on one host sharing pages any first touch does
 * (LOOM_HOME_FIRST_TOUCH above). */
LOOM_API loom_status_t loom_home_of(const void *ptr, int *rank);

/* Statistics of this rank, by category. */
typedef struct loom_stats {
  uint64_t read_faults, write_faults;
  uint64_t pages_fetched, bytes_fetched;
  uint64_t twins, diffs, diff_bytes;
  uint64_t invalidations;
  uint64_t barriers, locks, unlocks, atomics;
  uint64_t migrations;  /* homes this rank took over (LOOM_MIGRATE) */
  /* seconds; where ranks share pages on one host, t_lock and t_unlock are
   * the waits only (an uncontended lock or unlock is a few atomics) */
  double t_fault, t_barrier, t_lock, t_unlock, t_diff, t_poll;
  uint64_t notices;     /* eager protocols and loom_update: invalidate/update notices sent */
  uint64_t updates;     /* pages brought up to date at an acquire (update protocol, loom_update) */
  double t_update;      /* seconds of acquires spent bringing pages up to date */
  uint64_t prefetched;  /* pages fetched at a barrier because this rank kept reading them (hot pages) */
  uint64_t prefetch_used; /* of those, pages read before the next acquire (a page the push installs
                             readable, as it does three times in four once a pushed copy of it was read,
                             is counted read: its read is not seen) */
  uint64_t switched;    /* pages this rank homes that turned from lazy to eager (LOOM_ADAPT) */
  uint64_t pages_lazy, pages_eager; /* pages this rank homes now, by protocol (filled by loom_stats_get and the reports) */
  uint64_t scoped_acquires;  /* lock acquires that dropped only the pages written in the intervals they acquire (LOOM_EXACT) */
  uint64_t scoped_fallbacks; /* of those, acquires that found a record gone and dropped every page others write */
  uint64_t meta_bytes;  /* size of this rank's Meta segment: directory, copy-sets, lock queues, notice rings, interval
                           records (grows with the rank count, docs/ARCHITECTURE.md; address space: pages never
                           touched take no memory) */
  double t_rank_wait;   /* seconds this rank's threads waited for one another: for the rank lock that faults and
                           Loom calls take turns at (0 with one thread) */
  uint64_t locks_kept;  /* of locks, the ones taken again with no message: the rank had kept the lock at its last
                           unlock, and no other rank had wanted it since (locks whose home is reached by requests:
                           across hosts) */
  uint64_t pages_mapped; /* pages a fault mapped from their home's memory instead of copying (all ranks on one
                            host, LOOM_HOST_SHARE) */
  uint64_t home_lookups; /* reads of the home directory to learn pages' homes (a fault's window read as one batch
                            counts once; the entries of ranks whose memory this rank maps are local loads) */
  uint64_t reads_told;   /* messages telling a home on another host that this rank reads its pages, sent where the
                            home's cores are all taken (its waits would nap while a read waits for its next poll;
                            at most one every 0.5 ms a home: docs/ARCHITECTURE.md, "Waiting") */
  uint64_t pages_ahead;  /* of prefetched, pages that came with the home's own arrival at the barrier, ahead of its
                            agreement (a job of 2 ranks across hosts: docs/ARCHITECTURE.md, "Pushes ahead") */
  uint64_t pages_strided; /* of pages_fetched, pages a fault fetched in windows further along the step of this rank's
                             faults on one home's pages, with its own window (LOOM_STRIDE) */
  uint64_t writer_loads;  /* writer sets an acquire read from the directory to decide whether another rank writes a
                             cached page (HLRC; a set once seen naming another rank is not read again, and the
                             lookups that learn homes read the sets with them) */
  uint64_t served_in_mpi; /* requests of other ranks this rank's application threads served while they waited in
                             one of the program's own blocking MPI calls (LOOM_MPI_SERVES; across hosts) */
} loom_stats_t;
LOOM_API loom_status_t loom_stats_get(loom_stats_t *out);
/* The calling thread's share of this rank's statistics since the last
 * loom_stats_reset: what the rank did while this thread held it (its
 * faults, its releases and acquires, the waits of its own calls).  The
 * gauges pages_lazy, pages_eager and meta_bytes are the rank's. */
LOOM_API loom_status_t loom_thread_stats_get(loom_stats_t *out);
/* Zero this rank's statistics and restart their wall clock: call it (after
 * a barrier) where a measurement starts, so that the report at finalize
 * covers the measurement alone. */
LOOM_API loom_status_t loom_stats_reset(void);
/* JSON object of this rank's statistics into buf (NUL-terminated): the
 * fields of loom_stats_t, "wall" (seconds since loom_init or the last
 * loom_stats_reset), "rank", "ranks", "loom" (loom_build_info) and "date". */
LOOM_API loom_status_t loom_stats_json(char *buf, size_t len);
/* The effective configuration, one "LOOM_X=value  # help" line per setting. */
LOOM_API loom_status_t loom_config_string(char *buf, size_t len);

/* The name of a status ("invalid argument", ...), and the detailed message
 * of the last failing call on this thread (cause, values, what to do). */
LOOM_API const char *loom_strerror(loom_status_t s);
LOOM_API const char *loom_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* LOOM_LOOM_H */
