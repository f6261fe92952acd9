/*
 * The race harness's attacker (test/support/swapper.ts): swaps the entry A (a folder or a file
 * inside the workspace) with the entry B (a symbolic link to the outside) by plain rename(2),
 * back and forth, for a given time at a given rate:
 *
 *   rename(A, HOLD); rename(B, A);   -- A is now the link (one swap)
 *   rename(A, B);    rename(HOLD, A) -- A is the real entry again (one swap)
 *
 * with a pause of 1/rate s after each pair. While A is missing (between the two renames of a
 * pair) the service may make a folder A again (a Write or restore creating its parents); then
 * the rename onto A fails and that folder is moved aside to "A.made-<n>" first (it stays inside
 * the workspace), again for each folder made before the rename lands. Prints "<swaps>
 * <elapsed ms> <folders moved aside>" and exits with A the real entry again.
 * Usage: swapper A B HOLD duration-ms swaps-per-second
 */
#include <errno.h>
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

/*
 * rename(from, to); a folder made at `to` meanwhile is moved aside to "to.made-<n>" first, as
 * often as the service makes one again between the two renames (several clients may).
 */
static int place(const char *from, const char *to, long *made) {
  for (int tries = 0; tries < 1000; tries++) {
    if (rename(from, to) == 0) return 0;
    if (errno != EISDIR && errno != ENOTEMPTY && errno != EEXIST && errno != ENOTDIR) return -1;
    char aside[4096];
    snprintf(aside, sizeof aside, "%s.made-%ld", to, *made);
    if (rename(to, aside) != 0) return -1;
    (*made)++;
  }
  return -1;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: swapper A B HOLD duration-ms swaps-per-second\n");
    return 2;
  }
  const char *a = argv[1], *b = argv[2], *hold = argv[3];
  double duration = atof(argv[4]);
  long gap = (long)(1e9 / atof(argv[5]));
  long swaps = 0, made = 0;
  double start = now_ms();
  while (now_ms() - start < duration) {
    if (rename(a, hold) != 0 || place(b, a, &made) != 0) { perror("swap to link"); return 1; }
    swaps++;
    pause_ns(gap);
    if (rename(a, b) != 0 || place(hold, a, &made) != 0) { perror("swap back"); return 1; }
    swaps++;
    pause_ns(gap);
  }
  printf("%ld %.1f %ld\n", swaps, now_ms() - start, made);
  return 0;
}
