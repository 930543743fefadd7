/* wake.c: how late a napping thread wakes beside a thread that computes on
 * the same core (both pinned to CPU 0), as Loom's protocol thread naps
 * beside the application thread on a host whose core it shares.
 *
 *   gcc -O2 -pthread wake.c -o wake
 *   ./wake SLICE_US NAP_US N BUSY_US SPINNER_NICE
 *
 * The napper sleeps NAP_US (timer slack 1 us) N times, computing BUSY_US
 * after each wake (as the protocol thread serves a request); SLICE_US > 0
 * asks the scheduler for that slice (sched_setattr, EEVDF's custom slice);
 * SPINNER_NICE > 0 raises the computing thread's nice value.  Prints the
 * lateness of the wakes: median, p90, p99, max, and how many were over
 * 1 ms.  Results: sweep.txt (docs/BENCHMARKS.md, "Tried on 2026-12-08"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
struct sched_attr { uint32_t size, sched_policy; uint64_t sched_flags; int32_t sched_nice; uint32_t sched_priority; uint64_t sched_runtime, sched_deadline, sched_period; uint32_t sched_util_min, sched_util_max; };
static volatile int stop;
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
static int spin_nice; 
static void* spin(void* a) { pin(0); if (spin_nice) setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), spin_nice); volatile double x = 1; while (!stop) x = x * 1.0000001 + 1e-9; return NULL; }
static int cmp(const void* a, const void* b) { long x = *(long*)a, y = *(long*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
  long slice_us = argc > 1 ? atol(argv[1]) : 0, nap_us = argc > 2 ? atol(argv[2]) : 50;
  int n = argc > 3 ? atoi(argv[3]) : 4000; long busy_us = argc > 4 ? atol(argv[4]) : 0; spin_nice = argc > 5 ? atoi(argv[5]) : 0;
  pin(0);
  prctl(PR_SET_TIMERSLACK, 1000UL);
  if (slice_us) {
    struct sched_attr at; memset(&at, 0, sizeof at); at.size = sizeof at; at.sched_policy = SCHED_OTHER; at.sched_runtime = slice_us * 1000;
    if (syscall(SYS_sched_setattr, 0, &at, 0) != 0) { perror("sched_setattr"); return 1; }
  }
  pthread_t th; pthread_create(&th, NULL, spin, NULL);
  usleep(100000);
  long* d = malloc(n * sizeof(long));
  for (int i = 0; i < n; i++) {
    long t0 = now_ns();
    struct timespec ts = {0, nap_us * 1000};
    nanosleep(&ts, NULL);
    d[i] = now_ns() - t0 - nap_us * 1000;
    { long e = now_ns() + busy_us * 1000; while (now_ns() < e) ; }
  }
  stop = 1; pthread_join(th, NULL);
  qsort(d, n, sizeof(long), cmp);
  int over = 0; for (int i = 0; i < n; i++) over += d[i] > 1000000;
  printf("over1ms %d of %d; ", over, n);
  printf("spinner nice %d busy %ld us slice %ld us nap %ld us: late median %.1f us p90 %.1f p99 %.1f max %.1f\n", spin_nice, busy_us, slice_us, nap_us, d[n/2]/1e3, d[n*9/10]/1e3, d[n*99/100]/1e3, d[n-1]/1e3);
  return 0;
}
