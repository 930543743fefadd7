/* Ranks printing at once keep their lines whole, as a pthreads program's
 * threads do.  MPICH's MPI_Init leaves stdout unbuffered, where puts()
 * writes a line's text and its newline separately and two ranks' lines run
 * together ("...endline r=1..."); Loom makes such a stdout line-buffered
 * (api.cpp, whole_output_lines).  Both ranks print many lines with puts and
 * printf at once; ctest fails the run if a line's end is followed by
 * anything but a newline (which happens only sometimes, so each rank also
 * checks that stdout is not unbuffered after loom_init).  With argument "unbuffered" the program makes
 * stdout unbuffered itself before loom_init: Loom must leave that alone.
 * With "lines-only" it only prints (no check of stdout's buffering), so
 * that a library without the change can be timed and counted beside it
 * (docs/ARCHITECTURE.md, "SPLASH-3 through the PARMACS macros"). */
#include <loom/loom.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

int main(int argc, char** argv) {
  const int mine = argc > 1 && strcmp(argv[1], "unbuffered") == 0;
  const int lines_only = argc > 1 && strcmp(argv[1], "lines-only") == 0;
  if (mine) setvbuf(stdout, NULL, _IONBF, 0);
  if (loom_init(&argc, &argv, NULL) != LOOM_OK) {
    fprintf(stderr, "loom_init: %s\n", loom_last_error());
    return 1;
  }
  const int r = loom_rank();
  if (mine && __fbufsize(stdout) != 1) {
    fprintf(stderr, "rank %d: stdout was made unbuffered by the program, and Loom changed it\n", r);
    return 1;
  }
  if (!mine && !lines_only && __fbufsize(stdout) == 1) {  /* deterministic; the lines below break only sometimes */
    fprintf(stderr, "rank %d: stdout is unbuffered after loom_init: lines printed at once will break\n", r);
    return 1;
  }
  if (loom_barrier() != LOOM_OK) return 1;
  if (!mine) {
    char line[64];
    for (int i = 0; i < 3000; i++) {
      snprintf(line, sizeof line, "line r=%d i=%d end", r, i);
      puts(line);
      printf("line r=%d i=%d (printf) end\n", r, i);
    }
  }
  if (loom_barrier() != LOOM_OK) return 1;
  fflush(stdout);
  if (loom_barrier() != LOOM_OK) return 1;
  if (r == 0) printf("stdout_lines: done\n");
  return loom_finalize() == LOOM_OK ? 0 : 1;
}
