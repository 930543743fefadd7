// Placement files: parsed once at loom_init into the blocks they name;
// each collective allocation takes the next ordinal (placement.hpp has the
// format and why).
#include "placement.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace loom {
namespace {

struct Range {
  uint64_t first, n;
  int rank;
};
struct Block {
  uint64_t pages = 0;
  std::vector<Range> ranges;
};

std::string g_path;
std::map<uint64_t, Block> g_blocks;  // allocation ordinal -> its homes
uint64_t g_next = 0;                 // the next collective allocation's ordinal

}  // namespace

Status placement_load(const char* path, int nranks) {
  g_blocks.clear();
  g_next = 0;
  g_path = path ? path : "";
  if (g_path.empty()) return Status::ok();
  FILE* f = std::fopen(path, "r");
  if (!f) return fail(LOOM_ERR_CONFIG, "LOOM_PLACEMENT=%s: %s", path, std::strerror(errno));
  char line[256];
  int no = 0;
  Block* cur = nullptr;
  Status s;
  while (s.is_ok() && std::fgets(line, sizeof line, f)) {
    no++;
    char* p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#' || *p == '\n' || *p == 0) continue;
    unsigned long long a = 0, b = 0;
    long long r = 0;
    int used = 0;
    if (std::sscanf(p, "block %llu pages %llu %n", &a, &b, &used) == 2 && (p[used] == 0 || p[used] == '\n')) {
      if (g_blocks.count(a)) {
        s = fail(LOOM_ERR_CONFIG, "LOOM_PLACEMENT=%s, line %d: block %llu is named twice", path, no, a);
      } else if (b == 0) {
        s = fail(LOOM_ERR_CONFIG, "LOOM_PLACEMENT=%s, line %d: block %llu has 0 pages", path, no, a);
      } else {
        cur = &g_blocks[a];
        cur->pages = b;
      }
    } else if (std::sscanf(p, "%llu %llu %lld %n", &a, &b, &r, &used) == 3 && (p[used] == 0 || p[used] == '\n')) {
      if (!cur)
        s = fail(LOOM_ERR_CONFIG, "LOOM_PLACEMENT=%s, line %d: a page range before any 'block K pages N' line", path, no);
      else if (b == 0 || a + b > cur->pages || a + b < a)
        s = fail(LOOM_ERR_CONFIG, "LOOM_PLACEMENT=%s, line %d: pages [%llu, %llu) are not in the block's %llu pages", path,
                 no, a, a + b, (unsigned long long)cur->pages);
      else if (r < 0 || r >= nranks)
        s = fail(LOOM_ERR_CONFIG, "LOOM_PLACEMENT=%s, line %d: rank %lld is not in 0..%d (this job has %d ranks)", path,
                 no, r, nranks - 1, nranks);
      else
        cur->ranges.push_back({a, b, (int)r});
    } else {
      line[std::strcspn(line, "\n")] = 0;
      s = fail(LOOM_ERR_CONFIG,
               "LOOM_PLACEMENT=%s, line %d: \"%s\" is neither 'block K pages N' nor 'FIRST COUNT RANK' (tools/loom "
               "place writes this file)",
               path, no, line);
    }
  }
  std::fclose(f);
  if (!s.is_ok()) g_blocks.clear();
  return s;
}

Status placement_next(uint64_t npages, std::vector<int16_t>* homes) {
  homes->clear();
  const uint64_t k = g_next++;
  auto it = g_blocks.find(k);
  if (it == g_blocks.end()) return Status::ok();
  const Block& b = it->second;
  if (b.pages != npages)
    return fail_all(LOOM_ERR_MISMATCH,
                    "LOOM_PLACEMENT=%s: collective allocation %llu has %llu pages, the file's block %llu has %llu (the "
                    "file was written for another program or input: `loom place` writes one per run)",
                    g_path.c_str(), (unsigned long long)k, (unsigned long long)npages, (unsigned long long)k,
                    (unsigned long long)b.pages);
  homes->assign(npages, -1);
  for (const Range& r : b.ranges)
    for (uint64_t p = r.first; p < r.first + r.n; p++) (*homes)[p] = (int16_t)r.rank;
  return Status::ok();
}

void placement_skip() { g_next++; }

}  // namespace loom
