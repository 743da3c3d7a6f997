#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
volatile double sink;
__attribute__((noinline)) double leaf(long n) { double s = 0; for (long i = 0; i < n; i++) s += (double) i * 0.5; return s; }
__attribute__((noinline)) double other(long n) { double s = 1; for (long i = 0; i < n; i++) s *= 1.0000001; return s; }
__attribute__((noinline)) double work(long n) { return leaf(n) + other(n / 2); }
int main(void)
{
  pid_t pid = fork();
  if (pid == 0) { sink += other(300000000L); _exit(0); }
  sink += work(600000000L);
  waitpid(pid, NULL, 0);
  return 0;
}
