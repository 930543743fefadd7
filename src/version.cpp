// loom_version and loom_build_info: what the program runs with.
#include <mpi.h>

#include <cstdio>
#include <cstring>

#include "loom/loom.h"
#include "loom_buildinfo.h"  // generated at build time (cmake/buildinfo.cmake)

extern "C" {

const char* loom_version(void) { return LOOM_VERSION; }

const char* loom_build_info(void) {
  // MPI_Get_library_version may be called before MPI_Init and after
  // MPI_Finalize; its first line names the library and version.
  static char buf[1024];
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  if (MPI_Get_library_version(mpi, &len) != MPI_SUCCESS) std::snprintf(mpi, sizeof mpi, "unknown");
  mpi[std::strcspn(mpi, "\n\r\t")] = 0;
  // One line, no JSON specials, runs of blanks as one.
  char* o = mpi;
  for (const char* c = mpi; *c; c++) {
    if (*c == ' ' && o > mpi && o[-1] == ' ') continue;
    *o++ = (*c == '"' || *c == '\\') ? '\'' : *c;
  }
  *o = 0;
  std::snprintf(buf, sizeof buf,
                "{\"version\": \"%s\", \"commit\": \"%s\", \"commit_date\": \"%s\", \"compiler\": \"%s\", \"mpi\": \"%s\"}",
                LOOM_VERSION, LOOM_BUILD_COMMIT, LOOM_BUILD_DATE, LOOM_COMPILER, mpi);
  return buf;
}

}  // extern "C"
