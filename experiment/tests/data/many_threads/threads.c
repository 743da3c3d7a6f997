/* Many threads: 24 workers, each allocating through its own chain of
   functions (three stack shapes by thread number), and spinning. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define NTHREADS 24
void *volatile keep;
volatile double sink;
__attribute__((noinline)) void *leaf_alloc(int id, int i) { return malloc(16 * (id + 1) + i); }
__attribute__((noinline)) void *via_a(int id, int i) { void *p = leaf_alloc(id, i); sink += 1; return p; }
__attribute__((noinline)) void *via_b(int id, int i) { void *p = via_a(id, i); sink += 1; return p; }
__attribute__((noinline)) double spin(long n)
{ double s = 0; for (long i = 0; i < n; i++) s += (double) i * 0.5; return s; }
static void *worker(void *arg)
{
  int id = (int) (long) arg;
  for (int i = 0; i < 8; i++) {
    void *p = id % 3 == 0 ? leaf_alloc(id, i) : id % 3 == 1 ? via_a(id, i) : via_b(id, i);
    if (i != 7) free(p); else keep = p; /* the last one leaks */
  }
  sink += spin(20000000L);
  return NULL;
}
int main(void)
{
  pthread_t t[NTHREADS];
  for (long i = 0; i < NTHREADS; i++) pthread_create(&t[i], NULL, worker, (void *) i);
  sink += spin(600000000L);
  for (int i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
  printf("%g\n", (double) sink);
  return 0;
}
