// Keeps a dms's workers busy while the consumer works (issue 28). A generator that sends its next request only
// when the consumer asks for the next answer leaves the dms idle whenever the consumer is slower for a moment:
// on the slow profile the four requests of a round finished together and sat unread while the service evaluated
// the first of them, and the next round went out only then. Here an answer that arrives frees its slot at once.

/**
 * The answers of `requests`, in order: at most `inFlight` unanswered at any moment, and at most
 * `inFlight + held` sent and not yet taken by the consumer (the answer it is working on counts until it asks for
 * the next one), which bounds the pages held in memory. With `held` 0 and `inFlight` 1 a request goes out only
 * when the consumer asks for the next answer. A failed request fails the read where its answer is taken.
 */
export async function* pumpRequests<T>(
  requests: Iterator<() => Promise<T>>,
  inFlight: number,
  held: number,
): AsyncGenerator<T> {
  const slots = Math.max(1, Math.floor(inFlight));
  const most = slots + Math.max(0, Math.floor(held));
  const untaken: Array<Promise<T>> = [];
  let unanswered = 0;
  let exhausted = false;
  const fill = () => {
    while (!exhausted && unanswered < slots && untaken.length < most) {
      const next = requests.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      unanswered++;
      const answer = next.value().finally(() => {
        unanswered--;
        fill();
      });
      // Its failure is reported where the consumer takes it, not as an unhandled rejection meanwhile.
      answer.catch(() => undefined);
      untaken.push(answer);
    }
  };
  try {
    fill();
    while (untaken.length > 0) {
      const answer = await untaken[0];
      yield answer;
      untaken.shift();
      fill();
    }
  } finally {
    // A consumer that stops early: no further requests (those under way finish unread).
    exhausted = true;
  }
}
