// C++ names as gprofng prints them: namespaces, templates, methods (const,
// operators, constructors), lambdas, anonymous namespaces, overloads, and
// GCC's clones (.constprop, .isra, .part, .cold) of C++ and extern "C"
// functions. Heap tracing gives every allocation its full stack.
#include <cstdio>
#include <cstdlib>
#include <cstring>
void *volatile keep;
volatile double sink;

namespace geom {
template <typename T> struct Box {
  T *items;
  __attribute__((noinline)) explicit Box(int n) { items = (T *) malloc(sizeof(T) * n); keep = items; }
  __attribute__((noinline)) T *grow(int n) const { return (T *) malloc(sizeof(T) * (n + 1)); }
  __attribute__((noinline)) void *operator()(unsigned long n) { return malloc(n); }
};
__attribute__((noinline)) void *alloc(int n) { return malloc(n); }
__attribute__((noinline)) void *alloc(double d) { return malloc((size_t) d); }
template <typename T, int N> struct Vec { T data[N]; int size() const { return N; } };
__attribute__((noinline)) void *alloc(const char *s, Vec<int, 3> &v) { return malloc(strlen(s) + v.size()); }
} // namespace geom

namespace {
__attribute__((noinline)) void *hidden(long n) { return malloc(n); }
}

struct Config { int a, b, c, d; long size; };
// Called with a constant: ipa-cp makes a .constprop clone.
static __attribute__((noinline)) void *sized(int n, int scale) { return malloc((size_t) n * scale + (keep != 0)); }
// Only one field of the struct used: ipa-sra makes an .isra clone.
static __attribute__((noinline)) void *by_config(const Config *c) { return malloc(c->size); }
// Hot early exit, big cold body: ipa-split makes a .part clone.
static void *split_me(int n)
{
  if (__builtin_expect(n < 100, 1)) return 0;
  char *p = (char *) malloc(n);
  for (int i = 0; i < n; i++) p[i] = (char) (i * 7 + n);
  for (int i = 1; i < n; i++) p[i] ^= p[i - 1];
  sink += p[n / 2];
  return p;
}
__attribute__((noinline)) void *use_split(int n) { return split_me(n); }
__attribute__((noinline)) void *use_split2(int n) { return split_me(n + 1); }
// An unlikely branch: hot/cold partitioning puts it in a .cold part.
__attribute__((noinline)) void *maybe_cold(int n)
{
  if (__builtin_expect(n > 1000, 0)) {
    fprintf(stderr, "cold path %d\n", n);
    return malloc(n);
  }
  return (void *) 0;
}

extern "C" {
static __attribute__((noinline)) void *c_sized(int n, int scale) { return malloc((size_t) n * scale + (keep != 0)); }
__attribute__((noinline)) void *c_entry(int n) { return c_sized(n, 3); }
}

__attribute__((noinline)) double spin(long n)
{ double s = 0; for (long i = 0; i < n; i++) s += (double) i * 0.5 + (double) (i & 7); return s; }

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 3000000000L;
  geom::Box<double> box(10);
  keep = box.grow(20);
  keep = box(64);
  keep = geom::alloc(32);
  keep = geom::alloc(48.0);
  geom::Vec<int, 3> v = {};
  keep = geom::alloc("abc", v);
  keep = hidden(80);
  keep = sized(10, 4);
  keep = sized(20, 4);
  Config c = { 1, 2, 3, 4, 96 };
  keep = by_config(&c);
  keep = use_split(500);
  keep = use_split2(600);
  keep = maybe_cold(2000);
  keep = c_entry(40);
  auto lambda = [](int k) { return malloc(k * 2); };
  keep = lambda(50);
  sink += spin(n);
  printf("%g\n", (double) sink);
  return 0;
}
