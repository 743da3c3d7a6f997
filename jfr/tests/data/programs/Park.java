// Thread-parking: a ReentrantLock, a blocking queue and timed parks between producer and consumers.
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

public class Park {
    static final ReentrantLock lock = new ReentrantLock();
    static long shared = 0;

    static void critical() {
        lock.lock();
        try {
            for (int i = 0; i < 100_000; i++) shared += i;
            LockSupport.parkNanos(2_000_000);
        } finally {
            lock.unlock();
        }
    }

    public static void main(String[] args) throws Exception {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        long end = System.currentTimeMillis() + millis;
        BlockingQueue<Integer> queue = new ArrayBlockingQueue<>(4);
        Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                while (System.currentTimeMillis() < end) {
                    critical();
                    try {
                        queue.poll(15, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "parker-" + t);
            threads[t].start();
        }
        int n = 0;
        while (System.currentTimeMillis() < end) {
            queue.offer(n++, 20, TimeUnit.MILLISECONDS);
            Thread.sleep(25);
        }
        for (Thread t : threads) t.join();
        System.out.println("park " + shared + " " + n);
    }
}
