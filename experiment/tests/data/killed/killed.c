/* Target killed by SIGKILL: experiment is never closed (no exit event). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
volatile double sink;
int main(void)
{
  for (int i = 0; i < 100; i++) { void *p = malloc(100 + i); if (i % 2) free(p); }
  for (long i = 0; i < 1500000000L; i++) sink += (double) i;
  fflush(stdout);
  kill(getpid(), SIGKILL);
  return 0;
}
