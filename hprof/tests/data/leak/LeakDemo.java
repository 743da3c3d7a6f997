import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A program that leaks a known structure, for the heap-diff, leak-suspects and
 * duplicate-strings tests: a static HashMap<String, byte[]> that grows by a known amount
 * between two heap dumps, plus a known number of duplicated strings.
 *
 *   javac LeakDemo.java && java -Xmx64m -XX:+UseSerialGC LeakDemo baseline.hprof current.hprof
 *
 * Dump 1 (baseline): CACHE holds 1,000 entries "key-0" … "key-999" → byte[512].
 * Dump 2 (current):  CACHE holds 3,000 entries (2,000 more, keys "key-1000" … "key-2999").
 * Both dumps: DUPLICATES holds 300 distinct String objects equal to "duplicate-me" and 40
 * equal to "another duplicate".
 */
public class LeakDemo {
    static final Map<String, byte[]> CACHE = new HashMap<>();
    static final List<String> DUPLICATES = new ArrayList<>();

    static void grow(int from, int to) {
        for (int i = from; i < to; i++) {
            CACHE.put("key-" + i, new byte[512]);
        }
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 300; i++) {
            DUPLICATES.add(new String("duplicate-me".toCharArray()));
        }
        for (int i = 0; i < 40; i++) {
            DUPLICATES.add(new String("another duplicate".toCharArray()));
        }
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        grow(0, 1000);
        bean.dumpHeap(args[0], true);
        grow(1000, 3000);
        bean.dumpHeap(args[1], true);
    }
}
