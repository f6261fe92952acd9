/*
 * The race harness's attacker (test/support/swapper.ts): swaps the entry A (a folder or a file
 * inside the workspace) with the entry B (a symbolic link to the outside) by plain rename(2),
 * back and forth, for a given time at a given rate:
 *
 *   rename(A, HOLD); rename(B, A);   -- A is now the link (one swap)
 *   rename(A, B);    rename(HOLD, A) -- A is the real entry again (one swap)
 *
 * with a pause of 1/rate s after each pair. Prints "<swaps> <elapsed ms>" and exits with A
 * the real entry again. Usage: swapper A B HOLD duration-ms swaps-per-second
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void pause_ns(long ns) {
  struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: swapper A B HOLD duration-ms swaps-per-second\n");
    return 2;
  }
  const char *a = argv[1], *b = argv[2], *hold = argv[3];
  double duration = atof(argv[4]);
  long gap = (long)(1e9 / atof(argv[5]));
  long swaps = 0;
  double start = now_ms();
  while (now_ms() - start < duration) {
    if (rename(a, hold) != 0 || rename(b, a) != 0) { perror("swap to link"); return 1; }
    swaps++;
    pause_ns(gap);
    if (rename(a, b) != 0 || rename(hold, a) != 0) { perror("swap back"); return 1; }
    swaps++;
    pause_ns(gap);
  }
  printf("%ld %.1f\n", swaps, now_ms() - start);
  return 0;
}
