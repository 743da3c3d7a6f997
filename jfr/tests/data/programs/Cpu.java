// CPU-bound: recursive work in a few methods, so execution samples have deep, varied stacks.
public class Cpu {
    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static double primes(int limit) {
        double sum = 0;
        outer:
        for (int i = 2; i < limit; i++) {
            for (int j = 2; (long) j * j <= i; j++) {
                if (i % j == 0) continue outer;
            }
            sum += Math.sqrt(i);
        }
        return sum;
    }

    public static void main(String[] args) {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        long end = System.currentTimeMillis() + millis;
        long acc = 0;
        while (System.currentTimeMillis() < end) {
            acc += fib(27);
            acc += (long) primes(200_000);
        }
        System.out.println("cpu " + acc);
    }
}
