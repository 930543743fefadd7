/* What a sched_yield costs beside a thread that computes on the same core:
 * one thread spins, the other naps 200 us and then yields, 200 times; the
 * yield's time, median, 90th percentile and longest.
 *   gcc -O2 -pthread yield.c -o /tmp/yield && taskset -c 1 /tmp/yield     # one core
 *   taskset -c 0,1 /tmp/yield                                            # two */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}
static volatile int stop;
static void* spin(void* a) {
  volatile double x = 1;
  while (!stop) x = x * 1.0000001 + 1e-9;
  return a;
}
static int cmp(const void* a, const void* b) {
  const long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}
int main(void) {
  enum { N = 200 };
  long took[N];
  pthread_t t;
  pthread_create(&t, 0, spin, 0);
  for (int i = 0; i < N; i++) {
    struct timespec nap = {0, 200000};
    nanosleep(&nap, 0);
    const long t0 = now_ns();
    sched_yield();
    took[i] = now_ns() - t0;
  }
  stop = 1;
  pthread_join(t, 0);
  qsort(took, N, sizeof took[0], cmp);
  printf("sched_yield beside a spinning thread: median %ld us, 90th percentile %ld us, longest %ld us\n",
         took[N / 2] / 1000, took[N * 9 / 10] / 1000, took[N - 1] / 1000);
  return 0;
}
