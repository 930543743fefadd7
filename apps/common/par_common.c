/* Parts of the portability layer shared by both builds: argument and
 * output helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

static const char* find(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1] == '-' && !strcmp(argv[i] + 2, name)) return i + 1 < argc ? argv[i + 1] : "";
  return NULL;
}

int par_help_mode;

int par_help_start(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      par_help_mode = 1;
      printf("usage: %s [--option value ...]\n\noptions of the %s build, with their defaults:\n", argv[0], par_build());
      if (!strcmp(par_build(), "threads"))
        printf("  --%-14s %s\n", "workers", "$PAR_WORKERS or 2 (threads; the loom build has one worker per rank: mpiexec -n N)");
      return 1;
    }
  return 0;
}

void par_help_stop(void) {
  if (!par_help_mode) return;
  printf("\nA run prints one line, RESULT {...}: the measured time, whether the answer validated, and in the\n"
         "loom build where Loom's time went.  LOOM_* variables configure Loom (LOOM_PRINT_CONFIG=1 lists them).\n");
  exit(0);
}

int par_arg_int(int argc, char** argv, const char* name, int dflt) {
  if (par_help_mode) printf("  --%-14s %d\n", name, dflt);
  const char* v = find(argc, argv, name);
  return v && *v ? atoi(v) : dflt;
}

double par_arg_double(int argc, char** argv, const char* name, double dflt) {
  if (par_help_mode) printf("  --%-14s %g\n", name, dflt);
  const char* v = find(argc, argv, name);
  return v && *v ? atof(v) : dflt;
}

int par_arg_flag(int argc, char** argv, const char* name) {
  if (par_help_mode) printf("  --%-14s (a flag)\n", name);
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1] == '-' && !strcmp(argv[i] + 2, name)) return 1;
  return 0;
}

const char* par_json_num(char* buf, size_t len, int have, double v) {
  if (have) snprintf(buf, len, "%.3e", v);
  else snprintf(buf, len, "null");
  return buf;
}
