/* Deep recursion: stacks deeper than the 256-frame unwind limit (truncation
   marker), plus repeated identical/suffix-sharing stacks (frameinfo compression). */
#include <stdio.h>
#include <stdlib.h>
void *volatile keep;
volatile double sink;
__attribute__((noinline)) void alloc_at(int depth)
{ keep = malloc(32 + depth); free(keep); }
__attribute__((noinline)) void dive(int depth, int target)
{
  if (depth == target) { alloc_at(depth); return; }
  dive(depth + 1, target);
  sink += 1.0; /* prevent tail call */
}
__attribute__((noinline)) double busy(int depth, long n)
{
  if (depth > 0) return busy(depth - 1, n) + 1.0;
  double s = 0; for (long i = 0; i < n; i++) s += (double) i * 0.5; return s;
}
int main(void)
{
  static const int depths[] = { 1, 2, 50, 253, 254, 255, 256, 257, 258, 300, 400 };
  for (unsigned t = 0; t < sizeof depths / sizeof depths[0]; t++) dive(0, depths[t]); /* distinct depths around the 256-frame limit */
  for (int k = 0; k < 3; k++) dive(0, 300);          /* same deep stack repeated */
  sink += busy(300, 2000000000L);                   /* deep clock samples */
  printf("%g\n", (double) sink);
  return 0;
}
