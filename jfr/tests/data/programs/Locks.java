// Lock-contended: threads fight over one monitor and wait/notify on another.
public class Locks {
    static final Object hot = new Object();
    static final Object mailbox = new Object();
    static long counter = 0;
    static int messages = 0;

    static void work() {
        synchronized (hot) {
            long x = 0;
            for (int i = 0; i < 200_000; i++) x += i ^ counter;
            counter += x & 1;
        }
    }

    public static void main(String[] args) throws Exception {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        long end = System.currentTimeMillis() + millis;
        Thread[] workers = new Thread[4];
        for (int t = 0; t < workers.length; t++) {
            workers[t] = new Thread(() -> {
                while (System.currentTimeMillis() < end) work();
            }, "worker-" + t);
            workers[t].start();
        }
        Thread consumer = new Thread(() -> {
            synchronized (mailbox) {
                while (System.currentTimeMillis() < end) {
                    try {
                        mailbox.wait(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "consumer");
        consumer.start();
        while (System.currentTimeMillis() < end) {
            Thread.sleep(30);
            synchronized (mailbox) {
                messages++;
                mailbox.notifyAll();
            }
        }
        for (Thread w : workers) w.join();
        consumer.join();
        System.out.println("locks " + counter + " " + messages);
    }
}
