/* The starting point of docs/TUTORIAL.md, part 1: a histogram of a large
 * array with POSIX threads.  main fills the input, T workers each count a
 * block of it into a private histogram and add it into the shared one under
 * a mutex, main prints a checksum.
 *   histogram_pthreads [T]        (default 2 threads) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 22)
#define BINS 256

static uint32_t input[N];           /* shared: every thread reads it */
static uint64_t histogram[BINS];    /* shared: every thread adds into it */
static pthread_mutex_t hist_lock = PTHREAD_MUTEX_INITIALIZER;
static int nthreads;

static void *worker(void *arg) {
  const long id = (long)arg;
  const long lo = N * id / nthreads, hi = N * (id + 1) / nthreads;
  uint64_t mine[BINS] = {0};
  for (long i = lo; i < hi; i++) mine[input[i] % BINS]++;
  pthread_mutex_lock(&hist_lock);
  for (int b = 0; b < BINS; b++) histogram[b] += mine[b];
  pthread_mutex_unlock(&hist_lock);
  return NULL;
}

int main(int argc, char **argv) {
  nthreads = argc > 1 ? atoi(argv[1]) : 2;
  uint32_t x = 12345;
  for (long i = 0; i < N; i++) input[i] = x = x * 1664525u + 1013904223u; /* same numbers every run */
  pthread_t t[64];
  for (long id = 0; id < nthreads; id++) pthread_create(&t[id], NULL, worker, (void *)id);
  for (long id = 0; id < nthreads; id++) pthread_join(t[id], NULL);
  uint64_t total = 0, check = 0;
  for (int b = 0; b < BINS; b++) total += histogram[b], check += histogram[b] * (uint64_t)(b + 1);
  printf("histogram of %ld values: total %llu, checksum %llu\n", (long)N, (unsigned long long)total,
         (unsigned long long)check);
  return total != N;
}
