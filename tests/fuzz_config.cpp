// fuzz_config: a seeded random fuzzer for the LOOM_* settings parser
// (src/config.cpp).
//
// Why: every LOOM_* variable comes from a user's environment and is parsed
// before anything else runs, so hostile values -- garbage, huge, negative,
// overflowing, a size suffix on a count, a path longer than its field, format
// directives -- must never crash and must either give a valid configuration
// or an error that names the variable.  The generator is a seeded PRNG
// (deterministic; a failure names its seed and iteration).
//
// Each iteration sets a few variables (the names are read from
// config_print, so a new setting is fuzzed without editing this file) to
// values mixing good ones, edge cases and noise, and checks:
//  - config_from_env returns OK with a configuration that config_validate
//    accepts (and the paths whole), or LOOM_ERR_CONFIG with a message naming the first variable
//    (in table order) whose value config_parse_one rejects, else a variable
//    that was set (a cross-field check);
//  - config_parse_one leaves the struct untouched when it rejects a value;
//  - config_print round-trips (paths take no control characters, so every
//    value is one line): its LOOM_X=value lines, parsed back with
//    config_parse_one onto the defaults, give the same configuration;
//  - config_print into a buffer of any size writes within it, stays
//    NUL-terminated and returns the full length;
//  - parse_size of n<<suffix gives exactly that value, or rejects it exactly
//    when it does not fit in 64 bits.
//
// Usage: fuzz_config [iterations] [seed]  (defaults: 20000, 1).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "config.hpp"

#include "fuzz_rng.hpp"

namespace {

unsigned long long g_seed = 1, g_iter = 0;
std::string g_context;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_config: FAIL at seed %llu iteration %llu: %s\n  %s\n  last error: %s\n", g_seed,
               g_iter, what, g_context.c_str(), loom::last_error());
  std::exit(1);
}
#define REQUIRE(c) \
  do {             \
    if (!(c)) die(#c); \
  } while (0)

void defaults(loom_config_t* c) { loom::config_defaults(c); }

std::string print(const loom_config_t& c) {
  size_t n = loom::config_print(&c, nullptr, 0);
  std::string s(n + 1, '\0');
  REQUIRE(loom::config_print(&c, s.data(), s.size()) == n);
  s.resize(n);
  return s;
}

// The settings' names, in table order, from the printed defaults.
std::vector<std::string> setting_names() {
  loom_config_t c;
  defaults(&c);
  std::vector<std::string> names;
  std::string all = print(c);
  for (size_t pos = 0; pos < all.size();) {
    size_t eol = all.find('\n', pos), eq = all.find('=', pos);
    REQUIRE(eol != std::string::npos && eq < eol);
    names.push_back(all.substr(pos, eq - pos));
    pos = eol + 1;
  }
  REQUIRE(names.size() >= 10);
  return names;
}

const char* const kWords[] = {
    "0", "1", "-1", "+1", "00", "08", "010", "0x", "0x1000", "0X7fffffffffff000", "0x200000000000", "4096",
    "4095", "1024", "1025", "1048576", "1048577", "100000000", "100000001", "2147483647", "2147483648",
    "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999999", "-9223372036854775808", "-1000000000000",
    "1000000000000", "1000000000001", "1e9", "1.5", "64K", "64k", "2M", "1G", "1GB", "1GiB", "16T", "17T",
    "16777215T", "16777216T", "1Ki", "1B", "1KBx", " 1", "1 ", "\t2", "K", "", "on", "OFF", "Yes", "no",
    "TRUE", "false", "2", "auto", "AUTO", "rma", "async", "Async", "mpi", "hlrc", "HLRC", "erc-invalidate",
    "erc-update", "erc", "first-touch", "cyclic", "block", "explicit", "BLOCK", "%s%s%s%n", "%x%p",
    "/tmp/loom-%r.json", "stats.json", "\xff\xfe", "LOOM_MEM_SIZE=1G"};

std::string random_value(Rng& g) {
  std::string v;
  switch (g.below(8)) {
    case 0:
    case 1:
    case 2: v = kWords[g.below(sizeof kWords / sizeof *kWords)]; break;
    case 3: {  // a number, maybe signed, maybe with a suffix
      unsigned long long n = g.next() >> g.below(64);
      v = (g.chance(10) ? "-" : "") + std::to_string(n);
      static const char* const suffix[] = {"", "K", "M", "G", "T", "KB", "MiB", "x", "P", "kib"};
      v += suffix[g.below(10)];
      break;
    }
    case 4: {  // a long run of digits or of one letter: at the stats_file
               // field's limit (255 bytes and a NUL), or past every buffer
      size_t n = g.chance(30) ? 254 + g.below(4) : 1 + g.below(g.chance(10) ? 5000 : 300);
      v.assign(n, g.chance(50) ? '9' : 'a');
      break;
    }
    case 5: {  // random printable bytes
      size_t n = g.below(40);
      for (size_t i = 0; i < n; i++) v += (char)(32 + g.below(95));
      break;
    }
    case 6: {  // random bytes, no NUL
      size_t n = g.below(40);
      for (size_t i = 0; i < n; i++) v += (char)(1 + g.below(255));
      break;
    }
    default: {  // a word with noise spliced in
      v = kWords[g.below(sizeof kWords / sizeof *kWords)];
      v.insert(g.below(v.size() + 1), 1, (char)(1 + g.below(255)));
      break;
    }
  }
  return v;
}

// A config_print value: after "NAME=", up to the last "  # " of the line
// (help texts contain no "  # ").
bool round_trip(const loom_config_t& c) {
  const std::string text = print(c);
  loom_config_t back;
  defaults(&back);
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    REQUIRE(eol != std::string::npos);
    std::string line = text.substr(pos, eol - pos);
    size_t eq = line.find('='), hash = line.rfind("  # ");
    REQUIRE(eq != std::string::npos && hash != std::string::npos && hash >= eq);
    std::string name = line.substr(0, eq), value = line.substr(eq + 1, hash - eq - 1);
    if (!loom::config_parse_one(&back, name.c_str(), value.c_str()).is_ok()) return false;
    pos = eol + 1;
  }
  return print(back) == text && std::memcmp(&back, &c, offsetof(loom_config_t, stats_file)) == 0 &&
         std::strcmp(back.stats_file, c.stats_file) == 0 && back.base_address == c.base_address &&
         back.spin == c.spin && back.log_errors == c.log_errors && back.clock_skew_ns == c.clock_skew_ns &&
         back.print_config == c.print_config && back.migrate == c.migrate && back.protocol == c.protocol &&
         back.prefetch == c.prefetch && back.transport == c.transport;
}

void check_print_sizes(Rng& g, const loom_config_t& c) {
  const std::string full = print(c);
  for (int k = 0; k < 2; k++) {
    size_t len = g.chance(20) ? g.below(4) : g.below(full.size() + 8);
    // Exactly `len` bytes, so that ASan sees a write past the end.
    char* buf = static_cast<char*>(std::malloc(len ? len : 1));
    REQUIRE(buf);
    std::memset(buf, 'Z', len);
    REQUIRE(loom::config_print(&c, buf, len) == full.size());
    if (len) {
      size_t n = strnlen(buf, len);
      REQUIRE(n < len);                                   // terminated inside the buffer
      REQUIRE(full.compare(0, n, buf, n) == 0);           // a prefix of the full text
      if (len > full.size()) REQUIRE(n == full.size());   // whole when it fits
    }
    std::free(buf);
  }
}

void check_parse_size(Rng& g) {
  static const struct { const char* s; unsigned shift; } kSuffix[] = {
      {"", 0}, {"K", 10}, {"k", 10}, {"M", 20}, {"G", 30}, {"T", 40}, {"KB", 10}, {"MiB", 20}, {"gib", 30}};
  const auto& sfx = kSuffix[g.below(sizeof kSuffix / sizeof *kSuffix)];
  const unsigned long long n = g.next() >> g.below(64);
  const std::string s = std::to_string(n) + sfx.s;
  unsigned long long v = 12345;
  const bool fits = sfx.shift == 0 || n <= (~0ull >> sfx.shift);
  g_context = "parse_size(\"" + s + "\")";
  const bool ok = loom::parse_size(s.c_str(), &v);
  REQUIRE(ok == fits);
  REQUIRE(ok ? v == n << sfx.shift : v == 12345);
}

void one_iteration(Rng& g, const std::vector<std::string>& names) {
  for (const std::string& n : names) unsetenv(n.c_str());
  std::vector<std::pair<size_t, std::string>> set;  // index in table order, value
  const size_t k = 1 + g.below(g.chance(10) ? names.size() : 3);
  for (size_t i = 0; i < k; i++) {
    size_t idx = g.below(names.size());
    std::string v = random_value(g);
    setenv(names[idx].c_str(), v.c_str(), 1);
    bool dup = false;
    for (auto& p : set)
      if (p.first == idx) p.second = v, dup = true;
    if (!dup) set.emplace_back(idx, v);
  }
  g_context.clear();
  for (auto& p : set) g_context += names[p.first] + "=\"" + p.second.substr(0, 60) + "\" ";

  // The model: the first variable in table order that config_parse_one
  // rejects (an empty value leaves the default, as in config_from_env);
  // a rejection leaves the struct as it was.
  loom_config_t model;
  defaults(&model);
  std::string first_bad;
  for (size_t idx = 0; idx < names.size() && first_bad.empty(); idx++)
    for (auto& p : set) {
      if (p.first != idx || p.second.empty()) continue;
      loom_config_t before = model;
      if (!loom::config_parse_one(&model, names[idx].c_str(), p.second.c_str()).is_ok()) {
        REQUIRE(std::memcmp(&before, &model, sizeof model) == 0);
        REQUIRE(std::strstr(loom::last_error(), names[idx].c_str()) != nullptr);
        first_bad = names[idx];
      }
    }

  loom_config_t c;
  loom::Status st = loom::config_from_env(&c);
  if (st.is_ok()) {
    REQUIRE(first_bad.empty());
    REQUIRE(loom::config_validate(&c).is_ok());
    for (auto& p : set) {  // a path is kept whole, never cut to fit its field
      if (names[p.first] == "LOOM_STATS_FILE") REQUIRE(p.second == c.stats_file);
      if (names[p.first] == "LOOM_CHECKPOINT_DIR") REQUIRE(p.second == c.checkpoint_dir);
      if (names[p.first] == "LOOM_RESTART") REQUIRE(p.second == c.restart_dir);
      if (names[p.first] == "LOOM_TRACE") REQUIRE(p.second == c.trace_dir);
    }
    REQUIRE(round_trip(c));  // paths take no control characters, so every value is one line
    check_print_sizes(g, c);
  } else {
    REQUIRE(st.code() == LOOM_ERR_CONFIG);
    const char* msg = loom::last_error();
    if (!first_bad.empty()) {
      REQUIRE(std::strstr(msg, first_bad.c_str()) != nullptr);
    } else {  // parsed, rejected by a cross-field check naming a variable that was set
      REQUIRE(!loom::config_validate(&model).is_ok());
      bool named = false;
      for (auto& p : set) named = named || std::strstr(msg, names[p.first].c_str()) != nullptr;
      REQUIRE(named);
    }
  }
  check_parse_size(g);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long iters = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 20000;
  g_seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
  // Errors are expected by the thousand: keep them out of the log.  (Parsing
  // never switches logging on; only loom_init applies LOOM_LOG_ERRORS.)
  loom::set_log_errors(false);
  const std::vector<std::string> names = setting_names();
  Rng g{g_seed};
  // Unknown names are refused, naming them.
  loom_config_t c;
  defaults(&c);
  REQUIRE(!loom::config_parse_one(&c, "LOOM_NO_SUCH_SETTING", "1").is_ok());
  REQUIRE(std::strstr(loom::last_error(), "LOOM_NO_SUCH_SETTING") != nullptr);
  for (g_iter = 0; g_iter < iters; g_iter++) one_iteration(g, names);
  std::printf("fuzz_config: seed %llu: %llu passed, 0 failed\n", g_seed, iters);
  return 0;
}
