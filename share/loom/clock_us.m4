dnl CLOCK in microseconds (gettimeofday), read after a PARMACS macro file:
dnl make MACROS="<macros> clock_us.m4".  SPLASH-3's pthreads macros count
dnl seconds; with this the threads and Loom builds time alike.
divert(-1)
define(`CLOCK', `{struct timeval loom_tv_; gettimeofday(&loom_tv_, NULL); ($1) = (unsigned long)loom_tv_.tv_sec * 1000000UL + (unsigned long)loom_tv_.tv_usec;}')
define(`INCLUDES', defn(`INCLUDES')`#include <sys/time.h>
')
divert(0)
