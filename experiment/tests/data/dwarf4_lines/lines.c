/* Source-line profile test (DWARF 4, -O0): hot loops on distinct lines, a helper from a
   header, recursion and heap allocations at known lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mix.h"
volatile double sink;
void *volatile keep;
static double square(double x)
{
  return x * x;
}
__attribute__((noinline)) double loop_a(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    s += (double) i * 0.5;
  for (long i = 0; i < n; i++)
    s += square((double) (i & 15));
  return s;
}
__attribute__((noinline)) double loop_b(long n)
{
  double s = 1;
  for (long i = 0; i < n; i++) {
    s = s * 1.0000001;
    if (s > 2.0)
      s -= 1.0;
  }
  return s;
}
__attribute__((noinline)) double loop_h(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    s = mix(s, i);
  return s;
}
/* padding: the functions below start past line 100, so rows of one function compare
   lines numerically (100 after 99), not as text. */













































__attribute__((noinline)) double down(int depth, long n)
{
  if (depth == 0)
    return loop_b(n);
  return down(depth - 1, n) + 1.0;
}
__attribute__((noinline)) void allocate(int k)
{
  for (int i = 0; i < k; i++) {
    char *p = malloc(100 + i);
    memset(p, 0, 16);
    if (i % 3 == 0)
      keep = p;
    else
      free(p);
  }
  keep = calloc(4, 1000);
}
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 60000000L;
  sink += loop_a(n);
  sink += loop_b(n);
  sink += loop_h(n);
  sink += down(3, n / 2);
  allocate(30);
  printf("%g\n", (double) sink);
  return 0;
}
