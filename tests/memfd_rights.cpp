// memfd_rights: the file behind a rank's global memory is open to its owner
// only and sealed at its size (src/transport/common.cpp, make_memfd): mode
// 0600 (a memfd starts at 0777, so every process of any user that can reach
// /proc/<pid>/fd could open it), seals SHRINK, GROW and SEAL, and a truncate
// fails.  And LOOM_STATS_FILE is not written through a symbolic link: the
// link's target keeps its contents and loom_finalize says why in the log.
// One process (a singleton MPI start).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mr.h"
#include "runtime.hpp"

int main(int argc, char** argv) {
  // The stats file: a link in a fresh directory to a file with known bytes.
  char dir[] = "/tmp/loom-memfd-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  const std::string target = std::string(dir) + "/target", link = std::string(dir) + "/stats.json";
  FILE* t = std::fopen(target.c_str(), "w");
  std::fputs("keep me\n", t);
  std::fclose(t);
  if (symlink(target.c_str(), link.c_str()) != 0) return 2;
  setenv("LOOM_STATS_FILE", link.c_str(), 1);

  mr_init(&argc, &argv);
  const int fd = loom::rt.tp.data_fd();
  struct stat st;
  CHECK(fd >= 0 && fstat(fd, &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const int seals = fcntl(fd, F_GET_SEALS);
  CHECK(seals >= 0 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_GROW) && (seals & F_SEAL_SEAL));
  CHECK(ftruncate(fd, 4096) != 0 && errno == EPERM);
  CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) != 0);  // sealed against further seals too

  long passed = mr_passed, failed = mr_failed;
  loom_status_t s = loom_finalize();
  char buf[64] = "";
  t = std::fopen(target.c_str(), "r");
  if (t) {
    if (!std::fgets(buf, sizeof buf, t)) buf[0] = 0;
    std::fclose(t);
  }
  const bool kept = std::strcmp(buf, "keep me\n") == 0;
  if (!kept) failed++;
  else passed++;
  if (s != LOOM_OK) failed++;
  unlink(link.c_str());
  unlink(target.c_str());
  rmdir(dir);
  std::printf("memfd_rights: %ld passed, %ld failed%s\n", passed, failed, kept ? "" : " (the stats went through the link)");
  return failed ? 1 : 0;
}
