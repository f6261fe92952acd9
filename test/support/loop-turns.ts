/** CPU spent on purpose: a socket write, slowed down. */
export function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * Work done per turn of the event loop until `done()`, seen by an immediate that re-arms
 * itself: `visited()` counts the work (items sent), so a busy machine, which stretches every
 * turn's time, cannot move the figures — a fan-out in one turn shows as one large count.
 */
export async function visitsPerTurn(visited: () => number, done: () => boolean): Promise<number[]> {
  const turns: number[] = [];
  let last = visited();
  await new Promise<void>((resolve) => {
    const probe = (): void => {
      const now = visited();
      turns.push(now - last);
      last = now;
      if (done()) resolve();
      else setImmediate(probe);
    };
    setImmediate(probe);
  });
  return turns;
}
