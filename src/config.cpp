// The one table of LOOM_* settings; see config.hpp.
#include "config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace loom {
namespace {

constexpr unsigned long long kPage = 4096;

bool parse_uint(const char* s, unsigned long long* out) {
  if (!s || !std::isdigit((unsigned char)*s)) return false;  // no sign, no space
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 0);
  if (errno || *end || s[0] == '-') return false;
  *out = v;
  return true;
}

bool parse_bool(const char* s, int* out) {
  if (!std::strcmp(s, "1") || !strcasecmp(s, "on") || !strcasecmp(s, "yes") || !strcasecmp(s, "true")) {
    *out = 1;
    return true;
  }
  if (!std::strcmp(s, "0") || !strcasecmp(s, "off") || !strcasecmp(s, "no") || !strcasecmp(s, "false")) {
    *out = 0;
    return true;
  }
  return false;
}

const char* const kPolicyNames[] = {"first-touch", "cyclic", "block", "explicit"};

Status bad(const char* name, const char* value, const char* expect) {
  return fail(LOOM_ERR_CONFIG, "%s=\"%s\" is not valid: expected %s", name, value, expect);
}

// ---- one parser and one printer per setting -------------------------------

Status p_mem(loom_config_t* c, const char* n, const char* v) {
  unsigned long long x;
  if (!parse_size(v, &x) || x == 0) return bad(n, v, "a size such as 512M or 2G");
  c->mem_size = x;
  return Status::ok();
}
void w_mem(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%llu", (unsigned long long)c->mem_size); }

Status p_unit(loom_config_t* c, const char* n, const char* v) {
  unsigned long long x;
  if (!parse_uint(v, &x) || x == 0 || x > 1024) return bad(n, v, "a page count from 1 to 1024");
  c->unit_pages = (uint32_t)x;
  return Status::ok();
}
void w_unit(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%u", c->unit_pages); }

Status p_home(loom_config_t* c, const char* n, const char* v) {
  for (int i = 0; i < 3; i++)  // "explicit" is per allocation only
    if (!strcasecmp(v, kPolicyNames[i])) {
      c->home_policy = (loom_home_policy_t)i;
      return Status::ok();
    }
  return bad(n, v, "first-touch, cyclic or block");
}
void w_home(const loom_config_t* c, char* b, size_t l) {
  std::snprintf(b, l, "%s", (unsigned)c->home_policy < 4 ? kPolicyNames[c->home_policy] : "?");
}

Status p_locks(loom_config_t* c, const char* n, const char* v) {
  unsigned long long x;
  if (!parse_uint(v, &x) || x == 0 || x > (1u << 20)) return bad(n, v, "a lock count from 1 to 1048576");
  c->locks = (uint32_t)x;
  return Status::ok();
}
void w_locks(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%u", c->locks); }

Status p_map(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->local_map)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_map(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->local_map); }

Status p_progress(loom_config_t* c, const char* n, const char* v) {
  if (!strcasecmp(v, "auto")) {
    c->progress_thread = -1;
    return Status::ok();
  }
  if (!parse_bool(v, &c->progress_thread)) return bad(n, v, "auto, 0 or 1");
  return Status::ok();
}
void w_progress(const loom_config_t* c, char* b, size_t l) {
  std::snprintf(b, l, "%s", c->progress_thread < 0 ? "auto" : c->progress_thread ? "1" : "0");
}

Status p_stats(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->stats)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_stats(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->stats); }

// A path: shorter than the field, and no control characters (a newline
// would break the printed configuration's one line per setting).
Status path_into(char* dst, size_t size, const char* n, const char* v) {
  if (std::strlen(v) >= size) return bad(n, v, "a path shorter than 256 bytes");
  for (const char* p = v; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) return bad(n, v, "a path without control characters");
  std::snprintf(dst, size, "%s", v);
  return Status::ok();
}

Status p_sfile(loom_config_t* c, const char* n, const char* v) { return path_into(c->stats_file, sizeof c->stats_file, n, v); }
void w_sfile(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%s", c->stats_file); }

Status p_trace(loom_config_t* c, const char* n, const char* v) { return path_into(c->trace_dir, sizeof c->trace_dir, n, v); }
Status p_place(loom_config_t* c, const char* n, const char* v) { return path_into(c->placement, sizeof c->placement, n, v); }
void w_place(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%s", c->placement); }
void w_trace(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%s", c->trace_dir); }

Status p_restart(loom_config_t* c, const char* n, const char* v) {
  return path_into(c->restart_dir, sizeof c->restart_dir, n, v);
}
void w_restart(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%s", c->restart_dir); }

Status p_ckdir(loom_config_t* c, const char* n, const char* v) {
  return path_into(c->checkpoint_dir, sizeof c->checkpoint_dir, n, v);
}
void w_ckdir(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%s", c->checkpoint_dir); }

Status p_ckevery(loom_config_t* c, const char* n, const char* v) {
  unsigned long long x;
  if (!parse_uint(v, &x) || x > 1000000000ull) return bad(n, v, "a barrier count from 0 (never) to 1000000000");
  c->checkpoint_every = (int)x;
  return Status::ok();
}
void w_ckevery(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->checkpoint_every); }

Status p_base(loom_config_t* c, const char* n, const char* v) {
  unsigned long long x;
  if (!parse_uint(v, &x) || (x % kPage)) return bad(n, v, "0 or a page-aligned address such as 0x200000000000");
  c->base_address = x;
  return Status::ok();
}
void w_base(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "0x%llx", (unsigned long long)c->base_address); }

Status p_spin(loom_config_t* c, const char* n, const char* v) {
  unsigned long long x;
  if (!parse_uint(v, &x) || x > 100000000ull) return bad(n, v, "a poll count from 0 to 100000000");
  c->spin = (int)x;
  return Status::ok();
}
void w_spin(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->spin); }

Status p_log(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->log_errors)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_log(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->log_errors); }

Status p_skew(loom_config_t* c, const char* n, const char* v) {
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v, &end, 10);
  if (errno || !*v || *end || x < -1000000000000ll || x > 1000000000000ll)
    return bad(n, v, "nanoseconds from -1e12 to 1e12");
  c->clock_skew_ns = x;
  return Status::ok();
}
void w_skew(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%lld", (long long)c->clock_skew_ns); }

Status p_pcfg(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->print_config)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_pcfg(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->print_config); }

Status p_transport(loom_config_t* c, const char* n, const char* v) {
  if (!strcasecmp(v, "rma")) c->transport = LOOM_TRANSPORT_RMA;
  else if (!strcasecmp(v, "async")) c->transport = LOOM_TRANSPORT_ASYNC;
  else if (!strcasecmp(v, "auto")) c->transport = LOOM_TRANSPORT_AUTO;
  else return bad(n, v, "auto, rma or async");
  return Status::ok();
}
void w_transport(const loom_config_t* c, char* b, size_t l) {
  std::snprintf(b, l, "%s",
                c->transport == LOOM_TRANSPORT_ASYNC ? "async" : c->transport == LOOM_TRANSPORT_RMA ? "rma" : "auto");
}

const char* const kProtocolNames[] = {"hlrc", "erc-invalidate", "erc-update"};

Status p_protocol(loom_config_t* c, const char* n, const char* v) {
  for (int i = 0; i < 3; i++)
    if (!strcasecmp(v, kProtocolNames[i])) {
      c->protocol = (loom_protocol_t)i;
      return Status::ok();
    }
  return bad(n, v, "hlrc, erc-invalidate or erc-update");
}
void w_protocol(const loom_config_t* c, char* b, size_t l) {
  std::snprintf(b, l, "%s", (unsigned)c->protocol < 3 ? kProtocolNames[c->protocol] : "?");
}

Status p_migrate(loom_config_t* c, const char* n, const char* v) {
  if (!strcasecmp(v, "auto")) {
    c->migrate = -1;
    return Status::ok();
  }
  if (!parse_bool(v, &c->migrate)) return bad(n, v, "auto, 0 or 1");
  return Status::ok();
}
void w_migrate(const loom_config_t* c, char* b, size_t l) {
  std::snprintf(b, l, "%s", c->migrate < 0 ? "auto" : c->migrate ? "1" : "0");
}

Status p_prefetch(loom_config_t* c, const char* n, const char* v) {
  if (!strcasecmp(v, "gets")) {
    c->prefetch = 2;
    return Status::ok();
  }
  if (!parse_bool(v, &c->prefetch)) return bad(n, v, "0, 1 or gets");
  return Status::ok();
}
void w_prefetch(const loom_config_t* c, char* b, size_t l) {
  std::snprintf(b, l, "%s", c->prefetch == 2 ? "gets" : c->prefetch ? "1" : "0");
}

Status p_adapt(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->adapt)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_adapt(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->adapt); }

Status p_stride(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->stride)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_stride(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->stride); }

Status p_mpi_serves(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->mpi_serves)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_mpi_serves(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->mpi_serves); }

Status p_trace_runs(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->trace_runs)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_trace_runs(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->trace_runs); }
Status p_trace_homes(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->trace_homes)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_trace_homes(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->trace_homes); }

Status p_exact(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->exact)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_exact(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->exact); }

Status p_share(loom_config_t* c, const char* n, const char* v) {
  if (!parse_bool(v, &c->host_share)) return bad(n, v, "0 or 1");
  return Status::ok();
}
void w_share(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->host_share); }

// Seconds from 0 (never) to 1000000 into *field.
Status seconds_into(int* field, const char* n, const char* v, const char* expect) {
  unsigned long long x;
  if (!parse_uint(v, &x) || x > 1000000ull) return bad(n, v, expect);
  *field = (int)x;
  return Status::ok();
}

Status p_hang(loom_config_t* c, const char* n, const char* v) {
  return seconds_into(&c->hang_timeout, n, v, "seconds from 0 (never) to 1000000");
}
void w_hang(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->hang_timeout); }

Status p_wait_note(loom_config_t* c, const char* n, const char* v) {
  return seconds_into(&c->wait_note, n, v, "seconds from 0 (never) to 1000000");
}
void w_wait_note(const loom_config_t* c, char* b, size_t l) { std::snprintf(b, l, "%d", c->wait_note); }

Status p_init_timeout(loom_config_t* c, const char* n, const char* v) {
  if (!strcasecmp(v, "auto")) {
    c->init_timeout = -1;
    return Status::ok();
  }
  return seconds_into(&c->init_timeout, n, v, "auto, or seconds from 0 (never) to 1000000");
}
void w_init_timeout(const loom_config_t* c, char* b, size_t l) {
  if (c->init_timeout < 0) std::snprintf(b, l, "auto");
  else std::snprintf(b, l, "%d", c->init_timeout);
}

struct Setting {
  const char* name;
  const char* def;
  const char* help;
  Status (*parse)(loom_config_t*, const char*, const char*);
  void (*print)(const loom_config_t*, char*, size_t);
};

const Setting kSettings[] = {
    {"LOOM_MEM_SIZE", "1G", "bytes of global shared memory (K/M/G suffixes)", p_mem, w_mem},
    {"LOOM_UNIT_PAGES", "8", "pages fetched by one fault (the aligned window around it, same home, not cached)", p_unit, w_unit},
    {"LOOM_HOME", "first-touch", "home placement: first-touch, cyclic or block", p_home, w_home},
    {"LOOM_LOCKS", "1024", "number of lock ids", p_locks, w_locks},
    {"LOOM_LOCAL_MAP", "1", "map peers on the same host directly; 0 treats every peer as remote (reached through LOOM_TRANSPORT)", p_map, w_map},
    {"LOOM_PROTOCOL", "hlrc", "coherence protocol of blocks allocated without one: hlrc (home-based lazy), "
     "erc-invalidate or erc-update (eager, copy-sets)", p_protocol, w_protocol},
    {"LOOM_MIGRATE", "auto", "at barriers, move a page's home to the one rank that writes it while its home does not "
     "(once per page); auto: on, except with LOOM_CHECKPOINT_EVERY or LOOM_RESTART", p_migrate, w_migrate},
    {"LOOM_ADAPT", "0", "1: a lazy (hlrc) page that acquires keep dropping though it did not change turns eager "
     "(erc-invalidate) at the next barrier; 0: every page keeps its block's protocol", p_adapt, w_adapt},
    {"LOOM_EXACT", "1", "1: a lock's acquire drops the copies of lazy (hlrc) pages written in the intervals it "
     "acquires (records with vector timestamps); 0: the copies of every page another rank writes", p_exact, w_exact},
    {"LOOM_HOST_SHARE", "1", "1: when every rank runs on one host and maps every peer (LOOM_LOCAL_MAP=1), a fault maps "
     "the page from its home's memory, so ranks share pages as threads do (no copies, twins, diffs or invalidations; "
     "a fault per page at its first access); 0: copies and the coherence protocol, as across hosts. Off with "
     "LOOM_TRACE (a trace records the protocol's work)", p_share, w_share},
    {"LOOM_PREFETCH", "1", "1: at barriers, fetch the pages homed on other hosts that this rank read again after the "
     "last acquire dropped them (hot pages), instead of faulting them in later: asked for before the barrier's "
     "agreement and sent by their homes right after it (jobs of up to 256 ranks; beyond, as with gets); gets: each "
     "rank gets its pages after the agreement while every rank waits in a second barrier (the earlier design, kept "
     "for comparison); 0: off", p_prefetch, w_prefetch},
    {"LOOM_STRIDE", "1", "1: a fault on pages homed on another host whose window lies a constant step (in windows of "
     "LOOM_UNIT_PAGES) past the windows of the two faults before it from that home fetches the next windows along the "
     "step with its own, with one wait for all (2 windows, doubling to 16 while the program reads them; hlrc pages); "
     "0: the fault's window only", p_stride, w_stride},
    {"LOOM_MPI_SERVES", "1", "1: where other ranks reach this one by requests (LOOM_TRANSPORT auto or async, peers "
     "on other hosts), an application thread inside one of the program's blocking point-to-point MPI calls (send, "
     "receive, probe, wait) polls it and serves those requests meanwhile, as Loom's own waits do, instead of leaving "
     "them to the protocol thread; 0: the MPI library's own blocking calls", p_mpi_serves, w_mpi_serves},
    {"LOOM_TRANSPORT", "auto", "how peers that are not mapped directly are reached: rma (MPI one-sided), async "
     "(two-sided requests served by a protocol thread on the target), auto (async with page reads by MPI_Get "
     "when MPI has MPI_THREAD_MULTIPLE, else rma)", p_transport, w_transport},
    {"LOOM_PROGRESS", "auto", "MPI progress thread: auto (when a peer is remote), 0 or 1", p_progress, w_progress},
    {"LOOM_HANG_TIMEOUT", "0", "seconds one wait in Loom (barrier, lock) may last before every waiting rank "
     "reports what it waits in and the job is aborted; 0: never", p_hang, w_hang},
    {"LOOM_WAIT_NOTE", "300", "seconds one wait in Loom (barrier, lock) may last before the rank says once what it "
     "waits in and for which rank, so that a stuck job is not silent; the job goes on waiting (LOOM_HANG_TIMEOUT ends "
     "it); 0: never", p_wait_note, w_wait_note},
    {"LOOM_INIT_TIMEOUT", "auto", "seconds MPI_Init_thread (when loom_init starts MPI) may take before Loom ends the "
     "rank with a message naming the network settings to check: a rank that never started, or a host the others cannot "
     "reach, leaves the rest waiting inside MPI; auto: 120, or a quarter second per rank of the launcher's job when that "
     "is more; 0: wait for ever", p_init_timeout, w_init_timeout},
    {"LOOM_STATS", "0", "rank 0 prints every rank's statistics and an all-ranks summary to stderr at finalize", p_stats, w_stats},
    {"LOOM_STATS_FILE", "", "write statistics as JSON at finalize: with %r one file per rank, else one file of all ranks (by rank 0)", p_sfile, w_sfile},
    {"LOOM_TRACE", "", "write an event trace of every rank into this directory (tools/loom trace; docs/TRACE.md)", p_trace, w_trace},
    {"LOOM_TRACE_RUNS", "0", "with LOOM_TRACE: also record the byte runs of every diff a release sends, for the race "
     "report (tools/loom trace races; a home's writes in place are not diffs and are not in it)",
     p_trace_runs, w_trace_runs},
    {"LOOM_TRACE_HOMES", "0", "with LOOM_TRACE: every barrier makes this rank's home pages fault once more, so that "
     "the trace holds the home's own accesses in each barrier interval (tools/loom place needs them; a trap per home "
     "page and interval)", p_trace_homes, w_trace_homes},
    {"LOOM_PLACEMENT", "", "a placement file (tools/loom place writes one from a trace): homes for page ranges of the "
     "program's collective allocations, in the order it makes them", p_place, w_place},
    {"LOOM_CHECKPOINT_DIR", "", "directory loom_checkpoint(NULL) and LOOM_CHECKPOINT_EVERY write to", p_ckdir, w_ckdir},
    {"LOOM_CHECKPOINT_EVERY", "0", "checkpoint the global memory at every K-th loom_barrier into LOOM_CHECKPOINT_DIR; 0: never",
     p_ckevery, w_ckevery},
    {"LOOM_RESTART", "", "at loom_init, bring the global memory back from the newest checkpoint in this directory",
     p_restart, w_restart},
    {"LOOM_BASE", "0", "address of the global range (0: agreed at init)", p_base, w_base},
    {"LOOM_SPIN", "50", "polls of a wait loop before it yields the core, and at most this many x 50 ns (a poll of memory is ~50 ns; one that calls MPI, microseconds)", p_spin, w_spin},
    {"LOOM_LOG_ERRORS", "1", "log each error once to stderr, where it is detected", p_log, w_log},
    {"LOOM_PRINT_CONFIG", "0", "rank 0 prints the effective configuration to stderr at init", p_pcfg, w_pcfg},
    {"LOOM_CLOCK_SKEW_NS", "0", "testing: add rank * this many ns to the rank's clock (loom_wtime)", p_skew, w_skew},
};

}  // namespace

bool parse_size(const char* s, unsigned long long* out) {
  if (!s || !std::isdigit((unsigned char)*s)) return false;  // no sign, no space
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 0);
  if (errno || end == s) return false;
  unsigned shift = 0;
  switch (std::toupper((unsigned char)*end)) {
    case 0: break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: return false;
  }
  if (*end && end[1] && !(std::toupper((unsigned char)end[1]) == 'B' && !end[2]) &&
      !(std::toupper((unsigned char)end[1]) == 'I' && std::toupper((unsigned char)end[2]) == 'B' && !end[3]))
    return false;
  if (shift && v > (~0ull >> shift)) return false;
  *out = v << shift;
  return true;
}

namespace {
// LOOM_ variables that are not settings of the library but are read by
// Loom's scripts and tools, or by the runtime's own re-exec (and
// LOOM_TEST_RMA_OR, the tests' hook: transport.cpp).
const char* const kNotSettings[] = {"LOOM_MPI", "LOOM_VENV", "LOOM_CC", "LOOM_SERIAL_REEXEC", "LOOM_STRESS_SEED",
                                    "LOOM_STRESS_ROUNDS", "LOOM_STRESS_THREADS", "LOOM_TEST_RMA_OR"};

size_t edit_distance(const char* a, const char* b) {
  const size_t n = std::strlen(b);
  size_t row[64];
  if (n >= 64) return 64;
  for (size_t j = 0; j <= n; j++) row[j] = j;
  for (size_t i = 1; a[i - 1]; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= n; j++) {
      const size_t up = row[j];
      row[j] = std::min(std::min(row[j] + 1, row[j - 1] + 1), diag + (a[i - 1] != b[j - 1]));
      diag = up;
    }
  }
  return row[n];
}
}  // namespace

size_t config_unknown_env(char* const* env, char* buf, size_t len) {
  size_t used = 0;
  if (buf && len) buf[0] = 0;
  for (; env && *env; env++) {
    const char* e = *env;
    if (std::strncmp(e, "LOOM_", 5)) continue;
    const char* eq = std::strchr(e, '=');
    char name[64];
    const size_t nl = eq ? (size_t)(eq - e) : std::strlen(e);
    if (nl >= sizeof name) continue;
    std::memcpy(name, e, nl);
    name[nl] = 0;
    bool known = false;
    for (const Setting& st : kSettings) known = known || !std::strcmp(st.name, name);
    for (const char* n : kNotSettings) known = known || !std::strcmp(n, name);
    // (LOOM_CLUSTER_*: scripts/cluster.sh's, which run passes to the ranks)
    if (known || !std::strncmp(name, "LOOM_CLUSTER_", 13)) continue;
    const char* best = nullptr;
    size_t best_d = 3;  // a typo is at most two edits away
    for (const Setting& st : kSettings) {
      const size_t d = edit_distance(name, st.name);
      if (d < best_d) best_d = d, best = st.name;
    }
    char line[200];
    int k = best ? std::snprintf(line, sizeof line, "%s is not a Loom setting and is ignored (did you mean %s?)\n", name, best)
                 : std::snprintf(line, sizeof line, "%s is not a Loom setting and is ignored (LOOM_PRINT_CONFIG=1 lists them)\n", name);
    if (k <= 0) continue;
    if (buf && used + (size_t)k < len) std::memcpy(buf + used, line, (size_t)k + 1);
    used += (size_t)k;
  }
  return used;
}

void config_defaults(loom_config_t* cfg) {
  std::memset(cfg, 0, sizeof *cfg);
  for (const Setting& s : kSettings) {
    Status st = s.parse(cfg, s.name, s.def);
    (void)st;
  }
}

Status config_parse_one(loom_config_t* cfg, const char* name, const char* value) {
  for (const Setting& s : kSettings)
    if (!std::strcmp(s.name, name)) return s.parse(cfg, name, value);
  return fail(LOOM_ERR_CONFIG, "unknown setting %s", name);
}

Status config_from_env(loom_config_t* cfg) {
  config_defaults(cfg);
  for (const Setting& s : kSettings) {
    const char* v = std::getenv(s.name);
    if (v && *v) LOOM_TRY(s.parse(cfg, s.name, v));
    else if (v && !*v && s.parse == p_sfile) cfg->stats_file[0] = 0;
    else if (v && !*v && s.parse == p_restart) cfg->restart_dir[0] = 0;
    else if (v && !*v && s.parse == p_ckdir) cfg->checkpoint_dir[0] = 0;
    else if (v && !*v && s.parse == p_trace) cfg->trace_dir[0] = 0;
    else if (v && !*v && s.parse == p_place) cfg->placement[0] = 0;
  }
  return config_validate(cfg);
}

Status config_validate(const loom_config_t* c) {
  if (c->mem_size < kPage || c->mem_size % kPage)
    return fail(LOOM_ERR_CONFIG, "LOOM_MEM_SIZE=%llu must be a positive multiple of the page size (%llu)",
                (unsigned long long)c->mem_size, kPage);
  if (c->mem_size > (1ull << 44))
    return fail(LOOM_ERR_CONFIG, "LOOM_MEM_SIZE=%llu is larger than 16 TiB", (unsigned long long)c->mem_size);
  if (c->unit_pages == 0 || c->unit_pages > 1024)
    return fail(LOOM_ERR_CONFIG, "LOOM_UNIT_PAGES=%u must be 1..1024", c->unit_pages);
  if ((unsigned)c->home_policy > LOOM_HOME_BLOCK)
    return fail(LOOM_ERR_CONFIG, "LOOM_HOME=%d: the global policy must be first-touch, cyclic or block",
                (int)c->home_policy);
  if (c->locks == 0 || c->locks > (1u << 20)) return fail(LOOM_ERR_CONFIG, "LOOM_LOCKS=%u must be 1..1048576", c->locks);
  if (c->base_address % kPage) return fail(LOOM_ERR_CONFIG, "LOOM_BASE must be page-aligned");
  if (c->spin < 0) return fail(LOOM_ERR_CONFIG, "LOOM_SPIN must be >= 0");
  if (c->transport != LOOM_TRANSPORT_RMA && c->transport != LOOM_TRANSPORT_ASYNC && c->transport != LOOM_TRANSPORT_AUTO)
    return fail(LOOM_ERR_CONFIG, "LOOM_TRANSPORT=%d must be rma (0), async (1) or auto (2)", c->transport);
  if ((unsigned)c->protocol > kProtocolLast)
    return fail(LOOM_ERR_CONFIG, "LOOM_PROTOCOL=%d must be hlrc (0), erc-invalidate (1) or erc-update (2)", (int)c->protocol);
  if (c->progress_thread < -1 || c->progress_thread > 1) return fail(LOOM_ERR_CONFIG, "LOOM_PROGRESS must be auto, 0 or 1");
  if (c->migrate < -1 || c->migrate > 1) return fail(LOOM_ERR_CONFIG, "LOOM_MIGRATE=%d must be auto (-1), 0 or 1", c->migrate);
  if (c->checkpoint_every < 0) return fail(LOOM_ERR_CONFIG, "LOOM_CHECKPOINT_EVERY must be >= 0");
  if (c->hang_timeout < 0 || c->hang_timeout > 1000000)
    return fail(LOOM_ERR_CONFIG, "LOOM_HANG_TIMEOUT=%d must be 0 (never) to 1000000 seconds", c->hang_timeout);
  if (c->wait_note < 0 || c->wait_note > 1000000)
    return fail(LOOM_ERR_CONFIG, "LOOM_WAIT_NOTE=%d must be 0 (never) to 1000000 seconds", c->wait_note);
  if (c->init_timeout < -1 || c->init_timeout > 1000000)
    return fail(LOOM_ERR_CONFIG, "LOOM_INIT_TIMEOUT=%d must be auto (-1), 0 (never) or up to 1000000 seconds",
                c->init_timeout);
  return Status::ok();
}

size_t config_print(const loom_config_t* cfg, char* buf, size_t len) {
  size_t used = 0;
  for (const Setting& s : kSettings) {
    char val[300];
    s.print(cfg, val, sizeof val);
    char line[600];
    int n = std::snprintf(line, sizeof line, "%s=%s  # %s (default %s)\n", s.name, val, s.help,
                          *s.def ? s.def : "unset");
    if (n > 0 && buf && used + (size_t)n < len) std::memcpy(buf + used, line, (size_t)n + 1);
    else if (buf && len) buf[used < len ? used : len - 1] = 0;  // truncated: stay terminated
    if (n > 0) used += (size_t)n;
  }
  return used;
}

}  // namespace loom
