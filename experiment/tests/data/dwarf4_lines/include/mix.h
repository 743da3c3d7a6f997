/* A helper defined in a header: its lines belong to this file, not to lines.c. */
static double mix(double a, long i)
{
  double t = a * 0.999;
  t += (double) (i % 7);
  return t;
}
