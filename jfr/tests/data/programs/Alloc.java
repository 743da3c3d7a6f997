// Allocation-heavy: arrays, strings and lists of varied sizes, some kept, most dropped.
import java.util.ArrayList;
import java.util.List;

public class Alloc {
    static List<Object> keep = new ArrayList<>();

    static byte[] bytes(int n) { return new byte[n]; }

    static String text(int i) { return "item-" + i + "-" + Integer.toHexString(i * 31); }

    public static void main(String[] args) {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        long end = System.currentTimeMillis() + millis;
        long total = 0;
        int i = 0;
        while (System.currentTimeMillis() < end) {
            byte[] b = bytes(64 + (i % 4096));
            total += b.length;
            String s = text(i);
            total += s.length();
            if (i % 1000 == 0) {
                keep.add(new long[16 * 1024]);
                if (keep.size() > 200) keep.clear();
            }
            if (i % 50_000 == 0) {
                keep.add(new int[1 << 20]);
            }
            i++;
        }
        System.out.println("alloc " + total + " " + keep.size());
    }
}
