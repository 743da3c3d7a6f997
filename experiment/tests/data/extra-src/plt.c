/* Calls a one-instruction function of a shared library through its PLT in a tight loop:
   clock ticks land in the PLT stub, which gprofng leaves out of the stack. */
#include <stdio.h>
int tiny(int);
__attribute__((noinline)) long caller(long n) { long s = 0; for (long i = 0; i < n; i++) s += tiny((int) i); return s; }
int main(void) { printf("%ld\n", caller(1500000000L)); return 0; }
