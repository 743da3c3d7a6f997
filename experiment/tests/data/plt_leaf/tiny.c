int tiny(int x) { return x + 1; }
