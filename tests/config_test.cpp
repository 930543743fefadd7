// config_test: the LOOM_* settings table (src/config.cpp), one process, no MPI.
//
//  - parse_size accepts plain numbers and K/M/G/T (optionally with B or iB),
//    and rejects empty, negative, unknown-suffix, non-numeric and
//    overflowing sizes;
//  - config_parse_one sets each setting's field from a good value and leaves
//    the whole struct untouched on a bad value (LOOM_ERR_CONFIG naming the
//    variable); unknown names are rejected;
//  - config_defaults gives the documented defaults, and config_validate
//    accepts them and rejects each impossible field;
//  - config_print shows every LOOM_ name with its current value and returns
//    the full length even when the buffer is too small (never writing past
//    it);
//  - config_from_env applies LOOM_* variables and rejects bad ones.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "config.hpp"

namespace {

int g_passed = 0, g_failed = 0;

#define CHECK(expr)                                                                    \
  do {                                                                                 \
    if (expr) ++g_passed;                                                              \
    else {                                                                             \
      ++g_failed;                                                                      \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr);  \
    }                                                                                  \
  } while (0)

using loom::config_defaults;
using loom::config_parse_one;
using loom::config_print;
using loom::config_validate;
using loom::parse_size;

constexpr unsigned long long KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;

bool size_is(const char* s, unsigned long long want) {
  unsigned long long v = 12345;
  return parse_size(s, &v) && v == want;
}
bool size_rejected(const char* s) {
  unsigned long long v = 12345;
  return !parse_size(s, &v) && v == 12345;  // rejected, output untouched
}

void test_parse_size() {
  CHECK(size_is("4096", 4096));
  CHECK(size_is("0", 0));
  CHECK(size_is("64K", 64 * KiB));
  CHECK(size_is("64k", 64 * KiB));
  CHECK(size_is("2M", 2 * MiB));
  CHECK(size_is("1G", GiB));
  CHECK(size_is("3T", 3 * TiB));
  CHECK(size_is("1GB", GiB));
  CHECK(size_is("1GiB", GiB));
  CHECK(size_is("512MiB", 512 * MiB));
  CHECK(size_is("0x1000", 4096));
  CHECK(size_is("16777215T", 16777215ull * TiB));  // the largest T that fits in 64 bits

  CHECK(size_rejected(""));
  CHECK(size_rejected(nullptr));
  CHECK(size_rejected("-1"));
  CHECK(size_rejected("-1K"));
  CHECK(size_rejected(" -1"));  // strtoull skips the space and negates
  CHECK(size_rejected("12Q"));
  CHECK(size_rejected("abc"));
  CHECK(size_rejected("K"));
  CHECK(size_rejected("1B"));
  CHECK(size_rejected("1Ki"));
  CHECK(size_rejected("1KBx"));
  CHECK(size_rejected("1GiBs"));
  CHECK(size_rejected("1 G"));
  CHECK(size_rejected("1G "));
  CHECK(size_rejected("99999999999T"));          // overflows when shifted
  CHECK(size_rejected("16777216T"));             // 2^64 exactly
  CHECK(size_rejected("18446744073709551616"));  // 2^64 without a suffix
}

// One setting: a good value and the field it must produce, and bad values.
struct Case {
  const char* name;
  const char* good;
  bool (*holds)(const loom_config_t&);  // the field took the good value
  const char* bad[5];
};

const Case kCases[] = {
    {"LOOM_MEM_SIZE", "512M", [](const loom_config_t& c) { return c.mem_size == 512 * MiB; }, {"0", "12Q", "-4K", ""}},
    {"LOOM_UNIT_PAGES", "16", [](const loom_config_t& c) { return c.unit_pages == 16; }, {"0", "1025", "x", "-1"}},
    {"LOOM_HOME", "cyclic", [](const loom_config_t& c) { return c.home_policy == LOOM_HOME_CYCLIC; },
     {"explicit", "nowhere", "", "2"}},
    {"LOOM_LOCKS", "64", [](const loom_config_t& c) { return c.locks == 64; }, {"0", "1048577", "many", "-3"}},
    {"LOOM_LOCAL_MAP", "0", [](const loom_config_t& c) { return c.local_map == 0; }, {"2", "maybe", "", "-1"}},
    {"LOOM_STRIDE", "0", [](const loom_config_t& c) { return c.stride == 0; }, {"2", "often", "", "-1"}},
    {"LOOM_MPI_SERVES", "0", [](const loom_config_t& c) { return c.mpi_serves == 0; }, {"2", "always", "", "-1"}},
    {"LOOM_PROGRESS", "1", [](const loom_config_t& c) { return c.progress_thread == 1; }, {"2", "sometimes", "", "-1"}},
    {"LOOM_STATS", "1", [](const loom_config_t& c) { return c.stats == 1; }, {"2", "maybe", "", "-1"}},
    {"LOOM_STATS_FILE", "/tmp/loom_%r.json",
     [](const loom_config_t& c) { return std::strcmp(c.stats_file, "/tmp/loom_%r.json") == 0; }, {"/tmp/a\nb", "\t"}},
    {"LOOM_BASE", "0x300000000000", [](const loom_config_t& c) { return c.base_address == 0x300000000000ull; },
     {"0x1001", "4095", "somewhere", "-4096", " -4096"}},
    {"LOOM_SPIN", "5000", [](const loom_config_t& c) { return c.spin == 5000; }, {"-1", "100000001", "fast", ""}},
    {"LOOM_LOG_ERRORS", "0", [](const loom_config_t& c) { return c.log_errors == 0; }, {"2", "maybe", "", "-1"}},
    {"LOOM_MIGRATE", "1", [](const loom_config_t& c) { return c.migrate == 1; }, {"2", "sometimes", ""}},
    {"LOOM_MIGRATE", "0", [](const loom_config_t& c) { return c.migrate == 0; }, {"-1", "automatic"}},
    {"LOOM_ADAPT", "1", [](const loom_config_t& c) { return c.adapt == 1; }, {"2", "adaptive", ""}},
    {"LOOM_EXACT", "0", [](const loom_config_t& c) { return c.exact == 0; }, {"2", "exact", ""}},
    {"LOOM_HOST_SHARE", "0", [](const loom_config_t& c) { return c.host_share == 0; }, {"2", "shared", ""}},
    {"LOOM_PREFETCH", "0", [](const loom_config_t& c) { return c.prefetch == 0; }, {"2", "often", ""}},
    {"LOOM_PREFETCH", "gets", [](const loom_config_t& c) { return c.prefetch == 2; }, {"get", "push", "3"}},
    {"LOOM_PROTOCOL", "erc-update", [](const loom_config_t& c) { return c.protocol == LOOM_PROTOCOL_ERC_UPDATE; },
     {"update", "", "2", "erc"}},
    {"LOOM_TRANSPORT", "async", [](const loom_config_t& c) { return c.transport == LOOM_TRANSPORT_ASYNC; },
     {"tcp", "", "1"}},
    {"LOOM_PRINT_CONFIG", "1", [](const loom_config_t& c) { return c.print_config == 1; }, {"2", "yes please", ""}},
    {"LOOM_CLOCK_SKEW_NS", "-2500", [](const loom_config_t& c) { return c.clock_skew_ns == -2500; },
     {"1.5", "9999999999999", "", "ns"}},
    {"LOOM_HANG_TIMEOUT", "30", [](const loom_config_t& c) { return c.hang_timeout == 30; },
     {"-1", "1000001", "soon", "", "2.5"}},
    {"LOOM_WAIT_NOTE", "60", [](const loom_config_t& c) { return c.wait_note == 60; },
     {"-1", "1000001", "later", "", "0.5"}},
    {"LOOM_INIT_TIMEOUT", "7", [](const loom_config_t& c) { return c.init_timeout == 7; },
     {"-1", "1000001", "soon", "", "2.5"}},
    {"LOOM_INIT_TIMEOUT", "0", [](const loom_config_t& c) { return c.init_timeout == 0; }, {"never", "-0.5"}},
    {"LOOM_CHECKPOINT_EVERY", "10", [](const loom_config_t& c) { return c.checkpoint_every == 10; },
     {"-1", "often", "", "1000000001"}},
    {"LOOM_CHECKPOINT_DIR", "/tmp/ck", [](const loom_config_t& c) { return std::strcmp(c.checkpoint_dir, "/tmp/ck") == 0; },
     {nullptr}},
    {"LOOM_RESTART", "/tmp/ck", [](const loom_config_t& c) { return std::strcmp(c.restart_dir, "/tmp/ck") == 0; },
     {nullptr}},
    {"LOOM_TRACE", "/tmp/tr", [](const loom_config_t& c) { return std::strcmp(c.trace_dir, "/tmp/tr") == 0; },
     {"/tmp/a\nb", "\t"}},
    {"LOOM_TRACE_RUNS", "1", [](const loom_config_t& c) { return c.trace_runs == 1; }, {"2", "yes please", ""}},
};

void test_parse_one() {
  for (const Case& t : kCases) {
    loom_config_t c;
    config_defaults(&c);
    CHECK(!t.holds(c));  // the good value differs from the default
    loom::Status s = config_parse_one(&c, t.name, t.good);
    CHECK(s.is_ok());
    if (!s.is_ok()) std::fprintf(stderr, "  %s=%s rejected: %s\n", t.name, t.good, loom::last_error());
    CHECK(t.holds(c));
    CHECK(config_validate(&c).is_ok());

    for (const char* bad : t.bad) {
      if (!bad) break;
      loom_config_t before = c;
      loom::Status b = config_parse_one(&c, t.name, bad);
      CHECK(b.code() == LOOM_ERR_CONFIG);
      if (b.code() != LOOM_ERR_CONFIG) std::fprintf(stderr, "  %s=\"%s\" accepted\n", t.name, bad);
      CHECK(std::memcmp(&before, &c, sizeof c) == 0);       // nothing changed
      CHECK(std::strstr(loom::last_error(), t.name) != nullptr);  // the message names the variable
    }
  }
  // Other spellings of the same values.
  loom_config_t c;
  config_defaults(&c);
  CHECK(config_parse_one(&c, "LOOM_HOME", "BLOCK").is_ok() && c.home_policy == LOOM_HOME_BLOCK);
  CHECK(config_parse_one(&c, "LOOM_HOME", "first-touch").is_ok() && c.home_policy == LOOM_HOME_FIRST_TOUCH);
  CHECK(config_parse_one(&c, "LOOM_LOCAL_MAP", "off").is_ok() && c.local_map == 0);
  CHECK(config_parse_one(&c, "LOOM_LOCAL_MAP", "yes").is_ok() && c.local_map == 1);
  CHECK(config_parse_one(&c, "LOOM_PROGRESS", "auto").is_ok() && c.progress_thread == -1);
  CHECK(config_parse_one(&c, "LOOM_PROGRESS", "false").is_ok() && c.progress_thread == 0);
  CHECK(config_parse_one(&c, "LOOM_MEM_SIZE", "1GiB").is_ok() && c.mem_size == GiB);
  CHECK(config_parse_one(&c, "LOOM_SPIN", "0").is_ok() && c.spin == 0);
  CHECK(config_parse_one(&c, "LOOM_UNIT_PAGES", "1024").is_ok() && c.unit_pages == 1024);
  CHECK(config_parse_one(&c, "LOOM_LOCKS", "1048576").is_ok() && c.locks == 1048576);
  // A stats file name of 255 bytes fits; 256 does not.
  std::string ok_path(255, 'a'), long_path(256, 'b');
  CHECK(config_parse_one(&c, "LOOM_STATS_FILE", ok_path.c_str()).is_ok() && ok_path == c.stats_file);
  loom_config_t before = c;
  CHECK(config_parse_one(&c, "LOOM_STATS_FILE", long_path.c_str()).code() == LOOM_ERR_CONFIG);
  CHECK(std::memcmp(&before, &c, sizeof c) == 0);

  // Unknown names (including a near miss and the wrong case).
  CHECK(config_parse_one(&c, "LOOM_NOPE", "1").code() == LOOM_ERR_CONFIG);
  CHECK(std::strstr(loom::last_error(), "LOOM_NOPE") != nullptr);
  CHECK(config_parse_one(&c, "LOOM_MEMSIZE", "1G").code() == LOOM_ERR_CONFIG);
  CHECK(config_parse_one(&c, "loom_mem_size", "1G").code() == LOOM_ERR_CONFIG);
  CHECK(config_parse_one(&c, "", "1").code() == LOOM_ERR_CONFIG);
  CHECK(std::memcmp(&before, &c, sizeof c) == 0);
}

void test_defaults_and_validate() {
  loom_config_t d;
  std::memset(&d, 0x5a, sizeof d);
  config_defaults(&d);
  CHECK(d.mem_size == GiB);
  CHECK(d.unit_pages == 8);
  CHECK(d.home_policy == LOOM_HOME_FIRST_TOUCH);
  CHECK(d.locks == 1024);
  CHECK(d.local_map == 1);
  CHECK(d.progress_thread == -1);
  CHECK(d.init_timeout == -1);
  CHECK(d.wait_note == 300);
  CHECK(d.stats == 0);
  CHECK(d.stats_file[0] == '\0');
  CHECK(d.base_address == 0);
  CHECK(d.spin == 50);
  CHECK(d.log_errors == 1);
  CHECK(config_validate(&d).is_ok());

  auto rejected = [&](void (*change)(loom_config_t&), const char* word) {
    loom_config_t c = d;
    change(c);
    loom::Status s = config_validate(&c);
    bool ok = s.code() == LOOM_ERR_CONFIG && std::strstr(loom::last_error(), word) != nullptr;
    if (!ok) std::fprintf(stderr, "  validate: expected a rejection naming %s, got %d (%s)\n", word, s.code(), loom::last_error());
    return ok;
  };
  CHECK(rejected([](loom_config_t& c) { c.mem_size = 12345; }, "LOOM_MEM_SIZE"));
  CHECK(rejected([](loom_config_t& c) { c.mem_size = 4096 + 1; }, "LOOM_MEM_SIZE"));
  CHECK(rejected([](loom_config_t& c) { c.mem_size = 0; }, "LOOM_MEM_SIZE"));
  CHECK(rejected([](loom_config_t& c) { c.mem_size = 32 * TiB; }, "LOOM_MEM_SIZE"));
  CHECK(rejected([](loom_config_t& c) { c.unit_pages = 0; }, "LOOM_UNIT_PAGES"));
  CHECK(rejected([](loom_config_t& c) { c.unit_pages = 2000; }, "LOOM_UNIT_PAGES"));
  CHECK(rejected([](loom_config_t& c) { c.locks = 0; }, "LOOM_LOCKS"));
  CHECK(rejected([](loom_config_t& c) { c.hang_timeout = -5; }, "LOOM_HANG_TIMEOUT"));
  CHECK(rejected([](loom_config_t& c) { c.init_timeout = -2; }, "LOOM_INIT_TIMEOUT"));
  CHECK(rejected([](loom_config_t& c) { c.wait_note = -1; }, "LOOM_WAIT_NOTE"));
  CHECK(rejected([](loom_config_t& c) { c.locks = (1u << 20) + 1; }, "LOOM_LOCKS"));
  CHECK(rejected([](loom_config_t& c) { c.home_policy = LOOM_HOME_EXPLICIT; }, "LOOM_HOME"));
  CHECK(rejected([](loom_config_t& c) { c.base_address = 0x1001; }, "LOOM_BASE"));
  CHECK(rejected([](loom_config_t& c) { c.spin = -1; }, "LOOM_SPIN"));
  CHECK(rejected([](loom_config_t& c) { c.progress_thread = 2; }, "LOOM_PROGRESS"));

  // Boundaries that are fine.
  loom_config_t c = d;
  c.mem_size = 4096;
  c.unit_pages = 1024;
  c.locks = 1u << 20;
  c.home_policy = LOOM_HOME_BLOCK;
  c.base_address = 0x300000000000ull;
  c.spin = 0;
  CHECK(config_validate(&c).is_ok());
  c.mem_size = 16 * TiB;
  CHECK(config_validate(&c).is_ok());
}

void test_print() {
  loom_config_t c;
  config_defaults(&c);
  CHECK(config_parse_one(&c, "LOOM_MEM_SIZE", "512M").is_ok());
  CHECK(config_parse_one(&c, "LOOM_UNIT_PAGES", "16").is_ok());
  CHECK(config_parse_one(&c, "LOOM_HOME", "cyclic").is_ok());
  CHECK(config_parse_one(&c, "LOOM_LOCKS", "77").is_ok());
  CHECK(config_parse_one(&c, "LOOM_LOCAL_MAP", "0").is_ok());
  CHECK(config_parse_one(&c, "LOOM_PROGRESS", "1").is_ok());
  CHECK(config_parse_one(&c, "LOOM_STATS", "1").is_ok());
  CHECK(config_parse_one(&c, "LOOM_STATS_FILE", "/tmp/s_%r.json").is_ok());
  CHECK(config_parse_one(&c, "LOOM_BASE", "0x300000000000").is_ok());
  CHECK(config_parse_one(&c, "LOOM_SPIN", "4321").is_ok());
  CHECK(config_parse_one(&c, "LOOM_LOG_ERRORS", "0").is_ok());
  CHECK(config_parse_one(&c, "LOOM_CLOCK_SKEW_NS", "1234").is_ok());
  CHECK(config_parse_one(&c, "LOOM_PRINT_CONFIG", "1").is_ok());
  CHECK(config_parse_one(&c, "LOOM_TRANSPORT", "async").is_ok());
  CHECK(config_parse_one(&c, "LOOM_MIGRATE", "1").is_ok());
  CHECK(config_parse_one(&c, "LOOM_PREFETCH", "0").is_ok());
  CHECK(config_parse_one(&c, "LOOM_ADAPT", "1").is_ok());
  CHECK(config_parse_one(&c, "LOOM_STRIDE", "0").is_ok());
  CHECK(config_parse_one(&c, "LOOM_MPI_SERVES", "0").is_ok());
  CHECK(config_parse_one(&c, "LOOM_EXACT", "0").is_ok());
  CHECK(config_parse_one(&c, "LOOM_HOST_SHARE", "0").is_ok());
  CHECK(config_parse_one(&c, "LOOM_PROTOCOL", "ERC-Invalidate").is_ok());
  CHECK(config_parse_one(&c, "LOOM_HANG_TIMEOUT", "45").is_ok());
  CHECK(config_parse_one(&c, "LOOM_INIT_TIMEOUT", "33").is_ok());
  CHECK(config_parse_one(&c, "LOOM_WAIT_NOTE", "44").is_ok());
  CHECK(config_parse_one(&c, "LOOM_CHECKPOINT_DIR", "/tmp/ckd").is_ok());
  CHECK(config_parse_one(&c, "LOOM_CHECKPOINT_EVERY", "7").is_ok());
  CHECK(config_parse_one(&c, "LOOM_RESTART", "/tmp/rsd").is_ok());
  CHECK(config_parse_one(&c, "LOOM_TRACE", "/tmp/trd").is_ok());
  CHECK(config_parse_one(&c, "LOOM_TRACE_RUNS", "1").is_ok());
  CHECK(config_parse_one(&c, "LOOM_TRACE_HOMES", "1").is_ok());
  CHECK(config_parse_one(&c, "LOOM_PLACEMENT", "/tmp/place.txt").is_ok());
  CHECK(!config_parse_one(&c, "LOOM_TRACE_HOMES", "2").is_ok());

  char buf[8192];
  size_t n = config_print(&c, buf, sizeof buf);
  CHECK(n > 0 && n < sizeof buf);
  CHECK(std::strlen(buf) == n);
  const char* want[] = {"LOOM_MEM_SIZE=536870912", "LOOM_UNIT_PAGES=16", "LOOM_HOME=cyclic", "LOOM_LOCKS=77",
                        "LOOM_LOCAL_MAP=0", "LOOM_PROGRESS=1", "LOOM_STATS=1", "LOOM_STATS_FILE=/tmp/s_%r.json",
                        "LOOM_BASE=0x300000000000", "LOOM_SPIN=4321", "LOOM_LOG_ERRORS=0",
                        "LOOM_CLOCK_SKEW_NS=1234", "LOOM_PRINT_CONFIG=1",
                        "LOOM_TRANSPORT=async", "LOOM_MIGRATE=1", "LOOM_PREFETCH=0", "LOOM_STRIDE=0", "LOOM_MPI_SERVES=0", "LOOM_ADAPT=1", "LOOM_EXACT=0", "LOOM_HOST_SHARE=0", "LOOM_PROTOCOL=erc-invalidate",
                        "LOOM_HANG_TIMEOUT=45", "LOOM_INIT_TIMEOUT=33", "LOOM_WAIT_NOTE=44", "LOOM_CHECKPOINT_DIR=/tmp/ckd", "LOOM_CHECKPOINT_EVERY=7",
                        "LOOM_RESTART=/tmp/rsd", "LOOM_TRACE=/tmp/trd", "LOOM_TRACE_RUNS=1",
                        "LOOM_TRACE_HOMES=1", "LOOM_PLACEMENT=/tmp/place.txt"};
  for (const char* w : want) {
    bool found = std::strstr(buf, w) != nullptr;
    CHECK(found);
    if (!found) std::fprintf(stderr, "  config_print lacks \"%s\"\n", w);
  }
  // One line per setting, each "LOOM_X=value  # help".
  int lines = 0, comments = 0;
  for (const char* p = buf; *p; p++) lines += *p == '\n';
  for (const char* p = buf; (p = std::strstr(p, "  # ")); p++) comments++;
  CHECK(lines == (int)(sizeof want / sizeof want[0]));
  CHECK(comments == lines);

  // The defaults print as such.
  loom_config_t d;
  config_defaults(&d);
  char dbuf[8192];
  config_print(&d, dbuf, sizeof dbuf);
  CHECK(std::strstr(dbuf, "LOOM_MEM_SIZE=1073741824") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_HOME=first-touch") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_PROGRESS=auto") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_MIGRATE=auto") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_ADAPT=0") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_STRIDE=1") != nullptr);
  CHECK(d.stride == 1);
  CHECK(std::strstr(dbuf, "LOOM_EXACT=1") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_HOST_SHARE=1") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_INIT_TIMEOUT=auto") != nullptr);
  CHECK(std::strstr(dbuf, "LOOM_WAIT_NOTE=300") != nullptr);

  // A small buffer: the full length is returned, nothing written past it.
  char small[40 + 8];
  std::memset(small, '#', sizeof small);
  size_t need = config_print(&c, small, 40);
  CHECK(need == n);
  bool intact = true;
  for (size_t i = 40; i < sizeof small; i++) intact = intact && small[i] == '#';
  CHECK(intact);
  CHECK(config_print(&c, nullptr, 0) == n);
}

void test_from_env() {
  const char* names[] = {"LOOM_MEM_SIZE", "LOOM_UNIT_PAGES", "LOOM_HOME", "LOOM_LOCKS", "LOOM_LOCAL_MAP",
                         "LOOM_PROGRESS", "LOOM_STATS", "LOOM_STATS_FILE", "LOOM_BASE", "LOOM_SPIN",
                         "LOOM_LOG_ERRORS", "LOOM_PRINT_CONFIG", "LOOM_CLOCK_SKEW_NS",
                         "LOOM_TRANSPORT", "LOOM_MIGRATE", "LOOM_ADAPT", "LOOM_EXACT", "LOOM_HOST_SHARE", "LOOM_PREFETCH", "LOOM_PROTOCOL", "LOOM_HANG_TIMEOUT",
                         "LOOM_CHECKPOINT_DIR", "LOOM_CHECKPOINT_EVERY", "LOOM_RESTART", "LOOM_TRACE", "LOOM_TRACE_RUNS"};
  for (const char* n : names) unsetenv(n);

  loom_config_t c, d;
  config_defaults(&d);
  CHECK(loom::config_from_env(&c).is_ok());
  CHECK(std::memcmp(&c, &d, sizeof c) == 0);  // no variables: the defaults

  setenv("LOOM_MEM_SIZE", "512M", 1);
  setenv("LOOM_HOME", "block", 1);
  setenv("LOOM_STATS_FILE", "", 1);  // empty: unset
  CHECK(loom::config_from_env(&c).is_ok());
  CHECK(c.mem_size == 512 * MiB);
  CHECK(c.home_policy == LOOM_HOME_BLOCK);
  CHECK(c.stats_file[0] == '\0');
  CHECK(c.unit_pages == d.unit_pages && c.locks == d.locks && c.spin == d.spin);

  setenv("LOOM_HOME", "nowhere", 1);
  CHECK(loom::config_from_env(&c).code() == LOOM_ERR_CONFIG);
  CHECK(std::strstr(loom::last_error(), "LOOM_HOME") != nullptr);
  setenv("LOOM_HOME", "cyclic", 1);
  CHECK(loom::config_from_env(&c).is_ok() && c.home_policy == LOOM_HOME_CYCLIC);

  // Parses, but validation rejects it.
  setenv("LOOM_MEM_SIZE", "32T", 1);
  CHECK(loom::config_from_env(&c).code() == LOOM_ERR_CONFIG);
  setenv("LOOM_MEM_SIZE", "12345", 1);
  CHECK(loom::config_from_env(&c).code() == LOOM_ERR_CONFIG);
  setenv("LOOM_MEM_SIZE", "64M", 1);
  setenv("LOOM_UNIT_PAGES", "0", 1);
  CHECK(loom::config_from_env(&c).code() == LOOM_ERR_CONFIG);
  CHECK(std::strstr(loom::last_error(), "LOOM_UNIT_PAGES") != nullptr);

  for (const char* n : names) unsetenv(n);
}

// Unknown LOOM_* variables: a typo is named with the setting it is nearest
// to; settings, the scripts' own variables and other names pass silently.
void test_unknown_env() {
  char* env[] = {(char*)"LOOM_STAT=1", (char*)"LOOM_MEM_SIZE=64M", (char*)"PATH=/bin", (char*)"LOOM_MPI=mpich",
                 (char*)"LOOM_FROBNICATE=3", (char*)"LOOM_PROTOCOLL=hlrc", (char*)"LOOMX=1", nullptr};
  char buf[1024];
  const size_t n = loom::config_unknown_env(env, buf, sizeof buf);
  CHECK(n == std::strlen(buf));
  CHECK(std::strstr(buf, "LOOM_STAT is not a Loom setting and is ignored (did you mean LOOM_STATS?)") != nullptr);
  CHECK(std::strstr(buf, "LOOM_PROTOCOLL is not a Loom setting and is ignored (did you mean LOOM_PROTOCOL?)") != nullptr);
  CHECK(std::strstr(buf, "LOOM_FROBNICATE is not a Loom setting and is ignored (LOOM_PRINT_CONFIG=1") != nullptr);
  CHECK(std::strstr(buf, "LOOM_MEM_SIZE") == nullptr && std::strstr(buf, "LOOM_MPI") == nullptr &&
        std::strstr(buf, "LOOMX") == nullptr && std::strstr(buf, "PATH") == nullptr);
  char* clean[] = {(char*)"LOOM_STATS=1", (char*)"LOOM_VENV=/x", (char*)"LOOM_CLUSTER_CPUS=1",
                   (char*)"LOOM_CLUSTER_QUICKACK=1", (char*)"LOOM_CLUSTER_NPROC=2", nullptr};  // (cluster.sh's)
  CHECK(loom::config_unknown_env(clean, buf, sizeof buf) == 0 && buf[0] == 0);
  char small[8];
  CHECK(loom::config_unknown_env(env, small, sizeof small) == n && small[0] == 0);  // too small: the length, no text
}

}  // namespace

int main() {
  test_unknown_env();
  test_parse_size();
  test_parse_one();
  test_defaults_and_validate();
  test_print();
  test_from_env();
  std::printf("config_test: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
