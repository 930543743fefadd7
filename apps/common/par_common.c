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

int par_arg_int(int argc, char** argv, const char* name, int dflt) {
  const char* v = find(argc, argv, name);
  return v && *v ? atoi(v) : dflt;
}

double par_arg_double(int argc, char** argv, const char* name, double dflt) {
  const char* v = find(argc, argv, name);
  return v && *v ? atof(v) : dflt;
}

int par_arg_flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1] == '-' && !strcmp(argv[i] + 2, name)) return 1;
  return 0;
}

const char* par_json_num(char* buf, size_t len, int have, double v) {
  if (have) snprintf(buf, len, "%.3e", v);
  else snprintf(buf, len, "null");
  return buf;
}
